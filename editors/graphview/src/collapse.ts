// What is folded: collapsed lanes (their nodes hidden, a box in their place) and folded turns
// (a turn's nodes hidden, its prompt node standing for them), with proxy edges drawn to whatever
// stands for a hidden end.

import type cytoscape from 'cytoscape';
import { boxKey, edgeKey, headKey, nodeKey } from './elements';
import { boxLabel, displayFor } from './labels';
import { laneOfNode, type View } from './view';

// A turn: a main-lane USER_INPUT node and every node after it (in the graph's order, sub-agent
// lanes spawned meanwhile included) up to the next main-lane USER_INPUT.
/** Node id → the folded turn head it is drawn as (only nodes of folded turns); sets v.turnSize. */
export function turnMembers(v: View): Map<string, string> {
  const member = new Map<string, string>();
  v.turnSize.clear();
  if (v.collapsedTurns.size === 0) return member;
  let head: string | null = null;
  for (const n of v.model.nodes.values()) {
    const lane = laneOfNode(n);
    if (n.kind === 'USER_INPUT' && lane === 'main') head = v.collapsedTurns.has(n.id) ? n.id : null;
    if (head !== null) {
      member.set(n.id, head);
      v.turnSize.set(head, (v.turnSize.get(head) ?? 0) + 1);
    }
  }
  return member;
}

/** Shows and hides nodes, lane boxes and proxy edges as v.collapsed and v.collapsedTurns say. */
export function applyCollapse(v: View): void {
  const { cy, model, collapsed, collapsedTurns } = v;
  const shownAgain = cy.collection();
  cy.batch(() => {
    cy.edges('.gv-proxy').remove();
    const inTurn = turnMembers(v);
    cy.nodes('.gv-node').forEach((n) => {
      const ref = String(n.data('ref'));
      const head = inTurn.get(ref);
      const hide = collapsed.has(String(n.data('lane'))) || (head !== undefined && head !== ref);
      if (collapsedTurns.has(ref)) {
        n.data('display', displayFor(v, n.classes().join(' '), `▸ ${v.turnSize.get(ref) ?? 0} steps folded · ${String(model.nodes.get(ref)?.label ?? '')}`));
        n.addClass('gv-turn-folded');
      } else if (n.hasClass('gv-turn-folded')) {
        n.removeClass('gv-turn-folded');
        const d = model.defs.find((x) => x.data.id === n.id());
        if (d && typeof d.data.text === 'string') n.data('display', displayFor(v, d.classes, d.data.text));
      }
      if (hide !== n.hasClass('gv-hidden')) {
        n.toggleClass('gv-hidden', hide);
        shownAgain.merge(n);
      }
    });
    for (const li of model.lanes) {
      const id = li.lane.id;
      const c = collapsed.has(id);
      const box = cy.getElementById(boxKey(id));
      box.toggleClass('gv-hidden', !c);
      box.data('display', boxLabel(li.nodeCount));
      cy.getElementById(headKey(id)).data('display', `${c ? '▸' : '▾'}  ${li.title}`);
    }
    if (collapsed.size || collapsedTurns.size) {
      const add = proxyEdges(v, inTurn);
      if (add.length) cy.add(add);
    }
  });
  // Cytoscape caches whether a node takes up space; a node that was display:none while a
  // frame was drawn keeps a size of zero until that cache is dropped, and the layout needs
  // the real sizes now.
  if (shownAgain.nonempty()) {
    const touched = shownAgain.union(cy.nodes('.gv-box')) as unknown as { dirtyStyleCache?: () => void };
    if (typeof touched.dirtyStyleCache === 'function') touched.dirtyStyleCache();
    else cy.style().update();
  }
  const allAgents = model.lanes.filter((l) => !l.isMain);
  const allCollapsed = allAgents.length > 0 && allAgents.every((l) => collapsed.has(l.lane.id));
  v.ui.agentsBtn.textContent = allCollapsed ? 'Expand agents' : 'Collapse agents';
  v.ui.agentsBtn.disabled = allAgents.length === 0;
  if (v.selected) {
    const ele = cy.getElementById(nodeKey(v.selected));
    if (ele.empty() || ele.hasClass('gv-hidden')) v.act.select(null);
  }
}

/** The edges to draw between what stands for each edge's ends, where either end is folded away
 *  (one per kind and pair of ends). */
function proxyEdges(v: View, inTurn: Map<string, string>): cytoscape.ElementDefinition[] {
  const { cy, model, collapsed } = v;
  const laneOf = (id: string) => {
    const n = model.nodes.get(id);
    return n ? laneOfNode(n) : 'main';
  };
  const map = (id: string) => {
    if (collapsed.has(laneOf(id))) return boxKey(laneOf(id));
    const head = inTurn.get(id);
    return nodeKey(head ?? id);
  };
  const seen = new Set<string>();
  const add: cytoscape.ElementDefinition[] = [];
  for (const e of model.edges) {
    const s = map(e.source);
    const t = map(e.target);
    if ((s === nodeKey(e.source) && t === nodeKey(e.target)) || s === t) continue;
    const id = 'p' + edgeKey(e.kind, s, t);
    if (seen.has(id)) continue;
    seen.add(id);
    const cross = cy.getElementById(s).data('lane') !== cy.getElementById(t).data('lane') ? ' gv-cross' : '';
    add.push({ group: 'edges', data: { id, source: s, target: t, kind: e.kind }, classes: `gv-edge gv-proxy e-${e.kind}${cross}` });
  }
  return add;
}
