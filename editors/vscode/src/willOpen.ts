// ccdag/willOpen (docs/lsp.md): as soon as a tab for a session log appears, the server is told to
// read the log from disk and publish its diagnostics. VS Code hands a document to the extension
// host only once its text has travelled to the window and back (seconds for a 5 MB log in
// code-server); the tab is known long before. The server reuses what it read when the didOpen
// brings the same bytes; VS Code shows diagnostics published for a file not yet open as soon as
// its editor appears.

import * as vscode from 'vscode';
import type { ClientController } from './client';

export const WILL_OPEN = 'ccdag/willOpen';

export class WillOpen implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  /** Announced and not yet opened as a document: not announced again. */
  private readonly announced = new Set<string>();

  constructor(private readonly controller: ClientController) {
    this.disposables.push(
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        // A preview tab that shows another file is "changed", not "opened".
        for (const tab of [...e.opened, ...e.changed]) this.onTab(tab);
        for (const tab of e.closed) if (tab.input instanceof vscode.TabInputText) this.announced.delete(tab.input.uri.toString());
      }),
      vscode.workspace.onDidOpenTextDocument((doc) => {
        if (this.announced.delete(doc.uri.toString())) controller.timing.mark(`document opened ${name(doc.uri)}`);
      }),
      // A new server has forgotten what the old one was told.
      controller.onDidChangeState(() => this.announced.clear()),
    );
  }

  private onTab(tab: vscode.Tab): void {
    const input = tab.input;
    if (!(input instanceof vscode.TabInputText)) return;
    const uri = input.uri;
    const key = uri.toString();
    if (this.announced.has(key) || !this.controller.servesUri(uri)) return;
    // Already a document: its didOpen went (or goes) to the server with its text.
    if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === key)) return;
    const client = this.controller.running;
    if (!client) return; // no server yet: the didOpen starts one and brings the text
    this.announced.add(key);
    this.controller.timing.mark(`tab opened ${name(uri)}`);
    client.sendNotification(WILL_OPEN, { uri: client.code2ProtocolConverter.asUri(uri) }).then(
      () => this.controller.timing.mark(`willOpen sent ${name(uri)}`),
      () => this.announced.delete(key),
    );
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function name(uri: vscode.Uri): string | undefined {
  return uri.path.split('/').pop();
}
