// "Show Workflow Graph": a webview that asks the server for ccdag/workflowGraph (docs/spec.md §4) and draws
// it with the shared viewer (media/graphview.js, built from editors/graphview). Clicking a node's
// reveal action opens its record in the editor.

import * as crypto from 'crypto';
import * as vscode from 'vscode';
import type { ClientController } from './client';

/** The part of the docs/spec.md §4 graph this side reads; the rest is passed to the viewer untouched. */
export interface WorkflowGraph {
  session?: { id?: string; files?: { uri: string; lane?: string }[] };
  nodes?: GraphNode[];
  edges?: unknown[];
  lanes?: unknown[];
}

interface GraphNode {
  id: string;
  location?: { uri: string; range: ProtocolRange };
}

interface ProtocolRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

type FromWebview =
  | { type: 'ready' }
  | { type: 'reveal'; nodeId?: string; location?: { uri: string; range: ProtocolRange } }
  | { type: 'refresh' };

const REFRESH_DELAY_MS = 500;

class GraphPanel implements vscode.Disposable {
  readonly panel: vscode.WebviewPanel;
  private graph: WorkflowGraph | undefined;
  private sessionUris = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private seq = 0;
  private ready = false;
  private readonly disposables: vscode.Disposable[] = [];
  /** "<document URI>#<line>" -> the first node on that line: the cursor in the log selects it. */
  private nodeAt = new Map<string, string>();

