// Finding a record's parent reference on a line of a session log. Pure: no vscode import, so the
// unit test (test/parentRef.test.mjs) runs it under plain node.

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
