// The overview (minimap): the whole graph drawn small on a canvas, bottom right, with the visible
// part framed. A click or a drag in it centres the main view there. Drawn from the layout's own
// records (lane boxes and nodes as rectangles): no second renderer, no layout of its own, and no
// bounding box asked of cytoscape.
// cytoscape-navigator (the cytoscape team's plugin, 2.0.2) was weighed: it makes its thumbnail by
// rendering the whole graph to a PNG (cy.png) on graph changes, a second full draw of a 1 000-node
// session, and brings a stylesheet of its own; these rectangles cost well under a millisecond.

import { NODE_H, NODE_W } from './cystyle';
import type { View } from './view';
import { unfit } from './viewport';

const W = 180;
const H = 120;
const PAD = 4;

interface Frame {
  /** Graph units → overview pixels. */
  s: number;
  ox: number;
  oy: number;
}

function frameOf(v: View): Frame | null {
  const b = v.laid?.bounds;
  if (!b) return null;
  const bb = { x1: b.x1, y1: b.y1, w: b.x2 - b.x1, h: b.y2 - b.y1 };
  const s = Math.min((W - 2 * PAD) / Math.max(1, bb.w), (H - 2 * PAD) / Math.max(1, bb.h));
  return { s, ox: PAD + (W - 2 * PAD - bb.w * s) / 2 - bb.x1 * s, oy: PAD + (H - 2 * PAD - bb.h * s) / 2 - bb.y1 * s };
}

/** Draws the overview again: the graph and the viewport's frame. */
export function drawOverview(v: View): void {
  const canvas = v.ui.overview;
  if (canvas.hidden || v.destroyed) return;
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  const dpr = v.doc.defaultView?.devicePixelRatio || 1;
  if (canvas.width !== Math.round(W * dpr)) {
    canvas.width = Math.round(W * dpr);
    canvas.height = Math.round(H * dpr);
  }
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W, H);
  const f = frameOf(v);
  v.overviewFrame = f;
  if (!f) return;
  const p = v.palette;
  const rect = (x1: number, y1: number, w: number, h: number) => [f.ox + x1 * f.s, f.oy + y1 * f.s, Math.max(1, w * f.s), Math.max(1, h * f.s)] as const;
  for (const b of v.laid!.lanes) {
    ctx.fillStyle = b.main ? p.laneBg : p.agentLaneBg;
    ctx.strokeStyle = b.main ? p.laneBorder : p.agentLaneBorder;
    ctx.fillRect(...rect(b.x1, b.y1, b.x2 - b.x1, b.y2 - b.y1));
    ctx.strokeRect(...rect(b.x1, b.y1, b.x2 - b.x1, b.y2 - b.y1));
  }
  ctx.fillStyle = p.muted;
  for (const n of v.laid!.nodes) ctx.fillRect(...rect(n.x - NODE_W / 2, n.y - NODE_H / 2, NODE_W, NODE_H));
  const e = v.cy.extent();
  ctx.strokeStyle = p.select;
  ctx.lineWidth = 1.5;
  const [x, y, w, h] = rect(e.x1, e.y1, e.w, e.h);
  ctx.strokeRect(Math.max(0.75, x), Math.max(0.75, y), Math.min(W - 1.5, w), Math.min(H - 1.5, h));
}

/** Centres the main view on the graph point under overview pixel (px, py). */
export function overviewGoTo(v: View, px: number, py: number): void {
  const f = v.overviewFrame ?? frameOf(v);
  if (!f) return;
  const gx = (px - f.ox) / f.s;
  const gy = (py - f.oy) / f.s;
  const z = v.cy.zoom();
  unfit(v);
  v.cy.pan({ x: v.cy.width() / 2 - gx * z, y: v.cy.height() / 2 - gy * z });
}

/** Wires the overview: redrawn (once a frame) when the view or the graph changes; click and drag move. */
export function wireOverview(v: View): void {
  const canvas = v.ui.overview;
  canvas.style.width = `${W}px`;
  canvas.style.height = `${H}px`;
  const win = v.doc.defaultView;
  let queued = false;
  const queue = () => {
    if (queued || !win) return;
    queued = true;
    win.requestAnimationFrame(() => {
      queued = false;
      drawOverview(v);
    });
  };
  v.cy.on('viewport resize render', queue);
  let dragging = false;
  const at = (ev: PointerEvent) => {
    const r = canvas.getBoundingClientRect();
    overviewGoTo(v, ev.clientX - r.left, ev.clientY - r.top);
  };
  canvas.addEventListener('pointerdown', (ev) => {
    dragging = true;
    canvas.setPointerCapture?.(ev.pointerId);
    at(ev);
    ev.preventDefault();
  });
  canvas.addEventListener('pointermove', (ev) => {
    if (dragging) at(ev);
  });
  const stop = () => {
    dragging = false;
  };
  canvas.addEventListener('pointerup', stop);
  canvas.addEventListener('pointercancel', stop);
}
