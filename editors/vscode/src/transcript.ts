// "Open Transcript" (docs/spec.md §7): the session as Markdown, from the server's ccdag/transcript,
// in a read-only virtual document beside the log. It follows the log: when the session's
// diagnostics are republished (any change to any of its files) the document is fetched again.
// "Open Transcript Preview" renders the same document with VS Code's Markdown engine
// (markdown.api.render) in a webview of its own: the built-in preview drops file: links (its
// Markdown engine does not allow the scheme), so the preview's links to log lines are command: URIs
// of ccdag.revealLogLine, the one command the webview may run (enableCommandUris), and no script
// runs in it.

import * as vscode from 'vscode';
import type { ClientController } from './client';

export const SCHEME = 'ccdag-transcript';
export const REVEAL_COMMAND = 'ccdag.revealLogLine';
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
  private readonly previews = new Map<string, vscode.WebviewPanel>(); // transcript URI -> preview

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
        if (d.uri.scheme === SCHEME && !this.previews.has(d.uri.toString())) this.open.delete(d.uri.query);
      }),
      this.onDidChange((u) => {
        const panel = this.previews.get(u.toString());
        if (panel) void this.renderPreview(panel, u);
      }),
      vscode.commands.registerCommand(REVEAL_COMMAND, (uri?: unknown, line?: unknown) => revealLogLine(uri, line)),
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
      await this.showPreview(uri);
      return;
    }
    const td = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(td, { viewColumn: vscode.ViewColumn.Beside, preview: false, preserveFocus: false });
  }

  private async showPreview(uri: vscode.Uri): Promise<void> {
    let panel = this.previews.get(uri.toString());
    if (panel) {
      panel.reveal(vscode.ViewColumn.Beside);
    } else {
      panel = vscode.window.createWebviewPanel('ccdag.transcriptPreview', `Preview ${uri.path.split('/').pop()}`, vscode.ViewColumn.Beside, {
        enableScripts: false,
        enableCommandUris: [REVEAL_COMMAND],
        localResourceRoots: [],
      });
      const p = panel;
      this.previews.set(uri.toString(), p);
      p.onDidDispose(() => {
        this.previews.delete(uri.toString());
        this.open.delete(uri.query);
      });
    }
    await this.renderPreview(panel, uri);
  }

  private async renderPreview(panel: vscode.WebviewPanel, uri: vscode.Uri): Promise<void> {
    const md = previewLinks(await this.provideTextDocumentContent(uri));
    let body: string;
    try {
      body = (await vscode.commands.executeCommand<string>('markdown.api.render', md)) ?? '';
    } catch (err) {
      body = `<p>Could not render the transcript: ${escapeHtml(err instanceof Error ? err.message : String(err))}</p>`;
    }
    const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src ${panel.webview.cspSource} data:;`;
    panel.webview.html = `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}">
<style>body{font-family:var(--vscode-markdown-font-family,var(--vscode-font-family));font-size:var(--vscode-markdown-font-size,14px);line-height:1.5;padding:0 20px;color:var(--vscode-foreground)}
a{color:var(--vscode-textLink-foreground)}pre{background:var(--vscode-textCodeBlock-background);padding:8px;overflow:auto;white-space:pre-wrap}
code{font-family:var(--vscode-editor-font-family)}blockquote{border-left:4px solid var(--vscode-textBlockQuote-border);margin:0;padding:0 12px}</style>
</head><body class="ccdag-transcript-preview">${body}</body></html>`;
  }

  dispose(): void {
    for (const p of this.previews.values()) p.dispose();
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

/** Rewrites the transcript's links to log lines, [L12](<file:///…#L12>) as ccdag writes them, into
 *  command: URIs of ccdag.revealLogLine for the preview (arguments: the log URI, the 0-based line). */
export function previewLinks(md: string): string {
  return md.replace(/\]\(<(file:[^<>\s]*)#L([0-9]+)>\)/g, (_m, file: string, line: string) => {
    const args = encodeURIComponent(JSON.stringify([file, Number(line) - 1]));
    return `](<command:${REVEAL_COMMAND}?${args}>)`;
  });
}

/** Opens a log at a line (the preview's links): its editor if one shows it, else beside. */
async function revealLogLine(uri: unknown, line: unknown): Promise<void> {
  const u = toUri(uri);
  if (!u || u.scheme !== 'file' || typeof line !== 'number' || !Number.isInteger(line) || line < 0) return;
  const doc = await vscode.workspace.openTextDocument(u);
  const shown = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === doc.uri.toString());
  const at = new vscode.Position(Math.min(line, Math.max(0, doc.lineCount - 1)), 0);
  const ed = await vscode.window.showTextDocument(doc, { viewColumn: shown?.viewColumn ?? vscode.ViewColumn.One, selection: new vscode.Range(at, at), preview: false });
  ed.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
