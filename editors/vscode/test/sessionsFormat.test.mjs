// Unit tests of src/sessionsFormat.ts (what a row of the Claude Sessions view says), bundled with
// esbuild and run in plain node: `make test-vscode`. The figures are the server's rules
// (internal/tokens.Short, internal/prices.Nano.String), checked against its own test values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ccdag-sessionsformat-'));
const out = path.join(tmp, 'sessionsFormat.mjs');
esbuild.buildSync({ entryPoints: [path.join(here, '..', 'src', 'sessionsFormat.ts')], outfile: out, bundle: true, platform: 'node', format: 'esm', logLevel: 'error' });
const f = await import(pathToFileURL(out).href);
fs.rmSync(tmp, { recursive: true, force: true });

test('numbers follow the one rule of the server', () => {
  const cases = [[0, '0'], [950, '950'], [999, '999'], [1000, '1.0k'], [3300, '3.3k'], [34_500, '34.5k'], [99_949, '99.9k'],
    [99_950, '100k'], [152_000, '152k'], [999_499, '999k'], [999_960, '1.0M'], [1_600_000, '1.6M'], [11_700_000, '11.7M'],
    [2_100_000_000, '2.1B'], [-3300, '-3.3k']];
  for (const [n, want] of cases) assert.equal(f.short(n), want, String(n));
});

test('dollars as the server writes them', () => {
  const cases = [[0, '$0'], [0.00005, '< $0.0001'], [0.0012, '$0.0012'], [0.0363, '$0.036'], [0.5, '$0.50'], [0.42, '$0.42'], [0.0042, '$0.0042'], [0.0001, '$0.0001'], [0.01, '$0.01'], [0.994, '$0.994'], [0.995, '$1.00'], [4.205, '$4.21'], [12_345.678, '$12,346'],
    [4.21, '$4.21'], [12.345, '$12.35'], [999.99, '$999.99'], [1234.4, '$1,234'], [1_234_567, '$1,234,567'],
    // exact ties go to the even digit as in Go (toFixed rounds them up): prices.Nano(62_500_000).String() and the rest
    [0.0625, '$0.062'], [0.1875, '$0.188'], [0.3125, '$0.312'], [0.5625, '$0.562'], [0.8125, '$0.812'], [0.003125, '$0.0031'], [0.009375, '$0.0094']];
  for (const [usd, want] of cases) assert.equal(f.dollars(usd), want, String(usd));
  assert.equal(f.costText({ usd: 4.21, priced: 3, unpriced: 0 }), '$4.21');
  assert.equal(f.costText({ usd: 4.21, priced: 3, unpriced: 1 }), '≥ $4.21');
  assert.equal(f.costText({ usd: 0, priced: 0, unpriced: 2 }), 'unpriced', 'an unpriced model is never $0');
  assert.equal(f.costText({ usd: 0, priced: 0, unpriced: 0 }), '');
});

test('tokens: out and every input, out a lower bound when replies were logged unfinished', () => {
  const t = { input: 10, output: 3300, cacheCreation: 1000, cacheRead: 1_599_000 };
  assert.equal(f.tokensText(t), '3.3k out · 1.6M in');
  assert.equal(f.tokensText({ ...t, unfinishedMessages: 118 }), '≥ 3.3k out · 1.6M in');
});

test('deletion: said within a week of the day, in whole local days', () => {
  const now = new Date(2026, 10, 27, 23, 30); // 27 Nov 2026, late evening
  assert.equal(f.deletesText('2026-11-30', now), 'deletes in 3 days');
  assert.equal(f.deletesText('2026-12-04', now), 'deletes in 7 days');
  assert.equal(f.deletesText('2026-12-05', now), '', 'eight days away is not said in the row');
  assert.equal(f.deletesText('2026-11-28', now), 'deletes tomorrow');
  assert.equal(f.deletesText('2026-11-27', now), 'deletes today');
  assert.equal(f.deletesText('2026-11-20', now), 'deleted at next start', 'a past day: at next start, not a date');
  assert.equal(f.deletesText('2026-12-20', now, true), 'deleted at next start', "the server's overdue wins over the clock");
  assert.equal(f.deletesText('', now), '', 'an archive outside the sweep');
  assert.equal(f.deletesText('garbage', now), '');
});

