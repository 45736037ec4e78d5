// Layout and viewport: the lane layout, Fit (whole or readable), zoom, the first view.

import type cytoscape from 'cytoscape';
import { nodeKey } from './elements';
import { runLayout } from './layout';
import type { View } from './view';

const FIT_MAX_ZOOM = 1.1;
// A long session fitted whole is a thin unreadable strip. Below READABLE_ZOOM, Fit shows what
// fits at a readable zoom (the graph's width when that is readable) around the selected node
// (the cursor's, in an editor) or else the session's start, and says so; ⤢ (fit(true)) always
// shows it all.
const READABLE_ZOOM = 0.5;

/** Lays the graph out again, keeping the viewport, and shows the counts and the layout time. */
export function relayout(v: View): void {
  const { cy, stats } = v;
  const z = cy.zoom();
  const p = cy.pan();
  stats.layoutMs = runLayout(cy, v.model.lanes);
  cy.viewport({ zoom: z, pan: p });
  const ms = Math.round(stats.layoutMs);
  v.ui.root.dataset.layoutMs = String(stats.layoutMs.toFixed(1));
  v.ui.statsEl.textContent = `${stats.nodes} nodes · ${stats.lanes} lane${stats.lanes === 1 ? '' : 's'} · layout ${ms} ms`;
}

function visibleEles(v: View) {
  return v.cy.elements().filter((e) => !e.hasClass('gv-hidden'));
}

/** Fits the graph in view, but never blows a small graph up past a natural size. */
export function fit(v: View, whole = false): void {
  const { cy, ui } = v;
  const eles = visibleEles(v);
  if (eles.empty()) return;
  cy.fit(eles, 30);
  if (cy.zoom() > FIT_MAX_ZOOM) {
    cy.zoom(FIT_MAX_ZOOM);
    cy.center(eles);
  }
  ui.fitNote.hidden = true;
  if (cy.zoom() < READABLE_ZOOM && !whole) {
    const bb = eles.boundingBox();
    const W = cy.width();
    const H = cy.height();
    const z = Math.min(FIT_MAX_ZOOM, Math.max(READABLE_ZOOM, (W - 60) / Math.max(1, bb.w)));
    const sel = v.selected !== null ? cy.getElementById(nodeKey(v.selected)) : cy.collection();
    const focus = sel.nonempty() && !sel.hasClass('gv-hidden') ? sel : firstNode(v);
    const fx = focus ? focus.position('x') : bb.x1 + bb.w / 2;
    const fy = focus ? focus.position('y') : bb.y1;
    const gw = bb.w * z;
    // The graph's width centred when it fits, else the focus; the focus a third down the view
    // (what follows it is what one reads next), never past the graph's top.
    let x = gw + 48 <= W ? (W - gw) / 2 - bb.x1 * z : W / 2 - fx * z;
    if (gw + 48 > W) x = Math.max(Math.min(x, 24 - bb.x1 * z), W - 24 - bb.x2 * z);
    const y = Math.min(H / 3 - fy * z, 20 - bb.y1 * z);
    cy.viewport({ zoom: z, pan: { x, y } });
    const total = cy.nodes('.gv-node').filter((n) => !n.hasClass('gv-hidden')).length;
    const ext = cy.extent();
    const inView = cy.nodes('.gv-node').filter((n) => {
      if (n.hasClass('gv-hidden')) return false;
      const p = n.position();
      return p.x >= ext.x1 && p.x <= ext.x2 && p.y >= ext.y1 && p.y <= ext.y2;
    }).length;
    const around = focus && focus === sel ? 'the selected node' : "the session's start";
    ui.fitNote.textContent = `${inView} of ${total} nodes in view (the whole would be too small to read), around ${around} — ⤢ shows all`;
    ui.fitNote.hidden = false;
  }
  v.lastWhole = whole;
  v.fitted = true;
}

/** The session's first drawn node: the topmost, then leftmost. */
function firstNode(v: View): cytoscape.NodeSingular | undefined {
  let first: cytoscape.NodeSingular | undefined;
  v.cy.nodes('.gv-node, .gv-box').forEach((n) => {
    if (n.hasClass('gv-hidden')) return;
    if (!first || n.position('y') < first.position('y') || (n.position('y') === first.position('y') && n.position('x') < first.position('x'))) first = n;
  });
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
  const eles = visibleEles(v);
  if (eles.empty()) return;
  fit(v);
  if (v.options.fitOnLoad || cy.zoom() >= 0.6) return;
  // Too big to read when fitted: start readable, at the beginning of the session, with the
  // first node a third of the way across so that the agents to its right show too.
  const z = 0.85;
  const bb = eles.boundingBox();
  const W = cy.width();
  const first = firstNode(v);
  const fx = first ? first.position('x') : bb.x1 + bb.w / 2;
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

/** A pan or zoom by the user ends "fitted": a resize then keeps their view. */
export function unfit(v: View): void {
  v.fitted = false;
  v.ui.fitNote.hidden = true;
}
