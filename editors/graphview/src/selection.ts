// The selected node, the details panel that shows it, and the Legend and Details toggles.

import type cytoscape from 'cytoscape';
import type { GraphNode } from './types';
import { nodeKey } from './elements';
import { showEmpty, showNode } from './details';
import { setLaneCollapsed, setTurnCollapsed } from './lanes';
import { ensureVisible } from './viewport';
import { laneOfNode, type View } from './view';

/** Selects a node (null: none), unfolding its lane; reveal scrolls it into view. */
export function select(v: View, id: string | null, reveal = false): void {
  v.complete?.();
  const { cy } = v;
  cy.edges('.gv-hl').removeClass('gv-hl');
  cy.nodes(':selected').unselect();
  v.selected = null;
  if (id !== null) {
    const n = v.model.nodes.get(id);
    if (n) {
      const lane = laneOfNode(n);
      if (v.collapsed.has(lane)) setLaneCollapsed(v, lane, false);
      const ele = cy.getElementById(nodeKey(id)) as cytoscape.NodeSingular;
      if (ele.nonempty()) {
        v.selected = id;
        ele.select();
        ele.connectedEdges().addClass('gv-hl');
        if (reveal) ensureVisible(v, ele);
      }
    }
  }
  refreshDetails(v);
}

export function refreshDetails(v: View): void {
  const { model, doc, cy } = v;
  const n = v.selected !== null ? model.nodes.get(v.selected) : undefined;
  if (!n) {
    showEmpty(v.ui.details, doc);
    return;
  }
  const parents: GraphNode[] = [];
  const children: GraphNode[] = [];
  for (const e of model.edges) {
    if (e.target === n.id) parents.push(model.nodes.get(e.source)!);
    if (e.source === n.id) children.push(model.nodes.get(e.target)!);
  }
  showNode(v.ui.details, n, {
    doc,
    palette: v.palette,
    lane: model.laneById.get(laneOfNode(n)),
    parents,
    children,
    onReveal: v.onReveal,
    onGoto: (id) => select(v, id, true),
    problems: v.problemsOf.get(n.id),
    turn: n.kind === 'USER_INPUT' && laneOfNode(n) === 'main'
      ? { folded: v.collapsedTurns.has(n.id), toggle: () => setTurnCollapsed(v, n.id, !v.collapsedTurns.has(n.id)) }
      : undefined,
    onCenter: () => {
      const ele = cy.getElementById(nodeKey(n.id));
      if (ele.nonempty()) cy.center(ele);
    },
  });
}

export function toggleLegend(v: View): void {
  const { legend, legendBtn } = v.ui;
  legend.hidden = !legend.hidden;
  legendBtn.setAttribute('aria-pressed', String(!legend.hidden));
}

export function toggleDetails(v: View): void {
  const { details, detailsBtn } = v.ui;
  details.hidden = !details.hidden;
  detailsBtn.setAttribute('aria-pressed', String(!details.hidden));
  v.cy.resize();
}
