// graph.problems (docs/graph.md): the diagnostics of each node's records, from the language
// server or `ccdag graph`. A node with any gets a marker and a coloured border; a turn folded into
// its prompt node shows those of every node it stands for. The markers are characters common
// fonts have (DejaVu, as on a bare Linux), not emoji.

import type cytoscape from 'cytoscape';
import { boxKey } from './elements';
import { boxLabel } from './labels';
import { turnMembers } from './collapse';
import { laneOfNode, type View } from './view';

const MARKS: Record<string, string> = { error: '✖ ', warning: '⚠ ', information: 'ℹ ', hint: 'ℹ ' };
const RANK: Record<string, number> = { error: 0, warning: 1, information: 2, hint: 3 };

/** Sums graph.problems into v.problemsOf (by what stands for each node now) and marks the nodes. */
export function applyProblems(v: View): void {
  const { cy, model, collapsed, problemsOf } = v;
  problemsOf.clear();
  const list = Array.isArray((v.graph as { problems?: unknown }).problems) ? ((v.graph as { problems: unknown[] }).problems) : [];
  const inTurn = turnMembers(v);
  const laneOf = (id: string) => {
    const n = model.nodes.get(id);
    return n ? laneOfNode(n) : 'main';
  };
  for (const p of list) {
    const x = p as { node?: unknown; severity?: unknown; count?: unknown; messages?: unknown };
    if (typeof x.node !== 'string' || !model.nodes.has(x.node)) continue;
    const sev = String(x.severity) in RANK ? String(x.severity) : 'warning';
    const msgs = Array.isArray(x.messages) ? x.messages.filter((m) => typeof m === 'string').slice(0, 5) as string[] : [];
    const count = typeof x.count === 'number' ? x.count : 1;
    // A collapsed lane's box stands for its nodes, and so for their problems.
    const at = collapsed.has(laneOf(x.node)) ? boxKey(laneOf(x.node)) : inTurn.get(x.node) ?? x.node;
    const had = problemsOf.get(at);
    if (!had) {
      problemsOf.set(at, { severity: sev, count, messages: msgs });
      continue;
    }
    if (RANK[sev] < RANK[had.severity]) had.severity = sev;
    had.count += count;
    had.messages = had.messages.concat(msgs).slice(0, 5);
  }
  cy.batch(() => {
    // mark sets a node's problem classes and its label (the label without any problem, given).
    const mark = (n: cytoscape.NodeSingular, p: { severity: string } | undefined, disp: string) => {
      n.removeClass('gv-problem gv-problem-error gv-problem-warning gv-problem-information gv-problem-hint');
      if (p) n.addClass(`gv-problem gv-problem-${p.severity}`);
      if (disp !== n.data('display')) n.data('display', disp);
    };
    cy.nodes('.gv-node').forEach((n) => {
      const p = problemsOf.get(String(n.data('ref')));
      let disp = String(n.data('display') ?? '');
      for (const m of Object.values(MARKS)) if (disp.startsWith(m)) disp = disp.slice(m.length);
      mark(n, p, p ? MARKS[p.severity] + disp : disp);
    });
    for (const li of model.lanes) {
      const box = cy.getElementById(boxKey(li.lane.id)) as cytoscape.NodeSingular;
      const p = problemsOf.get(box.id());
      const disp = boxLabel(li.nodeCount);
      mark(box, p, p ? `${MARKS[p.severity]}${p.count} problem${p.count === 1 ? '' : 's'} inside\n${disp}` : disp);
    }
  });
}
