// Dev helper: node test/shot.mjs [sample|xss|big|FILE.json] [light|dark] -> test-artifacts/shot-*.png
import { readFileSync } from 'node:fs';
import { sampleGraph, xssGraph, bigGraph } from './graphs.mjs';
import { htmlFor, launch, open, screenshotPath } from './browser.mjs';

const which = process.argv[2] || 'sample';
const scheme = process.argv[3] || 'light';
const graph = which === 'sample' ? sampleGraph() : which === 'xss' ? xssGraph() : which.startsWith('big') ? bigGraph(Number(which.slice(3)) || 500) : JSON.parse(readFileSync(which, 'utf8'));
const file = htmlFor(graph, 'shot', 'shot');
const ctx = await launch({ colorScheme: scheme });
const { page, problems } = await open(ctx, file);
for (const a of process.argv.slice(4)) {
  if (a === 'fit') await page.evaluate(() => window.ccdagView.fit());
  else if (a.startsWith('zoom=')) await page.evaluate((z) => { const cy = window.ccdagView.cy; const bb = cy.elements().boundingBox(); cy.viewport({ zoom: z, pan: { x: 10 - bb.x1 * z, y: 10 - bb.y1 * z } }); }, Number(a.slice(5)));
  else if (a.startsWith('pany=')) await page.evaluate((y) => { const cy = window.ccdagView.cy; cy.panBy({ x: 0, y: -y }); }, Number(a.slice(5)));
  else if (a.startsWith('z=')) await page.evaluate((z) => { const cy = window.ccdagView.cy; cy.zoom({ level: z, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } }); }, Number(a.slice(2)));
  else if (a.startsWith('collapse=')) await page.evaluate((l) => window.ccdagView.setLaneCollapsed(l, true), a.slice(9));
  else await page.evaluate((id) => window.ccdagView.select(id), a);
}
const out = screenshotPath(`shot-${which.replace(/\W+/g, '_').slice(-20)}-${scheme}.png`);
await page.screenshot({ path: out });
console.log(out, await page.evaluate(() => window.ccdagView.stats), problems);
await ctx.close();
