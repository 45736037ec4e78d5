// The Claude Sessions view (docs/spec.md §10): the sessions under the workspace's .claude/projects
// folders (else the config folder's), from the server's ccdag/sessions, grouped by the folder they
// ran in, kept current by its ccdag/sessionsChanged. A row shows title, when, tokens, cost, findings
// and, within a week of it, when Claude Code deletes the session (first: a narrow side bar cuts a
// row's end); a session without messages is dimmed; clicking opens the log (or the transcript).
// The first answer streams (§14): rows as the server has them ($/progress on partialResultToken)
// and how far it got (workDoneToken), never the empty-state text while it reads. The filter asks
// the server which sessions' records hold its words (`query`, as `ccdag search`).

import * as vscode from 'vscode';
import { ProgressType, WorkDoneProgress, type LanguageClient } from 'vscode-languageclient/node';
import type { ClientController } from './client';
import {
  costText,
  describeRow,
  deletesText,
  filterRows,
  findingsBreakdown,
  groupByProject,
  localTime,
  resumeText,
  rowLabel,
  SessionRow,
  tokensText,
} from './sessionsFormat';

export const VIEW_ID = 'ccdag.sessions';
const CHANGED_DELAY_MS = 500; // logs being written change many times a second
const REDRAW_MS = 200; // streamed rows redraw the tree at most this often
// Rows of sessions without messages carry this scheme as their resourceUri: its decoration dims them.
const EMPTY_SCHEME = 'ccdag-empty-session';

interface SessionsAnswer {
  sessions?: SessionRow[];
  errors?: string[];
}

type Node = { kind: 'project'; project: string; folder: string; rows: SessionRow[] } | { kind: 'session'; row: SessionRow };

