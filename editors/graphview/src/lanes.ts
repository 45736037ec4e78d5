// Folding lanes and turns, and the toolbar's lane chips.

import { applyCollapse } from './collapse';
import { applyProblems } from './problems';
import { goToLane, relayout } from './viewport';
import { button, el } from './dom';
import { shorten } from './text';
import type { View } from './view';

export function toggleLane(v: View, id: string): void {
  setLaneCollapsed(v, id, !v.collapsed.has(id));
}

export function setLaneCollapsed(v: View, id: string, c: boolean): void {
  v.complete?.();
  const { collapsed } = v;
  if (!v.model.laneById.has(id) || collapsed.has(id) === c) return;
  if (c) collapsed.add(id);
  else collapsed.delete(id);
  applyCollapse(v);
  applyProblems(v);
  buildChips(v);
  relayout(v);
}

export function toggleAllAgents(v: View): void {
  v.complete?.();
  const { collapsed } = v;
  const agents = v.model.lanes.filter((l) => !l.isMain).map((l) => l.lane.id);
  const collapse = !agents.every((id) => collapsed.has(id));
  for (const id of agents) {
    if (collapse) collapsed.add(id);
    else collapsed.delete(id);
  }
  applyCollapse(v);
  applyProblems(v);
  buildChips(v);
  relayout(v);
}

export function setTurnCollapsed(v: View, id: string, c: boolean): void {
  v.complete?.();
  const { collapsedTurns } = v;
  const n = v.model.nodes.get(id);
  if (!n || n.kind !== 'USER_INPUT' || collapsedTurns.has(id) === c) return;
  if (c) collapsedTurns.add(id);
  else collapsedTurns.delete(id);
  applyCollapse(v);
  applyProblems(v);
  relayout(v);
  v.act.refreshDetails();
}

/** One chip per lane in the toolbar, and one option of the lane dropdown a narrow view shows
 *  instead: either goes to the lane (its header in the graph folds it). */
export function buildChips(v: View): void {
  const { doc } = v;
  const list: HTMLButtonElement[] = [];
  const lanes = v.model.lanes;
  const head = el(doc, 'option', undefined, `${lanes.length} lane${lanes.length === 1 ? '' : 's'}: go to…`);
  head.value = '';
  head.disabled = true;
  const options: HTMLOptionElement[] = [head];
  for (const li of lanes) {
    const folded = v.collapsed.has(li.lane.id) ? ' (folded)' : '';
    const o = el(doc, 'option', undefined, `${shorten(li.title, 60)} (${li.nodeCount})${folded}`);
    o.value = li.lane.id;
    options.push(o);
    const b = button(doc, '', `${li.title}: ${li.nodeCount} nodes${folded}. Click to go to this lane; click its header in the graph to fold or unfold it.`, () => goToLane(v, li.lane.id), 'gv-lane-chip' + (li.isMain ? '' : ' gv-agent'));
    b.append(el(doc, 'span', 'gv-chip-dot'), el(doc, 'span', undefined, shorten(li.title, 24)));
    b.setAttribute('aria-pressed', String(v.collapsed.has(li.lane.id)));
    b.dataset.lane = li.lane.id;
    list.push(b);
  }
  v.ui.chips.replaceChildren(...list);
  v.ui.laneSelect.replaceChildren(...options);
  v.ui.laneSelect.value = '';
}

/** The lane dropdown goes to the lane chosen, then shows its prompt again (so the same lane can be chosen twice). */
export function wireLaneSelect(v: View): void {
  const sel = v.ui.laneSelect;
  sel.addEventListener('change', () => {
    const id = sel.value;
    sel.value = '';
    if (id) goToLane(v, id);
  });
}
