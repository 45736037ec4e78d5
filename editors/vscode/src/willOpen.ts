// ccdag/willOpen (docs/lsp.md): as soon as a tab for a session log appears, the server is told to
// read the log from disk and publish its diagnostics. VS Code hands a document to the extension
// host only once its text has travelled to the window and back (seconds for a 5 MB log in
// code-server); the tab is known long before. The server reuses what it read when the didOpen
// brings the same bytes; VS Code shows diagnostics published for a file not yet open as soon as
// its editor appears.

import * as vscode from 'vscode';
import type { LanguageClient, Middleware } from 'vscode-languageclient/node';
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
    );
    // Activated by the first log (onLanguage:jsonl): its tab is there before its document.
    for (const group of vscode.window.tabGroups.all) for (const tab of group.tabs) this.onTab(tab);
  }

  private onTab(tab: vscode.Tab): void {
    // Only a tab shown in its group: VS Code loads a background tab's file when it is shown (a
    // change of the tab then), and restores a window's background tabs without loading them.
    const input = tab.input;
    if (!tab.isActive || !(input instanceof vscode.TabInputText)) return;
    const uri = input.uri;
    const key = uri.toString();
    if (this.announced.has(key) || !this.controller.servesUri(uri)) return;
    // Already a document: its didOpen went (or goes) to the server with its text.
    if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === key)) return;
    this.announced.add(key);
    this.controller.timing.mark(`tab opened ${name(uri)}`);
    const client = this.controller.running;
    if (client) {
      this.send(client, uri);
      return;
    }
    // No server yet (the first log opened): start it now rather than when the document arrives.
    // A start that failed was reported; ensure does not try again then.
    void this.controller.ensure().then((c) => {
      if (c && !vscode.workspace.textDocuments.some((d) => d.uri.toString() === key)) this.send(c, uri);
      else if (!c) this.announced.delete(key);
    });
  }

  private send(client: LanguageClient, uri: vscode.Uri): void {
    client.sendNotification(WILL_OPEN, { uri: client.code2ProtocolConverter.asUri(uri) }).then(
      () => this.controller.timing.mark(`willOpen sent ${name(uri)}`),
      () => this.announced.delete(uri.toString()),
    );
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function name(uri: vscode.Uri): string | undefined {
  return uri.path.split('/').pop();
}

/**
 * Middleware that announces each saved log before its didOpen: the server reads and checks it from
 * disk while the client is still encoding and writing the text (0.2-1.4 s for 5 MB on a loaded
 * machine: a start, a restart, a log opened before the server ran), and the didOpen then costs it a
 * comparison. A log with unsaved changes is not announced (its text is not the disk's).
 */
export function willOpenFirst(client: () => LanguageClient, inner: Middleware): Middleware {
  return {
    ...inner,
    didOpen: async (doc, next) => {
      if (doc.uri.scheme === 'file' && !doc.isDirty) {
        const c = client();
        void c.sendNotification(WILL_OPEN, { uri: c.code2ProtocolConverter.asUri(doc.uri) }).catch(() => undefined);
      }
      return inner.didOpen ? inner.didOpen(doc, next) : next(doc);
    },
  };
}
