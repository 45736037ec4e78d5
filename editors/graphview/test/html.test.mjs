// Browser tests of the workflow-graph viewer: the HTML page graphhtml.Render writes (what
// `ccdag graph --format html` prints), opened in Debian's Chromium through playwright-core.
//   node --test test/
// Screenshots go to test-artifacts/ at the repository root.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sampleGraph, xssGraph, bigGraph, lanesGraph, XSS_STRINGS } from './graphs.mjs';
import { here, repo, htmlFor, launch, open, screenshotPath, nodePoint, work } from './browser.mjs';

// The margin a loaded machine gets on wall-clock bounds, as the editors' e2e have it: the tests
// print each figure; the bounds catch a regression of several times, not the target itself.
const SLOWDOWN = Number(process.env.CCDAG_TEST_SLOWDOWN) || 3;

let ctx;
before(async () => {
  ctx = await launch();
});
after(async () => {
  await ctx?.close();
});

function clean(problems) {
  assert.deepEqual(problems.pageErrors, [], 'uncaught page errors');
  assert.deepEqual(problems.console, [], 'console errors or warnings');
  assert.deepEqual(problems.dialogs, [], 'dialogs were opened');
  assert.deepEqual(problems.requests, [], 'the page fetched something');
}

/** Facts about what is drawn, read from cytoscape. */
async function drawn(page) {
  return page.evaluate(() => {
    const cy = window.ccdagView.cy;
    const shown = (e) => e.style('display') !== 'none' && (!e.isEdge() || (shown(e.source()) && shown(e.target())));
    const vis = (sel) => cy.nodes(sel).filter(shown);
    const box = (n) => {
      const b = n.boundingBox({ includeLabels: false, includeOverlays: false });
      return { id: n.data('ref') || n.id(), lane: n.data('lane'), x1: b.x1, x2: b.x2, y1: b.y1, y2: b.y2 };
    };
    return {
      nodes: vis('.gv-node').map(box),
      lanes: vis('.gv-lane').map(box),
      heads: vis('.gv-head').map((n) => ({ lane: n.data('lane'), text: n.data('display') })),
      edges: cy.edges().filter(shown).map((e) => ({ s: e.source().data('ref'), t: e.target().data('ref'), kind: e.data('kind') })),
      stats: window.ccdagView.stats,
    };
  });
}

function assertNoOverlap(nodes) {
  const sorted = nodes.slice().sort((a, b) => a.x1 - b.x1);
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length && sorted[j].x1 < sorted[i].x2; j++) {
      const a = sorted[i];
      const b = sorted[j];
      const overlap = a.x1 < b.x2 - 1 && b.x1 < a.x2 - 1 && a.y1 < b.y2 - 1 && b.y1 < a.y2 - 1;
      assert.ok(!overlap, `nodes ${a.id} and ${b.id} overlap`);
    }
  }
}

const overlaps = (a, b) => a.x1 < b.x2 - 1 && b.x1 < a.x2 - 1 && a.y1 < b.y2 - 1 && b.y1 < a.y2 - 1;

/** Each node inside its own lane's box; no agent lane's box over another lane's node or over
 *  another agent lane's box (an agent's box may lie on the main lane's, beside its nodes). */
function assertLanesClear(d) {
  const laneBox = Object.fromEntries(d.lanes.map((l) => [l.lane, l]));
  for (const n of d.nodes) {
    const l = laneBox[n.lane];
    assert.ok(l && n.x1 >= l.x1 && n.x2 <= l.x2 && n.y1 >= l.y1 && n.y2 <= l.y2, `node ${n.id} lies inside lane ${n.lane}`);
  }
  const agents = d.lanes.filter((l) => l.lane !== 'main');
  for (const a of agents) {
    for (const n of d.nodes) if (n.lane !== a.lane) assert.ok(!overlaps(a, n), `lane ${a.lane} covers node ${n.id} of ${n.lane}`);
    for (const b of agents) if (a !== b) assert.ok(!overlaps(a, b), `lanes ${a.lane} and ${b.lane} overlap`);
  }
}

/** After Fit: every shown node of every lane inside the view, and the graph filling the view
 *  along one axis (a Fit that shows a part, or leaves most of the canvas empty, fails). */
async function assertFitWhole(page, what) {
  const f = await page.evaluate(() => {
    const cy = window.ccdagView.cy;
    const ext = cy.extent();
    const out = [];
    const lanes = {};
    cy.nodes('.gv-node').filter((n) => !n.hasClass('gv-hidden')).forEach((n) => {
      const b = n.boundingBox({ includeLabels: false });
      const lane = String(n.data('lane'));
      lanes[lane] = (lanes[lane] || 0) + 1;
      if (b.x1 < ext.x1 - 1 || b.x2 > ext.x2 + 1 || b.y1 < ext.y1 - 1 || b.y2 > ext.y2 + 1) out.push(`${n.data('ref')} (${lane})`);
    });
    const bb = cy.elements().filter((e) => !e.hasClass('gv-hidden')).renderedBoundingBox({ includeLabels: false });
    return { out, lanes, fillW: bb.w / cy.width(), fillH: bb.h / cy.height(), zoom: cy.zoom() };
  });
  assert.deepEqual(f.out.slice(0, 5), [], `${what}: ${f.out.length} nodes outside the view after Fit (zoom ${f.zoom})`);
  assert.ok(f.fillW >= 0.85 || f.fillH >= 0.85, `${what}: the graph fills the view along one axis after Fit: ${JSON.stringify({ fillW: f.fillW, fillH: f.fillH, zoom: f.zoom })}`);
  return f;
}

async function clickNode(page, id) {
  const p = await nodePoint(page, id);
  assert.ok(p, `node ${id} is drawn`);
  await page.mouse.click(p.x, p.y);
}

async function field(page, name) {
  return page.evaluate((n) => {
    const dd = document.querySelector(`.gv-details dd[data-field="${n}"]`);
    return dd ? dd.textContent : null;
  }, name);
}

