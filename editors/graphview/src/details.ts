// The details panel: every field of the selected node, as text.

import type { GraphNode } from './types';
import type { LaneInfo } from './elements';
import type { Palette } from './theme';
import { button, el } from './dom';
import { baseName, formatCount, formatDuration, num, str } from './text';

export interface DetailsContext {
  doc: Document;
  palette: Palette;
  lane: LaneInfo | undefined;
  parents: GraphNode[];
  children: GraphNode[];
  onReveal?: (node: GraphNode) => void;
  onGoto: (id: string) => void;
  onCenter: () => void;
  /** The node's diagnostics (graph.problems), when it has any. */
  problems?: { severity: string; count: number; messages: string[] };
  /** For a turn's USER_INPUT node: whether the turn is folded, and how to fold / unfold it. */
  turn?: { folded: boolean; toggle: () => void };
}

const KIND_NAME: Record<string, string> = {
  USER_INPUT: 'User input',
  THOUGHT: 'Thought',
  ACTION: 'Action',
  OBSERVATION: 'Observation',
  SYSTEM: 'System',
};

function kindColors(kind: string, failure: boolean, p: Palette): [string, string] {
  if (failure) return [p.failFill, p.failLine];
  switch (kind) {
    case 'USER_INPUT':
      return [p.userFill, p.userLine];
    case 'THOUGHT':
      return [p.thoughtFill, p.thoughtLine];
    case 'ACTION':
      return [p.actionFill, p.actionLine];
    case 'OBSERVATION':
      return [p.obsFill, p.obsLine];
    default:
      return [p.systemFill, p.systemLine];
  }
}

export function showEmpty(panel: HTMLElement, doc: Document): void {
  panel.replaceChildren(
    el(doc, 'h2', undefined, 'Details'),
    el(doc, 'p', 'gv-empty', 'Click a node to see its fields. Click a lane header to collapse or expand the lane.'),
  );
}

export function showNode(panel: HTMLElement, node: GraphNode, ctx: DetailsContext): void {
  const { doc } = ctx;
  const parts: HTMLElement[] = [];
  const kind = String(node.kind ?? '');
  const failure = node.status === 'failure';

  parts.push(el(doc, 'h2', undefined, 'Node'));
  const badge = el(doc, 'span', 'gv-kind-badge', KIND_NAME[kind] || kind || 'Node');
  const [fill, line] = kindColors(kind, failure, ctx.palette);
  badge.style.background = fill;
  badge.style.borderColor = line;
  badge.style.color = 'inherit';
  parts.push(badge);

  const text = str(node.label);
  if (text) parts.push(el(doc, 'p', 'gv-node-text', text));

  const actions = el(doc, 'div', 'gv-actions');
  if (ctx.onReveal) {
    const reveal = ctx.onReveal;
    actions.appendChild(button(doc, 'Reveal in editor', 'Open the log at this record', () => reveal(node), 'gv-primary gv-reveal'));
  }
  actions.appendChild(button(doc, 'Center', 'Center the graph on this node', ctx.onCenter));
  if (ctx.turn) {
    const t = ctx.turn;
    actions.appendChild(button(doc, t.folded ? 'Expand turn' : 'Collapse turn', 'Fold this turn into its prompt node, or unfold it', t.toggle, 'gv-turn-toggle'));
  }
  parts.push(actions);
  if (ctx.problems) {
    const p = ctx.problems;
    const box = el(doc, 'div', `gv-problems gv-problems-${p.severity}`);
    const sev = p.severity === 'information' ? 'note' : p.severity;
    // Several findings may differ in severity (a folded turn, or one node's records): the worst is named.
    box.appendChild(el(doc, 'strong', undefined, p.count === 1 ? `1 ${sev}` : `${p.count} problems, the worst: ${sev}`));
    for (const m of p.messages) box.appendChild(el(doc, 'div', undefined, m));
    parts.push(box);
  }

  const dl = el(doc, 'dl', 'gv-fields');
  const field = (name: string, value: string | undefined, cls?: string) => {
    if (value === undefined || value === '') return;
    dl.appendChild(el(doc, 'dt', undefined, name));
    const dd = el(doc, 'dd', cls, value);
    dd.dataset.field = name;
    dl.appendChild(dd);
  };

  field('Kind', kind);
  const li = ctx.lane;
  if (li) {
    const l = li.lane;
    const name = str(l.label) || l.id;
    const type = str(l.subagentType) !== name ? str(l.subagentType) : undefined;
    const extra = [type, str(l.agentId) ? `agent ${l.agentId}` : undefined].filter(Boolean).join(', ');
    field('Lane', extra && !li.isMain ? `${name} (${extra})` : name);
  } else {
    field('Lane', str(node.lane));
  }
  field('Branch', node.active === false ? 'abandoned (not on the final path)' : 'active');
  field('Tool', str(node.toolName));
  field('Tool use id', str(node.toolUseId), 'gv-mono');
  if (str(node.status)) field('Status', String(node.status), failure ? 'gv-status-failure' : node.status === 'success' ? 'gv-status-success' : undefined);
  const dur = num(node.durationMs);
  if (dur !== undefined) field('Duration', `${formatDuration(dur)} (${formatCount(dur)} ms)`);
  field('Model', str(node.model), 'gv-mono');
  const tin = num(node.inputTokens);
  const tout = num(node.outputTokens);
  if (tin !== undefined || tout !== undefined) {
    field('Tokens', `${tin !== undefined ? formatCount(tin) : '–'} in · ${tout !== undefined ? formatCount(tout) : '–'} out`);
  }
  const ts = str(node.timestamp);
  if (ts) {
    const d = new Date(ts);
    field('Timestamp', isNaN(d.getTime()) ? ts : `${ts}`, 'gv-mono');
  }
  const loc = node.location;
  if (loc && typeof loc === 'object' && str(loc.uri)) {
    const start = loc.range && loc.range.start;
    const pos = start && typeof start.line === 'number' ? `:${start.line + 1}:${(start.character ?? 0) + 1}` : '';
    field('Location', baseName(loc.uri as string) + pos, 'gv-mono');
    const dd = dl.lastElementChild as HTMLElement | null;
    if (dd) dd.title = String(loc.uri);
  }
  const uuids = Array.isArray(node.uuids) ? node.uuids.filter((u) => typeof u === 'string') : [];
  if (uuids.length) field(uuids.length > 1 ? `UUIDs (${uuids.length})` : 'UUID', uuids.join('\n'), 'gv-mono');
  field('Node id', node.id, 'gv-mono');
  parts.push(dl);

  const links = (title: string, list: GraphNode[]) => {
    if (!list.length) return;
    parts.push(el(doc, 'h2', undefined, title));
    const box = el(doc, 'div', 'gv-links');
    for (const n of list.slice(0, 30)) {
      const lbl = `${KIND_NAME[String(n.kind)] || n.kind}: ${str(n.label) || str(n.toolName) || n.id}`;
      const b = button(doc, lbl.length > 80 ? lbl.slice(0, 79) + '…' : lbl, 'Go to this node', () => ctx.onGoto(n.id));
      box.appendChild(b);
    }
    if (list.length > 30) box.appendChild(el(doc, 'span', 'gv-empty', `… and ${list.length - 30} more`));
    parts.push(box);
  };
  links('Parents', ctx.parents);
  links('Children', ctx.children);

  panel.replaceChildren(...parts);
}
