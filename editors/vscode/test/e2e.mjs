// End-to-end test of the VS Code extension in real VS Code (code-server), driven by Chromium
// through playwright-core. Run by `make test-vscode` (test/run.sh), after `make vsix`.
//
// It installs the built .vsix into a fresh code-server, opens a real session log that has problems
// (a copy of a corpus log, under .claude/projects/ in a temp workspace), and checks what a person
// would see: the Problems panel, a hover, F12 on a tool_use_id, Go to Parent Record, the status bar
// summary, Ctrl+T (workspace symbols), and the workflow graph webview (drawn nodes, reveal in
// editor, theme following).
// Screenshots go to test-artifacts/vscode-*.png.
//
// Environment: VSIX (default dist/ccdag.vsix), CODE_SERVER (default
// /opt/ccdag-ci/code-server/node_modules/.bin/code-server, then PATH), CHROMIUM (default
// /usr/bin/chromium), CCDAG_SERVER_PATH (sets ccdag.server.path instead of using the server inside
// the .vsix), CI (a missing tool fails instead of skipping), E2E_KEEP=1 keeps the temp dir,
// E2E_DEADLINE_MS (default 600000) bounds the whole run: a guard against a hang, not a speed target (the run took 250 s at load 20).
//
// E2E_UNTRUSTED=1 runs the Restricted Mode case instead (issue 14 item 9): workspace trust on, the
// workspace not trusted, and a machine-level ccdag.server.path of ${workspaceFolder}/evil.sh. That
// file must not run; the extension uses its bundled server and says why.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..', '..');
const CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const SESSION_ID = '1b2fa935-2b3c-47c3-a234-caee199c619b';
// The corpus is ../shared/corpus beside the clone, or $CCDAG_CORPUS (scripts/testcorpus.sh).
const CORPUS_LOG = path.join(path.resolve(process.env.CCDAG_CORPUS || path.join(ROOT, '..', 'shared', 'corpus')), 'dagster-io__erk', 'session', `${SESSION_ID}.jsonl`);
// The true findings of this log (shared/corpus/README.md), as (code, 1-based line). Hints are not
// in the Problems panel; everything else must be exactly this. (432 is a warning; 438, 439 and 441
// are information: parallel calls still in flight where the log ends.)
const EXPECTED = [
  ['missing-agent-file', 296],
  ['unmatched-tool-use', 432],
  ['unresolved-logical-parent', 433],
  ['unmatched-tool-use', 438],
  ['unmatched-tool-use', 439],
  ['unmatched-tool-use', 441],
];
const DEADLINE_MS = Number(process.env.E2E_DEADLINE_MS) || 600_000;
const UNTRUSTED = !!process.env.E2E_UNTRUSTED;
const started = Date.now();

function log(msg) {
  console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${msg}`);
}

function skipOrFail(why) {
  if (CI) {
    console.error(`FAIL: ${why} (CI is set, so a missing tool is a failure)`);
    process.exit(1);
  }
  console.log(`SKIP: ${why}`);
  process.exit(0);
}

function which(cmd) {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    const p = path.join(dir, cmd);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // next
    }
  }
  return undefined;
}

// ---- preconditions -------------------------------------------------------------------------

const VSIX = path.resolve(ROOT, process.env.VSIX || 'dist/ccdag.vsix');
const CODE_SERVER =
  process.env.CODE_SERVER ||
  [path.join('/opt/ccdag-ci/code-server/node_modules/.bin/code-server')].find((p) => fs.existsSync(p)) ||
  which('code-server');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
// The CLI the Preview Resume is held to (`make test-vscode` builds it).
const CCDAG_BIN = path.resolve(ROOT, process.env.CCDAG_BIN || 'bin/ccdag');

if (!CODE_SERVER || !fs.existsSync(CODE_SERVER)) {
  skipOrFail('code-server is not installed (run .ci/install.d/40-code-server.sh, or set CODE_SERVER)');
}
if (!fs.existsSync(CHROMIUM)) skipOrFail(`chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`);
if (!fs.existsSync(CORPUS_LOG)) skipOrFail(`missing ${CORPUS_LOG} (the corpus of real logs, not part of the repository); this test checks the extension in code-server on that log`);
if (!fs.existsSync(CCDAG_BIN)) {
  console.error(`FAIL: ${CCDAG_BIN} does not exist: run \`make build\` first`);
  process.exit(1);
}
if (!fs.existsSync(VSIX)) {
  console.error(`FAIL: ${VSIX} does not exist: run \`make vsix\` first`);
  process.exit(1);
}
let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch {
  skipOrFail('playwright-core is not installed (cd editors/vscode && npm ci)');
}

// ---- facts about the log, computed independently of the extension and the server ----------

const logText = fs.readFileSync(CORPUS_LOG, 'utf8');
const lines = logText.split('\n');
if (lines[lines.length - 1] === '') lines.pop();
const records = lines.map((l) => {
  try {
    return JSON.parse(l);
  } catch {
    return undefined;
  }
});
const lineOfUuid = new Map();
const lineOfToolUse = new Map();
records.forEach((r, i) => {
  if (r && typeof r.uuid === 'string' && !lineOfUuid.has(r.uuid)) lineOfUuid.set(r.uuid, i);
  const content = r?.message?.content;
  if (Array.isArray(content)) {
    for (const b of content) if (b?.type === 'tool_use' && typeof b.id === 'string') lineOfToolUse.set(b.id, i);
  }
});

/** A tool_result whose call is far from it (so the jump is unmistakable): line, column, call's line. */
function pickToolResult() {
  let best;
  records.forEach((r, i) => {
    const content = r?.message?.content;
    if (!Array.isArray(content)) return;
    for (const b of content) {
      if (b?.type !== 'tool_result' || typeof b.tool_use_id !== 'string') continue;
      const call = lineOfToolUse.get(b.tool_use_id);
      if (call === undefined || call === i) continue;
      const m = new RegExp(`"tool_use_id"\\s*:\\s*"${b.tool_use_id}"`).exec(lines[i]);
      if (!m) continue;
      const col = m.index + m[0].length - b.tool_use_id.length - 1 + 4; // inside the id (UTF-16 index)
      const cand = { line: i, col, call, id: b.tool_use_id, dist: i - call };
      if (i > 20 && (!best || (cand.dist > best.dist && cand.dist < 40))) best = cand;
    }
  });
  return best;
}

/** A record whose parent is a few lines above it (not the line just before), for Go to Parent. */
function pickChild() {
  for (let i = 60; i < records.length; i++) {
    const p = records[i]?.parentUuid;
    if (typeof p !== 'string') continue;
    const pl = lineOfUuid.get(p);
    if (pl !== undefined && i - pl >= 2 && i - pl < 30) return { line: i, parent: pl };
  }
  return undefined;
}

const TR = pickToolResult();
const CHILD = pickChild();
if (!TR || !CHILD) {
  console.error('FAIL: the corpus log does not have the records this test needs');
  process.exit(1);
}

// ---- the run ------------------------------------------------------------------------------

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ccdag-vscode-e2e-'));
const ws = path.join(tmp, 'ws');
const projectDir = path.join(ws, '.claude', 'projects', 'x');
const logPath = path.join(projectDir, `${SESSION_ID}.jsonl`);
const userData = path.join(tmp, 'user-data');
const extDir = path.join(tmp, 'extensions');
const serverLog = path.join(tmp, 'ccdag-server.log');
const traceFile = path.join(tmp, 'ccdag-trace.log');
const csLog = path.join(tmp, 'code-server.log');
fs.mkdirSync(projectDir, { recursive: true });
fs.copyFileSync(CORPUS_LOG, logPath);
// A session whose sub-agent was rejected by the person but ran: linked to its call only by a
// progress record's data.agentId (testdata/graph/rejected-task-progress).
const AGENT_SESSION = '0b00000e-eeee-4eee-8eee-00000000000e';
const AGENT_FILE = 'agent-a7c0ffee000000e1.jsonl';
fs.cpSync(path.join(ROOT, 'testdata', 'graph', 'rejected-task-progress'), projectDir, {
  recursive: true,
  filter: (src) => !/graph\.golden/.test(src),
});
const agentPath = path.join(projectDir, AGENT_SESSION, 'subagents', AGENT_FILE);
// More real projects for the session browser, copied in by its step: [corpus folder, project name].
const CORPUS = path.resolve(process.env.CCDAG_CORPUS || path.join(ROOT, '..', 'shared', 'corpus'));
const MORE_PROJECTS = [
  ['Jason-liu-0219__my-claude/projects/-Users-liuhanwen-Desktop-project-webtech-monorepo', '-Users-liuhanwen-Desktop-project-webtech-monorepo'],
  ['d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project', 'sample-project'],
  ['Eduardodmb__ClaudeHome/projects/X--03-ACG-Custom-Addons', 'X--03-ACG-Custom-Addons'],
].map(([src, name]) => [path.join(CORPUS, src), name]);
/** Copies a corpus project folder, writable (the corpus is read-only). */
function copyProject(src, dst) {
  fs.cpSync(src, dst, { recursive: true });
  const walk = (d) => {
    fs.chmodSync(d, 0o755);
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else fs.chmodSync(p, 0o644);
    }
  };
  walk(dst);
}
fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
fs.mkdirSync(ARTIFACTS, { recursive: true });
if (!UNTRUSTED) for (const f of fs.readdirSync(ARTIFACTS)) if (/^vscode-.*\.png$/.test(f)) fs.rmSync(path.join(ARTIFACTS, f));

const settings = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.colorTheme': 'Default Dark Modern',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.commandCenter.enabled': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'git.enabled': false,
  // code-server saves edits after a delay by default: the edit test must not write the log.
  'files.autoSave': 'off',
  'editor.hover.delay': 300,
  'editor.minimap.enabled': false,
  'editor.wordWrap': 'off',
  // changeSettings() types settings.json: no auto-closing or auto-indenting.
  'editor.autoClosingBrackets': 'never',
  'editor.autoClosingQuotes': 'never',
  'editor.autoIndent': 'none',
  'editor.autoSurround': 'never',
  // A picker stays open when a webview refreshes beside it.
  'workbench.quickOpen.closeOnFocusLost': false,
};
// ccdag.server.path and .args are machine settings: in a remote window such as code-server's, VS Code
// reads them from the remote machine's settings (user-data/Machine/settings.json), not the user's.
const machineSettings = {
  'ccdag.server.args': ['--log-file', serverLog, '--log-level', 'debug', '--trace-file', traceFile],
};
// CCDAG_SERVER_PATH: test another server than the one inside the .vsix (a development build).
if (process.env.CCDAG_SERVER_PATH) machineSettings['ccdag.server.path'] = path.resolve(process.env.CCDAG_SERVER_PATH);
// Restricted Mode: a file of the workspace named as the server, from the machine's settings (which
// restrictedConfigurations does not cover). Running it leaves a mark.
const evilMark = path.join(tmp, 'evil-ran');
if (UNTRUSTED) {
  settings['security.workspace.trust.enabled'] = true;
  settings['security.workspace.trust.startupPrompt'] = 'never';
  settings['security.workspace.trust.emptyWindow'] = false;
  machineSettings['ccdag.server.path'] = '${workspaceFolder}/evil.sh';
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, 'evil.sh'), `#!/bin/sh\ntouch '${evilMark}'\nexec sleep 30\n`, { mode: 0o755 });
}
fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
fs.mkdirSync(path.join(userData, 'Machine'), { recursive: true });
fs.writeFileSync(path.join(userData, 'Machine', 'settings.json'), JSON.stringify(machineSettings, null, 2));

const env = {
  ...process.env,
  // Claude Code's config folder is the workspace's .claude: its sweep (cleanupPeriodDays, default
  // 30) reaches the logs there, so the session browser says when they go.
  CLAUDE_CONFIG_DIR: path.join(ws, '.claude'),
  XDG_CONFIG_HOME: path.join(tmp, 'xdg-config'),
  XDG_DATA_HOME: path.join(tmp, 'xdg-data'),
  XDG_CACHE_HOME: path.join(tmp, 'xdg-cache'),
};

let codeServer; // the child, leader of its own process group
let context; // the browser
let page;
const results = [];
let fatal;

