// Search: filters (fades what does not match) and finds (Enter: the next match, selected).

import type cytoscape from 'cytoscape';
import type { GraphNode } from './types';
import { nodeKey } from './elements';
import { select } from './selection';
import { focusNode } from './viewport';
import type { View } from './view';

function matches(n: GraphNode, q: string): boolean {
  const hay = [n.label, n.toolName, n.kind, n.toolUseId, n.model, ...(Array.isArray(n.uuids) ? n.uuids : [])]
    .filter((x) => typeof x === 'string')
    .join('\n')
    .toLowerCase();
  return q.split(/\s+/).every((w) => hay.includes(w));
}

/** Fades the nodes that do not match v.query and counts those that do. */
export function applySearch(v: View): void {
  v.complete?.();
  const { cy, model } = v;
  const q = v.query.trim().toLowerCase();
  let count = 0;
  cy.batch(() => {
    cy.nodes('.gv-node').forEach((e) => {
      const n = model.nodes.get(String(e.data('ref')));
      const hit = !q || (n !== undefined && matches(n, q));
      e.toggleClass('gv-dim', !hit);
      e.toggleClass('gv-match', !!q && hit);
      if (q && hit) count++;
    });
    cy.edges().toggleClass('gv-dim', !!q);
  });
  v.ui.searchCount.textContent = q ? `${count} found` : '';
  v.ui.root.dataset.matches = String(count);
}

/** Selects and centres the next match (back: the one before), zoomed in to read when the view was too small. */
export function findNext(v: View, back = false): void {
  const { cy } = v;
  const q = v.query.trim().toLowerCase();
  if (!q) return;
  const ids = [...v.model.nodes.values()].filter((n) => matches(n, q)).map((n) => n.id);
  if (ids.length === 0) return;
  v.matchAt = (v.matchAt + (back ? ids.length - 1 : 1)) % ids.length;
  select(v, ids[v.matchAt], true);
  const ele = cy.getElementById(nodeKey(ids[v.matchAt])) as cytoscape.NodeSingular;
  if (ele.nonempty()) focusNode(v, ele);
  v.ui.searchCount.textContent = `${v.matchAt + 1} / ${ids.length}`;
}

/** Search as the user types; Enter finds the next match, Shift+Enter the one before, Escape clears. */
export function wireSearch(v: View): void {
  const { search } = v.ui;
  search.addEventListener('input', () => {
    v.query = search.value;
    v.matchAt = -1;
    applySearch(v);
  });
  search.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') {
      findNext(v, ev.shiftKey);
      ev.preventDefault();
    } else if (ev.key === 'Escape') {
      search.value = v.query = '';
      applySearch(v);
    }
  });
}
