// The canvas's pointer events (select, fold a lane, reveal, the hover tooltip), the viewer's keys
// and the resize observer.

import type cytoscape from 'cytoscape';
import { el } from './dom';
import { shorten } from './text';
import { toggleLane } from './lanes';
import { select } from './selection';
import { fit, unfit, zoomBy } from './viewport';
import type { View } from './view';

// Below this width (a panel at half an editor's width) the toolbar takes two rows and the lanes
// are a dropdown: one row held 1–2 of 16 lane chips and left the search box 70 px.
export const NARROW_VIEW = 900;

/** Marks the viewer narrow (class gv-narrow, graphview.css) when its width is under NARROW_VIEW. */
export function applyWidth(v: View): void {
  const w = v.ui.root.clientWidth;
  if (w > 0) v.ui.root.classList.toggle('gv-narrow', w < NARROW_VIEW);
}

/** Wires the events; returns the resize observer (when the page has one) for destroy. */
export function wireEvents(v: View): ResizeObserver | undefined {
  const { cy, doc, ui } = v;
  const { root, cyDiv, stage, tip } = ui;
  cy.on('tap', 'node.gv-node', (ev) => select(v, String(ev.target.data('ref'))));
  cy.on('tap', 'node.gv-head, node.gv-box', (ev) => toggleLane(v, String(ev.target.data('lane'))));
  cy.on('tap', (ev) => {
    if (ev.target === cy) select(v, null);
  });
  cy.on('dbltap', 'node.gv-node', (ev) => {
    const n = v.model.nodes.get(String(ev.target.data('ref')));
    if (n && v.onReveal) v.onReveal(n);
  });
  cy.on('mouseover', 'node.gv-node, node.gv-head, node.gv-box', () => {
    cyDiv.style.cursor = 'pointer';
  });
  cy.on('mouseout', 'node', () => {
    cyDiv.style.cursor = '';
    tip.hidden = true;
  });
  // Hovering a node shows its whole label (the canvas shows two lines of it).
  cy.on('mouseover', 'node.gv-node', (ev) => {
    const n = v.model.nodes.get(String(ev.target.data('ref')));
    if (!n) return;
    const kind = el(doc, 'span', 'gv-tip-kind', String(n.kind ?? ''));
    const body = el(doc, 'span', undefined, shorten(typeof n.label === 'string' ? n.label : '', 400) || String(n.toolName ?? ''));
    tip.replaceChildren(kind, body);
    const bb = (ev.target as cytoscape.NodeSingular).renderedBoundingBox({});
    const w = stage.clientWidth;
    tip.style.maxWidth = `${Math.min(420, Math.max(200, w - 40))}px`;
    tip.hidden = false;
    const left = Math.max(8, Math.min(bb.x1, w - tip.offsetWidth - 8));
    const below = bb.y2 + 8 + tip.offsetHeight < stage.clientHeight;
    tip.style.left = `${left}px`;
    tip.style.top = `${below ? bb.y2 + 8 : Math.max(8, bb.y1 - 8 - tip.offsetHeight)}px`;
  });
  // A lane's header shows its whole name (the header cuts a long one).
  cy.on('mouseover', 'node.gv-head', (ev) => {
    const li = v.model.laneById.get(String(ev.target.data('lane')));
    if (!li) return;
    tip.replaceChildren(el(doc, 'span', 'gv-tip-kind', li.isMain ? 'Lane' : 'Sub-agent'), el(doc, 'span', undefined, `${li.title} · ${li.nodeCount} nodes`));
    const bb = (ev.target as cytoscape.NodeSingular).renderedBoundingBox({});
    const w = stage.clientWidth;
    tip.style.maxWidth = `${Math.min(420, Math.max(200, w - 40))}px`;
    tip.hidden = false;
    tip.style.left = `${Math.max(8, Math.min(bb.x1, w - tip.offsetWidth - 8))}px`;
    tip.style.top = `${bb.y2 + 8}px`;
  });
  cy.on('viewport tapstart', () => {
    tip.hidden = true;
  });

  // Keys, while the viewer has focus: Escape clears the selection, f fits, + and - zoom.
  root.tabIndex = -1;
  root.addEventListener('keydown', (ev) => {
    const t = ev.target as HTMLElement | null;
    if (ev.ctrlKey || ev.metaKey || ev.altKey || (t && t !== root && /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    if (ev.key === 'Escape') select(v, null);
    else if (ev.key === 'f') fit(v);
    else if (ev.key === '+' || ev.key === '=') zoomBy(v, 1.25);
    else if (ev.key === '-') zoomBy(v, 1 / 1.25);
    else return;
    ev.preventDefault();
  });
  cy.on('tapstart', () => root.focus({ preventScroll: true }));
  // A pan or zoom by the user ends "fitted": a resize then keeps their view.
  const userMoved = () => unfit(v);
  cyDiv.addEventListener('wheel', userMoved, { passive: true });
  cy.on('tapdrag', userMoved);

  if (typeof ResizeObserver === 'undefined') return undefined;
  const ro = new ResizeObserver(() => {
    if (v.destroyed) return;
    applyWidth(v);
    cy.resize();
    if (v.fitted) fit(v, v.lastWhole);
  });
  ro.observe(stage);
  ro.observe(root);
  return ro;
}