test('sample graph: lanes, nodes, edges, details on click, collapse, screenshots', async () => {
  const graph = sampleGraph();
  const { page, problems } = await open(ctx, htmlFor(graph, 'sample', 'sample session'));
  const d = await drawn(page);

  assert.equal(d.nodes.length, graph.nodes.length, 'every node is drawn');
  assert.equal(d.edges.length, graph.edges.length, 'every edge is drawn');
  assert.deepEqual(d.lanes.map((l) => l.lane), ['main', 'agent-80f146b4'], 'one lane box per lane, main first');
  // A lane is named by what the agent is and what it was asked (its call's description), not its id.
  assert.equal(d.heads.find((h) => h.lane === 'agent-80f146b4').text, '▾  Explore · Map the callers of auth.CheckExpiry');
  assertNoOverlap(d.nodes);

  // Lanes are columns: every node inside its lane's box, the agent's right of main's nodes.
  assertLanesClear(d);
  const agentBox = d.lanes.find((l) => l.lane === 'agent-80f146b4');
  assert.ok(d.nodes.filter((n) => n.lane === 'main').every((n) => n.x2 < agentBox.x1 || n.y1 > agentBox.y2 || n.y2 < agentBox.y1), 'the agent lane is right of the main lane');
  assert.ok(agentBox.x1 > d.nodes.find((n) => n.id === 'n8').x2, 'the agent lane is right of the call that spawned it');
  // Time flows down: the agent starts below its spawning ACTION and ends before the result.
  const at = Object.fromEntries(d.nodes.map((n) => [n.id, n]));
  assert.ok(at.a1.y1 > at.n8.y2, 'the agent starts below the Task call');
  assert.ok(at.n9.y1 > at.a9.y2, "the Task's result comes after the agent's last node");
  for (const e of graph.edges.filter((x) => x.kind === 'flow' && graph.nodes.find((n) => n.id === x.source).lane === graph.nodes.find((n) => n.id === x.target).lane)) {
    assert.ok(at[e.target].y1 > at[e.source].y2, `flow ${e.source} -> ${e.target} points down`);
  }

  // Kinds by shape and colour; failure red; fork/join marked; abandoned branch dimmed.
  const styles = await page.evaluate(() => {
    const cy = window.ccdagView.cy;
    const s = (id) => {
      const n = cy.getElementById('n:' + id);
      return { shape: n.style('shape'), fill: n.style('background-color'), border: n.style('border-color'), borderStyle: n.style('border-style'), opacity: Number(n.style('opacity')), classes: n.classes() };
    };
    const e = (kind) => {
      const x = cy.edges(`[kind = "${kind}"]`)[0];
      return { style: x.style('line-style'), width: parseFloat(x.style('width')), color: x.style('line-color') };
    };
    return {
      user: s('n1'), thought: s('n2'), action: s('n3'), obs: s('n5'), fail: s('n12'), agentFail: s('a6'), system: s('n25'), join: s('n7'), inactive: s('x2'),
      flow: e('flow'), tool: e('tool'), spawn: e('spawn'), ret: e('return'), compact: e('compact'),
    };
  });
  const shapes = new Set([styles.user.shape, styles.thought.shape, styles.action.shape, styles.obs.shape, styles.system.shape]);
  assert.equal(shapes.size >= 4, true, `kinds have distinct shapes: ${[...shapes]}`);
  const fills = new Set([styles.user.fill, styles.thought.fill, styles.action.fill, styles.obs.fill, styles.system.fill]);
  assert.equal(fills.size, 5, 'kinds have distinct colours');
  assert.match(styles.fail.border, /rgb\(220,\s*38,\s*38\)/, 'a failure is red');
  assert.equal(styles.fail.border, styles.agentFail.border);
  assert.ok(styles.thought.classes.includes('fork') && styles.join.classes.includes('join'), 'fork and join marked');
  assert.equal(styles.thought.borderStyle, 'double');
  assert.ok(styles.inactive.opacity < 0.5 && styles.user.opacity === 1, 'the abandoned branch is dimmed');
  assert.equal(styles.flow.style, 'solid');
  assert.equal(styles.tool.style, 'dashed');
  assert.equal(styles.compact.style, 'dotted');
  assert.ok(styles.spawn.width >= 3 && styles.ret.width >= 3 && styles.spawn.color !== styles.flow.color && styles.ret.color !== styles.spawn.color, 'spawn/return bold and coloured');

  // The toolbar and legend.
  const ui = await page.evaluate(() => ({
    chips: [...document.querySelectorAll('.gv-lane-chip')].map((b) => b.textContent),
    legend: document.querySelector('.gv-legend').textContent,
    stats: document.querySelector('.gv-stats').textContent,
    title: document.querySelector('.gv-title').textContent,
  }));
  assert.deepEqual(ui.chips, ['main', 'Explore · Map the calle…']);
  for (const word of ['User input', 'Thought', 'Action', 'Observation', 'Failure', 'System', 'Fork / join', 'Abandoned branch', 'Flow', 'Tool result', 'Spawn agent', 'Agent returns', 'Compaction']) {
    assert.ok(ui.legend.includes(word), `legend names ${word}`);
  }
  assert.match(ui.stats, /42 nodes · 2 lanes · layout \d+ ms/);
  assert.equal(ui.title, 'Session 3f1c2a9e-5b7…');

  // Clicking a node shows its fields.
  await clickNode(page, 'n12');
  await page.waitForFunction(() => document.querySelector('.gv-details .gv-kind-badge'));
  assert.equal(await field(page, 'Kind'), 'OBSERVATION');
  assert.equal(await field(page, 'Status'), 'failure');
  assert.equal(await field(page, 'Tool'), 'Edit');
  assert.equal(await field(page, 'Tool use id'), 'toolu_03Edit');
  assert.equal(await field(page, 'Lane'), 'main');
  assert.equal(await field(page, 'Duration'), '7 ms (7 ms)');
  assert.match(await field(page, 'Location'), /^3f1c2a9e-5b7d-4d2b-9a51-6f0e7c8b1d2a\.jsonl:\d+:1$/);
  assert.match(await field(page, 'UUID'), /^n1200000-/);
  assert.ok(await field(page, 'Timestamp'));
  assert.equal(await page.locator('.gv-details .gv-node-text').textContent(), 'String to replace not found in file.');
  assert.equal(await page.locator('.gv-details .gv-reveal').count(), 0, 'no "Reveal in editor" without onReveal');
  await page.screenshot({ path: screenshotPath('graph-html-details.png') });
  // Hovering shows the whole label; Escape clears the selection.
  const hp = await nodePoint(page, 'n20');
  await page.mouse.move(hp.x, hp.y);
  await page.waitForFunction(() => !document.querySelector('.gv-tip').hidden);
  assert.equal(await page.locator('.gv-tip').textContent(), 'USER_INPUTGood. Also add a regression test that runs with TZ=America/New_York.');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => document.querySelector('.gv-details .gv-empty'));
  await page.mouse.move(5, 300);

  await clickNode(page, 'n7');
  await page.waitForFunction(() => document.querySelector('.gv-details dd[data-field="Model"]'));
  assert.equal(await field(page, 'Model'), 'claude-sonnet-4-5-20250929');
  assert.match(await field(page, 'Tokens'), /^[\d,]+ in · [\d,]+ out$/);
  // Parents and children are links.
  await page.locator('.gv-details .gv-links button', { hasText: 'Map the callers' }).click();
  assert.equal(await field(page, 'Node id'), 'n8');

  // Clicking the agent lane's header collapses it; clicking again expands it.
  const head = async () =>
    page.evaluate(() => {
      const cy = window.ccdagView.cy;
      const h = cy.getElementById('head:agent-80f146b4');
      cy.center(h);
      const p = h.renderedPosition();
      const r = cy.container().getBoundingClientRect();
      return { x: r.left + p.x, y: r.top + p.y };
    });
  let p = await head();
  await page.mouse.click(p.x, p.y);
  let c = await drawn(page);
  assert.equal(c.nodes.filter((n) => n.lane === 'agent-80f146b4').length, 0, 'collapsed lane hides its nodes');
  assert.equal(c.nodes.length, graph.nodes.length - 9);
  assert.ok(await page.evaluate(() => window.ccdagView.cy.getElementById('box:agent-80f146b4').visible()), 'a stand-in box shows the collapsed lane');
  assert.ok(c.edges.some((e) => e.kind === 'spawn') && c.edges.some((e) => e.kind === 'return'), 'spawn and return lead to the stand-in');
  assert.equal(await page.locator('.gv-lane-chip[aria-pressed="true"]').count(), 1);
  await page.screenshot({ path: screenshotPath('graph-html-collapsed.png') });
  p = await head();
  await page.mouse.click(p.x, p.y);
  c = await drawn(page);
  assert.equal(c.nodes.length, graph.nodes.length, 'expanded again');
  assertNoOverlap(c.nodes);
  // The toolbar's toggle does the same for every agent.
  await page.locator('.gv-agents').click();
  assert.equal((await drawn(page)).nodes.length, graph.nodes.length - 9);
  assert.equal(await page.locator('.gv-agents').textContent(), 'Expand agents');
  await page.locator('.gv-agents').click();
  assert.equal((await drawn(page)).nodes.length, graph.nodes.length);
  // A lane chip goes to its lane, wherever the view was, and folds nothing (the header does that).
  await page.evaluate(() => { window.ccdagView.cy.viewport({ zoom: 1, pan: { x: 4000, y: -4000 } }); });
  await page.locator('.gv-lane-chip.gv-agent').first().click();
  const there = await page.evaluate(() => {
    const cy = window.ccdagView.cy;
    const ext = cy.extent();
    const lane = cy.nodes('.gv-node').filter((n) => n.data('lane') === 'agent-80f146b4' && !n.hasClass('gv-hidden'));
    const inView = lane.filter((n) => { const p = n.position(); return p.x >= ext.x1 && p.x <= ext.x2 && p.y >= ext.y1 && p.y <= ext.y2; });
    return { lane: lane.length, inView: inView.length, zoom: cy.zoom() };
  });
  assert.deepEqual([there.lane, there.inView], [9, 9], `the agent lane's 9 nodes in view (zoom ${there.zoom})`);
  assert.ok(there.zoom >= 0.5, 'at a readable zoom');
  assert.equal(await page.locator('.gv-lane-chip[aria-pressed="true"]').count(), 0, 'the chip folded nothing');

  // ⤢ shows everything (Fit fits the width when the whole would be too small to read); zoom buttons zoom.
  await page.locator('.gv-zoom button[title^="Fit the whole graph"]').click();
  const inView = await page.evaluate(() => {
    const cy = window.ccdagView.cy;
    const bb = cy.elements().renderedBoundingBox();
    return bb.x1 >= -1 && bb.y1 >= -1 && bb.x2 <= cy.width() + 1 && bb.y2 <= cy.height() + 1;
  });
  assert.ok(inView, 'Fit shows the whole graph');
  const z0 = await page.evaluate(() => window.ccdagView.cy.zoom());
  await page.getByRole('button', { name: 'Zoom in' }).click();
  assert.ok((await page.evaluate(() => window.ccdagView.cy.zoom())) > z0);

  // The screenshot a person would see first: the start of the session, the agent beside it.
  await page.evaluate(() => {
    window.ccdagView.select(null);
    const cy = window.ccdagView.cy;
    cy.fit(cy.elements(), 30);
    cy.zoom({ level: 0.82, renderedPosition: { x: cy.width() / 2, y: 0 } });
    cy.pan({ x: cy.pan().x, y: 10 - cy.elements().boundingBox().y1 * cy.zoom() });
  });
  await clickNode(page, 'a6');
  await page.evaluate(() => {
    const cy = window.ccdagView.cy;
    cy.pan({ x: cy.pan().x, y: 10 - cy.getElementById('n:n7').position('y') * cy.zoom() + 30 });
  });
  await page.screenshot({ path: screenshotPath('graph-html.png') });
  clean(problems);
  await page.close();
});