test('when: relative within a week, else the day', () => {
  const now = new Date('2026-11-27T12:00:00Z');
  assert.equal(f.whenText('2026-11-27T11:59:30Z', now), 'just now');
  assert.equal(f.whenText('2026-11-27T11:15:00Z', now), '45 min ago');
  assert.equal(f.whenText('2026-11-27T09:00:00Z', now), '3 h ago');
  assert.equal(f.whenText('2026-11-26T09:00:00Z', now), 'yesterday');
  assert.equal(f.whenText('2026-11-23T09:00:00Z', now), '4 days ago');
  assert.match(f.whenText('2026-10-01T09:00:00Z', now), /^2026-10-0[12]$/);
  assert.equal(f.whenText('', now), '');
  assert.equal(f.whenText('not a time', now), '');
});

const row = (o) => ({
  id: 'id', path: '/p/id.jsonl', uri: 'file:///p/id.jsonl', project: 'p', title: 't', start: '', end: '', records: 1, subagents: 0,
  tokens: { input: 0, output: 0, cacheCreation: 0, cacheRead: 0 }, cost: { usd: 0, priced: 0, unpriced: 0 },
  findings: { error: 0, warning: 0, information: 0, hint: 0 }, deletes: '', resume: null, ...o,
});

test('a row says when, tokens, cost, findings (hints left out) and a near deletion', () => {
  const now = new Date(2026, 10, 27, 12, 0);
  const r = row({
    end: new Date(2026, 10, 27, 9, 0).toISOString(),
    tokens: { input: 10, output: 3300, cacheCreation: 1000, cacheRead: 1_599_000 },
    cost: { usd: 4.21, priced: 5, unpriced: 0 },
    findings: { error: 1, warning: 2, information: 0, hint: 9 },
    deletes: '2026-11-30',
  });
  assert.equal(f.describeRow(r, now), '3 h ago · 3.3k out · 1.6M in · $4.21 · 3 findings');
  assert.equal(f.describeRow(row({ findings: { error: 0, warning: 0, information: 1, hint: 0 } }), now), '0 out · 0 in · 1 finding');
  // The deletion leads the label: a narrow side bar cuts a row's end, where it was.
  assert.equal(f.rowLabel(r, now), 'deletes in 3 days · t');
  assert.equal(f.rowLabel(row({ deletes: '2026-01-01', overdue: true }), now), 'deleted at next start · t');
  assert.equal(f.rowLabel(row({ title: '', id: '0123456789' }), now), '(no prompt) 01234567');
  assert.equal(f.describeRow(row({ empty: true, end: new Date(2026, 10, 27, 9, 0).toISOString() }), now), '3 h ago · no messages');
  assert.equal(f.costText({ usd: 6.77, priced: 4, unpriced: 0, lowerBound: true }), '≥ $6.77', 'placeholder output counts: a lower bound');
});

test('local times: a logged UTC time in the local zone, the offset said', () => {
  assert.equal(f.localTime('2026-02-25T13:03:07.120Z', 60), '2026-02-25 14:03:07 (UTC+01:00)');
  assert.equal(f.localTime('2026-02-25T01:30:00Z', -330), '2026-02-24 20:00:00 (UTC-05:30)');
  assert.equal(f.localTime('2026-02-25T01:30:00Z', 0), '2026-02-25 01:30:00 (UTC+00:00)');
  assert.equal(f.localTime('', 60), '');
  assert.equal(f.localTime('not a time', 60), 'not a time');
});

