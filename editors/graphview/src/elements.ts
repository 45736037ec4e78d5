// Turns a docs/spec.md §4 graph into cytoscape element definitions. Ids are prefixed so that a lane, a
// node and an edge can never collide whatever ids the log holds:
//   lane:<lane>   the lane's background box (sized and placed by the layout)
//   head:<lane>   the lane's header (click: collapse / expand)
//   box:<lane>    the stand-in node shown while the lane is collapsed
//   n:<node>      a workflow node
//   e:<kind>:<source>\u0000<target>   an edge

import type { GraphEdge, GraphNode, Lane, WorkflowGraph } from './types';
import { formatDuration, shorten, shortenPath, str } from './text';

export const KIND_CLASS: Record<string, string> = {
  USER_INPUT: 'k-user',
  THOUGHT: 'k-thought',
  ACTION: 'k-action',
  OBSERVATION: 'k-obs',
  SYSTEM: 'k-system',
};

export const EDGE_KINDS = ['flow', 'tool', 'spawn', 'return', 'compact'];

export interface LaneInfo {
  lane: Lane;
  isMain: boolean;
  index: number;
  nodeCount: number;
  title: string;
}

export interface ElementDef {
  group: 'nodes' | 'edges';
  data: Record<string, unknown> & { id: string };
  classes: string;
}

export interface Model {
  lanes: LaneInfo[];
  laneById: Map<string, LaneInfo>;
  nodes: Map<string, GraphNode>;
  /** Edges that survived validation, in input order. */
  edges: GraphEdge[];
  defs: ElementDef[];
  /** Edge element id → its place in defs: the layout reads edges in this order whatever order
   *  cytoscape holds them in (the first render adds them in two steps). */
  edgeOrder: Map<string, number>;
}

export const nodeKey = (id: string) => 'n:' + id;
export const laneKey = (id: string) => 'lane:' + id;
export const headKey = (id: string) => 'head:' + id;
export const boxKey = (id: string) => 'box:' + id;
export const edgeKey = (kind: string, s: string, t: string) => `e:${kind}:${s}\u0000${t}`;

// Claude Code's own agents (prompt suggestion, …) have ids `a<kind>-<hex>` and no spawning call.
const INTERNAL_AGENT = /^a([a-z][a-z_]*[a-z])-([0-9a-z]+)$/i;
// A Task/Agent call's label (internal/graph actionLabel): `Task (type): description` or `Task: description`.
const SPAWN_LABEL = /^(?:Task|Agent)(?: \(([^)]*)\))?: ([\s\S]+)$/;

/**
 * A lane's name: what the agent is and what it was asked, `Explore · Find every caller of
 * CheckExpiry` — its type (the call's `subagent_type`, else the kind in an id like
 * `aprompt_suggestion-debb9a`) and the description its spawning call gave (else the prompt that
 * starts the lane). The agent id goes only where two lanes would read the same (`disambiguate`).
 * `spawn` is the lane's spawning node, `prompt` its first USER_INPUT.
 */
export function laneTitle(lane: Lane, isMain: boolean, spawn?: GraphNode, prompt?: GraphNode): string {
  if (isMain) return str(lane.label) || 'main';
  const agent = str(lane.agentId) || '';
  const internal = INTERNAL_AGENT.exec(agent);
  let type = str(lane.subagentType) || (internal ? internal[1] : '');
  let desc = '';
  const m = spawn && typeof spawn.label === 'string' ? SPAWN_LABEL.exec(spawn.label) : null;
  if (m) {
    desc = m[2];
    if (!type && m[1]) type = m[1];
  } else if (prompt && typeof prompt.label === 'string') desc = prompt.label;
  const label = str(lane.label) || '';
  if (!type && label && label !== agent && label !== lane.id) type = label;
  const parts = [type, shorten(desc, 60)].filter(Boolean);
  if (parts.length === 0) parts.push(agent ? shortAgent(agent) : label || 'agent');
  else if (!desc && agent) parts.push(shortAgent(agent));
  return shorten(parts.join(' · '), 72);
}

