// The Claude Sessions view (docs/spec.md §10): the sessions under the workspace's .claude/projects
// folders (else the config folder's), from the server's ccdag/sessions, grouped by project, kept
// current by its ccdag/sessionsChanged. A row shows title, when, tokens, cost, findings and, within
// a week of it, when Claude Code deletes the session; clicking opens the log (or the transcript).

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { ClientController } from './client';
import {
  costText,
  describeRow,
  deletesText,
  filterRows,
  findingsCount,
  groupByProject,
  resumeText,
  SessionRow,
  tokensText,
} from './sessionsFormat';

export const VIEW_ID = 'ccdag.sessions';
const CHANGED_DELAY_MS = 500; // logs being written change many times a second

type Node = { kind: 'project'; project: string; rows: SessionRow[] } | { kind: 'session'; row: SessionRow };

export class SessionsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly view: vscode.TreeView<Node>;
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  private rows: SessionRow[] | undefined; // undefined: not asked yet
  private filter = '';
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The client whose ccdag/sessionsChanged is listened to (a restart makes a new one). */
  private listening: LanguageClient | undefined;
  private listener: vscode.Disposable | undefined;

  constructor(private readonly controller: ClientController) {
    this.view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(
      this.view,
      this.emitter,
      this.view.onDidChangeVisibility((e) => {
        if (e.visible && this.rows === undefined) this.schedule(0);
      }),
      controller.onDidChangeState(() => {
        this.listen();
        if (this.view.visible) this.schedule(0);
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.schedule(0)),
      vscode.commands.registerCommand('ccdag.sessions.refresh', () => this.refresh()),
      vscode.commands.registerCommand('ccdag.sessions.filter', () => this.askFilter()),
      vscode.commands.registerCommand('ccdag.sessions.clearFilter', () => this.setFilter('')),
      vscode.commands.registerCommand('ccdag.sessions.open', (n?: Node | SessionRow) => this.open(n)),
      vscode.commands.registerCommand('ccdag.sessions.openLog', (n?: Node) => this.open(n, 'log')),
      vscode.commands.registerCommand('ccdag.sessions.openTranscript', (n?: Node) => this.open(n, 'transcript')),
      vscode.commands.registerCommand('ccdag.sessions.openGraph', (n?: Node) => this.open(n, 'graph')),
    );
    void vscode.commands.executeCommand('setContext', 'ccdag.sessions.filtered', false);
    if (this.view.visible) this.schedule(0);
  }

  // ---- tree ------------------------------------------------------------------------------------

  getChildren(node?: Node): Node[] {
    if (node?.kind === 'session') return [];
    if (node?.kind === 'project') return node.rows.map((row) => ({ kind: 'session', row }));
    const rows = filterRows(this.rows ?? [], this.filter);
    return [...groupByProject(rows)].map(([project, list]) => ({ kind: 'project', project, rows: list }));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'project') {
      const item = new vscode.TreeItem(node.project || '(no project)', vscode.TreeItemCollapsibleState.Expanded);
      item.id = `p:${node.project}`;
      item.description = `${node.rows.length} session${node.rows.length === 1 ? '' : 's'}`;
      item.iconPath = new vscode.ThemeIcon('folder');
      item.contextValue = 'ccdagProject';
      return item;
    }
    const r = node.row;
    const now = new Date();
    // A session with no prompt (only snapshots, or a sub-agent's leftovers) has no title.
    const item = new vscode.TreeItem(r.title || `(no prompt) ${r.id.slice(0, 8)}`, vscode.TreeItemCollapsibleState.None);
    item.id = `s:${r.uri ?? r.path}`;
    item.description = describeRow(r, now);
    const resume = resumeText(r.resume);
    const dying = deletesText(r.deletes, now);
    item.iconPath = dying
      ? new vscode.ThemeIcon('trash', new vscode.ThemeColor('list.warningForeground'))
      : resume.state === 'loses'
        ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
        : resume.state === 'complete'
          ? new vscode.ThemeIcon('pass')
          : new vscode.ThemeIcon('circle-outline');
    item.tooltip = tooltip(r, now);
    item.contextValue = 'ccdagSession';
    if (r.uri) {
      item.resourceUri = vscode.Uri.parse(r.uri);
      item.command = { command: 'ccdag.sessions.open', title: 'Open', arguments: [node] };
    }
    return item;
  }

  // ---- data ------------------------------------------------------------------------------------

  private schedule(delay = CHANGED_DELAY_MS): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, delay);
  }

  /** Asks the server again (starting it when no log has been opened yet). */
  async refresh(): Promise<void> {
    const seq = ++this.seq;
    const client = await this.controller.ensure();
    if (seq !== this.seq) return;
    if (!client) {
      this.rows = [];
      this.view.message = 'The ccdag language server is not running: see the ccdag Language Server output.';
      this.emitter.fire(undefined);
      return;
    }
    this.listen();
    let res: { sessions?: SessionRow[]; errors?: string[] } | undefined;
    try {
      res = await vscode.window.withProgress({ location: { viewId: VIEW_ID } }, () =>
        client.sendRequest<{ sessions?: SessionRow[]; errors?: string[] }>('ccdag/sessions', {}),
      );
    } catch (err) {
      if (seq !== this.seq) return;
      const code = (err as { code?: number })?.code;
      this.rows = [];
      this.view.message =
        code === -32601
          ? 'This ccdag is too old for the session browser (no ccdag/sessions): update it.'
          : `ccdag/sessions failed: ${err instanceof Error ? err.message : String(err)}`;
      this.emitter.fire(undefined);
      return;
    }
    if (seq !== this.seq) return;
    this.rows = Array.isArray(res?.sessions) ? res.sessions.filter((r) => r && typeof r.id === 'string') : [];
    for (const e of res?.errors ?? []) this.controller.output.appendLine(`ccdag/sessions: ${e}`);
    this.updateMessage();
    this.emitter.fire(undefined);
  }

  private listen(): void {
    const c = this.controller.running;
    if (c === this.listening) return;
    this.listener?.dispose();
    this.listener = undefined;
    this.listening = c;
    if (c) {
      this.listener = c.onNotification('ccdag/sessionsChanged', () => {
        if (this.view.visible) this.schedule();
        else this.rows = undefined; // asked again when shown
      });
    }
  }

  private updateMessage(): void {
    const rows = this.rows ?? [];
    const shown = filterRows(rows, this.filter).length;
    if (!rows.length) {
      this.view.message =
        "No Claude Code sessions in this workspace's .claude/projects folders (nor in the config folder's).";
    } else if (this.filter) {
      this.view.message = `${shown} of ${rows.length} sessions match "${this.filter}".`;
    } else {
      this.view.message = undefined;
    }
    this.view.description = this.filter ? `filter: ${this.filter}` : undefined;
  }

  // ---- commands --------------------------------------------------------------------------------

  private async askFilter(): Promise<void> {
    const v = await vscode.window.showInputBox({
      title: 'Filter Claude Sessions',
      prompt: 'Words in the title, project, session id or path (all must match); empty shows every session',
      value: this.filter,
    });
    if (v !== undefined) this.setFilter(v.trim());
  }

  private setFilter(v: string): void {
    this.filter = v;
    void vscode.commands.executeCommand('setContext', 'ccdag.sessions.filtered', !!v);
    this.updateMessage();
    this.emitter.fire(undefined);
  }

  private async open(n: Node | SessionRow | undefined, how?: 'log' | 'transcript' | 'graph'): Promise<void> {
    const row = !n ? undefined : 'kind' in n ? (n.kind === 'session' ? n.row : undefined) : n;
    if (!row?.uri) return;
    const uri = vscode.Uri.parse(row.uri);
    how ??= vscode.workspace.getConfiguration('ccdag').get<string>('sessions.clickOpens') === 'transcript' ? 'transcript' : 'log';
    if (how === 'transcript') await vscode.commands.executeCommand('ccdag.openTranscriptPreview', uri);
    else if (how === 'graph') await vscode.commands.executeCommand('ccdag.showWorkflowGraph', uri);
    else await vscode.window.showTextDocument(uri, { preview: true });
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.listener?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

function tooltip(r: SessionRow, now: Date): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.isTrusted = false;
  md.supportHtml = false;
  md.appendText(r.title || r.id);
  md.appendMarkdown('\n\n');
  const line = (label: string, value: string) => {
    if (!value) return;
    md.appendMarkdown(`- ${label}: `);
    md.appendText(value);
    md.appendMarkdown('\n');
  };
  line('Project', r.project);
  line('Session', r.id);
  line('From', r.start ? `${r.start} to ${r.end || '?'}` : r.end);
  line('Records', `${r.records}${r.subagents ? `, ${r.subagents} sub-agent${r.subagents === 1 ? '' : 's'} (figures include them)` : ''}`);
  line('Tokens', tokensText(r.tokens));
  line('Cost', costText(r.cost) || 'no priced messages');
  const f = r.findings;
  if (f) line('Findings', `${findingsCount(f)} (${f.error} errors, ${f.warning} warnings, ${f.information} information)`);
  if (r.secrets) line('Secrets', String(r.secrets));
  line('Resume', resumeText(r.resume).text);
  if (r.deletes) {
    const soon = deletesText(r.deletes, now);
    line('Claude Code deletes it', `on or after ${r.deletes}${soon ? ` (${soon})` : ''}; \`ccdag archive DEST\` keeps a copy`);
  }
  line('Log', r.path);
  return md;
}