test('a collapsed sub-agent lane shows the problems of the nodes it hides', async () => {
  const graph = sampleGraph();
  graph.problems = [
    { node: 'a6', severity: 'error', count: 1, messages: ['the agent failed'] },
    { node: 'a3', severity: 'warning', count: 2, messages: ['w1', 'w2'] },
  ];
  const { page, problems } = await open(ctx, htmlFor(graph, 'sample-lane-problems', 'sample session'));
  await drawn(page);
  const box = () =>
    page.evaluate(() => {
      const b = window.ccdagView.cy.getElementById('box:agent-80f146b4');
      return { display: b.data('display'), error: b.hasClass('gv-problem-error'), warning: b.hasClass('gv-problem-warning'), visible: b.visible() };
    });
  await page.evaluate(() => window.ccdagView.setLaneCollapsed('agent-80f146b4', true));
  const collapsed = await box();
  assert.ok(collapsed.visible && collapsed.error && !collapsed.warning, `the box takes the worst severity: ${JSON.stringify(collapsed)}`);
  assert.match(collapsed.display, /^✖ 3 problems inside\n9 nodes collapsed/);
  await page.screenshot({ path: screenshotPath('graph-html-lane-collapsed-problem.png') });
  await page.evaluate(() => window.ccdagView.setLaneCollapsed('agent-80f146b4', false));
  const expanded = await box();
  assert.ok(!expanded.visible && !expanded.error, `expanded: ${JSON.stringify(expanded)}`);
  const nodeMarked = await page.evaluate(() => window.ccdagView.cy.getElementById('n:a6').hasClass('gv-problem-error'));
  assert.ok(nodeMarked, 'expanded, the node carries its problem again');
  clean(problems);
  await page.close();
});

test('the viewer source never builds HTML from strings', () => {
  const src = join(here, '..', 'src');
  const files = execFileSync('find', [src, '-name', '*.ts'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  assert.ok(files.length > 5);
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    for (const bad of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'createContextualFragment', 'DOMParser', 'eval(', 'new Function', "setAttribute('on", 'setAttribute("on', '.href =', '.src =']) {
      assert.ok(!text.includes(bad), `${f} uses ${bad}`);
    }
  }
});

test('the details pane takes at most a third of the view and starts folded under 600 px', async () => {
  for (const [width, folded] of [[560, true], [900, false], [1500, false]]) {
    const narrow = await launch({ viewport: { width, height: 700 } });
    try {
      const { page, problems } = await open(narrow, htmlFor(sampleGraph(), `sample-${width}`, 'sample'));
      const d = await page.evaluate(() => ({
        hidden: document.querySelector('.gv-details').hidden,
        pressed: document.querySelector('.gv-details-toggle').getAttribute('aria-pressed'),
        w: document.querySelector('.gv-details').getBoundingClientRect().width,
        root: document.querySelector('.ccdag-gv').getBoundingClientRect().width,
      }));
      assert.equal(d.hidden, folded, `${width} px: folded ${folded}`);
      assert.equal(d.pressed, String(!folded));
      if (!folded) assert.ok(d.w <= Math.max(200, d.root / 3) + 1 && d.w <= 321, `${width} px: the pane is ${d.w} of ${d.root} px`);
      if (folded) {
        await page.locator('.gv-details-toggle').click(); // unfolds on demand
        assert.equal(await page.evaluate(() => document.querySelector('.gv-details').hidden), false);
        await page.screenshot({ path: screenshotPath('graph-html-narrow.png') });
      }
      clean(problems);
    } finally {
      await narrow.close();
    }
  }
});

