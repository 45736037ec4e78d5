// Drives the real `bin/ccdag serve --stdio` with VS Code's own JSON-RPC stack
// (vscode-languageserver-protocol over vscode-jsonrpc), on a real session from the corpus.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  CancellationTokenSource,
  ResponseError,
  InitializeRequest,
  InitializedNotification,
  DidOpenTextDocumentNotification,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  PublishDiagnosticsNotification,
  HoverRequest,
  DefinitionRequest,
  ExecuteCommandRequest,
  ShutdownRequest,
  ExitNotification,
  TextDocumentSyncKind,
  ErrorCodes,
  LSPErrorCodes,
} = require('vscode-languageserver-protocol/node');

const ROOT = path.resolve(__dirname, '../../..');
const BIN = process.env.CCDAG_BIN || path.join(ROOT, 'bin', 'ccdag'); // CCDAG_BIN: test another build
// The corpus of real logs is not in the repository: ../shared/corpus beside the clone, or $CCDAG_CORPUS
// (scripts/testcorpus.sh). Absent: SKIP naming it, or, under CI (which always has it), FAIL.
const CORPUS = path.resolve(process.env.CCDAG_CORPUS || path.join(ROOT, '..', 'shared', 'corpus'));
const SESSION = path.join(CORPUS, 'dagster-io__erk/session/1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl');
const CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const URI = pathToFileURL(SESSION).href;
const TIMEOUT = 60000; // a bound for hangs, not a pace: the machine may be busy

// The corpus README's true findings for this session (line of the main log, code, severity).
// LSP severities: 1 error, 2 warning, 3 information, 4 hint.
const EXPECTED = [
  [296, 'missing-agent-file', 3],
  [432, 'unmatched-tool-use', 2],
  [433, 'unresolved-logical-parent', 3],
  [438, 'unmatched-tool-use', 3], // in flight: parallel calls of one message, the log ends in their turn
  [439, 'unmatched-tool-use', 3],
  [441, 'unmatched-tool-use', 3],
];

const haveBin = fs.existsSync(BIN);
const haveCorpus = fs.existsSync(SESSION);
const missing = `missing ${SESSION}; these tests check VS Code's JSON-RPC client against ccdag serve on a real log (diagnostics, hover, definition, the graph command, lifecycle)`;
if (!haveCorpus && CI) {
  console.error(`FAIL (CI=${process.env.CI}, and CI always has ../shared): ${missing}`);
  process.exit(1);
}
const skip = !haveCorpus ? missing : !haveBin ? (CI ? false : `${BIN} missing (make build)`) : false;
if (skip) {
  console.log(`SKIP: ${skip}`);
}

let proc, conn, exited, stderr = '';
let holdProgressCreate = null; // set by a test: runs before the client answers window/workDoneProgress/create
const diagnostics = new Map(); // uri -> [{version, diagnostics}]
const waiters = [];
let text, lines;
let initialized = false; // the tests after initialize need it: fail them at once without it
function needInit() {
  if (!initialized) throw new Error('the server did not initialize');
}

function onDiagnostics(p) {
  if (!diagnostics.has(p.uri)) diagnostics.set(p.uri, []);
  diagnostics.get(p.uri).push(p);
  for (const w of waiters.slice()) w();
}

