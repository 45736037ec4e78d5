// Unit test of src/lenses.ts: the "Open Transcript" lens opens the rendered preview in VS Code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ccdag-lenses-'));
const out = path.join(tmp, 'lenses.mjs');
esbuild.buildSync({ entryPoints: [path.join(here, '..', 'src', 'lenses.ts')], outfile: out, bundle: true, platform: 'node', format: 'esm', logLevel: 'error', external: ['vscode', 'vscode-languageclient'] });
const f = await import(pathToFileURL(out).href);
fs.rmSync(tmp, { recursive: true, force: true });

test('the transcript lens opens the preview; other lenses are left as they are', () => {
  const lenses = [
    { command: { command: 'ccdag.openTranscript', title: 'Open Transcript', arguments: ['file:///a.jsonl'] } },
    { command: { command: 'ccdag.showGraph', title: 'Show Workflow Graph' } },
    { command: { command: '', title: 'session: 1 turn' } },
    {},
  ];
  const got = f.previewTranscriptLenses(lenses);
  assert.deepEqual(got.map((l) => l.command?.command), ['ccdag.openTranscriptPreview', 'ccdag.showGraph', '', undefined]);
  assert.deepEqual(got[0].command.arguments, ['file:///a.jsonl'], 'the log the lens names is kept');
  assert.equal(f.previewTranscriptLenses(null), null);
});

test('the middleware maps provided and resolved lenses, through the inner middleware', async () => {
  const calls = [];
  const inner = {
    provideCodeLenses: async (doc, token, next) => { calls.push('inner'); return next(doc, token); },
  };
  const mw = f.lensesOpenPreview(inner);
  const provided = await mw.provideCodeLenses('doc', 'tok', async () => [{ command: { command: 'ccdag.openTranscript' } }]);
  assert.equal(provided[0].command.command, 'ccdag.openTranscriptPreview');
  assert.deepEqual(calls, ['inner']);
  const resolved = await mw.resolveCodeLens({}, 'tok', async () => ({ command: { command: 'ccdag.openTranscript' } }));
  assert.equal(resolved.command.command, 'ccdag.openTranscriptPreview');
});
