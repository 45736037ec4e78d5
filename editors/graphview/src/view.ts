// The state one viewer shares between its modules. render() (index.ts) makes one View; every
// module's functions take it as their first argument. A module calls what lives in a module it
// imports directly, and what lives above it (selection, details) through `act`, so that the
// imports only point one way.

import type cytoscape from 'cytoscape';
import type { GraphNode, RenderOptions, RenderStats, ThemeName, WorkflowGraph } from './types';
import type { Model } from './elements';
import type { Palette } from './theme';
import type { Measure } from './text';
import type { Chrome } from './chrome';
import type { LaidOut } from './layout';

/** A node's (or a collapsed lane box's) diagnostics, summed over what it stands for. */
export interface ProblemSummary {
  severity: string;
  count: number;
  messages: string[];
}

/** The viewer's actions: what its buttons, keys and handle do. */
export interface Actions {
  fit(whole?: boolean): void;
  zoomBy(f: number): void;
  toggleAllAgents(): void;
  toggleLegend(): void;
  toggleDetails(): void;
  select(id: string | null, reveal?: boolean): void;
  refreshDetails(): void;
}

export interface View {
  readonly doc: Document;
  readonly ui: Chrome;
  readonly cy: cytoscape.Core;
  readonly options: RenderOptions;
  readonly onReveal?: (node: GraphNode) => void;
  readonly act: Actions;
  graph: WorkflowGraph;
  model: Model;
  themeOpt: ThemeName;
  palette: Palette;
  /** Whether the page was dark when the theme was last applied (theme 'auto' follows the page). */
  lastDark: boolean;
  readonly collapsed: Set<string>;
  /** USER_INPUT node ids whose turn is folded into them. */
  readonly collapsedTurns: Set<string>;
  /** Folded turn head → how many nodes it stands for (refreshed by turnMembers). */
  readonly turnSize: Map<string, number>;
  /** Node id (or lane box id) → its problems (refreshed by applyProblems). */
  readonly problemsOf: Map<string, ProblemSummary>;
  /** Canvas text measures by CSS font. */
  readonly measures: Map<string, Measure>;
  readonly stats: RenderStats;
  /** The view was last set by Fit: a resize fits again. */
  fitted: boolean;
  /** The last Fit showed the whole graph (⤢). */
  lastWhole: boolean;
  /** What the last layout placed (lane boxes, nodes, their bounds): the first view and the overview. */
  laid?: LaidOut;
  /** Set while the first render has drawn only what its first view shows: adds the rest at once.
   *  Whatever reads or changes the whole graph (a relayout, search, select) calls it first. */
  complete?: () => void;
  /** The overview's last scale and offset (overview.ts). */
  overviewFrame?: { s: number; ox: number; oy: number } | null;
  query: string;
  matchAt: number;
  selected: string | null;
  destroyed: boolean;
}

/** The lane a node is drawn in: its own, else the main lane. */
export function laneOfNode(n: GraphNode): string {
  return typeof n.lane === 'string' && n.lane ? n.lane : 'main';
}
