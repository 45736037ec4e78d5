// Shared helpers for the browser tests: make HTML pages with the Go renderer, drive Debian's
// Chromium through playwright-core (which downloads no browser).
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '..', '..', '..');
export const artifacts = join(repo, 'test-artifacts');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const work = mkdtempSync(join(tmpdir(), 'ccdag-graphview-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

let renderer = null;
/** Builds internal/graphhtml/cmd/render-sample once and returns the binary's path. */
export function rendererBinary() {
  if (!renderer) {
    renderer = join(work, 'render-sample');
    execFileSync('go', ['build', '-o', renderer, './internal/graphhtml/cmd/render-sample'], { cwd: repo, stdio: 'inherit' });
  }
  return renderer;
}

/** Writes the HTML page of `graph` (via graphhtml.Render) and returns its path. */
export function htmlFor(graph, name, title = name) {
  const json = join(work, name + '.json');
  const html = join(work, name + '.html');
  writeFileSync(json, JSON.stringify(graph));
  execFileSync(rendererBinary(), ['-title', title, '-o', html, json], { stdio: 'inherit' });
  return html;
}

export async function launch({ colorScheme = 'light', viewport = { width: 1500, height: 940 } } = {}) {
  const profile = mkdtempSync(join(work, 'profile-'));
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    deviceScaleFactor: 1,
    colorScheme,
  });
}

/** Opens `file` and records everything that would mean trouble. */
export async function open(context, file) {
  const page = await context.newPage();
  const problems = { console: [], pageErrors: [], dialogs: [], requests: [] };
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.console.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.pageErrors.push(String(e)));
  await page.addInitScript(() => window.addEventListener('error', () => (window.__ccdagFailed = true)));
  page.on('dialog', (d) => {
    problems.dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  page.on('request', (r) => {
    if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) problems.requests.push(r.url());
  });
  await page.goto(pathToFileURL(file).href);
  // Drawn, or failed: an uncaught error ends the wait at once instead of at the time-out.
  await page.waitForFunction(() => document.querySelector('.ccdag-gv[data-layout-ms]') || window.__ccdagFailed, null, { timeout: 20000 }).catch(() => {});
  if (problems.pageErrors.length || !(await page.evaluate(() => !!window.ccdagView))) {
    throw new Error(`the graph was not drawn: ${problems.pageErrors.join('; ') || 'no view after 20 s'}`);
  }
  return { page, problems };
}

export function screenshotPath(name) {
  mkdirSync(artifacts, { recursive: true });
  return join(artifacts, name);
}

/** Page coordinates of the centre of node `id` (a SPEC id). */
export async function nodePoint(page, id) {
  return page.evaluate((nid) => {
    const cy = window.ccdagView.cy;
    const n = cy.getElementById('n:' + nid);
    if (n.empty()) return null;
    cy.center(n);
    const p = n.renderedPosition();
    const r = cy.container().getBoundingClientRect();
    return { x: r.left + p.x, y: r.top + p.y };
  }, id);
}

export { existsSync };
