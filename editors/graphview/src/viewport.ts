// Layout and viewport: the lane layout, Fit (whole or readable), zoom, the first view.

import type cytoscape from 'cytoscape';
import { runLayout, type LaidOut, type Placement } from './layout';
import { NODE_H, NODE_W } from './cystyle';
import type { View } from './view';

const FIT_MAX_ZOOM = 1.1;
// Below this zoom the first view shows the session's start readable instead of the whole.
const READABLE_ZOOM = 0.5;
// The zoom of a big session's first view, and of a search match shown from a smaller one.
const START_ZOOM = 0.85;

/** Lays the graph out again, keeping the viewport, and shows the counts and the layout time. */
export function relayout(v: View): void {
  const { cy } = v;
  const z = cy.zoom();
  const p = cy.pan();
  v.complete?.();
  const r = runLayout(cy, v.model.lanes, v.model.edgeOrder);
  v.laid = r.laid;
  cy.viewport({ zoom: z, pan: p });
  showLayoutStats(v, r.ms);
}

/** The toolbar's counts and layout time; data-layout-ms also tells tests the graph is all there. */
export function showLayoutStats(v: View, layoutMs: number): void {
  const { stats } = v;
  stats.layoutMs = layoutMs;
  const ms = Math.round(stats.layoutMs);
  v.ui.root.dataset.layoutMs = String(stats.layoutMs.toFixed(1));
  v.ui.statsEl.textContent = `${stats.nodes} nodes · ${stats.lanes} lane${stats.lanes === 1 ? '' : 's'} · layout ${ms} ms`;
}

type Bounds = NonNullable<LaidOut['bounds']>;

/** The extent of what is drawn, from the layout's own boxes (lane boxes and nodes bound the
 *  headers and edges too): cytoscape's boundingBox() of every element would compute each edge's
 *  path and each label's size first, most of the first view's time on a big session. */
function drawnBounds(v: View): Bounds | null {
  return v.laid ? v.laid.bounds : null;
}

/** Shows bounds `b` whole with a margin of `pad` pixels, centred, at no more than FIT_MAX_ZOOM
 *  (what cy.fit(eles, pad) does, clamped). */
function fitBounds(v: View, b: Bounds, pad: number): void {
  const { cy } = v;
  const W = cy.width();
  const H = cy.height();
  const w = Math.max(1, b.x2 - b.x1);
  const h = Math.max(1, b.y2 - b.y1);
  let z = Math.min((W - 2 * pad) / w, (H - 2 * pad) / h);
  z = Math.max(cy.minZoom(), Math.min(cy.maxZoom(), FIT_MAX_ZOOM, z));
  cy.viewport({ zoom: z, pan: { x: (W - z * (b.x1 + b.x2)) / 2, y: (H - z * (b.y1 + b.y2)) / 2 } });
}

/**
 * Fit: the whole graph, every lane's nodes (main and sub-agents), in view, however small; never
 * blown up past a natural size. A part fitted at a readable zoom left the sub-agent lanes out of
 * a big session (17 of 1 065 nodes); the overview and the lane chips go to a part.
 * `whole` is kept for the handle's callers: Fit is always whole.
 */
export function fit(v: View, whole = true): void {
  const { ui } = v;
  const b = drawnBounds(v);
  if (!b) return;
  fitBounds(v, b, 30);
  ui.fitNote.hidden = true;
  v.lastWhole = whole;
  v.fitted = true;
}

/** The session's first drawn node: the topmost, then leftmost. */
function firstNode(v: View): { x: number; y: number } | undefined {
  let first: { x: number; y: number } | undefined;
  for (const n of v.laid ? v.laid.nodes : []) {
    if (!first || n.y < first.y || (n.y === first.y && n.x < first.x)) first = n;
  }
  return first;
}

