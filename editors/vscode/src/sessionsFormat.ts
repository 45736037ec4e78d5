// What the Claude Sessions view shows of a ccdag/sessions row, without vscode (unit-tested in plain
// node): the numbers follow the server's one rule (internal/tokens.Short, internal/prices.Nano).

/** A row of ccdag/sessions: `ccdag sessions --format json` plus uri (docs/spec.md §10). */
export interface SessionRow {
  id: string;
  path: string;
  uri?: string;
  /** The folder the session ran in (its cwd, `~` for home); older servers: the project folder's name. */
  project: string;
  /** The folder holding the main log (Claude Code's encoding of the cwd), when the server sends it. */
  projectFolder?: string;
  title: string;
  start: string;
  end: string;
  records: number;
  subagents: number;
  tokens: { input: number; output: number; cacheCreation: number; cacheRead: number; unfinishedMessages?: number };
  cost: { usd: number; priced: number; unpriced: number; lowerBound?: boolean };
  findings: { error: number; warning: number; information: number; hint: number };
  secrets?: number;
  /** The day Claude Code deletes the session ("YYYY-MM-DD"), "" when its sweep does not reach it. */
  deletes: string;
  /** The deletion day has come: Claude Code deletes it at its next start. */
  overdue?: boolean;
  /** No user or assistant message in any of its logs. */
  empty?: boolean;
  resume: { complete: boolean; brokenAt: { line: number } | null; lost: number; records: number } | null;
}

/** Within this many days of its deletion a session says so in its row (the server's lens: 7). */
export const WARN_DAYS = 7;

/** n with three significant digits at most, rounded: 950, 3.3k, 152k, 1.6M, 11.7M (tokens.Short). */
export function short(n: number): string {
  if (n < 0) return '-' + short(-n);
  if (n < 1000) return String(Math.round(n));
  const units = ['k', 'M', 'B', 'T'];
  let v = n;
  for (let i = 0; i < units.length; i++) {
    v /= 1000;
    if (v >= 999.5 && i < units.length - 1) continue;
    return (v < 99.95 ? v.toFixed(1) : v.toFixed(0)) + units[i];
  }
  return String(n);
}

/** x with d decimals as Go writes it (strconv): the nearest, and an exact tie (0.0625 for 3) to the
 *  even digit, "0.062", where toFixed rounds it up. x is halfway exactly when x * 2^(d+1) is an odd
 *  whole number. */
function fixed(x: number, d: number): string {
  const h = x * 2 ** (d + 1);
  if (Number.isInteger(h) && h % 2 === 1) {
    let k = Math.floor(x * 10 ** d); // x * 10^d is k + 0.5, exactly
    if (k % 2 === 1) k++;
    return (k / 10 ** d).toFixed(d);
  }
  return x.toFixed(d);
}