/** An agent id short enough for a title: its hex part (`debb9a` of `aprompt_suggestion-debb9a`), 8 at most. */
export function shortAgent(agent: string): string {
  const internal = INTERNAL_AGENT.exec(agent);
  const id = internal ? internal[2] : agent;
  return id.length > 8 ? id.slice(0, 8) : id;
}

/** Lanes whose titles read the same get their agent id added, so that each is told apart. */
function disambiguate(lanes: LaneInfo[]): void {
  const seen = new Map<string, number>();
  for (const l of lanes) seen.set(l.title, (seen.get(l.title) || 0) + 1);
  for (const l of lanes) {
    if (l.isMain || (seen.get(l.title) || 0) < 2) continue;
    const id = str(l.lane.agentId) || l.lane.id;
    l.title = `${l.title} · ${shortAgent(id.replace(/^(agent|sidechain)-/, ''))}`;
  }
}

/** The text drawn inside a node: short, one or two lines. */
export function nodeDisplay(n: GraphNode): string {
  const label = str(n.label) || '';
  const tool = str(n.toolName);
  switch (n.kind) {
    case 'ACTION': {
      const text = tool && !label.startsWith(tool) ? `${tool}: ${label}` : label || tool || 'tool call';
      return shortenPath(text, 58);
    }
    case 'OBSERVATION': {
      const mark = n.status === 'failure' ? '✗ ' : '✓ ';
      const dur = formatDuration(typeof n.durationMs === 'number' ? n.durationMs : undefined);
      const body = label || (tool ? `${tool} result` : 'result');
      return mark + shorten(body, dur ? 44 : 54) + (dur ? ` · ${dur}` : '');
    }
    case 'USER_INPUT':
      return shorten(label || '(prompt)', 58);
    case 'THOUGHT':
      return shorten(label || '(thinking)', 58);
    default:
      return shorten(label || String(n.kind || 'node'), 58);
  }
}

