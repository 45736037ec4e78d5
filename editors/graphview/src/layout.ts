// Layout. Dagre (@dagrejs/dagre, on plain records) lays out each lane on its own, top to bottom, so a
// lane stays a compact column whatever the other lanes do (a long lane in pieces, cut at nodes
// the whole conversation passes through, stacked). Then the lanes are put together:
//   - a sub-agent's lane starts one row below the ACTION that spawned it (its anchor: the
//     source of the spawn edge into the lane);
//   - the parent lane opens a gap below the anchor as tall as the sub-agent's lane, so what the
//     parent does after the agent returns is drawn after the agent's last node;
//   - the lane goes right of everything already placed in its time span: right of the main
//     lane's own nodes there (the main lane's box is then outlined around it) and right of
//     other lanes' boxes, so agents that ran at once stand side by side.
// Each step moves whole dagre rows or whole lanes, so dagre's order and spacing inside a lane
// are kept and nothing overlaps.
// Everything runs on plain records with the sizes the stylesheet fixes (NODE_W × NODE_H): asking
// cytoscape for a node's dimensions computes its style and label first, which cost more than
// dagre itself on a 1 000-node session. Cytoscape is read once (what is shown) and written once
// (positions, in one batch).

import type cytoscape from 'cytoscape';
import dagre from '@dagrejs/dagre';
import { HEAD_H, NODE_H, NODE_W } from './cystyle';
import { headKey, laneKey, type ElementDef, type LaneInfo } from './elements';

const RANK_SEP = 34;
const STEP = NODE_H + RANK_SEP; // one dagre row
const PAD = 18; // lane box padding around its nodes
const HEAD_SPACE = HEAD_H + PAD + 10; // lane box top to its first node's top
const COLUMN_GAP = 64; // between two lane boxes side by side
const STACK_GAP = 40; // between two lanes sharing a column, one above the other
const MIN_NOTCH = 260; // narrower than this, a lane goes right of the main lane's whole box
// A sub-agent's first node sits this far below its anchor: its lane box starts one row gap below
// the anchor, so the spawn edges run across that gap above the box and its header.
const CHILD_DROP = STEP + HEAD_SPACE;

// Dagre's node size: the stylesheet's, plus room for the widest border (fork/join: 4.5), as
// cytoscape's outer size gave it before (rows and columns as far apart as they were).
const DAGRE_W = NODE_W + 4;
const DAGRE_H = NODE_H + 4;

/** A shown node (or a folded lane's box) as the layout sees it. */
interface Item {
  id: string;
  lane: string;
  ord: number;
  /** page position, once placed */
  x: number;
  y: number;
}

interface Link {
  id: string;
  s: Item;
  t: Item;
  kind: string;
}

/** What the layout drew, in graph coordinates: the lane boxes and nodes bound everything drawn
 *  (headers sit in their boxes, edges run between nodes), so the first view and the overview need
 *  no bounding box from cytoscape (which would compute every edge's path first). */
export interface LaidOut {
  lanes: { x1: number; y1: number; x2: number; y2: number; main: boolean }[];
  nodes: { x: number; y: number }[];
  /** the union of the above; null when nothing is shown */
  bounds: { x1: number; y1: number; x2: number; y2: number } | null;
}

/** A layout, computed, to be written into cytoscape (applyLayout) or used before the elements
 *  are there (the first render adds them with their positions). */
export interface Placement {
  ms: number;
  laid: LaidOut;
  /** node and lane-box-stand-in id → position */
  pos: Map<string, { x: number; y: number }>;
  lanes: { id: string; w: number; h: number; points?: string; x: number; y: number; headW: number; headX: number; headY: number }[];
  /** cross-lane edge id → its taxi turn */
  turns: Map<string, string>;
}

/** What the layout reads: the shown nodes (and folded lanes' boxes) and the edges, in the
 *  model's order whatever order cytoscape holds them in. */
export interface LayoutInput {
  nodes: { id: string; lane: string; ord: number }[];
  edges: { id: string; source: string; target: string; kind: string }[];
}

