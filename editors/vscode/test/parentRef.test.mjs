// Unit tests of findParentRef (src/parentRef.ts), run by `node --test editors/vscode/test/`.
// The TypeScript is bundled in memory by esbuild: no build step needed.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = await esbuild.build({
  entryPoints: [join(root, 'src', 'parentRef.ts')],
  bundle: true,
  format: 'esm',
  platform: 'node',
  write: false,
});
const { findParentRef } = await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);

/** The text at the reference's offset, as VS Code would see it at that UTF-16 column. */
const at = (line, ref) => line.slice(ref.offset, ref.offset + ref.value.length);

test('parentUuid of a record', () => {
  const line = '{"parentUuid":"aaaa-1","isSidechain":false,"type":"user","uuid":"bbbb-2"}';
  const ref = findParentRef(line);
  assert.equal(ref.key, 'parentUuid');
  assert.equal(ref.value, 'aaaa-1');
  assert.equal(at(line, ref), 'aaaa-1');
});

test('spaces around the colon', () => {
  const line = '{"type": "user", "parentUuid" :  "p-1", "uuid": "u-1"}';
  const ref = findParentRef(line);
  assert.equal(at(line, ref), 'p-1');
});

test('offsets are UTF-16: emoji and CJK before the key', () => {
  const line = '{"message":{"content":"😀 日本語 \\ud83d\\ude00"},"parentUuid":"p-😀-free","uuid":"u"}';
  const ref = findParentRef(line);
  assert.equal(ref.value, 'p-😀-free');
  assert.equal(at(line, ref), 'p-😀-free');
});

test('a parentUuid quoted inside a string is not the record\'s', () => {
  const line = '{"message":{"content":"see \\"parentUuid\\":\\"fake\\""},"parentUuid":"real","uuid":"u"}';
  const ref = findParentRef(line);
  assert.equal(ref.value, 'real');
  assert.equal(at(line, ref), 'real');
});

test('a compaction: parentUuid null, logicalParentUuid set', () => {
  const line = '{"parentUuid":null,"logicalParentUuid":"lp-1","type":"system","subtype":"compact_boundary","uuid":"u"}';
  const ref = findParentRef(line);
  assert.equal(ref.key, 'logicalParentUuid');
  assert.equal(at(line, ref), 'lp-1');
});

test('the root of a chain says so', () => {
  const ref = findParentRef('{"parentUuid":null,"type":"user","uuid":"u"}');
  assert.equal(typeof ref, 'string');
  assert.match(ref, /starts its chain/);
});

test('a record without parentUuid says so', () => {
  const ref = findParentRef('{"type":"file-history-snapshot","messageId":"m"}');
  assert.equal(typeof ref, 'string');
  assert.match(ref, /no parentUuid/);
});

test('a line that does not parse (being written) still finds its parent', () => {
  const line = '{"parentUuid":"p-2","type":"assistant","message":{"content":[{"type":"text","text":"half';
  const ref = findParentRef(line);
  assert.equal(ref.value, 'p-2');
  assert.equal(at(line, ref), 'p-2');
});

test('an empty line', () => {
  assert.equal(typeof findParentRef(''), 'string');
});