export class SessionsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly view: vscode.TreeView<Node>;
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  private rows: SessionRow[] | undefined; // the last whole answer; undefined: not asked yet
  /** Rows streamed while the first answer is read (by uri), shown until it comes. */
  private readonly partial = new Map<string, SessionRow>();
  private loading = false;
  /** The server's progress message while it reads ("37 of 400 sessions"). */
  private progress = '';
  private filter = '';
  /** Paths of the sessions whose records hold the filter's words (the server's answer to `query`). */
  private hits: Set<string> | undefined;
  private searching = false;
  private seq = 0;
  private querySeq = 0;
  private timer: NodeJS.Timeout | undefined;
  private redraw: NodeJS.Timeout | undefined;
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
        // another server (a restart): its first answer streams again
        if (this.controller.running !== this.listening) {
          this.rows = undefined;
          this.hits = undefined;
        }
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
      vscode.window.registerFileDecorationProvider({
        provideFileDecoration: (uri) =>
          uri.scheme === EMPTY_SCHEME
            ? { color: new vscode.ThemeColor('disabledForeground'), tooltip: 'No messages in this session' }
            : undefined,
      }),
    );
    void vscode.commands.executeCommand('setContext', 'ccdag.sessions.filtered', false);
    if (this.view.visible) this.schedule(0);
  }

  // ---- tree ------------------------------------------------------------------------------------

  getChildren(node?: Node): Node[] {
    if (node?.kind === 'session') return [];
    if (node?.kind === 'project') return node.rows.map((row) => ({ kind: 'session', row }));
    const rows = filterRows(this.current(), this.filter, this.hits);
    return groupByProject(rows).map((g) => ({ kind: 'project', project: g.label, folder: g.key, rows: g.rows }));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'project') {
      const item = new vscode.TreeItem(node.project || '(no project)', vscode.TreeItemCollapsibleState.Expanded);
      item.id = `p:${node.folder}`;
      item.description = `${node.rows.length} session${node.rows.length === 1 ? '' : 's'}`;
      if (node.folder !== node.project) item.tooltip = `${node.project}\n(Claude Code's folder: ${node.folder})`;
      item.iconPath = new vscode.ThemeIcon('folder');
      item.contextValue = 'ccdagProject';
      return item;
    }
    const r = node.row;
    const now = new Date();
    // A session with no prompt (only snapshots, or a sub-agent's leftovers) has no title.
    const item = new vscode.TreeItem(rowLabel(r, now), vscode.TreeItemCollapsibleState.None);
    item.id = `s:${r.uri ?? r.path}`;
    item.description = describeRow(r, now);
    const resume = resumeText(r.resume);
    const dying = deletesText(r.deletes, now, r.overdue);
    item.iconPath = dying
      ? new vscode.ThemeIcon('trash', new vscode.ThemeColor('list.warningForeground'))
      : r.empty
        ? new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground'))
        : resume.state === 'loses'
          ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
          : resume.state === 'complete'
            ? new vscode.ThemeIcon('pass')
            : new vscode.ThemeIcon('circle-outline');
    item.tooltip = tooltip(r, now);
    item.contextValue = 'ccdagSession';
    if (r.empty) item.resourceUri = vscode.Uri.from({ scheme: EMPTY_SCHEME, path: `/${r.id}` });
    if (r.uri) {
      if (!r.empty) item.resourceUri = vscode.Uri.parse(r.uri);
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

  /** What the tree shows: the last whole answer, else the rows streamed so far (newest first). */
  private current(): SessionRow[] {
    if (this.rows !== undefined) return this.rows;
    return [...this.partial.values()].sort((a, b) => (b.end || b.start).localeCompare(a.end || a.start));
  }

  /** Redraws the tree soon: streamed batches come many a second. */
  private redrawSoon(): void {
    if (this.redraw) return;
    this.redraw = setTimeout(() => {
      this.redraw = undefined;
      this.updateMessage();
      this.emitter.fire(undefined);
    }, REDRAW_MS);
  }

  /** Asks the server again (starting it when no log has been opened yet). */
  async refresh(): Promise<void> {
    const seq = ++this.seq;
    const client = await this.controller.ensure();
    if (seq !== this.seq) return;
    if (!client) {
      this.rows = [];
      this.loading = false;
      this.view.message = 'The ccdag language server is not running: see the ccdag Language Server output.';
      this.emitter.fire(undefined);
      return;
    }
    this.listen();
    // The first answer is shown as it streams; a later one (the disk changed) replaces the list
    // when whole, so that rows do not vanish and come back.
    const streaming = this.rows === undefined;
    if (streaming) this.partial.clear();
    this.loading = true;
    this.progress = '';
    this.updateMessage();
    const token = `ccdag-sessions-${process.pid}-${seq}`;
    const subs = [
      client.onProgress(new ProgressType<SessionsAnswer>(), `${token}-rows`, (batch) => {
        if (seq !== this.seq || !streaming || !Array.isArray(batch?.sessions)) return;
        for (const r of batch.sessions) if (r && typeof r.id === 'string') this.partial.set(r.uri ?? r.path, r);
        this.redrawSoon();
      }),
      client.onProgress(WorkDoneProgress.type, `${token}-work`, (p) => {
        if (seq !== this.seq || p.kind === 'end' || !p.message) return;
        this.progress = p.message;
        this.redrawSoon();
      }),
    ];
    let res: SessionsAnswer | undefined;
    try {
      res = await vscode.window.withProgress({ location: { viewId: VIEW_ID } }, () =>
        client.sendRequest<SessionsAnswer>('ccdag/sessions', { workDoneToken: `${token}-work`, partialResultToken: `${token}-rows` }),
      );
    } catch (err) {
      if (seq !== this.seq) return;
      const code = (err as { code?: number })?.code;
      this.rows = [];
      this.loading = false;
      this.view.message =
        code === -32601
          ? 'This ccdag is too old for the session browser (no ccdag/sessions): update it.'
          : `ccdag/sessions failed: ${err instanceof Error ? err.message : String(err)}`;
      this.emitter.fire(undefined);
      return;
    } finally {
      for (const d of subs) d.dispose();
    }
    if (seq !== this.seq) return;
    this.rows = Array.isArray(res?.sessions) ? res.sessions.filter((r) => r && typeof r.id === 'string') : [];
    this.partial.clear();
    this.loading = false;
    for (const e of res?.errors ?? []) this.controller.output.appendLine(`ccdag/sessions: ${e}`);
    if (this.filter) void this.search(this.filter); // the sessions changed: ask again which hold the words
    this.updateMessage();
    this.emitter.fire(undefined);
  }

  /** Asks the server which sessions' records hold every word of the filter (ccdag/sessions `query`). */
  private async search(filter: string): Promise<void> {
    const seq = ++this.querySeq;
    const client = this.controller.running ?? (await this.controller.ensure());
    if (seq !== this.querySeq || !client) return;
    this.searching = true;
    this.updateMessage();
    let hits: Set<string> | undefined;
    try {
      const res = await vscode.window.withProgress({ location: { viewId: VIEW_ID } }, () =>
        client.sendRequest<SessionsAnswer>('ccdag/sessions', { query: filter }),
      );
      hits = new Set((res?.sessions ?? []).filter((r) => r && typeof r.path === 'string').map((r) => r.path));
    } catch (err) {
      this.controller.output.appendLine(`ccdag/sessions query: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (seq !== this.querySeq) return;
    this.searching = false;
    this.hits = hits;
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
    const rows = this.current();
    const shown = filterRows(rows, this.filter, this.hits).length;
    if (this.loading && this.rows === undefined) {
      // Reading: never the empty-state text meanwhile.
      const sofar = rows.length ? `: ${rows.length} so far` : '';
      this.view.message = `Reading sessions…${this.progress ? ` ${this.progress}` : ''}${sofar}`;
    } else if (!rows.length) {
      this.view.message =
        "No Claude Code sessions in this workspace's .claude/projects folders (nor in the config folder's).";
    } else if (this.filter && this.searching) {
      this.view.message = `Searching the sessions' records for "${this.filter}"… (${shown} match by title, project or id so far)`;
    } else if (this.filter) {
      this.view.message = `${shown} of ${rows.length} sessions match "${this.filter}" (in their records, title, project or id).`;
    } else {
      this.view.message = undefined;
    }
    // The count beside the view's title: what the list holds, or has so far while it fills.
    const count = `${rows.length} session${rows.length === 1 ? '' : 's'}${this.loading && this.rows === undefined ? ' so far' : ''}`;
    this.view.description = this.filter ? `filter: ${this.filter} · ${shown} of ${count}` : count;
  }

  // ---- commands --------------------------------------------------------------------------------

  private async askFilter(): Promise<void> {
    const v = await vscode.window.showInputBox({
      title: 'Filter Claude Sessions',
      prompt: "Words the session's records hold (prompts, replies, tool calls and results), or its title, project, id or path; all must match; empty shows every session",
      value: this.filter,
    });
    if (v !== undefined) this.setFilter(v.trim());
  }

  private setFilter(v: string): void {
    this.filter = v;
    this.hits = undefined;
    this.searching = false;
    this.querySeq++;
    if (v) void this.search(v);
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
    if (this.redraw) clearTimeout(this.redraw);
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
  // value is text (a title or a path may hold Markdown); markdown, when given, follows it as Markdown
  const line = (label: string, value: string, markdown = '') => {
    if (!value) return;
    md.appendMarkdown(`- ${label}: `);
    md.appendText(value);
    md.appendMarkdown(`${markdown}\n`);
  };
  line('Project', r.project);
  if (r.projectFolder && r.projectFolder !== r.project) line('Folder', r.projectFolder);
  line('Session', r.id);
  if (r.empty) line('Messages', 'none (snapshots, summaries or a local command only)');
  line('From', r.start ? `${localTime(r.start)} to ${r.end ? localTime(r.end) : '?'}` : localTime(r.end));
  line('Records', `${r.records}${r.subagents ? `, ${r.subagents} sub-agent${r.subagents === 1 ? '' : 's'} (figures include them)` : ''}`);
  line('Tokens', tokensText(r.tokens));
  line('Cost', costText(r.cost) || 'no priced messages');
  const f = r.findings;
  if (f) line('Findings', findingsBreakdown(f));
  if (r.secrets) line('Secrets', String(r.secrets));
  line('Resume', resumeText(r.resume).text);
  if (r.deletes) {
    const soon = deletesText(r.deletes, now, r.overdue);
    const when = r.overdue || soon === 'deleted at next start' ? `at its next start (its day, ${r.deletes}, has come)` : `on or after ${r.deletes}${soon ? ` (${soon})` : ''}`;
    line('Claude Code deletes it', when, '; `ccdag archive DEST` keeps a copy');
  }
  line('Log', r.path);
  return md;
}
