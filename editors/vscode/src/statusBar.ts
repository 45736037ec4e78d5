// The status bar item for the active session log: records, files and problems of its session,
// from the server's ccdag/sessionSummary (or, when the server lacks it, counted locally).

import * as vscode from 'vscode';
import type { ClientController } from './client';
import { plural } from './sessionsFormat';

export interface SessionSummary {
  sessionId?: string;
  files: number;
  records: number;
  problems: { error: number; warning: number; information: number; hint: number };
  /** The resumed chain's figure in one line (docs/spec.md §6): what `claude --resume` loads. */
  resumeText?: string;
}

const REFRESH_DELAY_MS = 300;

export class SessionStatus implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private seq = 0;
  private lastDoc: vscode.TextDocument | undefined;
  /** False once the server answered that it has no ccdag/sessionSummary. */
  private summarySupported = true;

  constructor(private readonly controller: ClientController) {
    this.item = vscode.window.createStatusBarItem('ccdag.session', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'ccdag Session';
    this.item.command = 'ccdag.showWorkflowGraph';
    this.disposables.push(
      this.item,
      vscode.window.onDidChangeActiveTextEditor(() => this.schedule(0)),
      vscode.languages.onDidChangeDiagnostics((e) => {
        if (this.lastDoc && e.uris.some((u) => u.path.endsWith('.jsonl'))) this.schedule();
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === this.lastDoc && e.contentChanges.length) this.schedule();
      }),
      controller.onDidChangeState(() => {
        this.summarySupported = true;
        this.schedule(0);
      }),
    );
    this.schedule(0);
  }

  private schedule(delay = REFRESH_DELAY_MS): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, delay);
  }

  private async refresh(): Promise<void> {
    const seq = ++this.seq;
    // No text editor active (the graph's webview, a settings page): keep showing the last log.
    const active = vscode.window.activeTextEditor?.document;
    const doc = active ?? (this.lastDoc && !this.lastDoc.isClosed ? this.lastDoc : undefined);
    const client = this.controller.running;
    if (!doc || !client || !this.controller.serves(doc)) {
      this.lastDoc = undefined;
      this.item.hide();
      return;
    }
    this.lastDoc = doc;
    let summary: SessionSummary | undefined;
    let counted = false;
    if (this.summarySupported) {
      try {
        const res = await client.sendRequest<SessionSummary>('ccdag/sessionSummary', {
          textDocument: { uri: client.code2ProtocolConverter.asUri(doc.uri) },
        });
        if (isSummary(res)) summary = res;
      } catch (err) {
        // MethodNotFound (-32601): an older server; stop asking until it restarts.
        if ((err as { code?: number })?.code === -32601) this.summarySupported = false;
      }
    }
    if (seq !== this.seq || this.lastDoc !== doc) return;
    if (!summary) {
      summary = countLocally(doc);
      counted = true;
    }
    this.render(summary, counted);
  }

  private render(s: SessionSummary, counted: boolean): void {
    const p = s.problems;
    const problems = p.error + p.warning + p.information;
    const icon = p.error > 0 ? '$(error)' : p.warning > 0 ? '$(warning)' : problems > 0 ? '$(info)' : '$(check)';
    const files = counted ? '' : ` · ${plural(s.files, 'file', 'files')}`;
    this.item.text = `$(type-hierarchy) ${plural(s.records, 'record', 'records')}${files} · ${icon} ${plural(problems, 'problem', 'problems')}`;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = false;
    md.supportHtml = false;
    md.appendMarkdown(`**ccdag session**${s.sessionId ? ' `' + s.sessionId.replace(/`/g, '') + '`' : ''}\n\n`);
    md.appendMarkdown(`- ${plural(s.records, 'record', 'records')}${counted ? ' in this file' : ''}\n`);
    if (!counted) md.appendMarkdown(`- ${plural(s.files, 'file', 'files')} (main log and sub-agent logs)\n`);
    md.appendMarkdown(
      `- $(error) ${plural(p.error, 'error')}, $(warning) ${plural(p.warning, 'warning')}, $(info) ${p.information} information, ${plural(p.hint, 'hint')}\n\n`,
    );
    if (typeof s.resumeText === 'string' && s.resumeText) md.appendText(s.resumeText + '\n\n');
    if (counted) md.appendMarkdown('_Counted in this file: the server gave no session summary._\n\n');
    md.appendMarkdown('Click to show the workflow graph.');
    this.item.tooltip = md;
    this.item.show();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
  }
}

function isSummary(x: unknown): x is SessionSummary {
  const s = x as SessionSummary;
  return (
    !!s &&
    typeof s.records === 'number' &&
    typeof s.files === 'number' &&
    !!s.problems &&
    ['error', 'warning', 'information', 'hint'].every((k) => typeof (s.problems as Record<string, unknown>)[k] === 'number')
  );
}

function parses(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

function countLocally(doc: vscode.TextDocument): SessionSummary {
  let records = 0;
  for (let i = 0; i < doc.lineCount; i++) if (!doc.lineAt(i).isEmptyOrWhitespace) records++;
  // A last line with no newline that does not parse is still being written: not a record yet.
  const last = doc.lineAt(doc.lineCount - 1);
  if (!last.isEmptyOrWhitespace && !parses(last.text)) records--;
  const problems = { error: 0, warning: 0, information: 0, hint: 0 };
  for (const d of vscode.languages.getDiagnostics(doc.uri)) {
    switch (d.severity) {
      case vscode.DiagnosticSeverity.Error:
        problems.error++;
        break;
      case vscode.DiagnosticSeverity.Warning:
        problems.warning++;
        break;
      case vscode.DiagnosticSeverity.Information:
        problems.information++;
        break;
      default:
        problems.hint++;
    }
  }
  return { files: 1, records, problems };
}
