// "Go to Parent Record": the server's `ccdag.parent` command finds the parent of the record at the
// cursor (parentUuid, logicalParentUuid for a compaction, the spawning call on a sub-agent's first
// record) or says why there is none; this reveals the answer.

import * as vscode from 'vscode';
import type { ClientController } from './client';

interface WireLocation {
  uri: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

interface ParentResult {
  location: WireLocation | null;
  reason?: string;
}

export async function goToParent(controller: ClientController): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'jsonl') {
    void vscode.window.showInformationMessage('ccdag: put the cursor on a record of a session log (.jsonl).');
    return;
  }
  if (!(await controller.checkServed(editor.document))) return;
  // Not running: starting it has already said why (not found, failed to start).
  const client = await controller.ensure();
  if (!client) return;
  const result = await client.sendRequest<ParentResult>('workspace/executeCommand', {
    command: 'ccdag.parent',
    arguments: [
      {
        textDocument: { uri: client.code2ProtocolConverter.asUri(editor.document.uri) },
        position: { line: editor.selection.active.line, character: 0 },
      },
    ],
  });
  if (!result?.location) {
    void vscode.window.showInformationMessage(`ccdag: no parent to go to: ${result?.reason ?? 'no answer'}.`);
    return;
  }
  const loc = client.protocol2CodeConverter.asLocation(result.location);
  const target = await vscode.window.showTextDocument(loc.uri, {
    viewColumn: loc.uri.toString() === editor.document.uri.toString() ? editor.viewColumn : undefined,
    selection: new vscode.Range(loc.range.start, loc.range.start),
  });
  target.revealRange(loc.range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