test('resume state in words', () => {
  assert.equal(f.resumeText(null).state, 'none');
  assert.equal(f.resumeText({ complete: true, brokenAt: null, lost: 0, records: 12 }).text, 'a resume loads all 12 records');
  assert.deepEqual(f.resumeText({ complete: false, brokenAt: { line: 432 }, lost: 57, records: 300 }),
    { state: 'loses', text: 'a resume breaks at line 432 and loses 57 records' });
});

test('filter: every word, anywhere in title, project, id or path; groups keep newest-first order', () => {
  const rows = [
    row({ id: 'a', project: 'web', title: 'Fix the Widget parser' }),
    row({ id: 'b', project: 'api', title: 'Add auth' }),
    row({ id: 'c', project: 'web', title: 'widget tests', path: '/x/c.jsonl' }),
  ];
  assert.deepEqual(f.filterRows(rows, 'widget').map((r) => r.id), ['a', 'c']);
  assert.deepEqual(f.filterRows(rows, 'WEB parser').map((r) => r.id), ['a']);
  assert.deepEqual(f.filterRows(rows, '  ').map((r) => r.id), ['a', 'b', 'c']);
  assert.deepEqual(f.filterRows(rows, 'api b').map((r) => r.id), ['b']);
  // The server's answer for the words (records holding them) adds the sessions it names.
  assert.deepEqual(f.filterRows(rows, 'retry backoff', new Set(['/p/id.jsonl'])).map((r) => r.id), ['a', 'b']);
  assert.deepEqual(f.filterRows(rows, 'widget', new Set(['/p/id.jsonl'])).map((r) => r.id), ['a', 'b', 'c']);
  const g = f.groupByProject(rows);
  assert.deepEqual(g.map((x) => x.label), ['web', 'api']);
  assert.deepEqual(g[0].rows.map((r) => r.id), ['a', 'c']);
});

test('groups: by the folder holding the logs, called by the folder the sessions ran in', () => {
  const F = '-Users-x-Desktop-webtech';
  const rows = [
    row({ id: 'e1', project: F, projectFolder: F, empty: true }), // no record names a cwd
    row({ id: 'a', project: '~/Desktop/webtech', projectFolder: F }),
    row({ id: 'b', project: '~/src/api', projectFolder: '-Users-x-src-api' }),
    row({ id: 'e2', project: '-Users-x-gone', projectFolder: '-Users-x-gone', empty: true }),
  ];
  const g = f.groupByProject(rows);
  assert.deepEqual(g.map((x) => [x.label, x.key, x.rows.map((r) => r.id)]), [
    ['~/Desktop/webtech', F, ['e1', 'a']],
    ['~/src/api', '-Users-x-src-api', ['b']],
    ['-Users-x-gone', '-Users-x-gone', ['e2']],
  ]);
  // Two folders of sessions that ran in one place: each says its folder.
  const twice = f.groupByProject([row({ id: 'c1', project: '~/app', projectFolder: 'copy-a' }), row({ id: 'c2', project: '~/app', projectFolder: 'copy-b' })]);
  assert.deepEqual(twice.map((x) => x.label), ['~/app · copy-a', '~/app · copy-b']);
});

test('plurals: one warning, 0 errors, and the findings of a tooltip', () => {
  assert.equal(f.plural(1, 'warning'), '1 warning');
  assert.equal(f.plural(0, 'error'), '0 errors');
  assert.equal(f.plural(2, 'hint'), '2 hints');
  assert.equal(f.plural(1, 'entry', 'entries'), '1 entry');
  assert.equal(f.plural(3, 'entry', 'entries'), '3 entries');
  assert.equal(f.findingsBreakdown({ error: 0, warning: 1, information: 5, hint: 2 }), '6 (0 errors, 1 warning, 5 information)');
  assert.equal(f.findingsBreakdown({ error: 1, warning: 3, information: 1, hint: 0 }), '5 (1 error, 3 warnings, 1 information)');
});
