// Brings cytoscape's elements in line with v.model: adds, updates and removes elements by id
// (so that an update keeps what did not change), then folds, marks and titles as before.

import type cytoscape from 'cytoscape';
import { applyCollapse } from './collapse';
import { applyProblems } from './problems';
import { buildChips } from './lanes';
import { displayFor, sessionTitle } from './labels';
import type { View } from './view';

/** only: add just these elements (the first render's first view; a second sync adds the rest);
 *  at: where to put nodes as they are added. */
export function sync(v: View, only?: Set<string>, at?: Map<string, { x: number; y: number }>): void {
  const { cy, model, stats, ui } = v;
  for (const d of model.defs) {
    // once per model (a new graph makes new defs): a def added in two steps is wrapped once
    if (typeof d.data.text === 'string' && d.data.display === undefined && (!only || only.has(d.data.id))) d.data.display = displayFor(v, d.classes, d.data.text);
  }
  const want = new Set(model.defs.map((d) => d.data.id));
  cy.batch(() => {
    cy.edges('.gv-proxy').remove();
    cy.elements().forEach((ele) => {
      if (!ele.removed() && !want.has(ele.id())) ele.remove();
    });
    const add: cytoscape.ElementDefinition[] = [];
    for (const d of model.defs) {
      if (only && !only.has(d.data.id)) continue;
      const ex = cy.getElementById(d.data.id);
      if (ex.nonempty() && !ex.removed()) {
        const { id: _id, parent, source: _s, target: _t, ...rest } = d.data as Record<string, unknown>;
        if (ex.isNode() && (ex.data('parent') ?? undefined) !== parent) {
          (ex as cytoscape.NodeSingular).move({ parent: (parent as string | undefined) ?? null });
        }
        ex.data(rest);
        ex.classes(d.classes);
      } else {
        const position = d.group === 'nodes' ? at?.get(d.data.id) : undefined;
        add.push({ group: d.group, data: d.data, classes: d.classes, ...(position ? { position: { ...position } } : {}) } as cytoscape.ElementDefinition);
      }
    }
    if (add.length) cy.add(add);
  });
  for (const id of Array.from(v.collapsed)) if (!model.laneById.has(id)) v.collapsed.delete(id);
  for (const id of Array.from(v.collapsedTurns)) if (!model.nodes.has(id)) v.collapsedTurns.delete(id);
  applyCollapse(v);
  applyProblems(v);
  buildChips(v);
  const graph = v.graph;
  ui.title.textContent = model.lanes.length ? sessionTitle(graph) : 'Workflow graph';
  ui.title.title = graph && graph.session && typeof graph.session.id === 'string' ? `Session ${graph.session.id}` : '';
  stats.nodes = model.nodes.size;
  stats.edges = model.edges.length;
  stats.lanes = model.lanes.length;
  ui.message.hidden = model.nodes.size > 0;
  ui.message.textContent = model.nodes.size > 0 ? '' : 'This session has no workflow nodes yet.';
}
