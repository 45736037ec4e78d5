// The workflow graph, exactly as docs/spec.md §4 defines it (result of `ccdag/workflowGraph` and
// `ccdag graph --format json`). Every string in it comes from a log and is untrusted.

export type NodeKind = 'USER_INPUT' | 'THOUGHT' | 'ACTION' | 'OBSERVATION' | 'SYSTEM';
export type EdgeKind = 'flow' | 'tool' | 'spawn' | 'return' | 'compact';

export interface Position {
  line: number;
  character: number;
}

export interface Location {
  uri: string;
  range?: { start: Position; end: Position };
}

export interface SessionFile {
  uri: string;
  lane: string;
}

export interface Lane {
  id: string;
  label?: string;
  agentId?: string;
  subagentType?: string;
  parentNode?: string;
  depth?: number;
}

export interface GraphNode {
  id: string;
  kind: NodeKind | string;
  lane: string;
  label?: string;
  active?: boolean;
  uuids?: string[];
  location?: Location;
  timestamp?: string;
  toolName?: string;
  toolUseId?: string;
  status?: 'success' | 'failure' | string;
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  durationMs?: number;
  [extra: string]: unknown;
}

export interface GraphEdge {
  source: string;
  target: string;
  kind: EdgeKind | string;
}

export interface WorkflowGraph {
  session?: { id?: string; files?: SessionFile[] };
  lanes?: Lane[];
  nodes?: GraphNode[];
  edges?: GraphEdge[];
}

export type ThemeName = 'light' | 'dark' | 'auto';

export interface RenderOptions {
  theme?: ThemeName;
  /** Called with the SPEC node when the user asks to reveal it in the editor. */
  onReveal?: (node: GraphNode) => void;
  /** Fit the whole graph on first render instead of showing its start readable. */
  fitOnLoad?: boolean;
}

export interface RenderStats {
  nodes: number;
  edges: number;
  lanes: number;
  /** Milliseconds the last layout took (dagre plus lane arrangement). */
  layoutMs: number;
  /** performance.now() when render() began: the page, the bundle and JSON.parse before it. */
  startAt?: number;
  /** The first render: milliseconds to add the first view's elements to cytoscape (labels wrapped). */
  buildMs?: number;
  /** The first render: milliseconds to set the first view and pick what it shows (from the layout). */
  viewMs?: number;
  /** The first render: milliseconds from the first view set to cytoscape's first frame drawn. */
  drawMs?: number;
  /** Milliseconds to add the rest of the elements after the first picture (the first render adds
   *  only what its first view shows); undefined while they are not added, or when all were at once. */
  completeMs?: number;
  /** The ids of the elements the first render gave cytoscape before its first frame (what its
   *  first view shows); undefined when it gave all. Tests check that the first view missed none. */
  firstIds?: string[];
  /** performance.now() when the first frame was drawn: the first picture, from the page's start. */
  firstPictureAt?: number;
}

export interface GraphHandle {
  update(graph: WorkflowGraph): void;
  destroy(): void;
  fit(): void;
  select(nodeId: string | null): void;
  setLaneCollapsed(laneId: string, collapsed: boolean): void;
  /** Folds a turn (a main-lane USER_INPUT node and what follows it, to the next one) into its node. */
  setTurnCollapsed(nodeId: string, collapsed: boolean): void;
  /** Filters by text (fades the rest) and selects the first match; returns how many match. */
  find(query: string): number;
  setTheme(theme: ThemeName): void;
  readonly stats: RenderStats;
  /** The cytoscape instance, for tests and advanced hosts. */
  readonly cy: unknown;
}