export function buildModel(graph: WorkflowGraph): Model {
  const rawLanes = Array.isArray(graph.lanes) ? graph.lanes.filter((l) => l && typeof l.id === 'string') : [];
  const rawNodes = Array.isArray(graph.nodes) ? graph.nodes.filter((n) => n && typeof n.id === 'string') : [];
  const rawEdges = Array.isArray(graph.edges) ? graph.edges : [];

  // Lanes: declared ones first, then any a node names that the list forgot.
  const laneList: Lane[] = [];
  const seenLane = new Set<string>();
  for (const l of rawLanes) {
    if (seenLane.has(l.id)) continue;
    seenLane.add(l.id);
    laneList.push(l);
  }
  for (const n of rawNodes) {
    const id = typeof n.lane === 'string' && n.lane ? n.lane : 'main';
    if (!seenLane.has(id)) {
      seenLane.add(id);
      laneList.push({ id, label: id });
    }
  }
  // Main first, then the agents in the order the graph lists them (shallower first).
  const mainId = laneList.find((l) => l.id === 'main')?.id ?? laneList.find((l) => !l.agentId)?.id;
  const ordered = laneList
    .map((l, i) => ({ l, i }))
    .sort((a, b) => {
      const am = a.l.id === mainId ? 0 : 1;
      const bm = b.l.id === mainId ? 0 : 1;
      if (am !== bm) return am - bm;
      const ad = typeof a.l.depth === 'number' ? a.l.depth : 1;
      const bd = typeof b.l.depth === 'number' ? b.l.depth : 1;
      if (ad !== bd) return ad - bd;
      return a.i - b.i;
    })
    .map((x) => x.l);

  const nodes = new Map<string, GraphNode>();
  const firstPrompt = new Map<string, GraphNode>();
  for (const n of rawNodes) {
    if (nodes.has(n.id)) continue;
    nodes.set(n.id, n);
    const lane = typeof n.lane === 'string' && n.lane ? n.lane : 'main';
    if (n.kind === 'USER_INPUT' && !firstPrompt.has(lane)) firstPrompt.set(lane, n);
  }

  const lanes: LaneInfo[] = ordered.map((lane, index) => {
    const isMain = lane.id === mainId;
    const spawn = typeof lane.parentNode === 'string' ? nodes.get(lane.parentNode) : undefined;
    return { lane, isMain, index, nodeCount: 0, title: laneTitle(lane, isMain, spawn, firstPrompt.get(lane.id)) };
  });
  disambiguate(lanes);
  const laneById = new Map(lanes.map((l) => [l.lane.id, l]));

  const edges: GraphEdge[] = [];
  const seenEdge = new Set<string>();
  const flowOut = new Map<string, number>();
  const flowIn = new Map<string, number>();
  for (const e of rawEdges) {
    if (!e || typeof e.source !== 'string' || typeof e.target !== 'string') continue;
    if (!nodes.has(e.source) || !nodes.has(e.target) || e.source === e.target) continue;
    const kind = EDGE_KINDS.includes(String(e.kind)) ? String(e.kind) : 'flow';
    const key = edgeKey(kind, e.source, e.target);
    if (seenEdge.has(key)) continue;
    seenEdge.add(key);
    edges.push({ source: e.source, target: e.target, kind });
    if (kind === 'flow') {
      flowOut.set(e.source, (flowOut.get(e.source) || 0) + 1);
      flowIn.set(e.target, (flowIn.get(e.target) || 0) + 1);
    }
  }

  const defs: ElementDef[] = [];
  for (const li of lanes) {
    const agent = li.isMain ? '' : ' agent';
    defs.push({ group: 'nodes', data: { id: laneKey(li.lane.id), lane: li.lane.id, w: 1, h: 1 }, classes: 'gv-lane' + agent });
    defs.push({
      group: 'nodes',
      data: { id: headKey(li.lane.id), lane: li.lane.id, display: li.title, w: 220, tw: 196 },
      classes: 'gv-head' + agent,
    });
    defs.push({
      group: 'nodes',
      data: { id: boxKey(li.lane.id), lane: li.lane.id, display: '', ord: -1 },
      classes: 'gv-box gv-hidden' + agent,
    });
  }

  let ord = 0;
  for (const n of nodes.values()) {
    const laneId = typeof n.lane === 'string' && n.lane ? n.lane : 'main';
    const li = laneById.get(laneId)!;
    li.nodeCount++;
    const cls = ['gv-node', KIND_CLASS[String(n.kind)] || 'k-other'];
    if (n.status === 'failure') cls.push('failure');
    if (n.active === false) cls.push('inactive');
    if ((flowOut.get(n.id) || 0) >= 2) cls.push('fork');
    if ((flowIn.get(n.id) || 0) >= 2) cls.push('join');
    defs.push({
      group: 'nodes',
      data: { id: nodeKey(n.id), ref: n.id, lane: laneId, text: nodeDisplay(n), ord: ord++ },
      classes: cls.join(' '),
    });
  }

  for (const e of edges) {
    const s = nodes.get(e.source)!;
    const t = nodes.get(e.target)!;
    const cls = ['gv-edge', 'e-' + e.kind];
    if ((s.lane || 'main') !== (t.lane || 'main')) cls.push('gv-cross');
    if (s.active === false || t.active === false) cls.push('inactive');
    defs.push({
      group: 'edges',
      data: { id: edgeKey(e.kind, e.source, e.target), source: nodeKey(e.source), target: nodeKey(e.target), kind: e.kind },
      classes: cls.join(' '),
    });
  }

  const edgeOrder = new Map<string, number>();
  defs.forEach((d, i) => {
    if (d.group === 'edges') edgeOrder.set(d.data.id, i);
  });
  return { lanes, laneById, nodes, edges, defs, edgeOrder };
}