test('half width (800 px), 16 lanes: two toolbar rows, a lane dropdown, lanes named by type and description, a search match at Fit zoomed to', async () => {
  const graph = lanesGraph(14, 30); // main, 14 agents, the prompt suggestion: 16 lanes
  assert.equal(graph.lanes.length, 16);
  const half = await launch({ viewport: { width: 800, height: 700 } });
  try {
    const { page, problems } = await open(half, htmlFor(graph, 'lanes-800', 'sixteen lanes'));
    const ui = await page.evaluate(() => {
      const root = document.querySelector('.ccdag-gv');
      const bar = document.querySelector('.gv-toolbar').getBoundingClientRect();
      const shown = [...document.querySelectorAll('.gv-toolbar > *')].filter((e) => getComputedStyle(e).display !== 'none' && e.getBoundingClientRect().width > 0);
      const sel = document.querySelector('.gv-lane-select');
      return {
        narrow: root.classList.contains('gv-narrow'),
        chipsShown: getComputedStyle(document.querySelector('.gv-lanes')).display !== 'none',
        selectShown: getComputedStyle(sel).display !== 'none',
        options: [...sel.options].map((o) => ({ value: o.value, text: o.textContent })),
        search: document.querySelector('.gv-search').getBoundingClientRect().width,
        rows: new Set(shown.map((e) => Math.round(e.getBoundingClientRect().top))).size,
        clipped: shown.filter((e) => { const r = e.getBoundingClientRect(); return r.right > bar.right + 0.5 || r.bottom > bar.bottom + 0.5; }).map((e) => e.className),
        heads: window.ccdagView.cy.nodes('.gv-head').map((n) => [n.data('lane'), n.data('display').replace(/^[▾▸]\s+/, '')]),
      };
    });
    assert.ok(ui.narrow && !ui.chipsShown && ui.selectShown, `under 900 px the lanes are a dropdown: ${JSON.stringify(ui)}`);
    assert.deepEqual(ui.clipped, [], 'nothing in the toolbar is cut off');
    assert.ok(ui.search >= 150, `the search box is ${ui.search} px wide (it was 70)`);
    assert.equal(ui.rows >= 2, true, `two rows: ${ui.rows}`);
    const lanesListed = ui.options.filter((o) => o.value);
    assert.deepEqual(lanesListed.map((o) => o.value), graph.lanes.map((l) => l.id), 'every lane is in the dropdown, main first');
    // Named by agent type and description; two that read the same told apart by their ids; Claude
    // Code's prompt suggestion by its kind, never `aprompt_suggestion-…`.
    const heads = new Map(ui.heads);
    const title = (id) => heads.get(id);
    assert.equal(title(graph.lanes[1].id), `Explore · Find every caller of CheckExpiry · ${graph.lanes[1].agentId.slice(0, 8)}`);
    assert.equal(title(graph.lanes[2].id), `Explore · Find every caller of CheckExpiry · ${graph.lanes[2].agentId.slice(0, 8)}`);
    assert.equal(title(graph.lanes[3].id), 'general-purpose · Design the migration plan (part 3)');
    assert.equal(title('agent-aprompt_suggestion-debb9a'), 'prompt_suggestion · debb9a');
    for (const o of lanesListed) {
      assert.ok(!o.text.includes('aprompt_') && !/^agent-/.test(o.text), `a lane named by its id: ${o.text}`);
      assert.ok(o.text.startsWith(heads.get(o.value).slice(0, 40)), `the option reads as the lane's header: ${o.text} / ${heads.get(o.value)}`);
    }
    // A header cuts a long name; hovering it shows the whole.
    const head = await page.evaluate((id) => {
      const cy = window.ccdagView.cy;
      const h = cy.getElementById('head:' + id);
      const p = h.renderedPosition();
      const r = cy.container().getBoundingClientRect();
      return { x: r.left + p.x, y: r.top + p.y, inView: p.x > 0 && p.y > 0 && p.x < cy.width() && p.y < cy.height() };
    }, graph.lanes[1].id);
    assert.ok(head.inView, 'the first agent\'s header is in the first view');
    await page.mouse.move(head.x, head.y);
    await page.waitForFunction(() => !document.querySelector('.gv-tip').hidden);
    const inLane = graph.nodes.filter((n) => n.lane === graph.lanes[1].id).length;
    assert.equal(await page.locator('.gv-tip').textContent(), `Sub-agent${title(graph.lanes[1].id)} · ${inLane} nodes`);
    await page.screenshot({ path: screenshotPath('graph-html-800-lanes.png') });
    await page.mouse.move(1, 1);
    // The dropdown goes to the lane chosen, and offers the choice again.
    const target = graph.lanes[9].id;
    await page.locator('.gv-lane-select').selectOption(target);
    const went = await page.evaluate((id) => {
      const cy = window.ccdagView.cy;
      const ext = cy.extent();
      const inView = cy.nodes('.gv-node').filter((n) => n.data('lane') === id && n.position().x > ext.x1 && n.position().x < ext.x2 && n.position().y > ext.y1 && n.position().y < ext.y2).length;
      return { inView, value: document.querySelector('.gv-lane-select').value, zoom: cy.zoom() };
    }, target);
    assert.ok(went.inView > 0 && went.zoom >= 0.5, `the lane chosen is in view, readable: ${JSON.stringify(went)}`);
    assert.equal(went.value, '', 'the dropdown shows its prompt again');
    await page.screenshot({ path: screenshotPath('graph-html-800-lane-chosen.png') });
    // Fit makes this session a few hundredths; a search match then is zoomed to, not centred as a dot.
    await page.locator('.gv-fit').click();
    const fitZoom = await page.evaluate(() => window.ccdagView.cy.zoom());
    assert.ok(fitZoom < 0.1, `Fit's zoom ${fitZoom}`);
    await page.locator('.gv-search').fill('Needle');
    await page.locator('.gv-search').press('Enter');
    const found = await page.evaluate(() => {
      const cy = window.ccdagView.cy;
      const n = cy.nodes('.gv-node:selected');
      const p = n.renderedPosition();
      return { count: n.length, label: n.data('text'), zoom: cy.zoom(), x: p.x, y: p.y, w: cy.width(), h: cy.height() };
    });
    console.log(`# 800 px: Fit at zoom ${fitZoom.toFixed(3)}, the match shown at ${found.zoom.toFixed(2)}`);
    assert.equal(found.count, 1);
    assert.match(found.label, /^Needle/);
    assert.ok(found.zoom >= 0.5, `the match is shown readable: zoom ${found.zoom}`);
    assert.ok(found.x > 0 && found.x < found.w && found.y > 0 && found.y < found.h, `the match is in view: ${JSON.stringify(found)}`);
    await page.screenshot({ path: screenshotPath('graph-html-800-search.png') });
    // Wide again: one row, the chips.
    await page.setViewportSize({ width: 1500, height: 700 });
    await page.waitForFunction(() => !document.querySelector('.ccdag-gv').classList.contains('gv-narrow'));
    assert.equal(await page.locator('.gv-lane-chip').count(), 16);
    assert.equal(await page.locator('.gv-lane-select').isVisible(), false);
    clean(problems);
  } finally {
    await half.close();
  }
});

test('dark theme follows prefers-color-scheme', async () => {
  const dark = await launch({ colorScheme: 'dark' });
  try {
    const { page, problems } = await open(dark, htmlFor(sampleGraph(), 'sample-dark', 'sample'));
    assert.ok(await page.evaluate(() => document.querySelector('.ccdag-gv').classList.contains('gv-dark')));
    const bg = await page.evaluate(() => getComputedStyle(document.querySelector('.gv-canvas')).backgroundColor);
    assert.equal(bg, 'rgb(13, 17, 23)');
    await clickNode(page, 'n9');
    await page.evaluate(() => {
      const cy = window.ccdagView.cy;
      cy.pan({ x: cy.pan().x, y: 10 - cy.getElementById('n:n7').position('y') * cy.zoom() + 30 });
    });
    await page.screenshot({ path: screenshotPath('graph-html-dark.png') });
    clean(problems);
  } finally {
    await dark.close();
  }
});

