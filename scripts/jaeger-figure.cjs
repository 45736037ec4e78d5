// Takes docs/img's pictures of a session as a trace in Jaeger's UI, for scripts/jaeger-figure.sh (which
// starts Jaeger with a jaeger-ui build and exports the session): the timeline zoomed on the first call
// that spawned a sub-agent, every sub-agent under its call, one sub-agent's spans open; then one chat
// span's details (its gen_ai attributes). playwright-core comes from NODE_PATH (installed outside the
// repository by the shell script), Chromium is Debian's.
//
// usage: node scripts/jaeger-figure.cjs QUERY_URL TRACE_ID OUT_TIMELINE.png OUT_SPAN.png
'use strict';
const { chromium } = require('playwright-core');

const [base, traceID, outTimeline, outSpan] = process.argv.slice(2);
if (!outSpan) {
  console.error('usage: node scripts/jaeger-figure.cjs QUERY_URL TRACE_ID OUT_TIMELINE.png OUT_SPAN.png');
  process.exit(2);
}

// The flags Chromium needs on a machine with a closed network (.ci/install.d/20-chromium.sh).
const flags = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// zoom returns the part of the trace to show, as fractions of its duration: from its first span under
// the root (a session's first record may be much older than its first message) to the end of the last
// call that spawned a sub-agent near the first one, so that the calls and sub-agents are wide enough
// to read.
async function zoom() {
  const res = await fetch(`${base}/api/traces/${traceID}`);
  if (!res.ok) throw new Error(`GET /api/traces/${traceID}: ${res.status}`);
  const spans = (await res.json()).data[0].spans;
  const start = Math.min(...spans.map((s) => s.startTime));
  const end = Math.max(...spans.map((s) => s.startTime + s.duration));
  const byID = new Map(spans.map((s) => [s.spanID, s]));
  const spawners = spans
    .filter((s) => s.operationName.startsWith('invoke_agent') && s.references.length > 0)
    .map((s) => byID.get(s.references[0].spanID))
    .filter(Boolean)
    .sort((a, b) => a.startTime - b.startTime);
  if (spawners.length === 0) throw new Error('the trace has no sub-agent: export a session with one');
  // The calls that start within the first spawning call's neighbourhood (the parallel ones).
  const first = spawners[0];
  const near = spawners.filter((s) => s.startTime <= first.startTime + 4 * first.duration);
  const last = Math.max(...near.map((s) => s.startTime + s.duration));
  const first0 = Math.min(...spans.filter((s) => s.references.length > 0).map((s) => s.startTime));
  // The sub-agent to open: the last spawning call's child. With every sub-agent collapsed, the
  // invoke_agent rows (the root first) stand in the order their spans start.
  const agents = spans.filter((s) => s.operationName.startsWith('invoke_agent'))
    .sort((a, b) => a.startTime - b.startTime);
  const open = agents.findIndex((s) => s.references.some((r) => r.spanID === near[near.length - 1].spanID));
  const margin = (last - first0) * 0.03;
  return {
    from: Math.max(0, (first0 - margin - start) / (end - start)),
    to: Math.min(1, (last + margin - start) / (end - start)),
    open: Math.max(open, 1),
  };
}

(async () => {
  const view = await zoom();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: flags,
  });
  try {
    // Narrow enough that a README column (about 880 pixels) shrinks the text little.
    const size = { width: 1200, height: 860 };
    const page = await browser.newPage({ viewport: size });
    await page.goto(`${base}/trace/${traceID}`);
    await page.waitForSelector('.span-row');

    // Zoom: drag across the mini-map above the timeline.
    const graph = await page.locator('.ViewingLayer--graph').boundingBox();
    const y = graph.y + graph.height / 2;
    await page.mouse.move(graph.x + graph.width * view.from, y);
    await page.mouse.down();
    await page.mouse.move(graph.x + graph.width * view.to, y, { steps: 8 });
    await page.mouse.up();

    // A wider name column: operation names such as "chat claude-opus-4-5-20251101" whole.
    const resizer = await page.locator('.TimelineHeaderRow .VerticalResizer--dragger').first().boundingBox();
    const ry = resizer.y + resizer.height / 2;
    await page.mouse.move(resizer.x + resizer.width / 2, ry);
    await page.mouse.down();
    await page.mouse.move(size.width * 0.33, ry, { steps: 8 });
    await page.mouse.up();

    // Collapse all, open two levels (the session's spans, each sub-agent under its call), then the
    // last sub-agent of the group, so one sub-agent's own spans show under it.
    const collapser = page.locator('.TimelineCollapser .TimelineCollapser--btn-size');
    const n = await collapser.count();
    if (n < 4) throw new Error(`timeline collapser: ${n} buttons, want 4`);
    await collapser.nth(3).click(); // Collapse All
    await collapser.nth(0).click(); // Expand +1
    await collapser.nth(0).click(); // Expand +1
    const subAgents = page.locator('.span-row', { hasText: 'invoke_agent' });
    const count = await subAgents.count();
    if (count < 2) throw new Error(`${count} invoke_agent rows after expanding two levels`);
    await subAgents.nth(Math.min(count - 1, view.open)).locator('.SpanTreeOffset.is-parent').click();
    await page.mouse.move(0, 0);
    await page.waitForTimeout(500);
    await page.screenshot({ path: outTimeline });

    // A chat span's details: its row opened, the Tags (span attributes) table shown, in a window tall
    // enough for all of it without scrolling (a scrolled row hides under the sticky header).
    await page.setViewportSize({ width: size.width, height: 1600 });
    const chat = page.locator('.span-row', { hasText: 'chat ' }).nth(1);
    await chat.locator('.span-name').click();
    const detail = page.locator('.detail-row').first();
    await detail.waitFor();
    await detail.locator('.AccordianKeyValues--header').first().click(); // Tags: the table, not a summary
    await page.mouse.move(0, 0); // no hover buttons over the table
    await page.waitForTimeout(300);
    const box = await detail.boundingBox();
    const row = await chat.boundingBox();
    const top = Math.max(0, row.y - 4);
    await page.screenshot({
      path: outSpan,
      clip: { x: 0, y: top, width: size.width, height: box.y + box.height - top + 4 },
    });
  } finally {
    await browser.close();
  }
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
