// "Preview Resume" (docs/spec.md §13): what `claude --resume` sends of the session, from the
// server's ccdag/resumePreview (the text `ccdag resume` prints), in a read-only virtual document
// beside the log: the Claude Code version assumed to load it and why, the records sent in order,
// where the chain breaks and what is lost, what is dropped and why. Each line that names a record
// is a link to it in the log (Ctrl+click, or Enter on the line). It follows the log like the
// transcript does, and the setting ccdag.claudeVersion.

import * as vscode from 'vscode';
import type { ClientController } from './client';
import { REVEAL_COMMAND, toUri } from './transcript';

export const RESUME_SCHEME = 'ccdag-resume';
// The preview's language: package.json gives it word wrap by default ("[ccdag-resume]"), so the
// long first line (the version assumed and where it comes from) is not cut at the right edge.
export const RESUME_LANGUAGE = 'ccdag-resume';
export const JUMP_COMMAND = 'ccdag.resumePreviewJump';
const REFRESH_DELAY_MS = 300;

interface PreviewLine {
  preview: number;
  uri: string;
  line: number;
}

interface ResumePreviewResult {
  text: string;
  lines: PreviewLine[];
}

/** The virtual document's URI for a log: ccdag-resume:/<name>.resume?<log URI>. */
export function resumeUri(log: vscode.Uri): vscode.Uri {
  const name = log.path.split('/').pop()?.replace(/\.jsonl$/, '') || 'session';
  return vscode.Uri.from({ scheme: RESUME_SCHEME, path: `/${name}.resume`, query: log.toString() });
}

export class ResumePreviews implements vscode.TextDocumentContentProvider, vscode.DocumentLinkProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly open = new Map<string, vscode.Uri>(); // log URI -> preview URI
  private readonly links = new Map<string, PreviewLine[]>(); // preview URI -> its links
  private readonly timers = new Map<string, NodeJS.Timeout>();
  // Previews whose language is being set: VS Code closes and opens the document again then.
  private readonly relabel = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly controller: ClientController) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(RESUME_SCHEME, this),
      vscode.languages.registerDocumentLinkProvider({ scheme: RESUME_SCHEME }, this),
      // The server republishes a session's diagnostics after any change to its files.
      vscode.languages.onDidChangeDiagnostics((e) => {
        for (const u of e.uris) this.schedule(u.toString());
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0) this.schedule(e.document.uri.toString());
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('ccdag.claudeVersion')) for (const log of this.open.keys()) this.schedule(log);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.scheme !== RESUME_SCHEME || this.relabel.has(d.uri.toString())) return;
        this.open.delete(d.uri.query);
        this.links.delete(d.uri.toString());
      }),
      vscode.commands.registerCommand(JUMP_COMMAND, () => this.jump()),
    );
  }

  private schedule(logUri: string): void {
    const p = this.open.get(logUri);
    if (!p) return;
    clearTimeout(this.timers.get(logUri));
    this.timers.set(
      logUri,
      setTimeout(() => {
        this.timers.delete(logUri);
        this.changed.fire(p);
      }, REFRESH_DELAY_MS),
    );
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const log = vscode.Uri.parse(uri.query, true);
    this.open.set(log.toString(), uri);
    this.links.set(uri.toString(), []);
    const client = await this.controller.ensure();
    if (!client) return 'ccdag: the language server is not running.\n';
    try {
      const res = await client.sendRequest<ResumePreviewResult>('ccdag/resumePreview', {
        textDocument: { uri: client.code2ProtocolConverter.asUri(log) },
      });
      this.links.set(uri.toString(), res?.lines ?? []);
      return res?.text ?? '';
    } catch (err) {
      return `ccdag: could not preview the resume: ${err instanceof Error ? err.message : String(err)}\n`;
    }
  }

  provideDocumentLinks(doc: vscode.TextDocument): vscode.DocumentLink[] {
    const out: vscode.DocumentLink[] = [];
    for (const l of this.links.get(doc.uri.toString()) ?? []) {
      if (l.preview < 0 || l.preview >= doc.lineCount) continue;
      const text = doc.lineAt(l.preview);
      const start = text.firstNonWhitespaceCharacterIndex;
      const args = encodeURIComponent(JSON.stringify([l.uri, l.line]));
      const link = new vscode.DocumentLink(
        new vscode.Range(l.preview, start, l.preview, text.text.length),
        vscode.Uri.parse(`command:${REVEAL_COMMAND}?${args}`),
      );
      link.tooltip = `Go to line ${l.line + 1} of the log`;
      out.push(link);
    }
    return out;
  }

  /** Enter in the preview: the log line of the cursor's line, when it names one. */
  private async jump(): Promise<void> {
    const ed = vscode.window.activeTextEditor;
    if (!ed || ed.document.uri.scheme !== RESUME_SCHEME) return;
    const at = ed.selection.active.line;
    const l = (this.links.get(ed.document.uri.toString()) ?? []).find((e) => e.preview === at);
    if (!l) {
      void vscode.window.setStatusBarMessage('ccdag: this line names no record of the log', 3000);
      return;
    }
    await vscode.commands.executeCommand(REVEAL_COMMAND, l.uri, l.line);
  }

  /** Opens the preview of a log (the argument, or the active editor's) beside it. */
  async show(arg?: unknown): Promise<void> {
    const log = toUri(arg) ?? vscode.window.activeTextEditor?.document.uri;
    if (!log || log.scheme !== 'file') {
      void vscode.window.showInformationMessage('ccdag: open a session log (.jsonl) to preview its resume.');
      return;
    }
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === log.toString());
    if (doc && !(await this.controller.checkServed(doc))) return;
    const uri = resumeUri(log);
    const shown = vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString());
    this.open.set(log.toString(), uri);
    if (shown) this.changed.fire(uri); // already open: ask again
    let td = await vscode.workspace.openTextDocument(uri);
    if (td.languageId !== RESUME_LANGUAGE) {
      const key = uri.toString();
      const links = this.links.get(key);
      this.relabel.add(key);
      try {
        td = await vscode.languages.setTextDocumentLanguage(td, RESUME_LANGUAGE);
      } finally {
        this.relabel.delete(key);
        // whatever order the close and open arrive in, the preview keeps its links
        this.open.set(log.toString(), uri);
        if (links && !this.links.has(key)) this.links.set(key, links);
      }
    }
    await vscode.window.showTextDocument(td, { viewColumn: vscode.ViewColumn.Beside, preview: false, preserveFocus: false });
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const d of this.disposables.splice(0)) d.dispose();
    this.changed.dispose();
  }
}
