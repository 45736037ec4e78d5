// Renders Mermaid files in Chromium with Mermaid itself and prints, per file, the text each node
// shows, and whether any label became markup (an element other than Mermaid's own).
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const mermaidJS = require.resolve('mermaid/dist/mermaid.min.js');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage();
await page.setContent('<!doctype html><html><body><div id="out"></div></body></html>');
await page.addScriptTag({ path: mermaidJS });
await page.evaluate(() => window.mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', flowchart: { htmlLabels: true } }));
let failed = 0;
for (const f of process.argv.slice(2)) {
  const text = fs.readFileSync(f, 'utf8');
  const res = await page.evaluate(async (text) => {
    try {
      const { svg } = await window.mermaid.render('g' + Math.random().toString(36).slice(2), text);
      const host = document.getElementById('out');
      host.innerHTML = svg;
      const labels = {};
      const markup = [];
      for (const g of host.querySelectorAll('g.node')) {
        const m = /flowchart-(n\d+)-/.exec(g.id);
        if (!m) continue;
        const lab = g.querySelector('.nodeLabel') || g.querySelector('.label');
        labels[m[1]] = lab ? lab.textContent : null;
        if (lab) for (const el of lab.querySelectorAll('*')) if (!['P', 'SPAN'].includes(el.tagName.toUpperCase())) markup.push(m[1] + ':' + el.tagName);
      }
      const clusters = [];
      for (const c of host.querySelectorAll('g.cluster')) {
        const lab = c.querySelector('.nodeLabel') || c.querySelector('.cluster-label');
        clusters.push(lab ? lab.textContent : null);
      }
      const scripts = host.querySelectorAll('script').length;
      return { ok: true, labels, clusters, markup, scripts };
    } catch (e) { return { ok: false, error: String(e && e.message || e) }; }
  }, text);
  if (!res.ok) failed++;
  console.log(JSON.stringify({ file: f, ...res }));
}
await browser.close();
process.exit(failed ? 1 : 0);
