// Profiles the first picture of a generated session (node test/profile.mjs [nodes]): where the
// page's CPU time goes, by function, with the viewer's own breakdown. A tool, not a test.
// For readable function names build an unminified bundle first (GV_NOMINIFY=1 node build.mjs) and
// the minified one again after (node build.mjs; `node build.mjs --check` fails on the other).
import { pathToFileURL } from 'node:url';
import { bigGraph } from './graphs.mjs';
import { htmlFor, launch } from './browser.mjs';

const n = Number(process.argv[2]) || 1000;
const graph = bigGraph(n);
const file = htmlFor(graph, 'prof' + n, 'profile ' + n);
const ctx = await launch();
for (let run = 0; run < 3; run++) {
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => window.ccdagView && window.ccdagView.stats.firstPictureAt !== undefined, null, { timeout: 60000 });
  const { profile } = await cdp.send('Profiler.stop');
  // stats, not the handle's cy: reading cy would add the rest of the elements
  await page.waitForFunction(() => document.querySelector('.ccdag-gv[data-layout-ms]'), null, { timeout: 60000 });
  const s = await page.evaluate(() => ({ ...window.ccdagView.stats, firstIds: (window.ccdagView.stats.firstIds || []).length }));
  const f = (x) => Math.round(x);
  console.log(`run ${run}: first picture ${f(s.firstPictureAt)} ms: page, bundle and parse ${f(s.startAt)}, layout ${f(s.layoutMs)}, first view ${f(s.viewMs)}, elements ${f(s.buildMs)} (${s.firstIds || 'all'}), first draw ${f(s.drawMs)}; the rest added ${s.completeMs === undefined ? '-' : f(s.completeMs)} ms after it`);
  if (run === 2) {
    const byId = new Map(profile.nodes.map((x) => [x.id, x]));
    const self = new Map();
    const dt = profile.timeDeltas;
    profile.samples.forEach((id, i) => {
      const nd = byId.get(id);
      const c = nd.callFrame;
      const key = `${c.functionName || '(anon)'} ${c.url.split('/').pop()}:${c.lineNumber}:${c.columnNumber}`;
      self.set(key, (self.get(key) || 0) + (dt[i] || 0) / 1000);
    });
    const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40);
    for (const [k, v] of top) console.log(`${v.toFixed(1).padStart(8)} ms  ${k}`);
    // inclusive time by function name
    const parent = new Map();
    for (const x of profile.nodes) for (const c of x.children || []) parent.set(c, x.id);
    const incl = new Map();
    profile.samples.forEach((id, i) => {
      const seen = new Set();
      for (let p = id; p !== undefined; p = parent.get(p)) {
        const name = byId.get(p).callFrame.functionName || '(anon)';
        if (seen.has(name)) continue;
        seen.add(name);
        incl.set(name, (incl.get(name) || 0) + (dt[i] || 0) / 1000);
      }
    });
    console.log('--- inclusive');
    for (const [k, v] of [...incl.entries()].sort((a, b) => b[1] - a[1]).slice(0, 60)) console.log(`${v.toFixed(1).padStart(8)} ms  ${k}`);
  }
  await page.close();
}
await ctx.close();