export function zoomBy(v: View, f: number): void {
  const { cy } = v;
  unfit(v);
  cy.zoom({ level: cy.zoom() * f, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
}

/** The first view of a graph: fitted, or when that is too small to read, its start readable. */
export function initialView(v: View): void {
  const { cy } = v;
  const bounds = drawnBounds(v);
  if (!bounds) return;
  fit(v);
  if (v.options.fitOnLoad || cy.zoom() >= Math.max(0.6, READABLE_ZOOM)) return;
  // Too big to read when fitted: start readable, at the beginning of the session, with the
  // first node a third of the way across so that the agents to its right show too.
  const z = START_ZOOM;
  const bb = { ...bounds, w: bounds.x2 - bounds.x1 };
  const W = cy.width();
  const first = firstNode(v);
  const fx = first ? first.x : bb.x1 + bb.w / 2;
  const gw = bb.w * z;
  let x: number;
  if (gw + 48 <= W) {
    x = (W - gw) / 2 - bb.x1 * z;
  } else {
    x = Math.min(W * 0.34 - fx * z, 24 - bb.x1 * z);
    x = Math.max(x, W - 24 - bb.x2 * z);
  }
  cy.viewport({ zoom: z, pan: { x, y: 20 - bb.y1 * z } });
  v.fitted = false;
  v.ui.fitNote.hidden = true;
}

export function ensureVisible(v: View, ele: cytoscape.NodeSingular): void {
  const { cy } = v;
  const bb = ele.renderedBoundingBox({});
  if (bb.x1 < 0 || bb.y1 < 0 || bb.x2 > cy.width() || bb.y2 > cy.height()) cy.center(ele);
}

/**
 * Goes to a lane (its toolbar chip): the whole lane centred when it fits at a readable zoom, else
 * its start readable at the top of the view; a folded lane's stand-in box. Folding a lane is its
 * header's or box's click in the graph.
 */
export function goToLane(v: View, id: string): void {
  v.complete?.();
  const { cy } = v;
  const eles = cy.nodes('.gv-node, .gv-head, .gv-box').filter((n) => String(n.data('lane')) === id && !n.hasClass('gv-hidden'));
  if (eles.empty()) return;
  unfit(v);
  const bb = eles.boundingBox();
  const W = cy.width();
  const H = cy.height();
  const z = Math.min(FIT_MAX_ZOOM, Math.max(READABLE_ZOOM, Math.min((W - 60) / Math.max(1, bb.w), (H - 60) / Math.max(1, bb.h))));
  const x = W / 2 - (bb.x1 + bb.w / 2) * z;
  const y = bb.h * z + 60 <= H ? H / 2 - (bb.y1 + bb.h / 2) * z : 30 - bb.y1 * z;
  cy.viewport({ zoom: z, pan: { x, y } });
}

/** Brings a node to the middle of the view, and when the view is too small to read it (Fit's zoom
 *  of a big session, 0.036) zooms to the readable zoom of the first view there: a search match
 *  centred at that zoom was a dot. */
export function focusNode(v: View, ele: cytoscape.NodeSingular): void {
  const { cy } = v;
  unfit(v);
  if (cy.zoom() >= READABLE_ZOOM) {
    cy.center(ele);
    return;
  }
  const p = ele.position();
  cy.viewport({ zoom: START_ZOOM, pan: { x: cy.width() / 2 - p.x * START_ZOOM, y: cy.height() / 2 - p.y * START_ZOOM } });
}

/** A pan or zoom by the user ends "fitted": a resize then keeps their view. */
export function unfit(v: View): void {
  v.fitted = false;
  v.ui.fitNote.hidden = true;
}

// Graph units beyond the first view's edges still added at first: a small pan shows no gap.
const FIRST_MARGIN = 120;
// Fewer elements than this (about 250 nodes), the first render gives cytoscape all of them.
const FIRST_ALL = 600;

/**
 * The ids of the elements the first view shows (lane boxes, headers and folded-lane stand-ins
 * always; nodes in or near the view; edges whose span crosses it, with both their ends), or
 * undefined when the graph is small or that is most of it anyway.
 */
export function firstShown(v: View, p: Placement): Set<string> | undefined {
  // a small graph is drawn whole at once: its first frame costs little anyway
  if (v.model.defs.length < FIRST_ALL) return undefined;
  const e = v.cy.extent();
  const m = FIRST_MARGIN;
  const near = (x1: number, y1: number, x2: number, y2: number) => x2 >= e.x1 - m && x1 <= e.x2 + m && y2 >= e.y1 - m && y1 <= e.y2 + m;
  const hw = NODE_W / 2 + 3;
  const hh = NODE_H / 2 + 3;
  const keep = new Set<string>();
  const defs = v.model.defs;
  for (const d of defs) {
    if (d.group !== 'nodes') continue;
    const q = p.pos.get(d.data.id);
    if (!q || near(q.x - hw, q.y - hh, q.x + hw, q.y + hh)) keep.add(d.data.id);
  }
  for (const d of defs) {
    if (d.group !== 'edges') continue;
    const s = p.pos.get(String(d.data.source));
    const t = p.pos.get(String(d.data.target));
    if (!s || !t || near(Math.min(s.x, t.x) - hw, Math.min(s.y, t.y) - hh, Math.max(s.x, t.x) + hw, Math.max(s.y, t.y) + hh)) {
      keep.add(d.data.id);
      keep.add(String(d.data.source));
      keep.add(String(d.data.target));
    }
  }
  return keep.size > defs.length * 0.7 ? undefined : keep;
}