/** The layout's input read from cytoscape: what is shown now. edgeOrder: the model's order. */
export function inputFromCy(cy: cytoscape.Core, edgeOrder: Map<string, number>): LayoutInput {
  const nodes: LayoutInput['nodes'] = [];
  cy.nodes('.gv-node, .gv-box').forEach((n) => {
    if (n.hasClass('gv-hidden')) return;
    nodes.push({ id: n.id(), lane: String(n.data('lane')), ord: Number(n.data('ord')) || 0 });
  });
  const edges: (LayoutInput['edges'][number] & { at: number })[] = [];
  cy.edges().forEach((e) => {
    edges.push({ id: e.id(), source: String(e.data('source')), target: String(e.data('target')), kind: String(e.data('kind')), at: edgeOrder.get(e.id()) ?? Infinity });
  });
  // stable: the proxy edges of folded lanes (not in the model) keep cytoscape's order, last
  edges.sort((a, b) => (a.at === b.at ? 0 : a.at < b.at ? -1 : 1));
  return { nodes, edges };
}

/** The layout's input read from the element definitions, as they would be shown with nothing
 *  folded (the first render: before cytoscape holds them). */
export function inputFromDefs(defs: ElementDef[]): LayoutInput {
  const nodes: LayoutInput['nodes'] = [];
  const edges: LayoutInput['edges'] = [];
  for (const d of defs) {
    if (d.group === 'edges') {
      edges.push({ id: d.data.id, source: String(d.data.source), target: String(d.data.target), kind: String(d.data.kind) });
    } else if (/\bgv-(node|box)\b/.test(d.classes) && !/\bgv-hidden\b/.test(d.classes)) {
      nodes.push({ id: d.data.id, lane: String(d.data.lane), ord: Number(d.data.ord) || 0 });
    }
  }
  return { nodes, edges };
}

/** Lays out what cytoscape shows and writes it into cytoscape. */
export function runLayout(cy: cytoscape.Core, lanes: LaneInfo[], edgeOrder: Map<string, number>): Placement {
  const t0 = performance.now();
  const p = computeLayout(inputFromCy(cy, edgeOrder), lanes);
  applyLayout(cy, p);
  p.ms = performance.now() - t0;
  return p;
}

/** Writes a placement into cytoscape: positions (unless the nodes were added with them), lane
 *  boxes and headers, edge turns. Elements not (yet) in cytoscape are skipped. */
export function applyLayout(cy: cytoscape.Core, p: Placement, positions = true): void {
  cy.batch(() => {
    if (positions) for (const [id, q] of p.pos) cy.getElementById(id).position(q);
    const laid = new Set<string>();
    for (const l of p.lanes) {
      laid.add(l.id);
      const laneNode = cy.getElementById(laneKey(l.id));
      if (l.points !== undefined) {
        laneNode.data({ w: l.w, h: l.h, points: l.points });
        laneNode.addClass('gv-outline');
      } else {
        laneNode.data({ w: l.w, h: l.h });
        laneNode.removeClass('gv-outline');
      }
      laneNode.position({ x: l.x, y: l.y });
      laneNode.removeClass('gv-hidden');
      const head = cy.getElementById(headKey(l.id));
      head.data({ w: l.headW - 20, tw: l.headW - 44 });
      head.position({ x: l.headX, y: l.headY });
      head.removeClass('gv-hidden');
    }
    cy.nodes('.gv-lane, .gv-head').forEach((n) => {
      if (!laid.has(String(n.data('lane')))) n.addClass('gv-hidden');
    });
    for (const [id, t] of p.turns) cy.getElementById(id).data('turn', t);
  });
}

interface LaneLayout {
  li: LaneInfo;
  nodes: Item[];
  /** where each node is, relative to the lane (dagre's output, gaps opened) */
  pos: Map<string, { x: number; y: number }>;
  /** the node (of another lane) this lane hangs from */
  anchor?: Item;
  children: LaneLayout[];
  x1: number;
  x2: number;
  top: number; // smallest node centre y
  bottom: number; // largest node centre y
  dy: number;
  dx: number;
}