  constructor(
    private readonly controller: ClientController,
    private readonly extensionUri: vscode.Uri,
    private readonly docUri: vscode.Uri,
    private readonly sourceColumn: vscode.ViewColumn | undefined,
    private readonly onDispose: (p: GraphPanel) => void,
  ) {
    this.sessionUris.add(docUri.toString());
    const media = vscode.Uri.joinPath(extensionUri, 'media');
    this.panel = vscode.window.createWebviewPanel(
      'ccdag.workflowGraph',
      `Workflow: ${basename(docUri)}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      { enableScripts: true, localResourceRoots: [media], retainContextWhenHidden: false },
    );
    this.panel.iconPath = vscode.Uri.joinPath(media, 'graph.svg');
    this.panel.webview.html = this.html();
    this.disposables.push(
      this.panel.onDidDispose(() => this.dispose()),
      this.panel.webview.onDidReceiveMessage((m: FromWebview) => this.onMessage(m)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0 && this.sessionUris.has(e.document.uri.toString())) this.schedule();
      }),
      vscode.workspace.onDidSaveTextDocument((d) => {
        if (this.sessionUris.has(d.uri.toString())) this.schedule();
      }),
      // The server republishes a session's diagnostics whenever any file of it changes, also
      // files that are not open: a cheap signal that the graph may have changed too.
      vscode.languages.onDidChangeDiagnostics((e) => {
        if (e.uris.some((u) => this.sessionUris.has(u.toString()))) this.schedule();
      }),
      controller.onDidChangeState(() => {
        if (controller.running) this.schedule();
      }),
      // Cursor -> node: the record under the cursor in a log of this session selects its node.
      vscode.window.onDidChangeTextEditorSelection((e) => {
        const doc = e.textEditor.document.uri.toString();
        if (!this.sessionUris.has(doc)) return;
        const id = this.nodeAt.get(`${doc}#${e.selections[0].active.line}`);
        if (id) this.post({ type: 'select', nodeId: id });
      }),
    );
  }

  includes(uri: vscode.Uri): boolean {
    return this.sessionUris.has(uri.toString());
  }

  reveal(): void {
    this.panel.reveal(undefined, false);
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.load();
    }, REFRESH_DELAY_MS);
  }

  async load(): Promise<void> {
    const seq = ++this.seq;
    const client = await this.controller.ensure();
    if (seq !== this.seq) return;
    if (!client) {
      this.post({ type: 'error', message: 'The ccdag language server is not running.' });
      return;
    }
    try {
      const graph = await client.sendRequest<WorkflowGraph>('ccdag/workflowGraph', {
        textDocument: { uri: client.code2ProtocolConverter.asUri(this.docUri) },
      });
      if (seq !== this.seq) return; // a newer request is on its way
      this.graph = graph;
      this.sessionUris = new Set([this.docUri.toString()]);
      this.nodeAt = new Map();
      const asUri = new Map<string, string>();
      for (const n of graph?.nodes ?? []) {
        const loc = n.location;
        if (!loc || typeof loc.uri !== 'string' || !isRange(loc.range)) continue;
        let u = asUri.get(loc.uri);
        if (u === undefined) {
          try {
            u = client.protocol2CodeConverter.asUri(loc.uri).toString();
          } catch {
            u = '';
          }
          asUri.set(loc.uri, u);
        }
        const key = `${u}#${loc.range.start.line}`;
        if (u && !this.nodeAt.has(key)) this.nodeAt.set(key, n.id);
      }
      for (const f of graph?.session?.files ?? []) {
        try {
          this.sessionUris.add(client.protocol2CodeConverter.asUri(f.uri).toString());
        } catch {
          // an unusable URI: ignore it
        }
      }
      this.post({ type: 'graph', graph });
    } catch (err) {
      if (seq !== this.seq) return;
      const msg = err instanceof Error ? err.message : String(err);
      this.post({ type: 'error', message: `Could not get the workflow graph: ${msg}` });
    }
  }

  private post(message: unknown): void {
    if (this.ready) void this.panel.webview.postMessage(message);
  }

  private onMessage(m: FromWebview): void {
    if (!m || typeof m !== 'object') return;
    switch (m.type) {
      case 'ready':
        this.ready = true;
        if (this.graph) this.post({ type: 'graph', graph: this.graph });
        void this.load();
        break;
      case 'refresh':
        void this.load();
        break;
      case 'reveal':
        void this.revealNode(m);
        break;
    }
  }

  private async revealNode(m: { nodeId?: string; location?: { uri: string; range: ProtocolRange } }): Promise<void> {
    // Prefer the node as the server described it; the webview's copy is only a fallback.
    const node = this.graph?.nodes?.find((n) => n.id === m.nodeId);
    const loc = node?.location ?? m.location;
    if (!loc || typeof loc.uri !== 'string' || !isRange(loc.range)) return;
    const client = this.controller.running;
    const uri = client ? client.protocol2CodeConverter.asUri(loc.uri) : vscode.Uri.parse(loc.uri, true);
    const r = loc.range;
    const range = new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
    const editor = await vscode.window.showTextDocument(uri, {
      viewColumn: this.sourceColumn ?? vscode.ViewColumn.One,
      preserveFocus: false,
      selection: range,
    });
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  private html(): string {
    const webview = this.panel.webview;
    const nonce = crypto.randomBytes(16).toString('base64');
    const media = (f: string) => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', f)).toString();
    const csp = [
      `default-src 'none'`,
      `script-src ${webview.cspSource} 'nonce-${nonce}'`,
      `style-src ${webview.cspSource} 'unsafe-inline'`,
      `img-src ${webview.cspSource} data:`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" id="ccdag-graphview-style" href="${media('graphview.css')}">
<link rel="stylesheet" href="${media('panel.css')}">
<title>Workflow graph</title>
</head>
<body>
<div id="status" role="status" aria-live="polite">Loading the workflow graph…</div>
<div id="graph"></div>
<script nonce="${nonce}" src="${media('graphview.js')}"></script>
<script nonce="${nonce}" src="${media('panel.js')}"></script>
</body>
</html>`;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.seq++;
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
    this.onDispose(this);
  }
}

function isRange(r: unknown): r is ProtocolRange {
  const x = r as ProtocolRange;
  return (
    !!x &&
    typeof x === 'object' &&
    Number.isInteger(x.start?.line) &&
    Number.isInteger(x.start?.character) &&
    Number.isInteger(x.end?.line) &&
    Number.isInteger(x.end?.character)
  );
}

function basename(uri: vscode.Uri): string {
  const parts = uri.path.split('/');
  return parts[parts.length - 1] || uri.toString();
}

export class GraphPanels implements vscode.Disposable {
  private readonly panels = new Set<GraphPanel>();

  constructor(
    private readonly controller: ClientController,
    private readonly extensionUri: vscode.Uri,
  ) {}

  async show(uri?: vscode.Uri): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    const target = uri ?? editor?.document.uri;
    if (!target) {
      void vscode.window.showInformationMessage('ccdag: open a session log (.jsonl) to show its workflow graph.');
      return;
    }
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.toString());
    if (doc && !(await this.controller.checkServed(doc))) return;
    for (const p of this.panels) {
      if (p.includes(target)) {
        p.reveal();
        void p.load();
        return;
      }
    }
    const column = editor && editor.document.uri.toString() === target.toString() ? editor.viewColumn : undefined;
    const panel = new GraphPanel(this.controller, this.extensionUri, target, column, (p) => this.panels.delete(p));
    this.panels.add(panel);
  }

  dispose(): void {
    for (const p of [...this.panels]) p.dispose();
  }
}
