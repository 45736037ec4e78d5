// "Open Transcript" (docs/spec.md §7): the session as Markdown, from the server's ccdag/transcript,
// in a read-only virtual document beside the log. It follows the log: when the session's
// diagnostics are republished (any change to any of its files) the document is fetched again.
// "Open Transcript Preview" shows the same document in VS Code's Markdown preview.

import * as vscode from 'vscode';
import type { ClientController } from './client';

export const SCHEME = 'ccdag-transcript';
const REFRESH_DELAY_MS = 300;

interface TranscriptResult {
  markdown: string;
  lines: { transcript: number; uri: string; line: number }[];
}

/** The virtual document's URI for a log: ccdag-transcript:/<name>.md?<log URI>. */
export function transcriptUri(log: vscode.Uri): vscode.Uri {
  const name = log.path.split('/').pop()?.replace(/\.jsonl$/, '') || 'session';
  return vscode.Uri.from({ scheme: SCHEME, path: `/${name}.transcript.md`, query: log.toString() });
}

export class Transcripts implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly open = new Map<string, vscode.Uri>(); // log URI -> transcript URI
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly controller: ClientController) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, this),
      vscode.languages.onDidChangeDiagnostics((e) => {
        for (const u of e.uris) this.schedule(u.toString());
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0) this.schedule(e.document.uri.toString());
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.scheme === SCHEME) this.open.delete(d.uri.query);
      }),
    );
  }

  private schedule(logUri: string): void {
    const t = this.open.get(logUri);
    if (!t) return;
    clearTimeout(this.timers.get(logUri));
    this.timers.set(
      logUri,
      setTimeout(() => {
        this.timers.delete(logUri);
        this.changed.fire(t);
      }, REFRESH_DELAY_MS),
    );
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const log = vscode.Uri.parse(uri.query, true);
    this.open.set(log.toString(), uri);
    const client = await this.controller.ensure();
    if (!client) return '# ccdag\n\nThe ccdag language server is not running.\n';
    try {
      const res = await client.sendRequest<TranscriptResult>('ccdag/transcript', {
        textDocument: { uri: client.code2ProtocolConverter.asUri(log) },
        allBranches: false,
      });
      return res?.markdown ?? '';
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      return `# ccdag\n\nCould not get the transcript: ${msg.replace(/[<>`[\]]/g, ' ')}\n`;
    }
  }

  /** Opens the transcript of a log (the argument, or the active editor's) beside it. */
  async show(arg?: unknown, preview = false): Promise<void> {
    const log = toUri(arg) ?? vscode.window.activeTextEditor?.document.uri;
    if (!log || log.scheme === SCHEME) {
      void vscode.window.showInformationMessage('ccdag: open a session log (.jsonl) to show its transcript.');
      return;
    }
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === log.toString());
    if (doc && !(await this.controller.checkServed(doc))) return;
    const uri = transcriptUri(log);
    this.open.set(log.toString(), uri);
    if (preview) {
      await vscode.commands.executeCommand('markdown.showPreviewToSide', uri);
      return;
    }
    const td = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(td, { viewColumn: vscode.ViewColumn.Beside, preview: false, preserveFocus: false });
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const d of this.disposables.splice(0)) d.dispose();
    this.changed.dispose();
  }
}

/** A command argument naming a log: a Uri, or a URI string (what code lenses carry). */
export function toUri(arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  if (typeof arg === 'string' && arg) {
    try {
      return vscode.Uri.parse(arg, true);
    } catch {
      return undefined;
    }
  }
  return undefined;
}