async function cleanup() {
  if (context) {
    await Promise.race([context.close().catch(() => {}), sleep(5000)]);
    context = undefined;
  }
  if (codeServer && codeServer.exitCode === null) {
    const pgid = codeServer.pid;
    try {
      process.kill(-pgid, 'SIGTERM');
    } catch {
      // gone
    }
    const t = Date.now();
    while (Date.now() - t < 5000 && groupAlive(pgid)) await sleep(100);
    if (groupAlive(pgid)) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Processes whose command line mentions our temp dir (code-server, extension host, ccdag serve). */
function leftovers() {
  const out = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes(tmp)) out.push(`${pid} ${cmd.slice(0, 160)}`);
    } catch {
      // exited
    }
  }
  return out;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, fn, timeoutMs = 15000, intervalMs = 100) {
  const t = Date.now();
  let last;
  while (Date.now() - t < timeoutMs) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${last.message})` : ''}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Waits until the webview has painted twice, so a screenshot shows the canvas drawn. */
function nextFrames(frame) {
  return frame.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

async function shot(name) {
  const file = path.join(ARTIFACTS, `vscode-${name}.png`);
  try {
    await page.screenshot({ path: file, timeout: 10000 });
  } catch (err) {
    log(`screenshot ${name} failed: ${err.message}`);
  }
  return file;
}

/** The first log's open (the step "open the session log"): its click and page marks. */
let firstOpen;

/** Bytes received by the page over its websockets, and a hook called after each frame. */
let wsReceived = 0;
let onWsFrame;

// E2E_STEPS=regex runs only the steps it matches (and the required ones), for working on a step.
const ONLY = process.env.E2E_STEPS ? new RegExp(process.env.E2E_STEPS, 'i') : undefined;

async function step(name, fn, { required = false } = {}) {
  if (ONLY && !required && !ONLY.test(name)) return;
  if (fatal) {
    results.push({ name, ok: false, why: 'not run: an earlier required step failed' });
    return;
  }
  if (Date.now() - started > DEADLINE_MS) {
    results.push({ name, ok: false, why: 'not run: out of time' });
    fatal = 'deadline';
    return;
  }
  const t = Date.now();
  try {
    const detail = await fn();
    results.push({ name, ok: true, why: detail || '' });
    log(`ok   ${name} (${Date.now() - t} ms)${detail ? ': ' + detail : ''}`);
  } catch (err) {
    results.push({ name, ok: false, why: err.message });
    log(`FAIL ${name}: ${err.message}`);
    await shot(`fail-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`);
    if (required) fatal = name;
  }
}

// ---- VS Code helpers ------------------------------------------------------------------------

/**
 * The Problems panel's rows as [code, line]. A row shows "message  source(code)  [Ln 432, Col 462]";
 * its text is "message\nccdag\ncode\n[Ln 432, Col 462]" (the parentheses are CSS).
 */
async function readProblems() {
  const found = [];
  for (const t of await page.locator('.markers-panel .monaco-list-row').allInnerTexts()) {
    const m = /\bccdag\s*\(?\s*([a-z]+(?:-[a-z]+)*)\s*\)?\s*\[Ln (\d+), Col \d+\]/.exec(t);
    if (m) found.push([m[1], Number(m[2])]);
  }
  return found;
}

function compareProblems(found, expected) {
  const key = (f) => `${f[0]}@${f[1]}`;
  const want = new Set(expected.map(key));
  const got = new Set(found.map(key));
  const missing = [...want].filter((k) => !got.has(k));
  const extra = [...got].filter((k) => !want.has(k));
  if (missing.length || extra.length) {
    throw new Error(`Problems panel: missing [${missing.join(', ')}], unexpected [${extra.join(', ')}]`);
  }
}

/**
 * Changes settings as a person would: in the settings.json editor (Preferences: Open User Settings
 * (JSON), or with remote: true, the remote machine's: Open Remote Settings (JSON)), replacing its
 * text and saving it. undefined removes a key. (Writing the file behind code-server's back is not
 * noticed.)
 */
async function changeSettings(changes, { remote = false } = {}) {
  const file = path.join(userData, remote ? 'Machine' : 'User', 'settings.json');
  const current = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined) delete current[k];
    else current[k] = v;
  }
  const text = JSON.stringify(current, null, 2);
  await runCommand(remote ? 'Preferences: Open Remote Settings (JSON)' : 'Preferences: Open User Settings (JSON)');
  await page.locator('.tab.active', { hasText: 'settings.json' }).first().waitFor({ state: 'visible', timeout: 10000 });
  await waitFor('the settings editor focused', () =>
    page.evaluate(() => !!document.activeElement?.closest('.editor-instance .monaco-editor')), 5000);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
  await page.keyboard.press('Control+S');
  await waitFor('settings.json saved', () => {
    try {
      return JSON.stringify(JSON.parse(fs.readFileSync(file, 'utf8'))) === JSON.stringify(current);
    } catch {
      return false;
    }
  }, 5000);
  await editorFocus({ escape: false }); // back to the log; Escape would hide a notification
}

async function statusSelection() {
  const item = page.locator('[id="status.editor.selection"]').first();
  if (!(await item.isVisible())) return undefined; // no text editor has focus
  const t = await item.innerText({ timeout: 2000 });
  const m = /Ln (\d+), Col (\d+)/.exec(t);
  return m ? { line: Number(m[1]), col: Number(m[2]) } : undefined;
}

/** Makes the session log the active editor and focuses it (Escape first closes pickers and hovers). */
async function editorFocus({ escape = true } = {}) {
  if (escape) await page.keyboard.press('Escape');
  await page.locator(`.tab[aria-label*="${SESSION_ID}.jsonl"]`).first().click();
  await page.mouse.move(20, 700); // off the tab, so its tooltip does not cover the screenshots
  await page.keyboard.press('Control+1'); // View: Focus First Editor Group
  await waitFor('the editor focused', () =>
    page.evaluate(() => !!document.activeElement?.closest('.editor-instance .monaco-editor')), 5000);
}

async function runCommand(title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 5000 });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 5000 });
  await row.click(); // this command, not whatever else the filter ranks first
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 5000 });
}

/**
 * The text of the Preview Resume editor on screen (its lines in order, spaces as spaces; a line
 * word-wrapped over several rows joined again: a row without a line number continues the one
 * above), once done(text) holds; its last text in the error otherwise.
 */
async function readPreview(done, timeoutMs = 15000) {
  let last = '';
  try {
    return await waitFor('the resume preview', async () => {
      for (const ed of await page.locator('.editor-instance .monaco-editor').all()) {
        const t = await ed.evaluate((el) => {
          const numbered = new Set([...el.querySelectorAll('.margin-view-overlays > div')]
            .filter((d) => /\d/.test(d.querySelector('.line-numbers')?.textContent || ''))
            .map((d) => parseFloat(d.style.top) || 0));
          let out = '';
          let indent = '';
          [...el.querySelectorAll('.lines-content > .view-lines > .view-line')]
            .map((l) => [parseFloat(l.style.top) || 0, l.textContent.replace(/\u00a0/g, ' ')])
            .sort((a, b) => a[0] - b[0])
            .forEach(([top, text], i) => {
              if (i === 0 || numbered.has(top)) {
                indent = /^ */.exec(text)[0];
                out += (i > 0 ? '\n' : '') + text;
              } else {
                // a wrapped row is indented as its line (wrappingIndent "same"): not the line's text
                out += text.startsWith(indent) ? text.slice(indent.length) : text;
              }
            });
          return out.replace(/\n+$/, ''); // the document ends with a newline: an empty last line
        });
        if (!/records sent of|cannot resume/.test(t)) continue;
        last = t;
        if (done(t)) return t;
      }
      return undefined;
    }, timeoutMs, 200);
  } catch (err) {
    throw new Error(`${err.message}; the preview shows:\n${last}`, { cause: err });
  }
}

/**
 * Scrolls the Preview Resume editor to its start (what is read is what is drawn: its wrapped lines
 * make it taller than the editor, and the jumps of the step scrolled its first line away).
 */
async function previewTop() {
  await page.locator('.tab', { hasText: '.resume' }).first().click();
  await page.keyboard.press('Control+Home');
}

/**
 * The Preview Resume editor's rows: how many rows its first line takes, and the rows whose text
 * goes past the editor's right edge (word wrap: none; the version line was cut there).
 */
async function previewRows() {
  for (const ed of await page.locator('.editor-instance .monaco-editor').all()) {
    const r = await ed.evaluate((el) => {
      const lines = el.querySelector('.lines-content > .view-lines');
      if (!lines || !/records sent of|cannot resume/.test(lines.textContent.replace(/\u00a0/g, ' '))) return null;
      const edge = lines.parentElement.parentElement.getBoundingClientRect().right; // the scrollable element: what shows
      const numbered = [...el.querySelectorAll('.margin-view-overlays > div')]
        .filter((d) => /\d/.test(d.querySelector('.line-numbers')?.textContent || ''))
        .map((d) => parseFloat(d.style.top) || 0)
        .sort((a, b) => a - b);
      const rows = [...lines.querySelectorAll('.view-line')].map((l) => ({ top: parseFloat(l.style.top) || 0, right: l.firstElementChild ? l.firstElementChild.getBoundingClientRect().right : 0, text: l.textContent }));
      const firstRows = rows.filter((x) => x.top >= numbered[0] && (numbered.length < 2 || x.top < numbered[1])).length;
      return { firstRows, past: rows.filter((x) => x.right > edge + 1).map((x) => x.text.slice(0, 60)), edge };
    });
    if (r) return r;
  }
  throw new Error('no resume preview on screen');
}

/** Moves the cursor with Go to Line (Ctrl+G, "line:column", 1-based) and waits until it is there. */
async function goTo(line1, col1) {
  // Go to Line can land in an editor that is still opening (its tab shown, its model not yet
  // focused) on a loaded machine: the keys are then lost. Ask again, up to three times.
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Control+G');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 5000 });
    await input.fill(`:${line1}:${col1}`);
    await input.press('Enter', { timeout: 5000 }); // into the box: never into an editor, should the box have gone
    try {
      await waitFor(`the cursor at ${line1}:${col1}`, async () => {
        const s = await statusSelection();
        return s && s.line === line1 && s.col === col1;
      }, 5000);
      return;
    } catch (e) {
      if (attempt === 3) throw e;
      await page.keyboard.press('Escape');
      await sleep(500);
    }
  }
}

/**
 * The extension's "[timing] <what> +<ms> ms @<epoch ms>" lines (src/timing.ts) in its output channel's
 * log, written at or after `since` (epoch ms); with `what`, the first such mark starting with it.
 */
function timingSince(since, what) {
  const marks = [];
  const walk = (d) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/ccdag Language Server\.log$/.test(e.name)) {
        for (const m of fs.readFileSync(p, 'utf8').matchAll(/\[timing\] (.*?) \+\d+ ms @(\d+)/g)) {
          const at = Number(m[2]);
          if (at >= since) marks.push({ what: m[1], at });
        }
      }
    }
  };
  walk(path.join(userData, 'logs'));
  marks.sort((a, b) => a.at - b.at);
  return what === undefined ? marks : marks.find((m) => m.what.startsWith(what));
}

/**
 * "client start +0, initialized +310, …": each mark after t0 (of `name` when it names a log), up
 * to its first diagnostics (with `all`, every one).
 */
function describeTiming(marks, t0, name, all) {
  const out = [];
  const end = all ? -1 : marks.findIndex((m) => m.what.startsWith(`diagnostics ${name}`));
  for (const [i, m] of marks.entries()) {
    if (end >= 0 && i > end) break;
    if (m.at < t0) continue;
    if (/^(didOpen|diagnostics|tab opened|willOpen sent|document opened) /.test(m.what) && !m.what.includes(name)) continue;
    out.push(`${m.what.replace(` ${name}`, '')} +${m.at - t0}`);
  }
  return out.join(', ');
}

/** "name (file:line) 812 ms, …": a CPU profile's functions by own time in its first untilMs, the n first. */
function topOwnTime(profile, n, untilMs) {
  const self = new Map();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const dts = profile.timeDeltas;
  let t = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += dts[i] / 1000;
    if (t > untilMs) break;
    const node = byId.get(profile.samples[i]);
    const f = node.callFrame;
    const key = `${f.functionName || '(anonymous)'} (${f.url.split('/').pop()}:${f.lineNumber + 1})`;
    self.set(key, (self.get(key) ?? 0) + (dts[i + 1] ?? 0) / 1000);
  }
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, ms]) => `${k} ${Math.round(ms)} ms`).join(', ');
}

/**
 * Runs in the page: records in window.__ccdagOpen when the log's tab appears, when its editor
 * draws text, when a squiggle first appears in it and when the status bar's Problems count
 * changes (epoch ms), from a MutationObserver (no polling delay).
 */
function recordOpen(name) {
  const m = (window.__ccdagOpen = {});
  const problems = () => document.querySelector('[id="status.problems"]')?.textContent ?? '';
  const before = problems();
  const check = () => {
    const now = Date.now();
    const tab = [...document.querySelectorAll('.tab')].find((t) => (t.getAttribute('aria-label') || '').includes(name));
    if (!m.tab && tab) m.tab = now;
    const editor = document.querySelector('.editor-group-container.active .editor-instance .monaco-editor');
    if (m.tab && tab?.classList.contains('active') && editor) {
      if (!m.text && editor.querySelector('.view-lines .view-line span')) m.text = now;
      if (!m.squiggle && editor.querySelector('[class*="squiggly-"]')) m.squiggle = now;
    }
    // A count (not the item drawn for the first time, or going back to zero).
    if (!m.problems && /[1-9]/.test(problems()) && problems() !== before) m.problems = now;
    if (m.tab && m.text && m.squiggle && m.problems) obs.disconnect();
  };
  const obs = new MutationObserver(check);
  obs.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['class'] });
}

/** The server's last textDocument/foldingRange answer for uri, from its trace file (--trace-file). */
function foldingRangesOf(uri) {
  if (!fs.existsSync(traceFile)) return undefined;
  const text = fs.readFileSync(traceFile, 'utf8');
  const ids = new Set();
  let last;
  for (const m of text.matchAll(/^\[[\d:.]+\] (recv|send) \d+ bytes\n(.*)$/gm)) {
    let msg;
    try { msg = JSON.parse(m[2]); } catch { continue; }
    if (m[1] === 'recv' && msg.method === 'textDocument/foldingRange' && msg.params?.textDocument?.uri === uri) ids.add(msg.id);
    else if (m[1] === 'send' && msg.method === undefined && ids.has(msg.id) && Array.isArray(msg.result)) last = msg.result;
  }
  return last;
}

// ---- main -------------------------------------------------------------------------------------

const watchdog = setTimeout(async () => {
  console.error(`FAIL: the test ran past ${DEADLINE_MS + 20000} ms`);
  await cleanup();
  process.exit(1);
}, DEADLINE_MS + 20000);

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, async () => {
    await cleanup();
    process.exit(1);
  });
}

try {
  await step('install the extension from the .vsix', async () => {
    const r = spawnSync(
      CODE_SERVER,
      ['--user-data-dir', userData, '--extensions-dir', extDir, '--install-extension', VSIX],
      { env, encoding: 'utf8', timeout: 60000 },
    );
    if (r.status !== 0) throw new Error(`code-server --install-extension exited ${r.status}: ${r.stderr || r.stdout}`);
    const installed = fs.readdirSync(extDir).filter((d) => d.startsWith('ccdag.ccdag-'));
    if (installed.length !== 1) throw new Error(`expected one ccdag extension in ${extDir}, found ${installed}`);
    const bundled = path.join(extDir, installed[0], 'bin', 'ccdag');
    return `${installed[0]}${fs.existsSync(bundled) ? ' (with its bundled server)' : ' (no bundled server)'}`;
  }, { required: true });

  const port = await freePort();
  await step('start code-server', async () => {
    const out = fs.openSync(csLog, 'a');
    codeServer = spawn(
      CODE_SERVER,
      [
        '--auth', 'none',
        '--bind-addr', `127.0.0.1:${port}`,
        '--disable-telemetry',
        '--disable-update-check',
        ...(UNTRUSTED ? [] : ['--disable-workspace-trust']),
        '--disable-getting-started-override',
        '--user-data-dir', userData,
        '--extensions-dir', extDir,
        ws,
      ],
      { env, detached: true, stdio: ['ignore', out, out] },
    );
    await waitFor('code-server /healthz', async () => {
      if (codeServer.exitCode !== null) throw new Error(`code-server exited ${codeServer.exitCode}; see ${csLog}`);
      const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
      return res && res.ok;
    }, 30000, 200);
    return `port ${port}, pid ${codeServer.pid}`;
  }, { required: true });

  await step('load the workbench in Chromium', async () => {
    context = await chromium.launchPersistentContext(path.join(tmp, 'chromium'), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1600, height: 1000 },
      args: [
        '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ],
    });
    page = context.pages()[0] || (await context.newPage());
    // The bytes code-server sends the page (the speed step: when a log's bytes are in).
    page.on('websocket', (ws) => ws.on('framereceived', (f) => {
      wsReceived += typeof f.payload === 'string' ? Buffer.byteLength(f.payload) : f.payload.length;
      onWsFrame?.();
    }));
    page.setDefaultTimeout(10000);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, {
      timeout: 30000,
      waitUntil: 'domcontentloaded',
    });
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 45000 });
    await page.locator('.part.statusbar').waitFor({ state: 'visible', timeout: 30000 });
  }, { required: true });

  await step('open the session log', async () => {
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    await input.fill(logPath);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: `${SESSION_ID}.jsonl` }).first()
      .waitFor({ state: 'visible', timeout: 10000 });
    // The first log opened also activates the extension and starts the server: the same page marks
    // as the speed step's, printed below (its first finding is below the first screen: the count).
    await page.evaluate(recordOpen, `${SESSION_ID}.jsonl`);
    const tOpen = Date.now();
    await page.keyboard.press('Enter');
    await page.locator(`.tab[aria-label*="${SESSION_ID}.jsonl"]`).first().waitFor({ state: 'visible', timeout: 10000 });
    await page.locator('.editor-instance .monaco-editor .view-lines').first().waitFor({ state: 'visible' });
    // The language is set once the extension host has read the built-in extensions.
    let mode = '';
    await waitFor('the JSON Lines language mode', async () => {
      mode = (await page.locator('[id="status.editor.mode"]').first().innerText({ timeout: 1000 })).trim();
      return /JSON Lines/i.test(mode);
    }, 20000, 200).catch((err) => {
      throw new Error(`${err.message}; the language mode is "${mode}"`);
    });
    const seen = await waitFor('the Problems count', async () => { const m = await page.evaluate(() => window.__ccdagOpen); return m.problems && m; }, 30000, 200)
      .catch(() => page.evaluate(() => window.__ccdagOpen));
    firstOpen = { at: tOpen, seen };
    const first = describeTiming([
      ...timingSince(tOpen),
      ...['tab', 'text', 'problems'].filter((k) => seen[k]).map((k) => ({ what: `page: ${k}`, at: seen[k] })),
    ].sort((a, b) => a.at - b.at), tOpen, `${SESSION_ID}.jsonl`, true);
    return `language mode ${mode}; first log (1.7 MB, activation and server start included): [${first}]`;
  }, { required: true });

  await step('Problems panel lists the true findings', async () => {
    await page.keyboard.press('Control+Shift+M');
    // A file's diagnostics arrive in one notification, so once the expected number is there, so is
    // any extra one.
    let found = [];
    await waitFor('the findings in the Problems panel', async () => {
      found = await readProblems();
      return found.length >= EXPECTED.length;
    }, 45000, 250);
    await shot('problems');
    compareProblems(found, EXPECTED);
    return `${found.length} findings: ${found.map(([c, l]) => `${c}@${l}`).join(', ')}`;
  });

  if (UNTRUSTED) {
    await step('untrusted workspace: ccdag.server.path in the workspace is not run, the bundled server is, and it says so', async () => {
      // The workbench adds its Restricted Mode item to the status bar some time after it starts.
      try {
        await waitFor('the Restricted Mode status bar item', async () =>
          (await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).count()) > 0, 20000, 250);
      } catch {
        await shot('untrusted-no-restricted-mode');
        throw new Error('the window is not in Restricted Mode');
      }
      let toast = page.locator('.notification-toast', { hasText: 'not trusted' }).first();
      try {
        await toast.waitFor({ state: 'visible', timeout: 10000 });
      } catch {
        await runCommand('Notifications: Show Notifications');
        toast = page.locator('.notifications-center .notification-list-item', { hasText: 'not trusted' }).first();
        await toast.waitFor({ state: 'visible', timeout: 5000 });
      }
      const message = (await toast.locator('.notification-list-item-message').first().innerText()).trim();
      await shot('untrusted-server-path');
      if (!message.includes('${workspaceFolder}/evil.sh') || !/shipped with the extension/.test(message)) {
        throw new Error(`the message does not name the setting and the fallback: ${message}`);
      }
      const running = [];
      for (const pid of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(pid)) continue;
        try {
          const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
          if (argv[1] === 'serve' && argv.includes(serverLog)) running.push(argv[0]);
          if (argv.some((a) => a.endsWith('evil.sh'))) running.push(argv.join(' '));
        } catch {
          // exited
        }
      }
      if (fs.existsSync(evilMark)) throw new Error('the workspace\'s evil.sh ran');
      if (running.length !== 1 || !running[0].startsWith(extDir + path.sep)) {
        throw new Error(`expected only the extension's own ccdag serve, found ${JSON.stringify(running)}`);
      }
      return `${JSON.stringify(message.slice(0, 90))}…; evil.sh not run; server ${running[0].slice(tmp.length + 1)}`;
    });
  } else {
  if (!process.env.CCDAG_SERVER_PATH) {
    await step('the server is the ccdag inside the extension', async () => {
      const running = [];
      for (const pid of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(pid)) continue;
        try {
          const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
          if (argv[1] === 'serve' && argv.includes(serverLog)) running.push(argv[0]);
        } catch {
          // exited
        }
      }
      if (running.length !== 1) throw new Error(`expected one ccdag serve of this test, found ${JSON.stringify(running)}`);
      if (!running[0].startsWith(extDir + path.sep) || !running[0].endsWith(path.join('bin', 'ccdag'))) {
        throw new Error(`the server runs from ${running[0]}, not from the extension's bin/ccdag`);
      }
      return running[0].slice(tmp.length + 1);
    });
  }

  await step('ccdag.severity changes the findings at once', async () => {
    // Turn unmatched-tool-use off, make the missing agent log a warning; then back.
    await changeSettings({ 'ccdag.severity': { 'unmatched-tool-use': 'off', 'missing-agent-file': 'warning' } });
    try {
      const want = EXPECTED.filter(([c]) => c !== 'unmatched-tool-use');
      let found = [];
      await waitFor('the Problems panel without unmatched-tool-use', async () => {
        found = await readProblems();
        return found.length === want.length && !found.some(([c]) => c === 'unmatched-tool-use');
      }, 15000, 200);
      compareProblems(found, want);
      const row = page.locator('.markers-panel .monaco-list-row', { hasText: 'missing-agent-file' }).first();
      await waitFor('missing-agent-file shown as a warning', () => row.locator('.codicon-warning').count(), 5000);
      let status = '';
      await waitFor('the status bar to count 2 problems', async () => {
        status = await page.locator('.part.statusbar .statusbar-item', { hasText: /\d+ records?/ }).first()
          .innerText({ timeout: 1000 });
        return /\b2 problems\b/.test(status);
      }, 5000).catch((err) => {
        throw new Error(`${err.message}; it reads ${JSON.stringify(status)}`);
      });
      await shot('severity');
    } finally {
      await changeSettings({ 'ccdag.severity': undefined });
    }
    await waitFor('the findings back', async () => (await readProblems()).length === EXPECTED.length, 15000, 200);
    return 'unmatched-tool-use off: 2 findings left; missing-agent-file a warning; back to 6';
  });

  await step('status bar summarises the session', async () => {
    const item = page.locator('.part.statusbar .statusbar-item', { hasText: /\d+ records?/ }).first();
    let text = '';
    await waitFor('the ccdag status bar item', async () => {
      text = (await item.innerText({ timeout: 1000 })).replace(/\s+/g, ' ').trim();
      return /\b6 problems\b/.test(text);
    }, 15000, 200);
    const m = /(\d+) records?/.exec(text);
    if (!m || Number(m[1]) < 400) throw new Error(`status bar: "${text}"`);
    return text;
  });

  await step('Quick Fix (Ctrl+.) on the warning at 432 inserts an error result; the warning goes, nothing is saved', async () => {
    const disk = fs.readFileSync(logPath);
    await editorFocus();
    const id = 'toolu_01SMWQr3DEskqeeyQAbKqXeF';
    await goTo(432, lines[431].indexOf(id) + 1);
    await page.keyboard.press('Control+.');
    const item = page.locator('.action-widget .monaco-list-row', { hasText: 'Insert an error result' }).first();
    await item.waitFor({ state: 'visible', timeout: 10000 });
    await shot('quickfix-menu');
    await page.keyboard.press('Enter'); // the menu's first (focused) entry: a click can land while it still moves
    try {
      let found = [];
      await waitFor('the warning at 432 gone and the compaction one line down', async () => {
        found = await readProblems();
        return !found.some(([c, l]) => c === 'unmatched-tool-use' && l === 432) &&
          found.some(([c, l]) => c === 'unresolved-logical-parent' && l === 434);
      }, 15000, 200).catch((err) => {
        throw new Error(`${err.message}; Problems: ${JSON.stringify(found)}`);
      });
      await shot('quickfix-applied');
      if (!fs.readFileSync(logPath).equals(disk)) throw new Error('the log on disk changed');
    } finally {
      await editorFocus();
      await runCommand('File: Revert File');
    }
    await waitFor('the findings back', async () => (await readProblems()).length === EXPECTED.length, 15000, 200);
    return 'inserted after 432; Problems updated; reverted';
  });

  await step('hover on a record', async () => {
    await editorFocus();
    // On the "type" key of the tool_result's record: a record hover, not an id hover.
    const typeCol = lines[TR.line].indexOf('"type"') + 2;
    await goTo(TR.line + 1, typeCol);
    const hover = page.locator('.monaco-editor .monaco-hover-content:visible').first();
    let text = '';
    for (let attempt = 0; attempt < 3 && !text; attempt++) {
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+I');
      try {
        await waitFor('a hover', async () => {
          text = (await hover.innerText({ timeout: 1000 })).trim();
          return text.length > 0;
        }, 8000, 200);
      } catch {
        text = '';
      }
    }
    if (!text) throw new Error('no hover appeared');
    await shot('hover');
    if (text.length < 20 || /^Loading/i.test(text)) throw new Error(`hover too thin: ${JSON.stringify(text)}`);
    await page.keyboard.press('Escape');
    return JSON.stringify(text.slice(0, 160));
  });

  await step('F12 on a tool_use_id goes to its call', async () => {
    await editorFocus();
    await goTo(TR.line + 1, TR.col + 1);
    await page.keyboard.press('F12');
    await waitFor(`the cursor on line ${TR.call + 1} (the tool_use ${TR.id})`, async () => {
      const s = await statusSelection();
      return s && s.line === TR.call + 1;
    }, 10000, 100);
    await shot('definition');
    return `line ${TR.line + 1} -> ${TR.call + 1}`;
  });

  await step('Go to Parent Record', async () => {
    await editorFocus();
    await goTo(CHILD.line + 1, 1);
    await runCommand('ccdag: Go to Parent Record');
    await waitFor(`the cursor on line ${CHILD.parent + 1}`, async () => {
      const s = await statusSelection();
      return s && s.line === CHILD.parent + 1;
    }, 10000, 100);
    return `line ${CHILD.line + 1} -> ${CHILD.parent + 1}`;
  });

  await step('Ctrl+T finds a prompt among the workspace\'s sessions (workspace symbols)', async () => {
    // The first slash command the person typed, found in the log independently of the server.
    const want = records.findIndex((r) => r?.type === 'user' && typeof r.message?.content === 'string' &&
      r.message.content.includes('<command-name>/erk:plan-implement</command-name>'));
    if (want < 0) throw new Error('the log has no /erk:plan-implement prompt');
    await editorFocus();
    await goTo(lines.length, 1);
    await page.keyboard.press('Control+T');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 5000 });
    await input.fill('#erk:plan-implement');
    const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: '/erk:plan-implement' }).first();
    await row.waitFor({ state: 'visible', timeout: 15000 });
    await shot('workspace-symbols');
    const rowText = (await row.innerText()).replace(/\s+/g, ' ');
    await row.click();
    await waitFor(`the cursor on line ${want + 1}`, async () => {
      const s = await statusSelection();
      return s && s.line === want + 1;
    }, 10000, 100);
    return `${JSON.stringify(rowText)} -> line ${want + 1}`;
  });

  await step("a sub-agent's first record: hover names the spawning call, Go to Parent and F12 go there", async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    await input.fill(agentPath);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: AGENT_FILE }).first()
      .waitFor({ state: 'visible', timeout: 10000 });
    await input.press('Enter', { timeout: 5000 }); // into the box: never into an editor, should the box have gone
    const agentTab = page.locator(`.tab[aria-label*="${AGENT_FILE}"]`).first();
    await agentTab.waitFor({ state: 'visible', timeout: 10000 });
    const activeTab = () => page.locator('.tab.active').first().getAttribute('aria-label');
    const hover = page.locator('.monaco-editor .monaco-hover-content:visible').first();
    let text = '';
    await goTo(1, 3);
    await waitFor('a hover naming the spawning call', async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+I');
      await sleep(500);
      text = (await hover.innerText({ timeout: 1000 }).catch(() => '')).trim();
      return /Spawned by/.test(text) && text.includes('toolu_p1');
    }, 20000, 300);
    await shot('subagent-hover');
    await page.keyboard.press('Escape');
    await runCommand('ccdag: Go to Parent Record');
    await waitFor('the main log at the call (line 2)', async () => {
      const s = await statusSelection();
      return (await activeTab())?.includes(`${AGENT_SESSION}.jsonl`) && s && s.line === 2;
    }, 10000, 100);
    // F12 on agentId inside the agent's log: the call again
    await agentTab.click();
    const agentLine = fs.readFileSync(agentPath, 'utf8').split('\n')[1];
    await goTo(2, agentLine.indexOf('"agentId":"') + '"agentId":"'.length + 3);
    await page.keyboard.press('F12');
    await waitFor('F12 on agentId: the call (line 2 of the main log)', async () => {
      const s = await statusSelection();
      return (await activeTab())?.includes(`${AGENT_SESSION}.jsonl`) && s && s.line === 2;
    }, 10000, 100);
    const spawned = JSON.stringify(text.split('\n').find((l) => /Spawned by/.test(l)));
    // Leave the window as the next steps expect it: only the corpus log (and settings) open.
    await runCommand('View: Close Editor'); // the fixture's main log
    await agentTab.click();
    await runCommand('View: Close Editor');
    await waitFor('the fixture tabs closed', async () =>
      (await page.locator(`.tab[aria-label*="${AGENT_SESSION}"], .tab[aria-label*="${AGENT_FILE}"]`).count()) === 0, 5000, 100);
    await editorFocus();
    return spawned;
  });

  await step('inlay hints and code lens on the log', async () => {
    await editorFocus();
    await goTo(1, 1);
    const lens = page.locator('.monaco-editor .codelens-decoration', { hasText: 'Open Transcript' }).first();
    await lens.waitFor({ state: 'visible', timeout: 15000 });
    const lenses = (await page.locator('.monaco-editor .codelens-decoration').allInnerTexts()).join(' | ');
    if (!/session: \d+ turns? · .* out · .* in\+cache/.test(lenses)) throw new Error(`code lenses: ${lenses}`);
    // Inlay hints are text the editor injects at the start of the record lines.
    let text = '';
    await waitFor('inlay hints at the start of the lines', async () => {
      text = await page.locator('.editor-instance .monaco-editor .view-lines').first().innerText({ timeout: 1000 });
      return /(^|\n)\s*(user|▸ |✓|thinking|text|system)/.test(text);
    }, 15000, 200);
    await shot('lens-inlay');
    // A click on "Open Transcript" opens the rendered preview (src/lenses.ts), not the escaped
    // Markdown source the command palette's "Open Transcript" shows.
    // The decoration holds every lens of the line; its link is the one to click.
    await page.locator('.monaco-editor .codelens-decoration a', { hasText: 'Open Transcript' }).first().click();
    const previewTab = page.locator('.tab', { hasText: /Preview .*transcript/ }).first();
    await previewTab.waitFor({ state: 'visible', timeout: 15000 });
    if (await page.locator('.tab', { hasText: /transcript\.md/ }).filter({ hasNotText: 'Preview' }).count()) throw new Error('the lens opened the Markdown source');
    const lensOuter = await page.locator('iframe.webview').last().elementHandle({ timeout: 15000 });
    const lensInner = await (await lensOuter.contentFrame()).waitForSelector('iframe#active-frame', { timeout: 15000 });
    await waitFor('the preview rendered', async () => {
      const f = await lensInner.contentFrame();
      return f && (await f.$('body.ccdag-transcript-preview h2'));
    }, 20000);
    await shot('lens-transcript-preview');
    await previewTab.click();
    await runCommand('View: Close Editor');
    await waitFor('the preview closed', async () => (await page.locator('.tab', { hasText: /Preview .*transcript/ }).count()) === 0, 5000, 100);
    await editorFocus();
    return lenses.slice(0, 200);
  });

  await step('Open Transcript shows the session beside the log and follows it', async () => {
    await editorFocus();
    await runCommand('ccdag: Open Transcript');
    const tab = page.locator('.tab', { hasText: '.transcript.md' }).first();
    await tab.waitFor({ state: 'visible', timeout: 15000 });
    const view = page.locator('.editor-instance .monaco-editor .view-lines');
    let text = '';
    await waitFor('the transcript text', async () => {
      for (const t of await view.allInnerTexts()) if (/##\sTurn\s1/.test(t)) { text = t; return true; }
      return false;
    }, 15000, 200);
    await shot('transcript');
    // The log grows by a prompt: the transcript follows.
    const last = [...records].reverse().find((r) => r && typeof r.uuid === 'string');
    const prompt = {
      parentUuid: last.uuid, isSidechain: false, type: 'user',
      message: { role: 'user', content: 'Transcript follows this prompt' },
      uuid: '00000000-e2e0-4000-8000-000000000002', timestamp: '2026-02-25T03:00:00.000Z', sessionId: SESSION_ID,
    };
    await editorFocus();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText(JSON.stringify(prompt) + '\n');
    try {
      await page.keyboard.press('Control+2'); // the transcript's editor group
      await waitFor('the new turn in the transcript', async () => {
        await page.keyboard.press('Control+End');
        for (const t of await view.allInnerTexts()) if (/Transcript\sfollows\sthis\sprompt/.test(t)) return true;
        return false;
      }, 15000, 300);
      await shot('transcript-followed');
    } finally {
      await editorFocus();
      await runCommand('File: Revert File');
    }
    await runCommand('ccdag: Open Transcript Preview');
    await page.locator('.tab', { hasText: /Preview .*transcript/ }).first().waitFor({ state: 'visible', timeout: 15000 });
    // The preview's links to log lines are links (command: URIs of ccdag.revealLogLine, which the
    // webview may run), not text; clicking one puts the cursor on that line of the log.
    const pvOuter = await page.locator('iframe.webview').last().elementHandle({ timeout: 15000 });
    const pvInner = await (await pvOuter.contentFrame()).waitForSelector('iframe#active-frame', { timeout: 15000 });
    const pv = await waitFor('the preview document', async () => {
      const f = await pvInner.contentFrame();
      return f && (await f.$('body.ccdag-transcript-preview h2')) ? f : undefined;
    }, 20000);
    const links = await pv.$$eval('a', (as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
    const turnLink = links.find(([t, h]) => /^L\d+$/.test(t) && h.startsWith('command:ccdag.revealLogLine?'));
    if (!turnLink) throw new Error(`no log-line link in the preview: ${JSON.stringify(links.slice(0, 5))}`);
    if (/>file:/.test(await pv.evaluate(() => document.body.innerText))) throw new Error('a file: link shows as text');
    await shot('transcript-preview');
    const want = Number(turnLink[0].slice(1));
    await pv.locator('a', { hasText: new RegExp(`^${turnLink[0]}$`) }).first().click();
    await waitFor(`the cursor on line ${want} after the preview's link`, async () => {
      const s = await statusSelection();
      return s && s.line === want;
    }, 10000, 100);
    await shot('transcript-preview-link');
    await page.locator('.tab', { hasText: /Preview .*transcript/ }).first().click();
    // Close the preview and the transcript (the graph panel beside stays for the next steps).
    await runCommand('View: Close Editor');
    await page.waitForTimeout(500);
    if (await page.locator('.tab.active', { hasText: '.transcript.md' }).count()) await runCommand('View: Close Editor');
    return JSON.stringify(text.slice(0, 120));
  });

  await step('Preview Resume shows what `ccdag resume` prints (loader, dropped calls); a line jumps to its record; ccdag.claudeVersion reaches the server', async () => {
    // The reference: the CLI on the same file (the log is as on disk: revert whatever an earlier step left).
    await editorFocus();
    await runCommand('File: Revert File');
    const cli = (...args) => {
      const r = spawnSync(CCDAG_BIN, ['resume', ...args, logPath], { encoding: 'utf8', timeout: 60000 });
      if (r.error) throw new Error(`${CCDAG_BIN}: ${r.error.message}`);
      return r.stdout;
    };
    const want = cli();
    const json = JSON.parse(cli('--format', 'json'));
    if (json.dropped.length === 0) throw new Error('the CLI drops nothing on this log: the test needs a dropped record');
    await runCommand('ccdag: Preview Resume');
    await page.locator('.tab', { hasText: '.resume' }).first().waitFor({ state: 'visible', timeout: 15000 });
    let text = await readPreview((t) => t === want.replace(/\n+$/, ''));
    // The figures of --format json, read in what is shown.
    if (!text.split('\n')[0].includes(`as Claude Code ${json.resume.loader.version} will load it`)) throw new Error(`no loader version in ${JSON.stringify(text.split('\n')[0])}`);
    if (!new RegExp(`^${json.chain.length} records sent of ${json.resume.records} on the chain`, 'm').test(text)) throw new Error('no "N records sent of M"');
    // The first line (the version assumed and where it comes from) is longer than the half-width
    // editor: it wraps, nothing is cut at the right edge.
    const rows = await previewRows();
    if (rows.past.length > 0 || rows.firstRows < 2) throw new Error(`the preview is cut at its right edge or does not wrap: ${JSON.stringify(rows)}`);
    for (const d of json.dropped) {
      if (!new RegExp(`^ +${d.line}  ${d.what.replace(/[()"]/g, '\\$&')} +${d.id}$`, 'm').test(text)) throw new Error(`dropped ${JSON.stringify(d)} not shown`);
    }
    await shot('resume-preview');
    // Enter on the last dropped record's line, and Ctrl+click on the first chain record's: the log, at that line.
    const drop = json.dropped[json.dropped.length - 1];
    const dropAt = text.split('\n').findIndex((l) => l.includes(drop.id) && l.trimStart().startsWith(`${drop.line} `));
    await page.locator('.tab', { hasText: '.resume' }).first().click();
    await goTo(dropAt + 1, 1);
    await page.keyboard.press('Enter');
    await waitFor(`the log's line ${drop.line} after Enter`, async () => {
      const s = await statusSelection();
      return s && s.line === drop.line && (await page.locator('.tab.active', { hasText: `${SESSION_ID}.jsonl` }).count()) > 0;
    }, 10000);
    const first = json.chain[0];
    await page.locator('.tab', { hasText: '.resume' }).first().click();
    const row = page.locator('.editor-instance .monaco-editor .view-line', { hasText: new RegExp(`^\\s+${first.line}\\s`) }).first();
    await row.hover();
    await page.keyboard.down('Control');
    await row.locator('span').last().hover();
    await row.locator('span').last().click({ modifiers: ['Control'] });
    await page.keyboard.up('Control');
    await waitFor(`the log's line ${first.line} after Ctrl+click`, async () => {
      const s = await statusSelection();
      return s && s.line === first.line;
    }, 10000);
    // The setting: the loader it names, as the CLI's --claude-version.
    await changeSettings({ 'ccdag.claudeVersion': '2.1.328' });
    const want328 = cli('--claude-version', '2.1.328');
    await previewTop();
    const text328 = await readPreview((t) => t === want328.replace(/\n+$/, ''), 20000);
    if (!/as Claude Code 2\.1\.328 will load it \(set by ccdag\.claudeVersion/.test(text328)) throw new Error(`setting not shown: ${text328.split('\n')[0]}`);
    // 2.1.328 answers the calls without result (the history ends on them) rather than dropping them.
    for (const d of JSON.parse(cli('--format', 'json', '--claude-version', '2.1.328')).answered) {
      if (!new RegExp(`^ +${d.line}  ${d.id}$`, 'm').test(text328)) throw new Error(`answered ${JSON.stringify(d)} not shown`);
    }
    await shot('resume-preview-setting');
    await changeSettings({ 'ccdag.claudeVersion': undefined });
    await previewTop();
    await readPreview((t) => t === want.replace(/\n+$/, ''), 20000);
    await page.locator('.tab', { hasText: '.resume' }).first().click();
    await runCommand('View: Close Editor');
    await editorFocus();
    return `${json.chain.length} sent, ${json.dropped.length} dropped, loader ${json.resume.loader.version} (${json.resume.loader.from}); its first line wraps over ${rows.firstRows} rows`;
  });

  let gv; // the webview's inner frame
  await step('Show Workflow Graph draws the nodes', async () => {
    await editorFocus();
    await runCommand('View: Hide Panel'); // room for the graph
    await editorFocus();
    await runCommand('ccdag: Show Workflow Graph');
    const outer = await page.locator('iframe.webview').first().elementHandle({ timeout: 15000 });
    const outerFrame = await outer.contentFrame();
    const inner = await outerFrame.waitForSelector('iframe#active-frame', { timeout: 15000 });
    gv = await waitFor('the webview document', async () => {
      const f = await inner.contentFrame();
      return f && (await f.$('#graph')) ? f : undefined;
    }, 15000);
    await waitFor('the graph drawn', async () => {
      const err = await gv.$eval('#status', (e) => (e.classList.contains('error') ? e.textContent : ''));
      if (err) throw new Error(err);
      return gv.evaluate(() => document.body.dataset.rendered === 'true' && !!window.ccdagGraphView);
    }, 30000, 200);
    const stats = await gv.evaluate(() => window.ccdagGraphView.stats);
    const drawn = await gv.evaluate(() => window.ccdagGraphView.cy.nodes('.gv-node').length);
    const statsText = await gv.$eval('.gv-stats', (e) => e.textContent);
    await nextFrames(gv);
    await shot('graph-dark');
    if (!(stats.nodes > 50 && drawn === stats.nodes)) throw new Error(`stats ${JSON.stringify(stats)}, drawn ${drawn}`);
    const dark = await gv.$eval('.ccdag-gv', (e) => e.classList.contains('gv-dark'));
    if (!dark) throw new Error('the graph is not dark under a dark VS Code theme');
    return `${statsText}; ${stats.edges} edges`;
  });

  await step('clicking a node and "Reveal in editor" opens its record', async () => {
    if (!gv) throw new Error('no graph');
    // A node on screen, under no overlay, whose record is not on the cursor's line.
    const target = await gv.evaluate((avoidLine) => {
      const v = window.ccdagGraphView;
      const byId = new Map((window.ccdagGraph.nodes || []).map((n) => [n.id, n]));
      const box = document.querySelector('.gv-cy').getBoundingClientRect();
      for (const n of v.cy.nodes('.gv-node')) {
        const p = n.renderedPosition();
        const x = box.left + p.x;
        const y = box.top + p.y;
        if (x < box.left + 20 || y < box.top + 20 || x > box.right - 20 || y > box.bottom - 20) continue;
        const hit = document.elementFromPoint(x, y);
        if (!hit || !hit.closest('.gv-cy')) continue;
        const node = byId.get(String(n.data('ref')));
        const line = node?.location?.range?.start?.line;
        if (typeof line !== 'number' || line === avoidLine) continue;
        return { id: node.id, kind: node.kind, line, x: p.x, y: p.y };
      }
      return undefined;
    }, CHILD.parent);
    if (!target) throw new Error('no node on screen to click');
    await gv.locator('.gv-cy').click({ position: { x: target.x, y: target.y } });
    // A panel narrower than 600 px opens with the details folded: Details unfolds them.
    if (await gv.$eval('.gv-details', (e) => e.hidden)) await gv.locator('.gv-details-toggle').click();
    const reveal = gv.locator('.gv-details .gv-reveal');
    await reveal.waitFor({ state: 'visible', timeout: 5000 });
    await shot('graph-selected');
    await reveal.click();
    await waitFor(`the cursor on line ${target.line + 1}, the ${target.kind} node's record`, async () => {
      const s = await statusSelection();
      return s && s.line === target.line + 1;
    }, 10000, 100);
    await shot('reveal');
    return `${target.kind} node ${target.id} -> Ln ${target.line + 1}`;
  });

  await step('the cursor in the log selects its node; search finds nodes; problem markers', async () => {
    if (!gv) throw new Error('no graph');
    await gv.evaluate(() => (window.ccdagSelected = null)); // the last step's reveal moved the cursor too
    await editorFocus();
    await goTo(TR.line + 1, 1);
    let sel;
    await waitFor(`the node of line ${TR.line + 1} selected`, async () => {
      sel = await gv.evaluate(() => window.ccdagSelected);
      return !!sel && (await gv.evaluate((id) => window.ccdagGraph.nodes.find((n) => n.id === id)?.location?.range?.start?.line, sel)) === TR.line;
    }, 10000, 200);
    const line = await gv.evaluate((id) => window.ccdagGraph.nodes.find((n) => n.id === id)?.location?.range?.start?.line, sel);
    if (line !== TR.line) throw new Error(`selected ${sel} on line ${line}, want line ${TR.line}`);
    const problems = await gv.evaluate(() => ({
      listed: (window.ccdagGraph.problems || []).length,
      marked: window.ccdagGraphView.cy.nodes('.gv-problem').length,
    }));
    if (problems.listed < 1 || problems.marked !== problems.listed) throw new Error(`problems ${JSON.stringify(problems)}`);
    const found = await gv.evaluate(() => window.ccdagGraphView.find('Bash'));
    if (!(found > 0)) throw new Error('search found nothing for "Bash"');
    await nextFrames(gv);
    await shot('graph-search');
    await gv.evaluate(() => window.ccdagGraphView.find(''));
    return `line ${TR.line + 1} -> ${sel}; ${problems.marked} problem markers; "Bash": ${found} nodes`;
  });

  await step('the graph refreshes as the log is edited', async () => {
    if (!gv) throw new Error('no graph');
    const nodes = () => gv.evaluate(() => window.ccdagGraphView.stats.nodes);
    const before = await nodes();
    // Type a new prompt at the end of the log, as the next turn of the session would be written.
    const last = [...records].reverse().find((r) => r && typeof r.uuid === 'string');
    const prompt = {
      parentUuid: last.uuid,
      isSidechain: false,
      type: 'user',
      message: { role: 'user', content: 'A prompt typed by the end-to-end test' },
      uuid: '00000000-e2e0-4000-8000-000000000001',
      timestamp: '2026-02-25T03:00:00.000Z',
      sessionId: SESSION_ID,
    };
    await editorFocus();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText(JSON.stringify(prompt) + '\n');
    try {
      await waitFor('one more node in the graph', async () => (await nodes()) === before + 1, 15000, 200);
      const label = await gv.evaluate(() => window.ccdagGraph.nodes.some((n) => /typed by the end-to-end test/.test(n.label || '')));
      if (!label) throw new Error('the new node does not carry the prompt');
      await nextFrames(gv);
      await shot('graph-edited');
    } finally {
      // Back to the file as it is on disk (undo is not one step for typed text).
      await editorFocus();
      await runCommand('File: Revert File');
    }
    await waitFor('the graph and the status bar back as they were', async () => {
      const status = await page.locator('.part.statusbar .statusbar-item', { hasText: /\d+ records?/ }).first()
        .innerText({ timeout: 1000 });
      return (await nodes()) === before && status.includes(`${records.length} records`);
    }, 15000, 200);
    return `${before} -> ${before + 1} -> ${before} nodes`;
  });

  await step('a live session on disk: half a line is no record yet; a subagents/ folder made later is found', async () => {
    // The log grows on disk while it is open (VS Code reloads it: the document is not dirty). The
    // folder <session>/subagents/ is created after code-server started watching, so no file event
    // names it: the server finds it itself.
    const status = () => page.locator('.part.statusbar .statusbar-item', { hasText: /\d+ records?/ }).first()
      .innerText({ timeout: 1000 }).then((t) => t.replace(/\s+/g, ' ').trim());
    let text = '';
    const last = [...records].reverse().find((r) => r && typeof r.uuid === 'string');
    const line = JSON.stringify({
      parentUuid: last.uuid, isSidechain: false, type: 'user',
      message: { role: 'user', content: 'A prompt written to disk by the end-to-end test' },
      uuid: '00000000-e2e0-4000-8000-000000000002', timestamp: '2026-02-25T03:01:00.000Z', sessionId: SESSION_ID,
    });
    const half = Math.floor(line.length / 2);
    const agentDir = path.join(projectDir, SESSION_ID, 'subagents');
    try {
      fs.appendFileSync(logPath, line.slice(0, half));
      await waitFor('the half line reported (7 problems) and not counted', async () => {
        text = await status();
        return text.includes(`${records.length} records`) && /\b7 problems\b/.test(text);
      }, 20000, 200).catch((err) => { throw new Error(`${err.message}; status bar "${text}"`); });
      await shot('live-half-line');
      const halfText = text;
      // The first sub-agent creates the folder and its log; then the main log's line is completed.
      fs.mkdirSync(agentDir, { recursive: true });
      const agentLine = JSON.stringify({
        parentUuid: null, isSidechain: true, agentId: 'e2e0live', type: 'user',
        message: { role: 'user', content: 'Work for the sub-agent' },
        uuid: '00000000-e2e0-4000-8000-0000000000a1', timestamp: '2026-02-25T03:01:01.000Z', sessionId: SESSION_ID,
      });
      fs.writeFileSync(path.join(agentDir, 'agent-e2e0live.jsonl'), agentLine + '\n');
      fs.appendFileSync(logPath, line.slice(half) + '\n');
      await waitFor('the completed line counted and the new sub-agent log in the session', async () => {
        text = await status();
        return text.includes(`${records.length + 2} records · 2 files`);
      }, 20000, 200).catch((err) => { throw new Error(`${err.message}; status bar "${text}"`); });
      await shot('live-subagent-found');
      return `"${halfText}" -> "${text}"`;
    } finally {
      fs.rmSync(path.join(projectDir, SESSION_ID), { recursive: true, force: true });
      fs.writeFileSync(logPath, logText);
    }
  });

  await step('the graph follows a light theme', async () => {
    if (!gv) throw new Error('no graph');
    await editorFocus();
    await page.keyboard.press('Control+K'); // Preferences: Color Theme
    await page.keyboard.press('Control+T');
    const input = page.locator('.quick-input-widget input');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Dark Modern' }).first().waitFor();
    await input.fill('Light Modern');
    await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: /^\s*Light Modern/ }).first().waitFor();
    await input.press('Enter', { timeout: 5000 }); // into the box: never into an editor, should the box have gone
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 5000 });
    await waitFor('the workbench in light colours', () =>
      page.evaluate(() => document.querySelector('.monaco-workbench')?.classList.contains('vs')), 10000);
    await waitFor('the graph in light colours', () => gv.$eval('.ccdag-gv', (e) => e.classList.contains('gv-light')), 10000);
    await nextFrames(gv);
    await shot('graph-light');
  });
  await step('Claude Sessions view: projects, rows with figures, a near deletion, sessionsChanged, filter, click opens the log', async () => {
    // A real multi-project tree: corpus projects copied beside project x (the erk log and the
    // rejected-sub-agent session), one of them made 26 days old (Claude Code deletes it in 4).
    const projects = path.join(ws, '.claude', 'projects');
    for (const [src, name] of MORE_PROJECTS.slice(0, 2)) copyProject(src, path.join(projects, name));
    const [agedProject] = MORE_PROJECTS[1];
    const aged = fs.readdirSync(agedProject).filter((f) => f.endsWith('.jsonl')).sort()[0];
    const agedPath = path.join(projects, MORE_PROJECTS[1][1], aged);
    const then = new Date(Date.now() - 26 * 86_400_000);
    fs.utimesSync(agedPath, then, then);
    // A group per project folder, called by the folder its sessions ran in (the server's rows,
    // `ccdag sessions --format json`: its newest session's cwd, else the folder's name), counting them.
    const expectRows = () => {
      const r = spawnSync(CCDAG_BIN, ['sessions', '--format', 'json', projects], { encoding: 'utf8', timeout: 120000, maxBuffer: 64 << 20 });
      if (r.error) throw r.error;
      const groups = new Map();
      for (const row of JSON.parse(r.stdout).sessions) {
        const key = row.projectFolder || row.project;
        const g = groups.get(key) ?? { label: '', n: 0 };
        g.n++;
        if (!g.label && row.project && row.project !== row.projectFolder) g.label = row.project;
        groups.set(key, g);
      }
      const label = ([k, g]) => g.label || k;
      const times = new Map();
      for (const e of groups) times.set(label(e), (times.get(label(e)) ?? 0) + 1);
      // two folders called alike each say their folder
      return Object.fromEntries([...groups].map((e) => [times.get(label(e)) > 1 && e[1].label ? `${label(e)} · ${e[0]}` : label(e), e[1].n]));
    };

    // Its icon in the activity bar (on a loaded machine a click can be lost: then the command).
    await page.locator('.activitybar .action-item a[aria-label^="Claude Sessions"]').first().click({ timeout: 15000 })
      .catch(() => runCommand('View: Show Claude Sessions'));
    await page.locator('.part.sidebar .composite.title', { hasText: /Claude Sessions/i }).first().waitFor({ state: 'visible', timeout: 10000 });
    const view = page.locator('.part.sidebar');
    // Wider, as a person reading the rows would make it: drag the side bar's edge.
    const box = await view.boundingBox();
    if (box && box.width < 500) {
      await page.mouse.move(box.x + box.width + 1, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + 620, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
    }
    // Each row as "label | description".
    const rowsText = () => view.locator('.monaco-list-row').evaluateAll((rows) => rows.map((r) =>
      `${r.querySelector('.label-name')?.textContent ?? ''} | ${r.querySelector('.label-description')?.textContent ?? ''}`.replace(/\s+/g, ' ').trim()));
    const projectRows = async () => {
      const out = {};
      for (const t of await rowsText()) {
        const m = /^(.*) \| (\d+) sessions?$/.exec(t);
        if (m) out[m[1]] = Number(m[2]);
      }
      return out;
    };
    const same = (a, b) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
    let got = {};
    await waitFor('a project row per project folder, counting its sessions', async () => same(got = await projectRows(), expectRows()), 30000, 300)
      .catch(async (e) => { throw new Error(`${e.message}; rows ${JSON.stringify(got)} of ${JSON.stringify(await rowsText())}, want ${JSON.stringify(expectRows())}`); });
    const all = await rowsText();
    // Projects read as the folders the sessions ran in, never Claude Code's encoding of them.
    if (!all.some((t) => t === '~/Desktop/project/webtech-monorepo | 4 sessions') || all.some((t) => /^-Users-/.test(t))) {
      throw new Error(`want the webtech project called ~/Desktop/project/webtech-monorepo (its 4 sessions, the empty ones too), no -Users-… group: ${JSON.stringify(all)}`);
    }
    // The erk session: titled by its first prompt, the bare /erk:plan-implement told apart by its
    // git branch; its figures (the cost a lower bound: placeholder output counts), and its findings
    // (hints left out) as many as the Problems panel's.
    const erk = all.find((t) => t.startsWith('/erk:plan-implement · plnd/eliminate-objective'));
    if (!erk || !/ \| 2026-02-25 · (≥ )?[\d.]+[kM]? out · [\d.]+[kM]? in · ≥ \$[\d.]+ · (\d+) findings/.test(erk) || !erk.includes(` · ${EXPECTED.length} findings`)) {
      throw new Error(`the erk session's row is not "/erk:plan-implement · plnd/… | 2026-02-25 · … out · … in · ≥ $… · ${EXPECTED.length} findings": ${JSON.stringify(all)}`);
    }
    // The deletion leads the row, where a narrow side bar does not cut it off.
    const dying = all.filter((t) => /^deletes in 4 days · /.test(t));
    if (dying.length !== 1) throw new Error(`want one row starting "deletes in 4 days · " (${aged}): ${JSON.stringify(all)}`);
    // Sessions without a message are dimmed and say so.
    const dim = await view.locator('.monaco-list-row').evaluateAll((rows) => rows.map((r) => ({
      text: r.querySelector('.label-description')?.textContent ?? '',
      color: window.getComputedStyle(r.querySelector('.label-name') ?? r).color,
    })));
    const empties = dim.filter((d) => /no messages/.test(d.text));
    const full = dim.find((d) => / out · /.test(d.text));
    if (!empties.length || !full || empties.some((d) => d.color === full.color)) throw new Error(`empty sessions not dimmed: ${JSON.stringify(dim)}`);
    await shot('sessions-view');
    // The tooltip: times in the local time zone, the offset said.
    // (a hover can be lost on a loaded machine: the pointer goes away and comes back)
    let tip;
    for (let attempt = 0; attempt < 4 && !tip; attempt++) {
      await page.mouse.move(5, 5);
      await view.locator('.monaco-list-row', { hasText: 'plnd/eliminate-objective' }).first().hover();
      tip = await waitFor('the erk row\'s tooltip', async () => {
        const t = await page.locator('.monaco-hover:visible, .workbench-hover:visible').first().innerText({ timeout: 500 }).catch(() => '');
        return /From:/.test(t) ? t.replace(/\s+/g, ' ') : undefined; // \s: the hover's spaces may be no-break ones
      }, 5000, 200).catch(() => undefined);
    }
    if (!tip) throw new Error('no tooltip on the erk row after 4 tries');
    if (!/From: 2026-02-2[45] \d\d:\d\d:\d\d \(UTC[+-]\d\d:\d\d\) to 2026-02-2[45] \d\d:\d\d:\d\d \(UTC[+-]\d\d:\d\d\)/.test(tip)) throw new Error(`tooltip times: ${tip}`);
    // Plurals as written ("1 warning"), and Markdown rendered, not shown: no backtick around `ccdag archive DEST`.
    if (!/Findings: 6 \(0 errors, 1 warning, 5 information\)/.test(tip)) throw new Error(`tooltip findings: ${tip}`);
    if (!/keeps a copy/.test(tip) || tip.includes('`')) throw new Error(`tooltip deletion line (a backtick shown, or no line): ${tip}`);
    await page.mouse.move(5, 5);

    // A project appears without a refresh: the server's ccdag/sessionsChanged.
    const [, lateName] = MORE_PROJECTS[2];
    copyProject(MORE_PROJECTS[2][0], path.join(projects, lateName));
    await waitFor('the new project listed (ccdag/sessionsChanged)', async () => same(got = await projectRows(), expectRows()), 30000, 300)
      .catch((e) => { throw new Error(`${e.message}; rows ${JSON.stringify(got)}, want ${JSON.stringify(expectRows())}`); });

    // The filter: only the sessions matching; cleared, all again.
    await page.locator('.part.sidebar .action-label[aria-label^="Filter Sessions"]').first().click();
    const filterBox = page.locator('.quick-input-widget input');
    await filterBox.waitFor({ state: 'visible', timeout: 5000 });
    await filterBox.fill(SESSION_ID.slice(0, 8));
    await filterBox.press('Enter', { timeout: 5000 }); // into the box: never into an editor, should the box have gone
    await waitFor('one session left by the filter', async () => {
      const t = await rowsText();
      return t.length === 2 && / out · /.test(t[1]);
    }, 10000, 200);
    await shot('sessions-filter');
    // A word only the records hold (not a title, project or id): the server's query finds them,
    // as `ccdag sessions --query` does.
    const word = 'vsaas';
    const want = JSON.parse(spawnSync(CCDAG_BIN, ['sessions', '--format', 'json', '--query', word, projects], { encoding: 'utf8', timeout: 120000 }).stdout).sessions;
    if (!want.length || want.some((r) => `${r.title}${r.project}${r.id}${r.path}`.toLowerCase().includes(word))) throw new Error(`"${word}" should be in records only: ${JSON.stringify(want.map((r) => r.title))}`);
    await page.locator('.part.sidebar .action-label[aria-label^="Filter Sessions"]').first().click();
    await filterBox.waitFor({ state: 'visible', timeout: 5000 });
    await filterBox.fill(word);
    await filterBox.press('Enter', { timeout: 5000 }); // into the box: never into an editor, should the box have gone
    let byRecords = [];
    await waitFor(`the sessions whose records hold "${word}"`, async () => {
      byRecords = (await rowsText()).filter((t) => / out · /.test(t));
      return byRecords.length === want.length && want.every((r) => byRecords.some((t) => t.startsWith(r.title.slice(0, 20))));
    }, 20000, 200).catch((e) => { throw new Error(`${e.message}: shown ${JSON.stringify(byRecords)}, want ${JSON.stringify(want.map((r) => r.title))}`); });
    await shot('sessions-filter-records');
    await page.locator('.part.sidebar .action-label[aria-label^="Clear Sessions Filter"]').first().click();
    await waitFor('every session back', async () => same(await projectRows(), expectRows()), 10000, 200);

    // A click opens the session's log.
    const target = view.locator('.monaco-list-row', { hasText: 'deletes in 4 days' }).first();
    await target.click();
    await waitFor(`the tab of ${aged}`, async () =>
      ((await page.locator('.tab.active').first().getAttribute('aria-label')) || '').includes(aged), 10000, 200);
    const summary = Object.entries(expectRows()).map(([p, n]) => `${p}: ${n}`).join(', ');
    return `${summary}; erk row ${JSON.stringify(erk.slice(0, 140))}; ${empties.length} empty dimmed; "${word}": ${byRecords.length} by records`;
  });

  await step('Ctrl+T on the multi-project tree: a path query ranks its call first, labelled project · title · L<line>; folds are the server\'s', async () => {
    // A file the big corpus session Read exactly once, named by its last two path parts.
    const [jasonDir, jasonProject] = MORE_PROJECTS[0];
    const jasonLog = '87bcc603-30fb-432c-beb2-9c774a335172.jsonl';
    if (!fs.existsSync(path.join(ws, '.claude', 'projects', jasonProject, jasonLog))) copyProject(jasonDir, path.join(ws, '.claude', 'projects', jasonProject));
    const reads = new Map();
    fs.readFileSync(path.join(jasonDir, jasonLog), 'utf8').split('\n').forEach((l, i) => {
      let r;
      try { r = JSON.parse(l); } catch { return; }
      for (const b of Array.isArray(r?.message?.content) ? r.message.content : []) {
        if (b?.type === 'tool_use' && b.name === 'Read' && typeof b.input?.file_path === 'string') {
          const e = reads.get(b.input.file_path) ?? { n: 0, line: i + 1 };
          e.n++;
          reads.set(b.input.file_path, e);
        }
      }
    });
    const [file] = [...reads].filter(([, e]) => e.n === 1).sort((a, b) => b[1].line - a[1].line)[0] ?? [];
    if (!file) throw new Error('the corpus log has no file Read once');
    // Every call on that file (Read, Edit, Write, …): the query ranks one of them first.
    const calls = new Set();
    fs.readFileSync(path.join(jasonDir, jasonLog), 'utf8').split('\n').forEach((l, i) => {
      if (l.includes(file) && l.includes('"tool_use"')) {
        try {
          const r = JSON.parse(l);
          if (r.message.content.some((b) => b?.type === 'tool_use' && b.input?.file_path === file)) calls.add(i + 1);
        } catch {
          // not a record
        }
      }
    });
    const query = file.split('/').slice(-2).join('/');
    await editorFocus();
    await page.keyboard.press('Control+T');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 5000 });
    await input.fill(`#${query}`);
    const rows = page.locator('.quick-input-widget .monaco-list-row');
    let first = '';
    await waitFor(`a call on ${query} as the first row`, async () => {
      first = await rows.first().evaluate((r) => `${r.querySelector('.label-name')?.textContent ?? ''} | ${r.querySelector('.label-description')?.textContent ?? ''}`.replace(/\s+/g, ' '));
      return first.split(' | ')[0].includes(query);
    }, 20000, 200).catch((e) => { throw new Error(`${e.message}; first row ${JSON.stringify(first)}`); });
    const m = /\| (.*?) · (.+) · L(\d+)(?: •|$)/.exec(first);
    const line = m ? Number(m[3]) : 0;
    if (!m || m[1] !== jasonProject || !calls.has(line) || /^[{[]/.test(m[2])) {
      throw new Error(`the first row is not a call on ${file} labelled "${jasonProject} · <title> · L<one of ${[...calls]}>": ${JSON.stringify(first)}`);
    }
    await shot('workspace-symbols-path');
    await rows.first().click();
    await waitFor(`${jasonLog} at line ${line}`, async () => {
      const tab = (await page.locator('.tab.active').first().getAttribute('aria-label')) || '';
      const s = await statusSelection();
      return tab.includes(jasonLog) && s && s.line === line;
    }, 15000, 200);

    // Folds: Fold All on the erk log hides exactly the lines the server's folding ranges cover
    // (its last textDocument/foldingRange answer for the log, from the trace file).
    await editorFocus();
    await goTo(1, 1);
    const uri = pathToFileURL(logPath).href;
    let ranges;
    await waitFor('the server\'s folding ranges for the log in the trace', () => (ranges = foldingRangesOf(uri)), 15000, 300);
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+0'); // Fold All
    await sleep(500);
    // The line numbers shown, each once: a number can be drawn twice (an inlay hint's own view line).
    const shown = async () => [...new Set((await page.locator('.editor-group-container.active .editor-instance .monaco-editor .margin-view-overlays .line-numbers').allInnerTexts())
      .map((t) => Number(t.trim())).filter((n) => n > 0))].sort((a, b) => a - b);
    const hidden = (l1) => ranges.some((r) => r.startLine < l1 - 1 && l1 - 1 <= r.endLine);
    let got = [];
    let want = [];
    await waitFor('the folded lines', async () => {
      got = await shown();
      const last = got[got.length - 1] ?? 0;
      want = [];
      for (let l = 1; l <= last; l++) if (!hidden(l)) want.push(l);
      return got.length > 3 && JSON.stringify(got) === JSON.stringify(want);
    }, 10000, 300).catch((e) => { throw new Error(`${e.message}: shown ${got.slice(0, 30)}, the server's ranges leave ${want.slice(0, 30)}`); });
    await shot('folds');
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+J'); // Unfold All
    return `${JSON.stringify(first)} -> line ${line}; ${ranges.length} folding ranges, folded view lines ${got.slice(0, 12).join(',')}…`;
  });

  await step('a 1 000-node session in the graph panel: the first picture timed, Fit shows every node', async () => {
    // Generated (scripts/genhistory): no corpus session is that big. In the workspace's projects
    // folder, a project of its own.
    const genDir = path.join(ws, '.claude', 'projects', '-home-dev-project00');
    const r = spawnSync('go', ['run', './scripts/genhistory', '-dir', path.join(ws, '.claude'), '-sessions', '1', '-projects', '1', '-size', '5200000'],
      { cwd: ROOT, encoding: 'utf8', timeout: 300000 });
    if (r.status !== 0) throw new Error(`genhistory: ${r.error || r.stderr}`);
    const find = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? find(path.join(d, e.name)) : e.name.endsWith('.jsonl') ? [path.join(d, e.name)] : []));
    const big = find(genDir).sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
    if (!big) throw new Error(`no session under ${genDir}`);
    await runCommand('View: Close All Editors');
    gv = undefined;
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    await input.fill(big);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: path.basename(big) }).first().waitFor({ state: 'visible', timeout: 15000 });
    await input.press('Enter', { timeout: 5000 }); // into the box: never into an editor, should the box have gone
    const tab = page.locator(`.tab[aria-label*="${path.basename(big)}"]`).first();
    await tab.waitFor({ state: 'visible', timeout: 30000 });
    // The command is offered once the extension has the 5 MB document (seconds after the tab).
    await waitFor('ccdag: Show Workflow Graph offered for the log', async () => {
      await page.keyboard.press('Escape');
      await tab.click(); // the editor's focus (editorFocus() clicks the session log's tab, closed here)
      await page.keyboard.press('Control+1');
      return runCommand('ccdag: Show Workflow Graph').then(() => true, () => false);
    }, 90000, 1000);
    const outer = await page.locator('iframe.webview').first().elementHandle({ timeout: 30000 });
    const inner = await (await outer.contentFrame()).waitForSelector('iframe#active-frame', { timeout: 30000 });
    const frame = await waitFor('the webview document', async () => {
      const f = await inner.contentFrame();
      return f && (await f.$('#graph')) ? f : undefined;
    }, 30000);
    await waitFor('the 1 000-node graph drawn', async () => {
      const err = await frame.$eval('#status', (e) => (e.classList.contains('error') ? e.textContent : ''));
      if (err) throw new Error(err);
      return frame.evaluate(() => document.body.dataset.rendered === 'true' && !!window.ccdagGraphView && window.ccdagGraphView.stats.firstPictureAt !== undefined);
    }, 90000, 250);
    const s = await frame.evaluate(() => window.ccdagGraphView.stats);
    if (!(s.nodes >= 1000)) throw new Error(`${s.nodes} nodes, want 1 000 or more`);
    // Fit: every node inside the panel's canvas.
    await frame.locator('.gv-fit').click();
    let out = -1;
    await waitFor('every node in view after Fit', async () => {
      out = await frame.evaluate(() => {
        const cy = window.ccdagGraphView.cy;
        const W = cy.width();
        const H = cy.height();
        return cy.nodes('.gv-node').filter((n) => n.style('display') !== 'none').filter((n) => {
          const p = n.renderedPosition();
          return p.x < 0 || p.y < 0 || p.x > W || p.y > H;
        }).length;
      });
      return out === 0;
    }, 15000, 250).catch((e) => { throw new Error(`${e.message}: ${out} nodes outside the view`); });
    await nextFrames(frame);
    await shot('graph-1000');
    // The panel at half the window (800 px or so): the toolbar in two rows, nothing cut off, the
    // search box wide enough to type in, the lanes a dropdown named by type and description.
    const bar = await frame.evaluate(() => {
      const root = document.querySelector('.ccdag-gv');
      const tb = document.querySelector('.gv-toolbar').getBoundingClientRect();
      const shown = [...document.querySelectorAll('.gv-toolbar > *')].filter((e) => window.getComputedStyle(e).display !== 'none' && e.getBoundingClientRect().width > 0);
      return {
        width: root.getBoundingClientRect().width,
        narrow: root.classList.contains('gv-narrow'),
        search: document.querySelector('.gv-search').getBoundingClientRect().width,
        clipped: shown.filter((e) => { const r = e.getBoundingClientRect(); return r.right > tb.right + 0.5 || r.bottom > tb.bottom + 0.5; }).map((e) => e.className),
        lanes: [...document.querySelectorAll('.gv-lane-select option')].filter((o) => o.value).map((o) => o.textContent),
      };
    });
    if (bar.width < 900 && (!bar.narrow || bar.search < 150 || bar.clipped.length || bar.lanes.length !== s.lanes)) throw new Error(`the half-width panel's toolbar: ${JSON.stringify(bar)}`);
    const byId = bar.lanes.filter((t) => /^agent-|aprompt_/.test(t));
    if (byId.length) throw new Error(`lanes named by their ids: ${JSON.stringify(byId)}`);
    // A search match from Fit's zoom: the view goes to it, zoomed in to read it.
    const fitZoom = await frame.evaluate(() => window.ccdagGraphView.cy.zoom());
    const word = await frame.evaluate(() => {
      const labels = (window.ccdagGraph.nodes || []).filter((n) => n.kind === 'USER_INPUT' && typeof n.label === 'string').map((n) => n.label);
      const last = labels[labels.length - 1] || '';
      return last.split(/\s+/).filter((w) => /^[A-Za-z]{5,}$/.test(w)).sort((a, b) => b.length - a.length)[0] || '';
    });
    if (!word) throw new Error('no word to search for in the generated prompts');
    await frame.locator('.gv-search').fill(word);
    await frame.locator('.gv-search').press('Enter');
    const hit = await waitFor(`the match for "${word}" shown`, async () => frame.evaluate(() => {
      const cy = window.ccdagGraphView.cy;
      const n = cy.nodes('.gv-node:selected');
      if (n.length !== 1) return undefined;
      const p = n.renderedPosition();
      return { zoom: cy.zoom(), inView: p.x > 0 && p.y > 0 && p.x < cy.width() && p.y < cy.height() };
    }), 10000, 200);
    if (!(fitZoom < 0.5 && hit.zoom >= 0.5 && hit.inView)) throw new Error(`search from Fit (zoom ${fitZoom}): ${JSON.stringify(hit)}`);
    await nextFrames(frame);
    await shot('graph-1000-search');
    await frame.locator('.gv-search').fill('');
    const f = (x) => Math.round(x);
    // ≤ 2 s (docs/spec.md §10) is held in the browser by the html test; here it is printed with
    // the webview's own start (the panel's page, the bundle, the JSON, then render()).
    return `${s.nodes} nodes, ${s.lanes} lanes: first picture ${f(s.firstPictureAt - s.startAt)} ms after render() (layout ${f(s.layoutMs)}, first view ${f(s.viewMs)}, first draw ${f(s.drawMs)}), ${f(s.firstPictureAt)} ms after the webview page's start; panel ${f(bar.width)} px (${bar.narrow ? 'two rows, lane dropdown' : 'one row'}), "${word}" found from zoom ${fitZoom.toFixed(3)} at ${hit.zoom.toFixed(2)}`;
  });

  await step('speed: a 5 MB log, open to diagnostics (warm server, then a cold start), where the time goes', async () => {
    // Two real sessions in one file (5.2 MB): the biggest corpus log, then the erk log; first a
    // record whose parent is missing, so that a squiggle is on the first screen (line 1, column 15).
    const bigDir = path.join(ws, '.claude', 'projects', 'big');
    fs.mkdirSync(bigDir, { recursive: true });
    const bigName = '5b000000-5555-4555-8555-000000000005.jsonl';
    const bigPath = path.join(bigDir, bigName);
    const orphan = '{"parentUuid":"00000000-0000-4000-8000-00000000dead","isSidechain":false,"type":"user","sessionId":"87bcc603-30fb-432c-beb2-9c774a335172",' +
      '"uuid":"00000000-0000-4000-8000-000000000001","timestamp":"2026-01-31T12:45:00.000Z","message":{"role":"user","content":"first"}}\n';
    fs.writeFileSync(bigPath, Buffer.concat([Buffer.from(orphan), fs.readFileSync(path.join(MORE_PROJECTS[0][0], '87bcc603-30fb-432c-beb2-9c774a335172.jsonl')), fs.readFileSync(CORPUS_LOG)]));
    const size = fs.statSync(bigPath).size;
    // Warm: the server runs for the session log (run alone, this step may come before the
    // extension host has activated the extension for it).
    await waitFor('the language server running', () => timingSince(started, 'initialized'), 60000, 200);
    await runCommand('View: Close All Editors');
    gv = undefined; // the graph panel was closed with the editors
    // The closed logs' problems leave the status bar's count first: its next change is the big log's.
    const problemsCount = () => page.locator('[id="status.problems"]').first().textContent({ timeout: 1000 }).catch(() => '');
    await waitFor('no problems counted', async () => ((await problemsCount()).match(/\d+/g) ?? []).every((n) => n === '0'), 10000, 200).catch(() => {});

    const t0 = Date.now();
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    await input.fill(bigPath);
    // The row Enter opens: the focused one (a row further down may still be the last opened log).
    await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: bigName }).first().waitFor({ state: 'visible', timeout: 10000 });
    // What the user sees, recorded in the page as it happens (epoch ms, the clock of the
    // extension's marks): the tab, the first text drawn, the first squiggle and the Problems count.
    await page.evaluate(recordOpen, bigName);
    // And when the log's bytes have reached the page over code-server's websocket (the payloads
    // received since the click add up to the file's size; as this process sees them).
    const base = wsReceived;
    let bytesIn;
    onWsFrame = () => {
      if (wsReceived - base >= size) {
        bytesIn = Date.now();
        onWsFrame = undefined;
      }
    };
    // E2E_PROFILE=1: a CPU profile of the page over the open (test-artifacts/vscode-open.cpuprofile,
    // its top functions by own time printed): where the page's part of the time goes.
    const cdp = process.env.E2E_PROFILE ? await page.context().newCDPSession(page) : undefined;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
      await cdp.send('Profiler.start');
    }
    const tOpen = Date.now();
    await page.keyboard.press('Enter');
    await waitFor('the log\'s first diagnostics', () => timingSince(tOpen, `diagnostics ${bigName}`), 30000, 100);
    const marks = () => page.evaluate(() => window.__ccdagOpen);
    await waitFor('a squiggle or the Problems count in the page', async () => { const m = await marks(); return m.squiggle || m.problems; }, 30000, 100)
      .catch(async (e) => { throw new Error(`${e.message}: ${JSON.stringify(await marks())}`); });
    // Until the document reached the server too (the old way's last step), so that the cold start
    // below does not overlap it; the squiggles come once the editor draws the text.
    await waitFor('the didOpen written', () => timingSince(tOpen, `didOpen sent ${bigName}`), 60000, 200);
    const seen = await waitFor('the squiggles drawn', async () => { const m = await marks(); return m.squiggle && m.problems && m; }, 5000, 100).catch(marks);
    // What the user sees: squiggles in the editor (the Problems count when none is on screen).
    const warmMs = (seen.squiggle ?? seen.problems) - tOpen;
    onWsFrame = undefined;
    if (cdp) {
      const { profile } = await cdp.send('Profiler.stop');
      fs.writeFileSync(path.join(ARTIFACTS, 'vscode-open.cpuprofile'), JSON.stringify(profile));
      log(`page CPU profile from the click to the text drawn (${seen.text - tOpen} ms), top own time: ${topOwnTime(profile, 25, seen.text - tOpen)}`);
      await cdp.detach();
    }
    const warmSteps = describeTiming([
      ...timingSince(tOpen),
      ...(bytesIn ? [{ what: 'page: the log\'s bytes received', at: bytesIn }] : []),
      ...['tab', 'text', 'squiggle', 'problems'].filter((k) => seen[k]).map((k) => ({ what: `page: ${k}`, at: seen[k] })),
    ].sort((a, b) => a.at - b.at), tOpen, bigName, true);

    // Cold: a new server for the open log (what opening the first log costs, activation aside).
    const tRestart = Date.now();
    await runCommand('ccdag: Restart Language Server');
    const cold = await waitFor('the first diagnostics after the restart', () => timingSince(tRestart, `diagnostics ${bigName}`), 30000, 100);
    const start = timingSince(tRestart, 'client start');
    const coldMs = cold.at - start.at;
    const coldSteps = describeTiming(timingSince(tRestart), start.at, bigName);
    await shot('speed-big-log');
    // The first log's open again, now that the extension's output file holds its marks.
    if (firstOpen) {
      const marks = timingSince(firstOpen.at).filter((m) => m.at <= Math.max(firstOpen.seen.problems ?? 0, firstOpen.seen.text ?? 0) + 2000);
      log(`first open (${SESSION_ID}.jsonl, activation included): [${describeTiming([
        ...marks,
        ...['tab', 'text', 'problems'].filter((k) => firstOpen.seen[k]).map((k) => ({ what: `page: ${k}`, at: firstOpen.seen[k] })),
      ].sort((a, b) => a.at - b.at), firstOpen.at, `${SESSION_ID}.jsonl`, true)}]`);
    }
    log(`speed: ${(size / 1e6).toFixed(1)} MB log; Enter in quick open -> diagnostics shown in the page ${warmMs} ms warm [${warmSteps}]; cold start -> diagnostics ${coldMs} ms [${coldSteps}] (quick open shown after ${tOpen - t0} ms)`);
    // The steps after this one work on the session log: back to it alone.
    await runCommand('View: Close All Editors');
    await page.keyboard.press('Control+P');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    await input.fill(logPath);
    await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: `${SESSION_ID}.jsonl` }).first().waitFor({ state: 'visible', timeout: 10000 });
    await input.press('Enter', { timeout: 5000 }); // into the box: never into an editor, should the box have gone
    await page.locator(`.tab[aria-label*="${SESSION_ID}.jsonl"]`).first().waitFor({ state: 'visible', timeout: 15000 });
    // The extension's part: no `ccdag version` before the server once the binary passed it, and
    // the text sent once per open (no didChange after the didOpen).
    if (/preflight/.test(coldSteps)) throw new Error(`the restart ran the preflight again: ${coldSteps}`);
    const sent = fs.readFileSync(traceFile, 'utf8').split('\n').filter((l) => l.includes(bigName) && /"method":"textDocument\/did(Open|Change)"/.test(l));
    if (sent.length !== 1) throw new Error(`the log's text went to the server ${sent.length} times`);
    // ≤ 1.5 s (docs/spec.md §10) on a quiet machine: E2E_SPEED_LIMIT_MS=1500 holds it, as does
    // CCDAG_TEST_SLOWDOWN when set (1.5 s × it). Not by default: most of the time is code-server's
    // own drawing of the text, 3.7-6.7 s at load 12-19. What is ours is held at any load: the
    // squiggles come with the text (ccdag/willOpen; the old way waited for VS Code to hand the
    // document to the extension, 7-9 s after the text there).
    const slowdown = Number(process.env.CCDAG_TEST_SLOWDOWN) || 0;
    const limit = Number(process.env.E2E_SPEED_LIMIT_MS) || 1500 * slowdown;
    if (limit && (warmMs > limit || coldMs > limit)) throw new Error(`over ${limit} ms: warm ${warmMs} ms [${warmSteps}], cold ${coldMs} ms [${coldSteps}]`);
    const lag = 500 * (slowdown || 3);
    if (seen.squiggle && seen.text && seen.squiggle - seen.text > lag) {
      throw new Error(`the squiggles came ${seen.squiggle - seen.text} ms after the text (more than ${lag} ms): [${warmSteps}]`);
    }
    if (!seen.squiggle) throw new Error(`no squiggle drawn on the first screen: [${warmSteps}]`);
    return `${(size / 1e6).toFixed(1)} MB: warm ${warmMs} ms, cold ${coldMs} ms`;
  });

  await step('400 sessions: the Claude Sessions view shows its progress while the server reads them (never its empty-state text), fills, and the editor answers meanwhile', async () => {
    // 8 projects of 50 real sessions (copies of the two erk logs: a quarter the 1.7 MB one), beside
    // what the workspace has: 183 MB that take the server seconds to read (`ccdag sessions` on them:
    // 7.8 s at load 17), as a real history does; a generated log costs a fraction of a real one.
    const projects = path.join(ws, '.claude', 'projects');
    const erkDir = path.join(CORPUS, 'dagster-io__erk', 'session');
    const [big, small] = ['1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl', '26efdcc5-de34-4028-a984-9a094a9fa95b.jsonl'].map((f) => path.join(erkDir, f));
    for (let i = 0; i < 400; i++) {
      const dir = path.join(projects, `-home-dev-many-${String(i % 8).padStart(2, '0')}`);
      fs.mkdirSync(dir, { recursive: true });
      const dst = path.join(dir, `7e400000-0000-4000-8000-${String(i).padStart(12, '0')}.jsonl`);
      fs.copyFileSync(i % 4 === 0 ? big : small, dst);
      fs.chmodSync(dst, 0o644);
    }
    const total = JSON.parse(spawnSync(CCDAG_BIN, ['sessions', '--format', 'json', projects], { encoding: 'utf8', timeout: 300000, maxBuffer: 256 << 20 }).stdout).sessions.length;
    if (total < 400) throw new Error(`${total} sessions in the workspace`);
    // A log in the editor, to ask something of while the list fills.
    await page.keyboard.press('Control+P');
    const quick = page.locator('.quick-input-widget input');
    await quick.waitFor({ state: 'visible', timeout: 10000 });
    await quick.fill(logPath);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: path.basename(logPath) }).first().waitFor({ state: 'visible', timeout: 15000 });
    await quick.press('Enter', { timeout: 5000 }); // into the box: never into an editor, should the box have gone
    await page.locator(`.tab.active[aria-label*="${path.basename(logPath)}"]`).first().waitFor({ state: 'visible', timeout: 15000 });
    // A new server (as after opening VS Code): the view's first list, read from the disk.
    await runCommand('View: Show Claude Sessions');
    const t0 = Date.now();
    await runCommand('ccdag: Restart Language Server');
    const sidebar = page.locator('.part.sidebar');
    const look = () => sidebar.evaluate((sb) => {
      const message = sb.querySelector('.tree-explorer-viewlet-tree-view .message')?.textContent?.trim() ?? '';
      const head = [...sb.querySelectorAll('.composite.title, .pane-header')].map((e) => e.textContent).join(' ');
      const m = /(\d+) sessions?( so far)?/.exec(head);
      return { message, count: m ? Number(m[1]) : -1, sofar: !!(m && m[2]), rows: sb.querySelectorAll('.monaco-list-row').length };
    });
    const samples = [];
    // A hover on the log, timed: what the editor asks of the same server.
    const hoverTime = async () => {
      const asked = Date.now();
      await editorFocus();
      const typeCol = lines[TR.line].indexOf('"type"') + 2;
      await goTo(TR.line + 1, typeCol);
      const box = page.locator('.monaco-editor .monaco-hover-content:visible').first();
      let text;
      for (let attempt = 0; attempt < 3 && !text; attempt++) {
        await page.keyboard.press('Control+K');
        await page.keyboard.press('Control+I');
        text = await waitFor('a hover', async () => ((await box.innerText({ timeout: 1000 }).catch(() => '')).trim() || undefined), 15000, 100).catch(() => undefined);
      }
      await page.keyboard.press('Escape');
      return text ? Date.now() - asked : undefined;
    };
    // The restart empties the list: from then on (the view says it reads), every look counts.
    let started = false;
    let shotFilling = false;
    let hoverAt;
    let ask;
    let done;
    while (Date.now() - t0 < 240000) {
      const l = { t: Date.now() - t0, ...(await look()) };
      // (before it, the list may be the one from before the copy: whole, and short)
      if (!started && (l.message.startsWith('Reading sessions') || l.sofar || l.t > 60000)) started = true;
      if (!started) {
        await page.waitForTimeout(100);
        continue;
      }
      samples.push(l);
      // The editor, asked while the list fills (once, when first seen filling).
      if (!ask && l.message.startsWith('Reading sessions')) ask = hoverTime().then((ms) => (hoverAt = { ms, view: l }));
      if (!shotFilling && l.sofar && l.count > 0) {
        shotFilling = true;
        await shot('sessions-400-filling');
      }
      if (l.count >= total && !l.sofar && !l.message.startsWith('Reading')) {
        done = l;
        break;
      }
      await page.waitForTimeout(150);
    }
    await ask;
    const after = await hoverTime(); // the same, the list whole: the baseline
    await shot('sessions-400');
    if (!done) throw new Error(`the view did not list ${total} sessions: last ${JSON.stringify(samples.at(-1))}`);
    // Whenever the list was seen incomplete it said it was reading, never "no sessions" (what
    // is seen depends on the machine's speed; what it says then does not).
    const empty = samples.filter((x) => /^No Claude Code sessions/.test(x.message));
    if (empty.length) throw new Error(`the empty-state text was shown while reading: ${JSON.stringify(empty[0])}`);
    const partialSeen = samples.filter((x) => x !== done && (x.count < total || x.sofar));
    const silent = partialSeen.filter((x) => !x.message.startsWith('Reading sessions'));
    if (silent.length) throw new Error(`an incomplete list without its progress: ${JSON.stringify(silent.slice(0, 3))}`);
    const reading = samples.filter((x) => x.message.startsWith('Reading sessions'));
    if (ask && !hoverAt?.ms) throw new Error('the editor gave no hover while the list filled');
    if (!after) throw new Error('no hover once the list was whole');
    const fills = [...new Set(samples.filter((x) => x.sofar).map((x) => x.count))];
    const readingText = reading.length ? `"Reading sessions…" seen from ${reading[0].t} to ${reading.at(-1).t} ms (last: ${JSON.stringify(reading.at(-1).message)})` : 'the list was whole at the first look';
    return `${total} sessions listed ${done.t} ms after the restart; ${readingText}; rows as they came: ${fills.length ? fills.slice(0, 12).join(', ') : 'none before the whole list'}; ${hoverAt ? `a hover asked at ${hoverAt.view.t} ms (the view: ${JSON.stringify(hoverAt.view.message.slice(0, 70))}) answered in ${hoverAt.ms} ms` : 'no hover asked while it filled'}, ${after} ms once the list was whole`;
  });

  await step('a wrong ccdag.server.path gives an error with an Open Settings button', async () => {
    const bad = path.join(tmp, 'no-such-ccdag');
    let detail;
    await changeSettings({ 'ccdag.server.path': bad }, { remote: true });
    try {
      // A toast, or, if it was hidden already, the same notification in the notification center.
      let toast = page.locator('.notification-toast', { hasText: 'ccdag.server.path' }).first();
      let asToast = true;
      try {
        await toast.waitFor({ state: 'visible', timeout: 20000 }); // the restart fails first: slow at load
      } catch {
        asToast = false;
        await runCommand('Notifications: Show Notifications');
        toast = page.locator('.notifications-center .notification-list-item', { hasText: 'ccdag.server.path' }).first();
        await toast.waitFor({ state: 'visible', timeout: 10000 });
      }
      const message = (await toast.locator('.notification-list-item-message').first().innerText()).trim();
      if (!message.includes(bad)) throw new Error(`the message does not name the path: ${message}`);
      // The open graph panel and status bar refresh when the server stops; they must not report the
      // failure again: VS Code would replace this notification by the new one, and a click on it
      // in between is lost. The same element must still be there once they have refreshed.
      if (asToast) {
        await toast.evaluate((e) => e.setAttribute('data-e2e-first', '1'));
        await sleep(1500);
        const same = await toast.evaluate((e) => e.getAttribute('data-e2e-first') === '1').catch(() => false);
        if (!same) throw new Error('the error was shown again and replaced the notification on screen');
      }
      await shot('server-not-found');
      await toast.locator('.monaco-button', { hasText: 'Open Settings' }).first().click();
      // In this remote window the machine setting lives in the Remote tab: it must be shown there.
      await page.locator('.settings-editor').first().waitFor({ state: 'visible', timeout: 20000 });
      const item = page.locator('.settings-editor .setting-item-contents', { hasText: 'Server: Path' }).first();
      await item.waitFor({ state: 'visible', timeout: 20000 }).catch(async (err) => {
        await shot('server-path-setting');
        throw err;
      });
      await shot('server-path-setting');
      detail = JSON.stringify(message.slice(0, 100));
    } finally {
      const good = process.env.CCDAG_SERVER_PATH ? path.resolve(process.env.CCDAG_SERVER_PATH) : undefined;
      await changeSettings({ 'ccdag.server.path': good }, { remote: true });
    }
    // A changed server path restarts the server by itself; it reports the findings again.
    await page.keyboard.press('Control+Shift+M'); // the editor has focus: this shows the Problems panel
    await waitFor('the findings back after the restart', async () => (await readProblems()).length === EXPECTED.length, 20000, 200);
    if (gv) {
      await waitFor('the graph panel to recover', () =>
        gv.$eval('#status', (e) => e.hidden && !e.classList.contains('error')), 10000);
    }
    return `${detail}; fixed: the findings are back${gv ? ', the graph panel recovered' : ''}`;
  });
  } // not UNTRUSTED
} catch (err) {
  fatal = fatal || err.message;
  log(`error: ${err.stack || err}`);
} finally {
  clearTimeout(watchdog);
  await cleanup();
}