/** The layout of `input` (no cytoscape involved). */
export function computeLayout(input: LayoutInput, lanes: LaneInfo[]): Placement {
  const t0 = performance.now();
  const order = new Map(lanes.map((l, i) => [l.lane.id, i]));
  const byLane = new Map<string, LaneLayout>();
  const byId = new Map<string, Item>();
  for (const n of input.nodes) {
    const li = lanes[order.get(n.lane) ?? -1];
    if (!li) continue;
    let l = byLane.get(n.lane);
    if (!l) {
      l = { li, nodes: [], pos: new Map(), children: [], x1: 0, x2: 0, top: 0, bottom: 0, dy: 0, dx: 0 };
      byLane.set(n.lane, l);
    }
    const it: Item = { id: n.id, lane: n.lane, ord: n.ord, x: 0, y: 0 };
    l.nodes.push(it);
    byId.set(n.id, it);
  }
  for (const l of byLane.values()) l.nodes.sort((a, b) => a.ord - b.ord);

  const inner = new Map<string, Link[]>();
  const crossIn = new Map<string, Link[]>();
  for (const e of input.edges) {
    const s = byId.get(e.source);
    const t = byId.get(e.target);
    if (!s || !t) continue;
    const map = s.lane === t.lane ? inner : crossIn;
    const list = map.get(t.lane) || [];
    list.push({ id: e.id, s, t, kind: e.kind });
    map.set(t.lane, list);
  }

  // Anchors: the spawn edge into a lane, else any edge from another lane into it. The main
  // lane hangs from nothing.
  for (const l of byLane.values()) {
    if (l.li.isMain) continue;
    const ins = crossIn.get(l.li.lane.id) || [];
    const spawn = ins.find((e) => e.kind === 'spawn') || ins[0];
    if (!spawn) continue;
    const parent = byLane.get(spawn.s.lane);
    if (!parent || parent === l) continue;
    // Refuse an anchor that would make the lanes hang from each other in a circle.
    let p: LaneLayout | undefined = parent;
    let circular = false;
    for (let guard = 0; p && guard < lanes.length + 1; guard++) {
      if (p === l) {
        circular = true;
        break;
      }
      p = p.anchor ? byLane.get(p.anchor.lane) : undefined;
    }
    if (circular) continue;
    l.anchor = spawn.s;
    parent.children.push(l);
  }

  // Children before parents: a lane's height must be known to open its gap in the parent.
  const roots = lanes.map((li) => byLane.get(li.lane.id)).filter((l): l is LaneLayout => !!l && !l.anchor);
  const post: LaneLayout[] = [];
  const visit = (l: LaneLayout) => {
    for (const c of l.children) visit(c);
    post.push(l);
  };
  roots.forEach(visit);

  for (const l of post) {
    layoutLane(l, inner.get(l.li.lane.id) || []);
    openGaps(l);
  }

  // Placement order: a parent before its children, and children in the order of their anchors
  // in the parent (top to bottom, left to right), so spawn edges do not cross each other.
  const order2: LaneLayout[] = [];
  const visit2 = (l: LaneLayout) => {
    order2.push(l);
    const at = (c: LaneLayout) => l.pos.get(c.anchor!.id) || { x: 0, y: 0 };
    const kids = l.children.slice().sort((a, b) => at(a).y - at(b).y || at(a).x - at(b).x || a.li.index - b.li.index);
    kids.forEach(visit2);
  };
  roots.forEach(visit2);
  const p = place(order2);
  p.turns = staggerCrossings(Array.from(crossIn.values()).flat());
  p.ms = performance.now() - t0;
  return p;
}

function layoutLane(l: LaneLayout, edges: Link[]) {
  if (l.nodes.length === 1) {
    l.pos.set(l.nodes[0].id, { x: 0, y: 0 });
    return;
  }
  const nodes = l.nodes.slice().sort((a, b) => a.ord - b.ord);
  // Dagre's time grows faster than the graph, and it recurses deeply on long chains: a long lane
  // is laid out in pieces cut where the whole conversation passes through one node, stacked.
  let bottom = -Infinity;
  let cut: { x: number; y: number } | null = null;
  for (const seg of segments(nodes, edges)) {
    const inSeg = new Set(seg.map((n) => n.id));
    const segEdges = edges.filter((e) => inSeg.has(e.s.id) && inSeg.has(e.t.id));
    const pos = dagreOrColumn(seg, segEdges);
    let dx = 0;
    let dy = 0;
    if (cut) {
      let top = Infinity;
      for (const p of pos.values()) top = Math.min(top, p.y);
      const first = seg.filter((n) => pos.get(n.id)!.y === top);
      const cx = first.reduce((sum, n) => sum + pos.get(n.id)!.x, 0) / first.length;
      dx = cut.x - cx;
      dy = bottom + STEP - top;
    }
    for (const n of seg) {
      const p = pos.get(n.id)!;
      const q = { x: p.x + dx, y: p.y + dy };
      l.pos.set(n.id, q);
      bottom = Math.max(bottom, q.y);
    }
    cut = l.pos.get(seg[seg.length - 1].id)!;
  }
}

const SEGMENT = 120; // nodes per dagre run, at least, where the lane can be cut

