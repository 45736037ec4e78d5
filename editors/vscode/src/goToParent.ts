// "Go to Parent Record": the definition request at the current record's parentUuid value (or, for a
// compaction whose parentUuid is null, its logicalParentUuid), then reveal the answer.

import * as vscode from 'vscode';
import type { ClientController } from './client';
import { findParentRef } from './parentRef';

export async function goToParent(controller: ClientController): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'jsonl') {
    void vscode.window.showInformationMessage('ccdag: put the cursor on a record of a session log (.jsonl).');
    return;
  }
  if (!(await controller.checkServed(editor.document))) return;
  // Not running: starting it has already said why (not found, failed to start).
  if (!(await controller.ensure())) return;
  const lineNo = editor.selection.active.line;
  const ref = findParentRef(editor.document.lineAt(lineNo).text);
  if (typeof ref === 'string') {
    void vscode.window.showInformationMessage(`ccdag: no parent to go to: ${ref}`);
    return;
  }
  const pos = new vscode.Position(lineNo, ref.offset);
  const result = await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>(
    'vscode.executeDefinitionProvider',
    editor.document.uri,
    pos,
  );
  const first = result?.[0];
  if (!first) {
    void vscode.window.showWarningMessage(
      `ccdag: the parent record ${ref.value} (${ref.key}) is not in this session.`,
    );
    return;
  }
  const uri = 'targetUri' in first ? first.targetUri : first.uri;
  const range = 'targetUri' in first ? (first.targetSelectionRange ?? first.targetRange) : first.range;
  const target = await vscode.window.showTextDocument(uri, {
    viewColumn: uri.toString() === editor.document.uri.toString() ? editor.viewColumn : undefined,
    selection: new vscode.Range(range.start, range.start),
  });
  target.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