// Resolve with the first publishDiagnostics for uri that satisfies pred (awaits the condition, no sleeps).
function waitDiagnostics(uri, pred, what) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      waiters.splice(waiters.indexOf(check), 1);
      const got = (diagnostics.get(uri) || []).map((p) => `v${p.version}: ${p.diagnostics.length}`);
      reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(got)}`));
    }, TIMEOUT);
    const check = () => {
      const found = (diagnostics.get(uri) || []).find(pred);
      if (found) {
        clearTimeout(t);
        waiters.splice(waiters.indexOf(check), 1);
        resolve(found);
      }
    };
    waiters.push(check);
    check();
  });
}

function findings(p) {
  return p.diagnostics
    .filter((d) => d.code !== 'parent-after-child')
    .map((d) => [d.range.start.line + 1, d.code, d.severity])
    .sort((a, b) => a[0] - b[0] || String(a[1]).localeCompare(String(b[1])));
}

function lineOf(needle) {
  const i = lines.findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `no line contains ${needle}`);
  return i;
}

// Position (UTF-16, as JS strings count) of the first character of a JSON string value "key":"value".
function valuePos(lineIdx, key, value) {
  const needle = `"${key}":"${value}"`;
  const c = lines[lineIdx].indexOf(needle);
  assert.ok(c >= 0, `line ${lineIdx + 1} has no ${needle}`);
  return { line: lineIdx, character: c + key.length + 4 };
}

function withTimeout(p, what) {
  let t;
  return Promise.race([
    p,
    new Promise((_, reject) => {
      t = setTimeout(() => reject(new Error(`timed out: ${what}`)), TIMEOUT);
    }),
  ]).finally(() => clearTimeout(t));
}

before(() => {
  if (skip) return;
  text = fs.readFileSync(SESSION, 'utf8');
  lines = text.split('\n');
  proc = spawn(BIN, ['serve', '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  proc.stderr.on('data', (d) => {
    stderr += d;
  });
  exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  conn = createProtocolConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
  conn.onNotification(PublishDiagnosticsNotification.type, onDiagnostics);
  conn.onNotification('$/progress', () => {});
  // The server asks for progress tokens on large work; a test may hold the answer back.
  conn.onRequest('window/workDoneProgress/create', async () => {
    if (holdProgressCreate) await holdProgressCreate();
    return null;
  });
  conn.onError(() => {});
  conn.listen();
});

after(() => {
  if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  if (conn) conn.dispose();
});

test('a request before initialize gets ServerNotInitialized', { skip }, async () => {
  await assert.rejects(withTimeout(conn.sendRequest(HoverRequest.type, { textDocument: { uri: URI }, position: { line: 0, character: 0 } }), 'hover'),
    (e) => e instanceof ResponseError && e.code === ErrorCodes.ServerNotInitialized);
});

test('initialize: capabilities', { skip }, async () => {
  const res = await withTimeout(conn.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    clientInfo: { name: 'ccdag-node-client-test' },
    rootUri: null,
    capabilities: { window: { workDoneProgress: true }, textDocument: { publishDiagnostics: { versionSupport: true, relatedInformation: true } } },
    initializationOptions: { severity: {} },
  }), 'initialize');
  const caps = res.capabilities;
  const sync = typeof caps.textDocumentSync === 'number' ? caps.textDocumentSync : caps.textDocumentSync && caps.textDocumentSync.change;
  assert.equal(sync, TextDocumentSyncKind.Incremental);
  if (typeof caps.textDocumentSync === 'object') assert.equal(caps.textDocumentSync.openClose, true);
  assert.ok(caps.hoverProvider, 'hoverProvider');
  assert.ok(caps.definitionProvider, 'definitionProvider');
  assert.ok(caps.referencesProvider, 'referencesProvider');
  assert.ok(caps.documentSymbolProvider, 'documentSymbolProvider');
  assert.ok(caps.executeCommandProvider && caps.executeCommandProvider.commands.includes('ccdag.workflowGraph'),
    `executeCommandProvider: ${JSON.stringify(caps.executeCommandProvider)}`);
  await conn.sendNotification(InitializedNotification.type, {});
  initialized = true;
});

test('didOpen: diagnostics for the document version, the true findings and nothing else', { skip }, async () => {
  needInit();
  await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: URI, languageId: 'jsonl', version: 7, text } });
  const p = await waitDiagnostics(URI, (p) => p.version === 7, 'publishDiagnostics version 7');
  assert.deepEqual(findings(p), EXPECTED);
  const d = p.diagnostics.find((d) => d.code === 'unmatched-tool-use');
  assert.equal(d.source, 'ccdag');
  assert.ok(d.message.includes('toolu_'), `the message names the id: ${d.message}`);
  // the range covers a JSON value on that line, not the whole line
  assert.equal(d.range.start.line, d.range.end.line);
  assert.ok(d.range.end.character - d.range.start.character < lines[d.range.start.line].length);
});

test('hover on a tool call', { skip }, async () => {
  needInit();
  const pos = valuePos(437, 'name', 'Bash');
  const h = await withTimeout(conn.sendRequest(HoverRequest.type, { textDocument: { uri: URI }, position: pos }), 'hover');
  assert.ok(h && h.contents, 'no hover');
  const md = typeof h.contents === 'string' ? h.contents : h.contents.value || JSON.stringify(h.contents);
  assert.equal(h.contents.kind, 'markdown');
  assert.match(md, /Bash/);
  assert.match(md, /action/i);
});

test('definition from a tool_use_id value: the tool_use block', { skip }, async () => {
  needInit();
  const id = 'toolu_01E3YzLaZp25ee1y2PYjZjYY';
  const from = valuePos(lineOf(`"tool_use_id":"${id}"`), 'tool_use_id', id);
  const res = await withTimeout(conn.sendRequest(DefinitionRequest.type, { textDocument: { uri: URI }, position: from }), 'definition');
  const loc = Array.isArray(res) ? res[0] : res;
  assert.ok(loc, 'no definition');
  const uri = loc.uri || loc.targetUri;
  const range = loc.range || loc.targetSelectionRange;
  assert.equal(uri, URI);
  const want = lineOf(`"type":"tool_use","id":"${id}"`);
  assert.equal(range.start.line, want);
  const idAt = lines[want].indexOf(`"id":"${id}"`) + 5;
  assert.ok(range.start.character <= idAt + 1 && range.end.character >= idAt + id.length, `range ${JSON.stringify(range)} does not cover the id at ${idAt}`);
});

let graph;
test('ccdag/workflowGraph: the SPEC §4 shape', { skip }, async () => {
  needInit();
  graph = await withTimeout(conn.sendRequest('ccdag/workflowGraph', { textDocument: { uri: URI } }), 'workflowGraph');
  assert.equal(graph.session.id, '1b2fa935-2b3c-47c3-a234-caee199c619b');
  assert.ok(graph.session.files.some((f) => f.uri === URI && f.lane === 'main'), 'session.files names the main log');
  assert.ok(graph.lanes.some((l) => l.id === 'main'), 'main lane');
  assert.ok(graph.nodes.length > 100, `nodes: ${graph.nodes.length}`);
  const kinds = new Set(['USER_INPUT', 'THOUGHT', 'ACTION', 'OBSERVATION', 'SYSTEM']);
  const order = new Map(graph.nodes.map((n, i) => [n.id, i]));
  for (const n of graph.nodes) {
    assert.ok(kinds.has(n.kind), `node kind ${n.kind}`);
    assert.equal(typeof n.active, 'boolean');
    assert.ok(n.location && n.location.uri && n.location.range, `node ${n.id} location`);
  }
  // (this session's prompts are all slash-command wrappers and meta records: no USER_INPUT)
  for (const k of ['THOUGHT', 'ACTION', 'OBSERVATION', 'SYSTEM']) assert.ok(graph.nodes.some((n) => n.kind === k), `no ${k} node`);
  const edgeKinds = new Set(['flow', 'tool', 'spawn', 'return', 'compact']);
  for (const e of graph.edges) {
    assert.ok(edgeKinds.has(e.kind), `edge kind ${e.kind}`);
    assert.ok(order.has(e.source) && order.has(e.target), `edge ${e.source}->${e.target} names unknown nodes`);
    if (e.kind === 'flow') assert.ok(order.get(e.source) < order.get(e.target), `flow edge ${e.source}->${e.target} against node order`);
  }
  const actions = graph.nodes.filter((n) => n.kind === 'ACTION');
  assert.ok(actions.every((n) => n.toolName && n.toolUseId), 'ACTION nodes carry toolName and toolUseId');
});

test('workspace/executeCommand ccdag.workflowGraph gives the same graph', { skip }, async () => {
  needInit();
  const g = await withTimeout(conn.sendRequest(ExecuteCommandRequest.type, { command: 'ccdag.workflowGraph', arguments: [URI] }), 'executeCommand');
  assert.deepEqual(g, graph);
});

test('incremental didChange: appended records, republished diagnostics', { skip }, async () => {
  needInit();
  // Answer the pending call of line 441: its finding goes away.
  const id = 'toolu_018GLsJoKCvMnLpjxVeHtuEf';
  const last = JSON.parse(lines[440]);
  assert.ok(lines[440].includes(id) && lines[441] === '', 'the log ends with the call of line 441 and a newline');
  const answer = JSON.stringify({
    parentUuid: last.uuid, isSidechain: false, type: 'user', uuid: 'node-test-answer-0001', sessionId: last.sessionId,
    timestamp: '2026-02-21T10:00:00.000Z',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok ✓ 完成 🎉' }] },
  });
  await conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri: URI, version: 9 },
    contentChanges: [{ range: { start: { line: 441, character: 0 }, end: { line: 441, character: 0 } }, text: answer + '\n' }],
  });
  let p = await waitDiagnostics(URI, (p) => p.version === 9, 'publishDiagnostics version 9');
  assert.deepEqual(findings(p), EXPECTED.filter(([l]) => l !== 441));

  // Then a record whose parent is not in the session, written in two pieces the way a live
  // log grows (the second change starts after the emoji of the first: UTF-16 columns).
  const orphan = JSON.stringify({ parentUuid: 'no-such-parent', type: 'user', uuid: 'node-test-orphan-0002', sessionId: last.sessionId, message: { role: 'user', content: '🙂 hi' } });
  const cut = orphan.indexOf('hi');
  await conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri: URI, version: 10 },
    contentChanges: [
      { range: { start: { line: 442, character: 0 }, end: { line: 442, character: 0 } }, text: orphan.slice(0, cut) },
      { range: { start: { line: 442, character: cut }, end: { line: 442, character: cut } }, text: orphan.slice(cut) + '\n' },
    ],
  });
  p = await waitDiagnostics(URI, (p) => p.version === 10, 'publishDiagnostics version 10');
  // A new prompt follows the turn: the calls at 438 and 439 are no longer in flight, the conversation
  // went on without their answers (SPEC §2).
  const wentOn = EXPECTED.filter(([l]) => l !== 441).map(([l, c, sev]) => (l === 438 || l === 439 ? [l, c, 2] : [l, c, sev]));
  assert.deepEqual(findings(p), [...wentOn, [443, 'orphan', 2]].sort((a, b) => a[0] - b[0]));
});

// A log of 9 MB (the server reports progress on sessions from 8 MB, and builds the graph of one
// under 16 MB ahead, unasked, without progress): one prompt, a call and its 9 MB result.
function bigSession(dir) {
  const sid = '0b5e8c7a-1f2d-4c3b-9a8e-7d6c5b4a3f21';
  const at = (s) => `2026-02-21T10:00:0${s}.000Z`;
  const recs = [
    { parentUuid: null, isSidechain: false, type: 'user', uuid: 'big-1', sessionId: sid, timestamp: at(1), message: { role: 'user', content: 'read it' } },
    { parentUuid: 'big-1', isSidechain: false, type: 'assistant', uuid: 'big-2', sessionId: sid, timestamp: at(2),
      message: { id: 'msg_big', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: 'toolu_big', name: 'Read', input: { file_path: '/tmp/x' } }],
        stop_reason: 'tool_use', usage: { input_tokens: 1, output_tokens: 1 } } },
    { parentUuid: 'big-2', isSidechain: false, type: 'user', uuid: 'big-3', sessionId: sid, timestamp: at(3),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_big', content: 'x'.repeat(9 << 20) }] } },
  ];
  const file = path.join(dir, `${sid}.jsonl`);
  fs.writeFileSync(file, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return { file, sid, last: recs[2] };
}

test('numeric $/cancelRequest cancels a queued request; the server goes on', { skip }, async () => {
  needInit();
  // The request to cancel must still be waiting when its cancel is read, whatever the machine's
  // speed: the one before it waits for the client. A graph of a session of 8 MB or more that is not
  // built yet asks the client for a progress token first (window/workDoneProgress/create) on the
  // session's worker; the client answers only after it sent the third request and its cancel, and
  // the server reads its messages in order, so the cancel is read before the worker goes on.
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'ccdag-cancel-'));
  const big = bigSession(dir);
  const bigURI = pathToFileURL(big.file).href;
  const bigText = fs.readFileSync(big.file, 'utf8');
  await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: bigURI, languageId: 'jsonl', version: 1, text: bigText } });
  await waitDiagnostics(bigURI, (p) => p.version === 1, 'diagnostics of the 9 MB log');
  // An appended record: the graph built ahead at the open is no longer current.
  const more = JSON.stringify({ parentUuid: 'big-3', isSidechain: false, type: 'user', uuid: 'big-4', sessionId: big.sid, timestamp: '2026-02-21T10:00:04.000Z', message: { role: 'user', content: 'thanks' } });
  await conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri: bigURI, version: 2 },
    contentChanges: [{ range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: more + '\n' }],
  });

  const seen = [];
  const tracer = { log: (m) => seen.push(String(m)) };
  await conn.trace(2 /* Trace.Verbose */, tracer);
  let asked, release;
  const askedP = new Promise((r) => (asked = r));
  const held = new Promise((r) => (release = r));
  holdProgressCreate = async () => {
    asked();
    await held;
  };
  const params = { textDocument: { uri: bigURI } };
  const a = conn.sendRequest('ccdag/workflowGraph', params);
  await withTimeout(askedP, 'the server asks for a progress token before building the graph');
  const src = new CancellationTokenSource();
  const c = conn.sendRequest('ccdag/workflowGraph', params, src.token);
  src.cancel();
  holdProgressCreate = null;
  release(); // answered after the cancel: the worker is held until then
  const [ra, rc] = await withTimeout(Promise.allSettled([a, c]), 'the two requests');
  await conn.trace(0, tracer);
  assert.equal(ra.status, 'fulfilled', String(ra.reason));
  assert.ok(ra.value.nodes.length > 0, 'the first request got the graph');
  const sent = seen.find((s) => s.includes("Sending notification '$/cancelRequest'"));
  assert.ok(sent, 'the client sent $/cancelRequest');
  // vscode-jsonrpc numbers its requests: the cancel names a numeric id
  assert.match(seen.join('\n'), /Sending request 'ccdag\/workflowGraph - \(\d+\)'/);
  assert.equal(rc.status, 'rejected', 'the cancelled request was answered as cancelled');
  assert.ok(rc.reason instanceof ResponseError, String(rc.reason));
  assert.equal(rc.reason.code, LSPErrorCodes.RequestCancelled);
  // a numeric cancel for an id that is not running: ignored
  await conn.sendNotification('$/cancelRequest', { id: 987654 });
  const h = await withTimeout(conn.sendRequest(HoverRequest.type, { textDocument: { uri: URI }, position: valuePos(437, 'name', 'Bash') }), 'hover after cancel');
  assert.ok(h && h.contents);
  await conn.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: bigURI } });
  fs.rmSync(dir, { recursive: true, force: true });
});

test('unknown request: MethodNotFound', { skip }, async () => {
  needInit();
  await assert.rejects(withTimeout(conn.sendRequest('ccdag/noSuchMethod', {}), 'unknown'),
    (e) => e instanceof ResponseError && e.code === ErrorCodes.MethodNotFound);
});

test('didClose clears the diagnostics', { skip }, async () => {
  needInit();
  const n = (diagnostics.get(URI) || []).length;
  await conn.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: URI } });
  await waitDiagnostics(URI, (p) => diagnostics.get(URI).indexOf(p) >= n && p.diagnostics.length === 0, 'empty diagnostics on close');
});

test('shutdown, exit: the process ends with 0', { skip }, async () => {
  needInit();
  const r = await withTimeout(conn.sendRequest(ShutdownRequest.type), 'shutdown');
  assert.equal(r, null);
  await conn.sendNotification(ExitNotification.type);
  const { code, signal } = await withTimeout(exited, 'process exit');
  assert.equal(signal, null, `killed by ${signal}; stderr: ${stderr}`);
  assert.equal(code, 0, `exit code; stderr: ${stderr}`);
});