/** The lane's nodes (in graph order) cut into runs of about SEGMENT nodes, each ending at a node
 *  that no inner edge passes over: everything before it is done when it starts. */
function segments(nodes: Item[], edges: Link[]): Item[][] {
  if (nodes.length <= SEGMENT * 1.5) return [nodes];
  const at = new Map(nodes.map((n, i) => [n.id, i]));
  const over = new Array<number>(nodes.length + 1).fill(0);
  for (const e of edges) {
    const a = at.get(e.s.id);
    const b = at.get(e.t.id);
    if (a === undefined || b === undefined) continue;
    const lo = Math.min(a, b);
    const hi = Math.max(a, b);
    if (hi - lo < 2) continue;
    over[lo + 1]++;
    over[hi]--;
  }
  const out: Item[][] = [];
  let start = 0;
  let spanning = 0;
  for (let i = 0; i < nodes.length; i++) {
    spanning += over[i];
    // i ends a run when no edge passes over it (and it is not a loose end of a branch)
    if (i - start + 1 >= SEGMENT && spanning === 0 && nodes.length - i > SEGMENT / 2) {
      out.push(nodes.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < nodes.length) out.push(nodes.slice(start));
  return out;
}

/** Dagre's placement of `nodes` (in graph order); should dagre fail, one column in graph order. */
function dagreOrColumn(nodes: Item[], edges: Link[]): Map<string, { x: number; y: number }> {
  const pos = new Map<string, { x: number; y: number }>();
  if (nodes.length > 1) {
    try {
      const g = new dagre.graphlib.Graph({ multigraph: true });
      // tight-tree ranks a lane (chains, forks, joins) as well as network-simplex here at a
      // third of the cost
      g.setGraph({ rankdir: 'TB', nodesep: 26, ranksep: RANK_SEP, edgesep: 14, ranker: 'tight-tree' });
      g.setDefaultEdgeLabel(() => ({}));
      for (const n of nodes) g.setNode(n.id, { width: DAGRE_W, height: DAGRE_H });
      for (const e of edges) g.setEdge(e.s.id, e.t.id, { minlen: 1, weight: 1 }, e.id);
      dagre.layout(g);
      for (const n of nodes) {
        const d = g.node(n.id);
        if (!d || !isFinite(d.x as number) || !isFinite(d.y as number)) throw new Error('dagre gave no position');
        pos.set(n.id, { x: d.x as number, y: d.y as number });
      }
      return pos;
    } catch {
      pos.clear();
    }
  }
  nodes.forEach((n, i) => pos.set(n.id, { x: 0, y: i * STEP }));
  return pos;
}

/** Pushes the rows below each anchor down until the sub-agent hanging from it has ended. */
function openGaps(l: LaneLayout) {
  const anchored = l.children
    .map((c) => ({ c, a: l.pos.get(c.anchor!.id) }))
    .filter((x): x is { c: LaneLayout; a: { x: number; y: number } } => !!x.a)
    .sort((p, q) => p.a.y - q.a.y);
  for (const { c, a } of anchored) {
    // The child's first row is one row below the anchor; its last row must come before the
    // parent's next row.
    const childEnd = a.y + CHILD_DROP + (c.bottom - c.top);
    let next = Infinity;
    for (const p of l.pos.values()) if (p.y > a.y + 1 && p.y < next) next = p.y;
    if (next === Infinity) continue;
    const need = childEnd + STEP - next;
    if (need <= 0) continue;
    for (const p of l.pos.values()) if (p.y > a.y + 1) p.y += need;
  }
  let x1 = Infinity;
  let x2 = -Infinity;
  let top = Infinity;
  let bottom = -Infinity;
  for (const n of l.nodes) {
    const p = l.pos.get(n.id)!;
    const hw = NODE_W / 2 + 2;
    x1 = Math.min(x1, p.x - hw);
    x2 = Math.max(x2, p.x + hw);
    top = Math.min(top, p.y);
    bottom = Math.max(bottom, p.y);
  }
  const w = Math.max(x2 - x1, NODE_W);
  const extra = w - (x2 - x1);
  l.x1 = x1 - PAD - extra / 2;
  l.x2 = x2 + PAD + extra / 2;
  l.top = top;
  l.bottom = bottom;
}

function place(pre: LaneLayout[]): Placement {
  // Vertical: roots start at the top; a child's lane box starts one gap below its anchor.
  for (const l of pre) {
    if (!l.anchor) {
      l.dy = -l.top;
      continue;
    }
    const parent = pre.find((p) => p.children.includes(l))!;
    const a = parent.pos.get(l.anchor.id)!;
    l.dy = a.y + parent.dy + CHILD_DROP - l.top;
  }
  // Box extents in page coordinates.
  const box = (l: LaneLayout) => ({ y1: l.top + l.dy - NODE_H / 2 - HEAD_SPACE, y2: l.bottom + l.dy + NODE_H / 2 + PAD });

  // Horizontal: the first root lane (main) at x = 0. Every other lane goes right of what is
  // already there during its time span: right of the main lane's nodes in those rows (its box
  // may be wider elsewhere, so the agent's box sits on it) and right of any other lane's box.
  // A lane is never left of its anchor.
  const right = (l: LaneLayout) => l.x2 + l.dx;
  const placed: LaneLayout[] = [];
  const host = pre[0];
  for (const l of pre) {
    if (l === host) {
      l.dx = -l.x1;
      placed.push(l);
      continue;
    }
    const b = box(l);
    const lo = b.y1 - STACK_GAP;
    const hi = b.y2 + STACK_GAP;
    let x = -Infinity;
    if (l.anchor) {
      const parent = placed.find((p) => p.children.includes(l));
      const a = parent && parent.pos.get(l.anchor.id);
      if (parent && a) x = a.x + parent.dx + NODE_W / 2 + COLUMN_GAP;
    }
    for (const p of placed) {
      if (p === host) {
        for (const n of p.nodes) {
          const q = p.pos.get(n.id)!;
          const y = q.y + p.dy;
          if (y + NODE_H / 2 >= lo && y - NODE_H / 2 <= hi) x = Math.max(x, q.x + p.dx + NODE_W / 2 + PAD + COLUMN_GAP);
        }
      } else {
        const pb = box(p);
        if (pb.y2 >= lo && pb.y1 <= hi) x = Math.max(x, right(p) + COLUMN_GAP);
      }
    }
    if (x === -Infinity) x = right(host) + COLUMN_GAP;
    // Cutting a notch into the main lane's box is worth it only for a good deal of room.
    if (host && right(host) + COLUMN_GAP - x < MIN_NOTCH) x = Math.max(x, right(host) + COLUMN_GAP);
    l.dx = x - l.x1;
    placed.push(l);
  }

  const outline = hostOutline(host, placed, box);

  const laidOut: LaidOut = { lanes: [], nodes: [], bounds: null };
  const out: Placement = { ms: 0, laid: laidOut, pos: new Map(), lanes: [], turns: new Map() };
  let bx1 = Infinity;
  let by1 = Infinity;
  let bx2 = -Infinity;
  let by2 = -Infinity;
  for (const l of placed) {
    for (const n of l.nodes) {
      const p = l.pos.get(n.id)!;
      n.x = p.x + l.dx;
      n.y = p.y + l.dy;
      out.pos.set(n.id, { x: n.x, y: n.y });
      laidOut.nodes.push({ x: n.x, y: n.y });
    }
    const b = box(l);
    let w = l.x2 - l.x1;
    let cx = l.x1 + l.dx + w / 2;
    let headW = w;
    let points: string | undefined;
    if (l === host && outline) {
      w = outline.right - outline.left;
      cx = (outline.left + outline.right) / 2;
      headW = outline.topRight - outline.left;
      points = outline.points;
    }
    out.lanes.push({ id: l.li.lane.id, w, h: b.y2 - b.y1, points, x: cx, y: (b.y1 + b.y2) / 2, headW, headX: l.x1 + l.dx + headW / 2, headY: b.y1 + 10 + HEAD_H / 2 });
    // the box's border (1 px) is drawn half outside it
    const r = { x1: cx - w / 2 - 0.5, y1: b.y1 - 0.5, x2: cx + w / 2 + 0.5, y2: b.y2 + 0.5, main: l.li.isMain };
    laidOut.lanes.push(r);
    bx1 = Math.min(bx1, r.x1);
    by1 = Math.min(by1, r.y1);
    bx2 = Math.max(bx2, r.x2);
    by2 = Math.max(by2, r.y2);
  }
  // Nodes lie in their lane boxes; the margin covers the widest border.
  for (const n of laidOut.nodes) {
    bx1 = Math.min(bx1, n.x - NODE_W / 2 - 3);
    bx2 = Math.max(bx2, n.x + NODE_W / 2 + 3);
    by1 = Math.min(by1, n.y - NODE_H / 2 - 3);
    by2 = Math.max(by2, n.y + NODE_H / 2 + 3);
  }
  if (bx1 <= bx2) laidOut.bounds = { x1: bx1, y1: by1, x2: bx2, y2: by2 };
  return out;
}

/** The host (main) lane's outline when other lanes sit on its box: the box narrowed, between the
 *  lanes' time spans, to the main lane's own nodes, so no lane is drawn over another. Points are
 *  for cytoscape's polygon shape (relative to the box, -1..1); null keeps the plain box. */
function hostOutline(
  host: LaneLayout | undefined,
  placed: LaneLayout[],
  box: (l: LaneLayout) => { y1: number; y2: number },
): { points: string; left: number; right: number; topRight: number } | null {
  if (!host) return null;
  const hb = box(host);
  const left = host.x1 + host.dx;
  const full = host.x2 + host.dx;
  const on = placed.filter((l) => l !== host && l.x1 + l.dx < full);
  if (on.length === 0) return null;
  const cuts = new Set<number>([hb.y1, hb.y2]);
  for (const l of on) {
    const b = box(l);
    for (const y of [b.y1 - STACK_GAP / 2, b.y2 + STACK_GAP / 2]) if (y > hb.y1 && y < hb.y2) cuts.add(y);
  }
  const ys = Array.from(cuts).sort((a, b) => a - b);
  const min = left + NODE_W + 2 * PAD;
  const segs: { y1: number; y2: number; right: number }[] = [];
  for (let i = 0; i + 1 < ys.length; i++) {
    let right = min;
    for (const n of host.nodes) {
      const q = host.pos.get(n.id)!;
      const y = q.y + host.dy;
      if (y + NODE_H / 2 + PAD > ys[i] && y - NODE_H / 2 - PAD < ys[i + 1]) right = Math.max(right, q.x + host.dx + NODE_W / 2 + 2 + PAD);
    }
    const last = segs[segs.length - 1];
    if (last && Math.abs(last.right - right) < 12) {
      last.y2 = ys[i + 1];
      last.right = Math.max(last.right, right);
    } else {
      segs.push({ y1: ys[i], y2: ys[i + 1], right });
    }
  }
  if (segs.length < 2) return null;
  const right = Math.max(...segs.map((g) => g.right));
  const cx = (left + right) / 2;
  const cy = (hb.y1 + hb.y2) / 2;
  const hw = (right - left) / 2;
  const hh = (hb.y2 - hb.y1) / 2;
  const pts: [number, number][] = [[left, hb.y1]];
  for (const g of segs) pts.push([g.right, g.y1], [g.right, g.y2]);
  pts.push([left, hb.y2]);
  const points = pts.map(([x, y]) => `${((x - cx) / hw).toFixed(5)} ${((y - cy) / hh).toFixed(5)}`).join(' ');
  return { points, left, right, topRight: segs[0].right };
}

/** Edges between lanes run down, across in the gap between two rows, and down again. When
 *  several cross the same gap (parallel agents spawned, or returning, together), each gets its
 *  own height, in the order that keeps them from crossing one another. */
function staggerCrossings(links: Link[]): Map<string, string> {
  const turns = new Map<string, string>();
  const groups = new Map<string, Link[]>();
  for (const l of links) {
    const a = l.s;
    const b = l.t;
    const key = `${Math.round(a.y)}:${Math.round(b.y)}:${a.x < b.x ? 'r' : 'l'}`;
    const g = groups.get(key) || [];
    g.push(l);
    groups.set(key, g);
  }
  for (const g of groups.values()) {
    g.sort((p, q) => p.s.x - q.s.x);
    const rightward = g[0].s.x < g[0].t.x;
    g.forEach((l, i) => {
      // 0 .. 1, so that no two of the group cross: going right, the leftmost runs lowest;
      // going left, the leftmost runs highest
      const f = g.length === 1 ? 0.5 : i / (g.length - 1);
      const r = rightward ? 1 - f : f;
      let turn: string;
      if (l.kind === 'spawn') turn = `${(6 + (RANK_SEP - 14) * r).toFixed(1)}px`; // above the agent's box
      else if (l.kind === 'return') turn = `${(PAD + 4 + (RANK_SEP - PAD - 8) * r).toFixed(1)}px`; // below it
      else turn = `${(30 + 40 * r).toFixed(1)}%`;
      turns.set(l.id, turn);
    });
  }
  return turns;
}