test('hostile log text is shown literally and never runs', async () => {
  const graph = xssGraph();
  const { page, problems } = await open(ctx, htmlFor(graph, 'xss', XSS_STRINGS[0]));
  const d = await drawn(page);
  assert.equal(d.nodes.length, graph.nodes.length, 'every node is drawn');

  // Click every hostile node; the details panel shows its text as text.
  for (let i = 0; i < XSS_STRINGS.length; i++) {
    const n = graph.nodes[i];
    await clickNode(page, n.id);
    await page.waitForFunction((id) => document.querySelector('.gv-details dd[data-field="Node id"]')?.textContent === id, n.id);
    const shown = await page.locator('.gv-details .gv-node-text').textContent();
    assert.equal(shown, XSS_STRINGS[i], `node ${n.id}'s label is shown literally`);
    assert.equal(await field(page, 'Model'), n.model);
  }
  const tp = await nodePoint(page, 'n1');
  await page.mouse.move(tp.x, tp.y);
  await page.waitForFunction(() => !document.querySelector('.gv-tip').hidden);
  assert.equal(await page.locator('.gv-tip').textContent(), 'USER_INPUT' + XSS_STRINGS[0], 'the tooltip shows the text literally');
  await page.mouse.move(5, 300);
  // What a person sees on the canvas is the literal text too.
  const label = await page.evaluate(() => window.ccdagView.cy.getElementById('n:n2').data('display'));
  assert.ok(label.replace(/\n/g, ' ').startsWith('<img src=x'), `canvas label is literal: ${label}`);

  const dom = await page.evaluate(() => ({
    pwned: window.__pwned,
    imgs: document.querySelectorAll('img').length,
    anchors: document.querySelectorAll('a').length,
    scripts: document.scripts.length,
    handlers: [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
    title: document.title,
    toolbarTitle: document.querySelector('.gv-title').getAttribute('title'),
    chips: [...document.querySelectorAll('.gv-lane-chip')].map((b) => b.textContent).join(' | '),
  }));
  assert.equal(dom.pwned, undefined, 'no injected script ran');
  assert.equal(dom.imgs, 0, 'no <img> was created from log text');
  assert.equal(dom.anchors, 0, 'no link was created from log text');
  assert.equal(dom.scripts, 3, 'only the page’s own scripts');
  assert.equal(dom.handlers, 0, 'no inline event handler attribute anywhere');
  assert.ok(dom.title.startsWith(XSS_STRINGS[0]), 'the page title shows the text literally');
  assert.equal(dom.toolbarTitle, 'Session ' + graph.session.id);
  assert.ok(dom.chips.includes('</script><b>bold</b>'), `lane chips show the text literally: ${dom.chips}`);
  await page.screenshot({ path: screenshotPath('graph-html-xss.png') });
  clean(problems);
  await page.close();
});

test('viewer API: onReveal, update keeps the viewport, theme auto follows VS Code, destroy', async () => {
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.setContent('<!DOCTYPE html><html><body class="vscode-light" style="margin:0"><div id="c" style="width:1200px;height:800px"></div></body></html>');
  const sheet = await page.addStyleTag({ path: join(here, '..', '..', '..', 'internal', 'graphhtml', 'assets', 'graphview.css') });
  await sheet.evaluate((e) => { e.id = 'ccdag-graphview-style'; }); // as a host puts it in the page
  await page.addScriptTag({ path: join(here, '..', '..', '..', 'internal', 'graphhtml', 'assets', 'graphview.js') });
  const g = sampleGraph();
  const first = { ...g, nodes: g.nodes.slice(0, 20), edges: g.edges.filter((e) => g.nodes.slice(0, 20).some((n) => n.id === e.target) && g.nodes.slice(0, 20).some((n) => n.id === e.source)) };
  await page.evaluate((graph) => {
    window.revealed = [];
    window.view = CcdagGraph.render(document.getElementById('c'), graph, { theme: 'auto', onReveal: (n) => window.revealed.push(n.id) });
  }, first);
  assert.equal(await page.evaluate(() => document.querySelector('.ccdag-gv').classList.contains('gv-light')), true);
  assert.equal(await page.evaluate(() => window.view.cy.nodes('.gv-node').length), 20);

  // Reveal in editor calls onReveal with the SPEC node.
  await page.evaluate(() => window.view.select('n5'));
  await page.locator('.gv-reveal').click();
  assert.deepEqual(await page.evaluate(() => window.revealed), ['n5']);

  // The log grows: update keeps zoom, pan, selection.
  const before = await page.evaluate(() => {
    const cy = window.view.cy;
    cy.viewport({ zoom: 1.3, pan: { x: -120, y: -340 } });
    return { zoom: cy.zoom(), pan: cy.pan() };
  });
  await page.evaluate((graph) => window.view.update(graph), g);
  const afterUpdate = await page.evaluate(() => ({ zoom: window.view.cy.zoom(), pan: window.view.cy.pan(), n: window.view.cy.nodes('.gv-node').length, selected: document.querySelector('.gv-details dd[data-field="Node id"]')?.textContent }));
  assert.deepEqual({ zoom: afterUpdate.zoom, pan: afterUpdate.pan }, before, 'viewport kept');
  assert.equal(afterUpdate.n, g.nodes.length, 'new nodes drawn');
  assert.equal(afterUpdate.selected, 'n5', 'selection kept');
  // Labels can change (a pending result arrives): the canvas follows.
  const changed = structuredClone(g);
  changed.nodes.find((n) => n.id === 'n29').label = 'Updated text';
  await page.evaluate((graph) => window.view.update(graph), changed);
  assert.equal(await page.evaluate(() => window.view.cy.getElementById('n:n29').data('display')), 'Updated text');

  // theme 'auto' follows VS Code's body class.
  const light = await page.evaluate(() => window.view.cy.getElementById('n:n1').style('background-color'));
  await page.evaluate(() => document.body.classList.replace('vscode-light', 'vscode-dark'));
  await page.waitForFunction(() => document.querySelector('.ccdag-gv').classList.contains('gv-dark'));
  const dark = await page.evaluate(() => window.view.cy.getElementById('n:n1').style('background-color'));
  assert.notEqual(dark, light, 'canvas restyled for dark');
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.gv-toolbar')).backgroundColor), 'rgb(21, 27, 35)');

  await page.evaluate(() => window.view.destroy());
  assert.equal(await page.evaluate(() => document.querySelectorAll('.ccdag-gv').length), 0, 'destroy removes the viewer');

  // Empty and malformed graphs draw without throwing.
  const odd = await page.evaluate(() => {
    const out = [];
    const graphs = [
      {},
      { nodes: [], edges: [], lanes: [] },
      { nodes: [null, 7, { id: 5 }, { id: 'a', kind: 'NEW_KIND', lane: 'nowhere' }, { id: 'b', kind: 'THOUGHT' }], edges: [null, { source: 'a' }, { source: 'a', target: 'zz' }, { source: 'a', target: 'b', kind: 'weird' }, { source: 'b', target: 'b' }, { source: 'b', target: 'a' }], lanes: [null, { id: 3 }] },
    ];
    for (const g of graphs) {
      const v = CcdagGraph.render(document.getElementById('c'), g, { theme: 'light' });
      out.push({ nodes: v.cy.nodes('.gv-node').length, edges: v.cy.edges().length, message: document.querySelector('.gv-error').hidden ? '' : document.querySelector('.gv-error').textContent });
      v.destroy();
    }
    return out;
  });
  assert.deepEqual(odd, [
    { nodes: 0, edges: 0, message: 'This session has no workflow nodes yet.' },
    { nodes: 0, edges: 0, message: 'This session has no workflow nodes yet.' },
    { nodes: 2, edges: 2, message: '' },
  ]);
  assert.deepEqual(errors, []);
  await page.close();
});

test('layout of a generated 500-node graph takes well under a second', async () => {
  const graph = bigGraph(500);
  const { page, problems } = await open(ctx, htmlFor(graph, 'big', 'generated'));
  const d = await drawn(page);
  assert.equal(d.nodes.length, graph.nodes.length);
  assert.equal(d.lanes.length, graph.lanes.length);
  assertNoOverlap(d.nodes);
  assertLanesClear(d);
  // The first layout, then four more (collapsing and expanding all agents lays out twice; the
  // second is the whole graph again). The best is the layout's cost on this machine, whatever
  // else is running.
  const times = [d.stats.layoutMs];
  for (let i = 0; i < 4; i++) {
    await page.locator('.gv-agents').click();
    await page.locator('.gv-agents').click();
    times.push(await page.evaluate(() => window.ccdagView.stats.layoutMs));
  }
  const best = Math.min(...times);
  console.log(`# layout of ${graph.nodes.length} nodes, ${graph.edges.length} edges, ${graph.lanes.length} lanes: ${times.map((t) => t.toFixed(0)).join(' / ')} ms (best ${best.toFixed(0)} ms)`);
  assert.ok(best < 1000 * SLOWDOWN, `layout took ${best.toFixed(0)} ms`);
  await page.screenshot({ path: screenshotPath('graph-html-500.png') });
  clean(problems);
  await page.close();
});

// The corpus of real logs is not in the repository: ../shared/corpus beside the clone, or $CCDAG_CORPUS
// (scripts/testcorpus.sh). Absent: SKIP naming it, or, under CI (which always has it), FAIL.
const CORPUS = resolve(process.env.CCDAG_CORPUS || join(repo, '..', 'shared', 'corpus'));
const SESSION = join(CORPUS, 'CH-chuan__CommuGraph', 'public', 'samples', 'claudecode', 'ab51623b-c26d-45f5-b98e-f9d0cfa17018.jsonl');
function corpusMissing(t, path, checks) {
  const msg = `missing ${path}; this test checks ${checks}`;
  if (process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0') assert.fail(`CI=${process.env.CI}, and CI always has ../shared: ${msg}`);
  t.skip(`SKIP: ${msg}`);
}

function cliHtml() {
  const bin = join(repo, 'bin', 'ccdag');
  if (!existsSync(bin)) return { skip: 'bin/ccdag is not built (make build)' };
  const out = join(work, 'real.html');
  const r = spawnSync(bin, ['graph', '--format', 'html', '-o', out, SESSION], { encoding: 'utf8' });
  if (r.status !== 0 || !existsSync(out)) return { skip: `bin/ccdag graph --format html failed: ${(r.stderr || '').trim()}` };
  return { file: out };
}

test('every corpus session draws cleanly', async (t) => {
  const corpus = CORPUS;
  if (!existsSync(corpus)) {
    corpusMissing(t, corpus, 'that every real session is drawn whole, without overlaps');
    return;
  }
  const bin = join(repo, 'bin', 'ccdag');
  if (!existsSync(bin)) {
    if (process.env.CI) assert.fail('bin/ccdag is not built');
    t.skip('SKIP: bin/ccdag is not built (make build)');
    return;
  }
  // Main logs: not agent-*.jsonl, not under subagents/.
  const mains = execFileSync('find', [corpus, '-name', '*.jsonl', '-not', '-name', 'agent-*', '-not', '-path', '*/subagents/*'], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .sort();
  assert.ok(mains.length >= 5, `found ${mains.length} sessions`);
  for (const [i, session] of mains.entries()) {
    const json = JSON.parse(execFileSync(bin, ['graph', '--format', 'json', session], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    const out = join(work, `corpus-${i}.html`);
    execFileSync(bin, ['graph', '--format', 'html', '-o', out, session]);
    const { page, problems } = await open(ctx, out);
    const d = await drawn(page);
    const name = session.slice(corpus.length + 1);
    assert.equal(d.nodes.length, json.nodes.length, `${name}: every node drawn`);
    assertNoOverlap(d.nodes);
    assertLanesClear(d);
    if (json.nodes.length === 0) assert.ok(await page.locator('.gv-error').isVisible(), `${name}: says it is empty`);
    console.log(`# ${name}: ${d.nodes.length} nodes, ${d.lanes.length} lanes, layout ${d.stats.layoutMs.toFixed(0)} ms`);
    clean(problems);
    await page.close();
  }
});

test('real session through bin/ccdag graph --format html', async (t) => {
  if (!existsSync(SESSION)) {
    corpusMissing(t, SESSION, 'the HTML page of a real session with four sub-agent lanes');
    return;
  }
  const r = cliHtml();
  if (r.skip) {
    if (process.env.CI) assert.fail(r.skip);
    t.skip('SKIP: ' + r.skip);
    return;
  }
  const { page, problems } = await open(ctx, r.file);
  const d = await drawn(page);
  const json = JSON.parse(execFileSync(join(repo, 'bin', 'ccdag'), ['graph', '--format', 'json', SESSION], { encoding: 'utf8', maxBuffer: 64 << 20 }));
  assert.equal(d.nodes.length, json.nodes.length, 'every node is drawn');
  assert.ok(d.nodes.length > 300, `${d.nodes.length} nodes`);
  assert.equal(d.lanes.length, 5, 'main and four sub-agents');
  assert.deepEqual(d.lanes.map((l) => l.lane)[0], 'main');
  assertNoOverlap(d.nodes);
  assertLanesClear(d);
  console.log(`# real session: ${d.nodes.length} nodes, ${d.edges.length} edges, ${d.lanes.length} lanes, layout ${d.stats.layoutMs.toFixed(0)} ms`);
  const times = [d.stats.layoutMs];
  for (let i = 0; i < 4; i++) {
    await page.locator('.gv-agents').click();
    await page.locator('.gv-agents').click();
    times.push(await page.evaluate(() => window.ccdagView.stats.layoutMs));
  }
  console.log(`# real session layouts: ${times.map((x) => x.toFixed(0)).join(' / ')} ms`);
  assert.ok(Math.min(...times) < 1000 * SLOWDOWN, `layout took ${times.map((x) => x.toFixed(0)).join(' / ')} ms`);
  await page.evaluate(() => { window.ccdagView.cy.viewport({ zoom: 1, pan: { x: 0, y: 0 } }); });
  await page.locator('.gv-fit').click();
  const fitted = await assertFitWhole(page, 'real session');
  assert.equal(Object.keys(fitted.lanes).length, 5, `Fit shows all five lanes' nodes: ${JSON.stringify(fitted.lanes)}`);
  await page.screenshot({ path: screenshotPath('graph-html-real-fit.png') });
  // Path labels keep their file name on the canvas: the server cuts a path in its middle
  // (internal/pathlabel), and two lines of a node cut it in its middle again, never at its end.
  const paths = await page.evaluate(() => window.ccdagView.cy.nodes('.gv-node').filter((n) => /^(Read|Edit|Write): \S*\//.test(String(n.data('text') || ''))).map((n) => ({ label: n.data('text'), display: n.data('display') })));
  assert.ok(paths.length > 50, `${paths.length} Read/Edit/Write labels with a path`);
  const long = paths.filter((p) => p.display.includes('…'));
  assert.ok(long.length > 0, 'some path labels are longer than a node holds');
  for (const p of paths) {
    const base = p.label.split('/').at(-1);
    assert.ok(p.display.replace(/\n/g, '').endsWith(base), `the label ${JSON.stringify(p.label)} shows its file name: ${JSON.stringify(p.display)}`);
  }
  console.log(`# real session: ${paths.length} path labels, ${long.length} cut in the middle, e.g. ${JSON.stringify(long[0]?.display)}`);
  await page.evaluate(() => { window.ccdagView.cy.zoom(1); }); // Fit left it too small to click a node
  await clickNode(page, json.lanes[1].parentNode);
  assert.equal(await field(page, 'Tool'), 'Task');
  await page.screenshot({ path: screenshotPath('graph-html-real-detail.png') });
  // An overview of the session's first part: main and the three Explore agents it ran at once.
  await page.evaluate(() => {
    const cy = window.ccdagView.cy;
    const bb = cy.elements().boundingBox();
    const z = 0.3;
    cy.viewport({ zoom: z, pan: { x: 12 - bb.x1 * z, y: 12 - bb.y1 * z } });
  });
  await page.screenshot({ path: screenshotPath('graph-html-real.png') });
  clean(problems);
  await page.close();
});

test('a big session: legend folded, Fit whole at 880 nodes, refit on resize, search, turn collapse, problem markers', async () => {
  const graph = bigGraph(880);
  const userNodes = graph.nodes.filter((n) => n.kind === 'USER_INPUT' && n.lane === 'main');
  assert.ok(userNodes.length >= 2, 'the generated graph has turns');
  graph.problems = [
    { node: graph.nodes[5].id, severity: 'error', count: 1, messages: ['orphan: <b>parent</b> missing'] },
    { node: graph.nodes[9].id, severity: 'warning', count: 2, messages: ['unmatched-tool-use: no result'] },
  ];
  const { page, problems } = await open(ctx, htmlFor(graph, 'big880', 'generated 880'));
  await drawn(page);
  assert.equal(await page.evaluate(() => document.querySelector('.gv-legend').hidden), true, 'legend folded by default');
  // Fit: the whole graph, every lane's nodes, in view however small (it showed 17 of 1 065
  // nodes of a real session, its sub-agent lanes nowhere); ⤢ does the same.
  await page.locator('.gv-fit').click();
  const fitted = await assertFitWhole(page, 'generated 880');
  assert.ok(Object.keys(fitted.lanes).length >= 3, `sub-agent lanes in the generated graph: ${JSON.stringify(fitted.lanes)}`);
  assert.equal(await page.evaluate(() => document.querySelector('.gv-fit-note').hidden), true, 'no note: nothing is left out');
  await page.screenshot({ path: screenshotPath('graph-html-880-fit.png') });
  await page.evaluate(() => { window.ccdagView.cy.zoom(1); });
  await page.locator('.gv-zoom button[title^="Fit the whole"]').click();
  await assertFitWhole(page, 'generated 880, ⤢');
  // Fit with a node selected (an editor's cursor) still shows the whole.
  const later = graph.nodes.filter((n) => n.lane === 'main')[400];
  await page.evaluate((id) => window.ccdagView.select(id), later.id);
  await page.evaluate(() => { window.ccdagView.cy.zoom(1); });
  await page.locator('.gv-fit').click();
  await assertFitWhole(page, 'generated 880, a node selected');
  await page.evaluate(() => window.ccdagView.select(null));
  await page.locator('.gv-fit').click();
  fitted.w = await page.evaluate(() => window.ccdagView.cy.width());
  // Resize: the view fits again.
  await page.setViewportSize({ width: 900, height: 700 });
  await page.waitForFunction((w) => window.ccdagView.cy.width() !== w, fitted.w);
  await page.waitForTimeout(200);
  await assertFitWhole(page, 'generated 880, after a resize');
  const after = { w: await page.evaluate(() => window.ccdagView.cy.width()) };
  await page.setViewportSize({ width: 1500, height: 940 });
  // The view fits again after a resize: a click aimed before that lands beside the node (CI at
  // load 8 clicked nothing here), so wait for it, and click again if the details stay empty.
  await page.waitForFunction((w) => window.ccdagView.cy.width() !== w, after.w);
  await page.waitForTimeout(200);
  await page.evaluate(() => { window.ccdagView.cy.zoom(1); }); // Fit shows all, too small to click a node
  // Problem markers.
  const marked = await page.evaluate(() => window.ccdagView.cy.nodes('.gv-problem').map((n) => [n.data('ref'), n.data('display')]));
  assert.equal(marked.length, 2);
  assert.ok(marked.some(([, d]) => d.startsWith('✖')) && marked.some(([, d]) => d.startsWith('⚠')), JSON.stringify(marked));
  let detail = '';
  for (let k = 0; k < 3 && !detail; k++) {
    await clickNode(page, graph.nodes[5].id);
    detail = await page.waitForFunction(() => document.querySelector('.gv-details .gv-problems')?.textContent || '', null, { timeout: 3000 })
      .then((h) => h.jsonValue(), () => '');
  }
  assert.ok(detail.includes('<b>parent</b>'), `problem messages shown as text: ${detail}`);
  // Search: filters and finds.
  const label = String(userNodes[1].label);
  const word = label.split(/\s+/).find((w) => w.length > 3) || label;
  await page.locator('.gv-search').fill(word);
  const dimmed = await page.evaluate(() => ({ dim: window.ccdagView.cy.nodes('.gv-node.gv-dim').length, match: window.ccdagView.cy.nodes('.gv-match').length }));
  assert.ok(dimmed.match >= 1 && dimmed.dim >= 1, `search "${word}": ${JSON.stringify(dimmed)}`);
  await page.locator('.gv-search').press('Enter');
  assert.match(await page.locator('.gv-search-count').textContent(), /^1 \/ \d+$/);
  await page.screenshot({ path: screenshotPath('graph-html-880-search.png') });
  await page.locator('.gv-search').fill('');
  // A turn folded into its prompt node, and back.
  const before = await page.evaluate(() => window.ccdagView.cy.nodes('.gv-node').filter((n) => n.style('display') !== 'none').length);
  await page.evaluate((id) => window.ccdagView.setTurnCollapsed(id, true), userNodes[0].id);
  const folded = await page.evaluate((id) => ({
    shown: window.ccdagView.cy.nodes('.gv-node').filter((n) => n.style('display') !== 'none').length,
    display: window.ccdagView.cy.getElementById('n:' + id).data('display'),
  }), userNodes[0].id);
  assert.ok(folded.shown < before, `folding a turn hides its nodes: ${before} -> ${folded.shown}`);
  assert.match(folded.display, /steps folded/);
  await page.screenshot({ path: screenshotPath('graph-html-880-turn-folded.png') });
  await page.evaluate((id) => window.ccdagView.setTurnCollapsed(id, false), userNodes[0].id);
  const again = await page.evaluate(() => window.ccdagView.cy.nodes('.gv-node').filter((n) => n.style('display') !== 'none').length);
  assert.equal(again, before);
  // A folded turn shows the problems of the nodes it hides: highest severity, counts summed.
  const headOf = (id) => {
    let head = null;
    for (const n of graph.nodes) {
      if (n.kind === 'USER_INPUT' && (n.lane || 'main') === 'main') head = n.id;
      if (n.id === id) return head;
    }
    return null;
  };
  const h5 = headOf(graph.nodes[5].id);
  const h9 = headOf(graph.nodes[9].id);
  assert.ok(h5 && h5 !== graph.nodes[5].id, 'the error is on a node inside a turn, not on its prompt');
  await page.evaluate((id) => window.ccdagView.setTurnCollapsed(id, true), h5);
  const foldedHead = await page.evaluate((id) => {
    const n = window.ccdagView.cy.getElementById('n:' + id);
    return { display: n.data('display'), error: n.hasClass('gv-problem-error') };
  }, h5);
  assert.ok(foldedHead.error && foldedHead.display.startsWith('✖ ') && /steps folded/.test(foldedHead.display), `folded turn with an error inside: ${JSON.stringify(foldedHead)}`);
  await clickNode(page, h5);
  await page.screenshot({ path: screenshotPath('graph-html-880-turn-folded-problem.png') });
  const foldedDetail = await page.evaluate(() => document.querySelector('.gv-details .gv-problems')?.textContent || '');
  assert.ok(foldedDetail.includes('<b>parent</b>') && (h5 !== h9 || foldedDetail.includes('no result')), `the folded turn's details list its members' problems: ${foldedDetail}`);
  await page.evaluate((id) => window.ccdagView.setTurnCollapsed(id, false), h5);
  const unfolded = await page.evaluate((id) => {
    const n = window.ccdagView.cy.getElementById('n:' + id);
    return { display: n.data('display'), problem: n.hasClass('gv-problem') };
  }, h5);
  assert.ok(!unfolded.problem && !unfolded.display.startsWith('✖'), `unfolded, the prompt has no marker of its own: ${JSON.stringify(unfolded)}`);
  clean(problems);
  await page.close();
});

test('a 1 000-node session: first picture, where the time goes, Fit whole, the overview moves the view', async () => {
  const graph = bigGraph(1000);
  assert.ok(graph.nodes.length >= 1000 && graph.lanes.length >= 3, `${graph.nodes.length} nodes, ${graph.lanes.length} lanes`);
  const file = htmlFor(graph, 'big1000', 'generated 1000');
  // Several loads, each a fresh page: the best is this machine's figure whatever else runs.
  // First picture = performance.now() at cytoscape's first drawn frame, from the page's start
  // (reading the file, the bundle, JSON.parse, elements, layout, draw).
  const runs = [];
  let kept = null;
  for (let i = 0; i < 3; i++) {
    const { page, problems } = await open(ctx, file);
    await page.waitForFunction(() => window.ccdagView.stats.firstPictureAt !== undefined, null, { timeout: 20000 });
    const r = await page.evaluate(() => {
      const s = window.ccdagView.stats;
      const text = document.getElementById('graph').textContent;
      const t = performance.now();
      JSON.parse(text);
      const parse = performance.now() - t;
      return { total: s.firstPictureAt, start: s.startAt, parse, build: s.buildMs, layout: s.layoutMs, view: s.viewMs, draw: s.drawMs, nodes: s.nodes };
    });
    assert.equal(r.nodes, graph.nodes.length);
    runs.push(r);
    if (kept) {
      clean(problems);
      await page.close();
    } else kept = { page, problems };
  }
  const best = runs.reduce((a, b) => (b.total < a.total ? b : a));
  const f = (x) => Math.round(x);
  console.log(`# first picture of ${graph.nodes.length} nodes, ${graph.edges.length} edges, ${graph.lanes.length} lanes: ${runs.map((r) => f(r.total)).join(' / ')} ms (best ${f(best.total)} ms: page, bundle and JSON.parse ${f(best.start)} (JSON.parse alone ${best.parse.toFixed(1)}), elements ${f(best.build)}, layout ${f(best.layout)}, first view ${f(best.view)}, first draw ${f(best.draw)})`);
  // SPEC §10: <= 2 s (docs/PERFORMANCE.md has this machine's figure). The bound is the target
  // times CCDAG_TEST_SLOWDOWN (default 3), so that a loaded CI machine does not flake.
  assert.ok(best.total < 2000 * SLOWDOWN, `first picture ${f(best.total)} ms, the target is 2000 ms (× ${SLOWDOWN} here)`);
  const { page, problems } = kept;
  // The first picture drew only what its view shows (stats.firstIds), the rest came after it:
  // nothing drawn in that view (the viewport is still the first one) was missing from it.
  const firstView = await page.evaluate(() => {
    const v = window.ccdagView;
    const ids = new Set(v.stats.firstIds || []);
    const cy = v.cy;
    const e = cy.extent();
    const missing = [];
    let inView = 0;
    cy.elements().forEach((x) => {
      if (x.hasClass('gv-hidden')) return;
      const b = x.boundingBox({ includeLabels: true, includeOverlays: true });
      if (b.x2 < e.x1 || b.x1 > e.x2 || b.y2 < e.y1 || b.y1 > e.y2) return;
      inView++;
      if (!ids.has(x.id())) missing.push(x.id());
    });
    return { first: ids.size, all: cy.elements().length, inView, missing, completeMs: v.stats.completeMs };
  });
  const fv = firstView;
  console.log(`# the first picture gave cytoscape ${fv.first} of ${fv.all} elements (${fv.inView} in its view); the rest took ${f(fv.completeMs)} ms after it`);
  assert.ok(fv.first > 0 && fv.first < fv.all / 2, `the first picture draws its view's part of the graph: ${fv.first} of ${fv.all}`);
  assert.deepEqual(fv.missing.slice(0, 5), [], `${fv.missing.length} elements in the first view came after the first picture`);
  // Fit: every lane's nodes in view.
  await page.locator('.gv-fit').click();
  const fitted = await assertFitWhole(page, 'generated 1 000');
  assert.equal(Object.keys(fitted.lanes).length, graph.lanes.length, `all lanes' nodes after Fit: ${JSON.stringify(fitted.lanes)}`);
  await page.screenshot({ path: screenshotPath('graph-html-1000-fit.png') });
  // The overview: shown, drawn, and a click in it centres the view on that part of the graph.
  const ov = page.locator('.gv-overview');
  assert.ok(await ov.isVisible(), 'the overview is shown');
  const inked = await page.evaluate(() => {
    const c = document.querySelector('.gv-overview');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
    return n / (c.width * c.height);
  });
  assert.ok(inked > 0.02, `the overview draws the graph (${(inked * 100).toFixed(1)}% of it inked)`);
  await page.evaluate(() => { window.ccdagView.cy.zoom(1); });
  // Aim at the last main node's place in the overview, then click there.
  const last = graph.nodes.filter((n) => n.lane === 'main').at(-1).id;
  const target = await page.evaluate((id) => {
    const cy = window.ccdagView.cy;
    const eles = cy.elements().filter((e) => !e.hasClass('gv-hidden'));
    const bb = eles.boundingBox({ includeLabels: false });
    const c = document.querySelector('.gv-overview');
    const r = c.getBoundingClientRect();
    const s = Math.min((r.width - 8) / bb.w, (r.height - 8) / bb.h);
    const p = cy.getElementById('n:' + id).position();
    const ox = 4 + (r.width - 8 - bb.w * s) / 2;
    const oy = 4 + (r.height - 8 - bb.h * s) / 2;
    return { x: r.left + ox + (p.x - bb.x1) * s, y: r.top + oy + (p.y - bb.y1) * s };
  }, last);
  const inView = (id) => page.evaluate((nid) => {
    const cy = window.ccdagView.cy;
    const p = cy.getElementById('n:' + nid).position();
    const e = cy.extent();
    return p.x >= e.x1 && p.x <= e.x2 && p.y >= e.y1 && p.y <= e.y2;
  }, id);
  assert.equal(await inView(last), false, 'the last node is out of view before the click');
  await page.mouse.click(target.x, target.y);
  assert.equal(await inView(last), true, 'a click in the overview brings that part into view');
  // A drag moves along with the pointer.
  const first = graph.nodes[0].id;
  const from = await page.evaluate(() => window.ccdagView.cy.pan());
  await page.mouse.move(target.x, target.y);
  await page.mouse.down();
  await page.mouse.move(target.x, target.y - 60, { steps: 4 });
  await page.mouse.up();
  const to = await page.evaluate(() => window.ccdagView.cy.pan());
  assert.ok(to.y > from.y, `dragging up in the overview moves the view up the graph: ${JSON.stringify({ from, to })}`);
  assert.ok(first, 'the graph has a first node');
  await page.screenshot({ path: screenshotPath('graph-html-1000-overview.png') });
  clean(problems);
  await page.close();
});
