// Where the time goes from opening a log to its diagnostics (docs/spec.md §10: ≤ 1.5 s on a 4 MB
// log): each step of a client's start, and each document's didOpen and first diagnostics, written to
// the output channel as "[timing] <what> +<ms since activation> ms @<epoch ms>" (the e2e reads them;
// epoch ms compares with its own clock).

import type * as vscode from 'vscode';
import type { Middleware } from 'vscode-languageclient/node';

export class Timing {
  private readonly t0 = Date.now();
  /** Documents whose first diagnostics since the client started were written down. */
  private readonly seen = new Set<string>();

  constructor(private readonly output: vscode.OutputChannel) {
    this.mark('activate');
  }

  mark(what: string): void {
    const now = Date.now();
    this.output.appendLine(`[timing] ${what} +${now - this.t0} ms @${now}`);
  }

  /** A new client: its documents' first diagnostics are written down again. */
  reset(): void {
    this.seen.clear();
  }

  /** Middleware that marks each didOpen (sent, written) and each document's first diagnostics. */
  middleware(): Middleware {
    return {
      didOpen: async (doc, next) => {
        const name = doc.uri.path.split('/').pop();
        this.mark(`didOpen ${name} ${doc.getText().length} chars`);
        await next(doc);
        this.mark(`didOpen sent ${name}`);
      },
      handleDiagnostics: (uri, diagnostics, next) => {
        const key = uri.toString();
        if (!this.seen.has(key)) {
          this.seen.add(key);
          this.mark(`diagnostics ${uri.path.split('/').pop()} ${diagnostics.length}`);
        }
        next(uri, diagnostics);
      },
    };
  }
}
