// Unit tests of src/serverPath.ts (which settings of ccdag.server.path refer to the workspace and
// are not run in Restricted Mode), bundled with esbuild and run in plain node: `make test-vscode`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ccdag-serverpath-'));
const out = path.join(tmp, 'serverPath.mjs');
esbuild.buildSync({ entryPoints: [path.join(here, '..', 'src', 'serverPath.ts')], outfile: out, bundle: true, platform: 'node', format: 'esm', logLevel: 'error' });
const { refersToWorkspace, bundledServer } = await import(pathToFileURL(out).href);

// tmp/ws: the workspace; tmp/wslink -> ws; tmp/outside; tmp/outside/intoWs -> ws
const ws = path.join(tmp, 'ws');
fs.mkdirSync(path.join(ws, '..foo'), { recursive: true });
fs.mkdirSync(path.join(tmp, 'outside'));
fs.writeFileSync(path.join(ws, 'evil.sh'), '#!/bin/sh\n', { mode: 0o755 });
fs.symlinkSync(ws, path.join(tmp, 'wslink'));
fs.symlinkSync(ws, path.join(tmp, 'outside', 'intoWs'));

test('a path written relative to the workspace refers to it', () => {
  for (const p of ['${workspaceFolder}/evil.sh', './evil.sh', 'evil.sh', 'bin/ccdag', '  evil.sh ']) {
    assert.equal(refersToWorkspace(p, [ws]), true, p);
  }
});

test('an absolute path inside a workspace folder refers to it, a folder named ..foo included', () => {
  assert.equal(refersToWorkspace(path.join(ws, 'evil.sh'), [ws]), true);
  assert.equal(refersToWorkspace(path.join(ws, '..foo', 'x'), [ws]), true);
  assert.equal(refersToWorkspace(path.join(ws, 'not-there-yet'), [tmp, ws]), true);
});

test('links are resolved on both sides', () => {
  // the workspace opened through a link, the setting naming the real place
  assert.equal(refersToWorkspace(path.join(ws, 'evil.sh'), [path.join(tmp, 'wslink')]), true);
  // the setting naming the workspace through a link outside it
  assert.equal(refersToWorkspace(path.join(tmp, 'outside', 'intoWs', 'evil.sh'), [ws]), true);
  assert.equal(refersToWorkspace(path.join(tmp, 'outside', 'intoWs', 'missing.sh'), [path.join(tmp, 'wslink')]), true);
});

test('a path outside every workspace folder does not', () => {
  assert.equal(refersToWorkspace(path.join(tmp, 'outside', 'ccdag'), [ws]), false);
  assert.equal(refersToWorkspace('/usr/local/bin/ccdag', [ws]), false);
  assert.equal(refersToWorkspace('~/go/bin/ccdag', [ws]), false);
  assert.equal(refersToWorkspace(path.join(tmp, 'ws-sibling', 'ccdag'), [ws]), false);
});

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

// make vsix: one .vsix per target, each with its own binary and bin/TARGET; the universal one has none.
test('the bundled server is the one built for this platform, ccdag.exe on Windows', () => {
  const ext = path.join(tmp, 'ext');
  const only = (t) => (f) => (f === path.join(ext, 'bin', 'TARGET') ? t : undefined);
  assert.equal(bundledServer(ext, 'win32', 'x64', only('win32-x64\n')), path.join(ext, 'bin', 'ccdag.exe'));
  assert.equal(bundledServer(ext, 'win32', 'arm64', only('win32-arm64')), path.join(ext, 'bin', 'ccdag.exe'));
  assert.equal(bundledServer(ext, 'darwin', 'arm64', only('darwin-arm64\n')), path.join(ext, 'bin', 'ccdag'));
  assert.equal(bundledServer(ext, 'linux', 'x64', only('linux-x64\n')), path.join(ext, 'bin', 'ccdag'));
  // another target's build (a .vsix installed by hand on the wrong machine), or the universal .vsix
  assert.equal(bundledServer(ext, 'win32', 'x64', only('linux-x64\n')), undefined);
  assert.equal(bundledServer(ext, 'darwin', 'x64', only('darwin-arm64')), undefined);
  assert.equal(bundledServer(ext, 'linux', 'x64', only(undefined)), undefined);
});