// ---- verdict --------------------------------------------------------------------------------

const left = await (async () => {
  const t = Date.now();
  let l = leftovers();
  while (l.length && Date.now() - t < 5000) {
    await sleep(200);
    l = leftovers();
  }
  return l;
})();
if (left.length) results.push({ name: 'no process left behind', ok: false, why: left.join('; ') });
else results.push({ name: 'no process left behind', ok: true, why: '' });

const failed = results.filter((r) => !r.ok);
if (failed.length) {
  // Keep what explains the failure next to the screenshots.
  const dir = path.join(ARTIFACTS, 'vscode-logs');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const f of [serverLog, traceFile, csLog]) if (fs.existsSync(f)) fs.copyFileSync(f, path.join(dir, path.basename(f)));
  const logsDir = path.join(userData, 'logs');
  if (fs.existsSync(logsDir)) fs.cpSync(logsDir, path.join(dir, 'vscode'), { recursive: true });
  console.log(`logs copied to ${dir}`);
}
if (process.env.E2E_KEEP) console.log(`kept ${tmp}`);
else fs.rmSync(tmp, { recursive: true, force: true });

console.log('');
for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name}${!r.ok && r.why ? ` — ${r.why}` : ''}`);
console.log(`vscode: ${results.length - failed.length} passed, ${failed.length} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
process.exit(failed.length ? 1 : 0);
