// Issue 20, item 4: a bare '\r' (JSON whitespace) inside records. LSP ends a line there, and so does
// vscode-languageserver-textdocument, VS Code's text-document library: the orphan quick fix the
// server sends, applied through it, must give what `ccdag fix` writes (it overwrote the record
// before the orphan and left the orphan twice when the server counted lines at '\n' only).
'use strict';
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { TextDocument } = require('vscode-languageserver-textdocument');
const {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  InitializeRequest,
  InitializedNotification,
  DidOpenTextDocumentNotification,
  PublishDiagnosticsNotification,
  CodeActionRequest,
  ShutdownRequest,
  ExitNotification,
} = require('vscode-languageserver-protocol/node');

const ROOT = path.resolve(__dirname, '../../..');
const BIN = process.env.CCDAG_BIN || path.join(ROOT, 'bin', 'ccdag');
const FIXTURE = path.join(ROOT, 'testdata', 'checks', 'orphan-bare-cr.jsonl');
const CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const TIMEOUT = 60000; // a bound for hangs, not a pace

const skip = fs.existsSync(BIN) ? false : CI ? false : `${BIN} missing (make build)`;
if (skip) console.log(`SKIP: ${skip}`);

let proc, conn, tmp;
after(() => {
  if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  if (conn) conn.dispose();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

function withTimeout(p, what) {
  let t;
  const timeout = new Promise((_, reject) => {
    t = setTimeout(() => reject(new Error(`timed out: ${what}`)), TIMEOUT);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(t));
}

test('the orphan quick fix applied by vscode-languageserver-textdocument is what ccdag fix writes', { skip }, async () => {
  const text = fs.readFileSync(FIXTURE, 'utf8');
  assert.match(text, /\r(?!\n)/, 'the fixture holds a bare \\r');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ccdag-barecr-'));
  const log = path.join(tmp, path.basename(FIXTURE));
  fs.writeFileSync(log, text);
  const uri = pathToFileURL(log).href;

  proc = spawn(BIN, ['serve', '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  conn = createProtocolConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
  const published = new Promise((resolve) => {
    conn.onNotification(PublishDiagnosticsNotification.type, (p) => { if (p.uri === uri && p.version === 1) resolve(p); });
  });
  conn.onError(() => {});
  conn.listen();
  await withTimeout(conn.sendRequest(InitializeRequest.type, { processId: process.pid, rootUri: null, capabilities: {} }), 'initialize');
  await conn.sendNotification(InitializedNotification.type, {});
  await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'jsonl', version: 1, text } });
  const doc = TextDocument.create(uri, 'jsonl', 1, text);

  const diags = (await withTimeout(published, 'diagnostics')).diagnostics.filter((d) => d.code === 'orphan');
  assert.equal(diags.length, 1, JSON.stringify(diags));
  // the diagnostic underlines the orphan's parentUuid value as the library counts lines
  assert.equal(doc.getText(diags[0].range), '"ffffffff-dead-4bad-8000-000000000000"');

  const actions = await withTimeout(conn.sendRequest(CodeActionRequest.type, {
    textDocument: { uri }, range: diags[0].range, context: { diagnostics: diags, only: ['quickfix'] },
  }), 'codeAction');
  assert.equal(actions.length, 1, JSON.stringify(actions));
  const edits = actions[0].edit.changes[uri];
  assert.ok(edits && edits.length > 0, JSON.stringify(actions[0].edit));
  const fixed = TextDocument.applyEdits(doc, edits);

  // what `ccdag fix --write` writes (the log older than a minute: not a live session)
  const old = new Date(Date.now() - 120000);
  fs.utimesSync(log, old, old);
  execFileSync(BIN, ['fix', '--write', log], { stdio: ['ignore', 'ignore', 'pipe'] });
  const written = fs.readFileSync(log, 'utf8');
  assert.notEqual(written, text, 'ccdag fix changed nothing');
  assert.equal(fixed, written);

  await withTimeout(conn.sendRequest(ShutdownRequest.type), 'shutdown');
  await conn.sendNotification(ExitNotification.type);
});