/** A dollar amount as the server writes it (prices.Nano.String): $0.036, $4.21, $1,234. */
export function dollars(usd: number): string {
  const n = Math.round(usd * 1e9); // nano-dollars
  if (n === 0) return '$0';
  if (n > 0 && n < 100_000) return '< $0.0001';
  if (usd < 0.01) return '$' + fixed(usd, 4).replace(/0+$/, '').replace(/\.$/, '');
  if (n < 995_000_000) {
    const s = fixed(usd, 3);
    return '$' + s.slice(0, 4) + s.slice(4).replace(/0+$/, '');
  }
  if (n < 999_995_000_000) {
    const cents = Math.floor((n + 5_000_000) / 10_000_000);
    return `$${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  }
  return '$' + String(Math.floor((n + 500_000_000) / 1_000_000_000)).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** The cost figure: "$4.21", "≥ $4.21" when it is a lower bound (some messages of unpriced models,
 *  or output counts logged as placeholders), "unpriced", or "". */
export function costText(c: SessionRow['cost'] | undefined): string {
  if (!c || (!c.priced && !c.unpriced)) return '';
  if (!c.priced) return 'unpriced';
  return (c.unpriced > 0 || c.lowerBound ? '≥ ' : '') + dollars(c.usd);
}

/** "3.3k out · 1.6M in" (out a lower bound "≥ 3.3k" when some replies were logged unfinished). */
export function tokensText(t: SessionRow['tokens'] | undefined): string {
  if (!t) return '';
  const out = (t.unfinishedMessages ? '≥ ' : '') + short(t.output);
  return `${out} out · ${short(t.input + t.cacheCreation + t.cacheRead)} in`;
}

/** Findings a person acts on (hints are left out, as in the Problems panel). */
export function findingsCount(f: SessionRow['findings'] | undefined): number {
  return f ? f.error + f.warning + f.information : 0;
}

/** n and the noun, singular for 1: "1 warning", "0 errors", "3 hints" (many: the plural when not one + s). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The findings in a tooltip: "6 (0 errors, 1 warning, 5 information)". */
export function findingsBreakdown(f: SessionRow['findings']): string {
  return `${findingsCount(f)} (${plural(f.error, 'error')}, ${plural(f.warning, 'warning')}, ${f.information} information)`;
}

/** Whole days from now until the day (local midnight to local midnight); undefined for no day. */
export function daysUntil(day: string, now: Date): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return undefined;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  return Math.round((d.getTime() - today.getTime()) / 86_400_000);
}

/** "deletes in 3 days" / "deletes tomorrow" / "deletes today" within WARN_DAYS; "deleted at next
 *  start" once the day has come (the server's `overdue`, else a past day); else "". */
export function deletesText(day: string, now: Date, overdue?: boolean): string {
  if (overdue) return 'deleted at next start';
  const n = daysUntil(day, now);
  if (n === undefined || n > WARN_DAYS) return '';
  if (n < 0) return 'deleted at next start';
  if (n === 0) return 'deletes today';
  if (n === 1) return 'deletes tomorrow';
  return `deletes in ${n} days`;
}

/** When the session ended, relative within a week ("5 min ago", "3 h ago", "2 days ago"), else the day. */
export function whenText(iso: string, now: Date): string {
  const t = Date.parse(iso);
  if (!iso || Number.isNaN(t)) return '';
  const s = (now.getTime() - t) / 1000;
  if (s < 0) return iso.slice(0, 10);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 7 * 86400) {
    const d = Math.floor(s / 86400);
    return d === 1 ? 'yesterday' : `${d} days ago`;
  }
  const d = new Date(t);
  const pad = (x: number) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The row's resume state in words: complete, loses N records, or nothing to resume. */
export function resumeText(r: SessionRow['resume']): { state: 'complete' | 'loses' | 'none'; text: string } {
  if (!r) return { state: 'none', text: 'nothing to resume' };
  if (r.complete || !r.brokenAt) return { state: 'complete', text: `a resume loads all ${r.records} records` };
  return { state: 'loses', text: `a resume breaks at line ${r.brokenAt.line} and loses ${r.lost} records` };
}

/** The row's label: the deletion first when it is near (a narrow side bar cuts the end of a row,
 *  never its start), then the title; a session without a prompt by its id. */
export function rowLabel(r: SessionRow, now: Date): string {
  const title = r.title || `(no prompt) ${r.id.slice(0, 8)}`;
  const dying = deletesText(r.deletes, now, r.overdue);
  return dying ? `${dying} · ${title}` : title;
}

/** The row's one-line description: when · tokens · cost · findings ("no messages" for an empty session). */
export function describeRow(r: SessionRow, now: Date): string {
  const n = findingsCount(r.findings);
  return [
    whenText(r.end || r.start, now),
    r.empty ? 'no messages' : tokensText(r.tokens),
    costText(r.cost),
    n ? `${n} finding${n === 1 ? '' : 's'}` : '',
  ]
    .filter((s) => s)
    .join(' · ');
}

/** A logged time (ISO 8601, UTC) in the local time zone: "2026-02-25 14:03:07 (UTC+01:00)"; "" if none. */
export function localTime(iso: string, tzOffsetMin?: number): string {
  const t = Date.parse(iso);
  if (!iso || Number.isNaN(t)) return iso || '';
  const d = new Date(t);
  // minutes east of UTC (getTimezoneOffset is west); a fixed offset for tests
  const off = tzOffsetMin ?? -d.getTimezoneOffset();
  const l = new Date(t + off * 60_000);
  const pad = (x: number) => String(x).padStart(2, '0');
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  return `${l.getUTCFullYear()}-${pad(l.getUTCMonth() + 1)}-${pad(l.getUTCDate())} ${pad(l.getUTCHours())}:${pad(l.getUTCMinutes())}:${pad(l.getUTCSeconds())} (UTC${sign}${pad(Math.floor(a / 60))}:${pad(a % 60)})`;
}

/**
 * Rows the filter keeps: those whose records hold every word of it (`hits`, the paths of the rows
 * the server's ccdag/sessions answered for `query` = the filter, as `ccdag search` finds records),
 * and those whose title, project, id or path hold every word (case-insensitive; so an id or a
 * folder typed finds its session too).
 */
export function filterRows(rows: SessionRow[], filter: string, hits?: ReadonlySet<string>): SessionRow[] {
  const words = filter.toLowerCase().split(/\s+/).filter((w) => w);
  if (!words.length) return rows;
  return rows.filter((r) => {
    if (hits?.has(r.path)) return true;
    const hay = `${r.title}\n${r.project}\n${r.projectFolder ?? ''}\n${r.id}\n${r.path}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/** A group of the view: the sessions of one project folder. */
export interface ProjectGroup {
  /** What groups them: the folder holding the logs (projectFolder), else the project. */
  key: string;
  /** What the group is called: the folder the sessions ran in (`~/Desktop/webtech`), from its
   *  newest session that names one, else the key. */
  label: string;
  rows: SessionRow[];
}

/**
 * Rows grouped by the folder holding their logs (a session with no record naming its cwd, an
 * empty one, falls back to that folder's name as its project: grouped by project it stood apart,
 * `-Users-x-Desktop-webtech` beside `~/Desktop/webtech`), groups in the order of their newest
 * session (rows come newest first), each called by the readable project of its newest session.
 */
export function groupByProject(rows: SessionRow[]): ProjectGroup[] {
  const out = new Map<string, ProjectGroup>();
  for (const r of rows) {
    const key = r.projectFolder || r.project;
    let g = out.get(key);
    if (!g) out.set(key, (g = { key, label: '', rows: [] }));
    g.rows.push(r);
    if (!g.label && r.project && r.project !== r.projectFolder) g.label = r.project;
  }
  for (const g of out.values()) g.label ||= g.key;
  // Two folders whose sessions ran in the same place (a copy, a moved project) are told apart.
  const seen = new Map<string, number>();
  for (const g of out.values()) seen.set(g.label, (seen.get(g.label) ?? 0) + 1);
  for (const g of out.values()) if ((seen.get(g.label) ?? 0) > 1 && g.label !== g.key) g.label = `${g.label} · ${g.key}`;
  return [...out.values()];
}
