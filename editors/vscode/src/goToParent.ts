// "Go to Parent Record": the definition request at the current record's parentUuid value (or, for a
// compaction whose parentUuid is null, its logicalParentUuid), then reveal the answer.

import * as vscode from 'vscode';
import type { ClientController } from './client';

export interface ParentRef {
  key: 'parentUuid' | 'logicalParentUuid';
  value: string;
  /** UTF-16 offset of the first character inside the value's quotes. */
  offset: number;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Finds the record's parent reference on a line of a session log. Returns a string explaining why
 * there is none when there is none.
 */
export function findParentRef(line: string): ParentRef | string {
  let record: Record<string, unknown> | undefined;
  try {
    const v: unknown = JSON.parse(line);
    if (v && typeof v === 'object' && !Array.isArray(v)) record = v as Record<string, unknown>;
  } catch {
    record = undefined;
  }
  const keys: ParentRef['key'][] = ['parentUuid', 'logicalParentUuid'];
  if (record) {
    for (const key of keys) {
      const value = record[key];
      if (typeof value !== 'string' || value === '') continue;
      // The top-level key comes before any nested copy of it; JSON.stringify gives the escaped form.
      const re = new RegExp(`"${key}"\\s*:\\s*(${escapeRegExp(JSON.stringify(value))})`);
      const m = re.exec(line);
      if (m) return { key, value, offset: m.index + m[0].length - m[1].length + 1 };
    }
    if (record.parentUuid === null) return 'this record starts its chain (its parentUuid is null).';
    return 'this record has no parentUuid.';
  }
  // A line that does not parse (being edited, or cut off): take the first plain match.
  for (const key of keys) {
    const m = new RegExp(`"${key}"\\s*:\\s*"([^"\\\\]+)"`).exec(line);
    if (m) return { key, value: m[1], offset: m.index + m[0].length - m[1].length - 1 };
  }
  return 'there is no record with a parentUuid on this line.';
}

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
