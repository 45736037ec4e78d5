// CcdagGraph: draws a ccdag workflow graph (docs/spec.md §4) with cytoscape + dagre.
//
//   const view = CcdagGraph.render(containerEl, graph, { theme: 'auto', onReveal: (node) => ... });
//   view.update(newGraph);   // re-render, keeping the viewport, collapsed lanes and selection
//   view.destroy();
//
// Everything taken from the log reaches the page as textContent or as canvas labels: never HTML.

import cytoscape from 'cytoscape';
import cytoscapeDagre from 'cytoscape-dagre';
import type { GraphHandle, GraphNode, RenderOptions, RenderStats, ThemeName, WorkflowGraph } from './types';
import { boxKey, buildModel, edgeKey, headKey, laneKey, nodeKey, type Model } from './elements';
import { buildStyle } from './cystyle';
import { runLayout } from './layout';
import { isDark, readPalette, watchTheme, type Palette } from './theme';
import { buildLegend } from './legend';
import { showEmpty, showNode } from './details';
import { button, el } from './dom';
import { measurer, shorten, wrapText, type Measure } from './text';
import { NODE_W } from './cystyle';

cytoscape.use(cytoscapeDagre);

const FIT_MAX_ZOOM = 1.1;
export const STYLE_ID = 'ccdag-graphview-style';

/** The viewer's stylesheet, internal/graphhtml/assets/graphview.css, is the host's to put in the
 *  page (a <link> or <style> with this id): the HTML page inlines it under a CSP hash, the VS Code
 *  webview links it. It is shipped once, not also inside this bundle. */
function warnIfUnstyled(doc: Document): void {
  if (!doc.getElementById(STYLE_ID)) {
    console.warn(`CcdagGraph: no stylesheet #${STYLE_ID} in the page (graphview.css); the viewer is unstyled`);
  }
}

export function render(container: HTMLElement, graph: WorkflowGraph, options: RenderOptions = {}): GraphHandle {
  if (!container || !container.ownerDocument) throw new Error('CcdagGraph.render: a container element is required');
  const doc = container.ownerDocument;
  warnIfUnstyled(doc);

  let themeOpt: ThemeName = options.theme || 'auto';
  const onReveal = typeof options.onReveal === 'function' ? options.onReveal : undefined;
  let model: Model = buildModel(graph || {});
  const collapsed = new Set<string>();
  const collapsedTurns = new Set<string>(); // USER_INPUT node ids whose turn is folded into them
  let fitted = false; // the view was last set by Fit: a resize fits again
  let query = '';
  let matchAt = -1;
  let selected: string | null = null;
  let destroyed = false;
  const stats: RenderStats = { nodes: 0, edges: 0, lanes: 0, layoutMs: 0 };

  // ---- DOM ----
  const root = el(doc, 'div', 'ccdag-gv');
  const toolbar = el(doc, 'div', 'gv-toolbar');
  toolbar.setAttribute('role', 'toolbar');
  const title = el(doc, 'span', 'gv-title');
  const fitBtn = button(doc, 'Fit', 'Fit the graph in view; when the whole would be too small to read, what fits at a readable zoom around the selected node or the start (⤢ shows all)', () => fit(), 'gv-fit');
  const agentsBtn = button(doc, 'Collapse agents', 'Collapse or expand every sub-agent lane', () => toggleAllAgents(), 'gv-agents');
  const chips = el(doc, 'div', 'gv-lanes');
  const statsEl = el(doc, 'span', 'gv-stats');
  // Search: filters (fades what does not match) and finds (Enter: the next match, selected).
  const search = doc.createElement('input');
  search.type = 'search';
  search.className = 'gv-search';
  search.placeholder = 'Find nodes…';
  search.setAttribute('aria-label', 'Find nodes by text');
  const searchCount = el(doc, 'span', 'gv-search-count');
  const legendBtn = button(doc, 'Legend', 'Show or hide the legend', () => toggleLegend(), 'gv-legend-toggle');
  const detailsBtn = button(doc, 'Details', 'Show or hide the details panel', () => toggleDetails(), 'gv-details-toggle');
  legendBtn.setAttribute('aria-pressed', 'false');
  detailsBtn.setAttribute('aria-pressed', 'true');
  toolbar.append(title, fitBtn, agentsBtn, search, searchCount, el(doc, 'span', 'gv-sep'), chips, statsEl, legendBtn, detailsBtn);

  const body = el(doc, 'div', 'gv-body');
  const stage = el(doc, 'div', 'gv-canvas');
  const cyDiv = el(doc, 'div', 'gv-cy');
  cyDiv.style.position = 'absolute';
  cyDiv.style.inset = '0';
  const legend = el(doc, 'div', 'gv-legend');
  legend.setAttribute('aria-label', 'Legend');
  legend.hidden = true; // folded by default: the Legend button shows it
  const zoom = el(doc, 'div', 'gv-zoom');
  zoom.append(
    button(doc, '+', 'Zoom in', () => zoomBy(1.25)),
    button(doc, '−', 'Zoom out', () => zoomBy(1 / 1.25)),
    button(doc, '⤢', 'Fit the whole graph in view, however small', () => fit(true)),
  );
  const fitNote = el(doc, 'div', 'gv-fit-note');
  fitNote.setAttribute('role', 'status');
  fitNote.hidden = true;
  const message = el(doc, 'div', 'gv-error');
  message.hidden = true;
  const tip = el(doc, 'div', 'gv-tip');
  tip.setAttribute('role', 'tooltip');
  tip.hidden = true;
  stage.append(cyDiv, legend, zoom, fitNote, message, tip);
  const details = el(doc, 'aside', 'gv-details');
  details.setAttribute('aria-label', 'Node details');
  body.append(stage, details);
  root.append(toolbar, body);
  container.appendChild(root);

  // ---- theme ----
  let palette: Palette = applyThemeClass();
  function applyThemeClass(): Palette {
    const dark = isDark(themeOpt, doc);
    root.classList.toggle('gv-dark', dark);
    root.classList.toggle('gv-light', !dark);
    return readPalette(root, dark);
  }

  // ---- cytoscape ----
  const cy = cytoscape({
    container: cyDiv,
    elements: [],
    style: buildStyle(palette) as unknown as cytoscape.StylesheetJson,
    layout: { name: 'preset' },
    minZoom: 0.005, // ⤢ fits a session of thousands of nodes whole
    maxZoom: 3,
    autoungrabify: true,
    boxSelectionEnabled: false,
    selectionType: 'single',
  });

  function applyTheme() {
    palette = applyThemeClass();
    cy.style(buildStyle(palette) as unknown as cytoscape.StylesheetJson);
    buildLegend(doc, legend, palette);
    refreshDetails();
  }
  let lastDark = root.classList.contains('gv-dark');
  const unwatch = watchTheme(doc, () => {
    if (themeOpt !== 'auto' || destroyed) return;
    const dark = isDark('auto', doc);
    if (dark !== lastDark) {
      lastDark = dark;
      applyTheme();
    }
  });
  buildLegend(doc, legend, palette);

  // ---- labels ----
  // Node labels are wrapped here, with the canvas's own text metrics, so that a line breaks
  // between words and a long path or id is cut where it must be, never overflowing its node.
  const measures = new Map<string, Measure>();
  function displayFor(classes: string, text: string): string {
    const system = /\bk-(system|other)\b/.test(classes);
    const user = /\bk-user\b/.test(classes);
    const font = `${system ? 'italic ' : 'normal '}${user ? '600' : 'normal'} 12px ${palette.font}`;
    let m = measures.get(font);
    if (!m) measures.set(font, (m = measurer(doc, font)));
    return wrapText(text, m, system ? NODE_W - 64 : user ? NODE_W - 40 : NODE_W - 28, 2);
  }

  // ---- elements ----
  function sync() {
    for (const d of model.defs) {
      if (typeof d.data.text === 'string') d.data.display = displayFor(d.classes, d.data.text);
    }
    const want = new Set(model.defs.map((d) => d.data.id));
    cy.batch(() => {
      cy.edges('.gv-proxy').remove();
      cy.elements().forEach((ele) => {
        if (!ele.removed() && !want.has(ele.id())) ele.remove();
      });
      const add: cytoscape.ElementDefinition[] = [];
      for (const d of model.defs) {
        const ex = cy.getElementById(d.data.id);
        if (ex.nonempty() && !ex.removed()) {
          const { id: _id, parent, source: _s, target: _t, ...rest } = d.data as Record<string, unknown>;
          if (ex.isNode() && (ex.data('parent') ?? undefined) !== parent) {
            (ex as cytoscape.NodeSingular).move({ parent: (parent as string | undefined) ?? null });
          }
          ex.data(rest);
          ex.classes(d.classes);
        } else {
          add.push({ group: d.group, data: d.data, classes: d.classes } as cytoscape.ElementDefinition);
        }
      }
      if (add.length) cy.add(add);
    });
    for (const id of Array.from(collapsed)) if (!model.laneById.has(id)) collapsed.delete(id);
    for (const id of Array.from(collapsedTurns)) if (!model.nodes.has(id)) collapsedTurns.delete(id);
    applyCollapse();
    applyProblems();
    buildChips();
    title.textContent = model.lanes.length ? sessionTitle() : 'Workflow graph';
    title.title = graph && graph.session && typeof graph.session.id === 'string' ? `Session ${graph.session.id}` : '';
    stats.nodes = model.nodes.size;
    stats.edges = model.edges.length;
    stats.lanes = model.lanes.length;
    message.hidden = model.nodes.size > 0;
    message.textContent = model.nodes.size > 0 ? '' : 'This session has no workflow nodes yet.';
  }

  function boxLabel(nodes: number): string {
    return `${nodes} node${nodes === 1 ? '' : 's'} collapsed\nclick to expand`;
  }

  function sessionTitle(): string {
    const id = graph && graph.session && typeof graph.session.id === 'string' ? graph.session.id : '';
    return id ? `Session ${shorten(id, 13)}` : 'Workflow graph';
  }

  function applyCollapse() {
    const shownAgain = cy.collection();
    cy.batch(() => {
      cy.edges('.gv-proxy').remove();
      const inTurn = turnMembers();
      cy.nodes('.gv-node').forEach((n) => {
        const ref = String(n.data('ref'));
        const head = inTurn.get(ref);
        const hide = collapsed.has(String(n.data('lane'))) || (head !== undefined && head !== ref);
        if (collapsedTurns.has(ref)) {
          n.data('display', displayFor(n.classes().join(' '), `▸ ${turnSize.get(ref) ?? 0} steps folded · ${String(model.nodes.get(ref)?.label ?? '')}`));
          n.addClass('gv-turn-folded');
        } else if (n.hasClass('gv-turn-folded')) {
          n.removeClass('gv-turn-folded');
          const d = model.defs.find((x) => x.data.id === n.id());
          if (d && typeof d.data.text === 'string') n.data('display', displayFor(d.classes, d.data.text));
        }
        if (hide !== n.hasClass('gv-hidden')) {
          n.toggleClass('gv-hidden', hide);
          shownAgain.merge(n);
        }
      });
      for (const li of model.lanes) {
        const id = li.lane.id;
        const c = collapsed.has(id);
        const box = cy.getElementById(boxKey(id));
        box.toggleClass('gv-hidden', !c);
        box.data('display', boxLabel(li.nodeCount));
        cy.getElementById(headKey(id)).data('display', `${c ? '▸' : '▾'}  ${li.title}`);
      }
      if (collapsed.size || collapsedTurns.size) {
        const laneOf = (id: string) => {
          const n = model.nodes.get(id);
          return n && typeof n.lane === 'string' && n.lane ? n.lane : 'main';
        };
        const map = (id: string) => {
          if (collapsed.has(laneOf(id))) return boxKey(laneOf(id));
          const head = inTurn.get(id);
          return nodeKey(head ?? id);
        };
        const seen = new Set<string>();
        const add: cytoscape.ElementDefinition[] = [];
        for (const e of model.edges) {
          const s = map(e.source);
          const t = map(e.target);
          if ((s === nodeKey(e.source) && t === nodeKey(e.target)) || s === t) continue;
          const id = 'p' + edgeKey(e.kind, s, t);
          if (seen.has(id)) continue;
          seen.add(id);
          const cross = cy.getElementById(s).data('lane') !== cy.getElementById(t).data('lane') ? ' gv-cross' : '';
          add.push({ group: 'edges', data: { id, source: s, target: t, kind: e.kind }, classes: `gv-edge gv-proxy e-${e.kind}${cross}` });
        }
        if (add.length) cy.add(add);
      }
    });
    // Cytoscape caches whether a node takes up space; a node that was display:none while a
    // frame was drawn keeps a size of zero until that cache is dropped, and the layout needs
    // the real sizes now.
    if (shownAgain.nonempty()) {
      const touched = shownAgain.union(cy.nodes('.gv-box')) as unknown as { dirtyStyleCache?: () => void };
      if (typeof touched.dirtyStyleCache === 'function') touched.dirtyStyleCache();
      else cy.style().update();
    }
    const allAgents = model.lanes.filter((l) => !l.isMain);
    const allCollapsed = allAgents.length > 0 && allAgents.every((l) => collapsed.has(l.lane.id));
    agentsBtn.textContent = allCollapsed ? 'Expand agents' : 'Collapse agents';
    agentsBtn.disabled = allAgents.length === 0;
    if (selected) {
      const ele = cy.getElementById(nodeKey(selected));
      if (ele.empty() || ele.hasClass('gv-hidden')) select(null);
    }
  }

  // ---- turns ----
  // A turn: a main-lane USER_INPUT node and every node after it (in the graph's order, sub-agent
  // lanes spawned meanwhile included) up to the next main-lane USER_INPUT.
  const turnSize = new Map<string, number>();
  function turnMembers(): Map<string, string> {
    const member = new Map<string, string>();
    turnSize.clear();
    if (collapsedTurns.size === 0) return member;
    let head: string | null = null;
    for (const n of model.nodes.values()) {
      const lane = typeof n.lane === 'string' && n.lane ? n.lane : 'main';
      if (n.kind === 'USER_INPUT' && lane === 'main') head = collapsedTurns.has(n.id) ? n.id : null;
      if (head !== null) {
        member.set(n.id, head);
        turnSize.set(head, (turnSize.get(head) ?? 0) + 1);
      }
    }
    return member;
  }
  function setTurnCollapsed(id: string, c: boolean) {
    const n = model.nodes.get(id);
    if (!n || n.kind !== 'USER_INPUT' || collapsedTurns.has(id) === c) return;
    if (c) collapsedTurns.add(id);
    else collapsedTurns.delete(id);
    applyCollapse();
    applyProblems();
    relayout();
    refreshDetails();
  }

  // ---- problems ----
  // graph.problems (docs/graph.md): the diagnostics of each node's records, from the language
  // server or `ccdag graph`. A node with any gets a marker and a coloured border; a turn folded into
  // its prompt node shows those of every node it stands for. The markers are characters common
  // fonts have (DejaVu, as on a bare Linux), not emoji.
  const MARKS: Record<string, string> = { error: '✖ ', warning: '⚠ ', information: 'ℹ ', hint: 'ℹ ' };
  const RANK: Record<string, number> = { error: 0, warning: 1, information: 2, hint: 3 };
  const problemsOf = new Map<string, { severity: string; count: number; messages: string[] }>();
  function applyProblems() {
    problemsOf.clear();
    const list = Array.isArray((graph as { problems?: unknown }).problems) ? ((graph as { problems: unknown[] }).problems) : [];
    const inTurn = turnMembers();
    const laneOf = (id: string) => {
      const n = model.nodes.get(id);
      return n && typeof n.lane === 'string' && n.lane ? n.lane : 'main';
    };
    for (const p of list) {
      const x = p as { node?: unknown; severity?: unknown; count?: unknown; messages?: unknown };
      if (typeof x.node !== 'string' || !model.nodes.has(x.node)) continue;
      const sev = String(x.severity) in RANK ? String(x.severity) : 'warning';
      const msgs = Array.isArray(x.messages) ? x.messages.filter((m) => typeof m === 'string').slice(0, 5) as string[] : [];
      const count = typeof x.count === 'number' ? x.count : 1;
      // A collapsed lane's box stands for its nodes, and so for their problems.
      const at = collapsed.has(laneOf(x.node)) ? boxKey(laneOf(x.node)) : inTurn.get(x.node) ?? x.node;
      const had = problemsOf.get(at);
      if (!had) {
        problemsOf.set(at, { severity: sev, count, messages: msgs });
        continue;
      }
      if (RANK[sev] < RANK[had.severity]) had.severity = sev;
      had.count += count;
      had.messages = had.messages.concat(msgs).slice(0, 5);
    }
    cy.batch(() => {
      // mark sets a node's problem classes and its label (the label without any problem, given).
      const mark = (n: cytoscape.NodeSingular, p: { severity: string } | undefined, disp: string) => {
        n.removeClass('gv-problem gv-problem-error gv-problem-warning gv-problem-information gv-problem-hint');
        if (p) n.addClass(`gv-problem gv-problem-${p.severity}`);
        if (disp !== n.data('display')) n.data('display', disp);
      };
      cy.nodes('.gv-node').forEach((n) => {
        const p = problemsOf.get(String(n.data('ref')));
        let disp = String(n.data('display') ?? '');
        for (const m of Object.values(MARKS)) if (disp.startsWith(m)) disp = disp.slice(m.length);
        mark(n, p, p ? MARKS[p.severity] + disp : disp);
      });
      for (const li of model.lanes) {
        const box = cy.getElementById(boxKey(li.lane.id)) as cytoscape.NodeSingular;
        const p = problemsOf.get(box.id());
        const disp = boxLabel(li.nodeCount);
        mark(box, p, p ? `${MARKS[p.severity]}${p.count} problem${p.count === 1 ? '' : 's'} inside\n${disp}` : disp);
      }
    });
  }

  // ---- search ----
  function matches(n: GraphNode, q: string): boolean {
    const hay = [n.label, n.toolName, n.kind, n.toolUseId, n.model, ...(Array.isArray(n.uuids) ? n.uuids : [])]
      .filter((x) => typeof x === 'string')
      .join('\n')
      .toLowerCase();
    return q.split(/\s+/).every((w) => hay.includes(w));
  }
  function applySearch() {
    const q = query.trim().toLowerCase();
    let count = 0;
    cy.batch(() => {
      cy.nodes('.gv-node').forEach((e) => {
        const n = model.nodes.get(String(e.data('ref')));
        const hit = !q || (n !== undefined && matches(n, q));
        e.toggleClass('gv-dim', !hit);
        e.toggleClass('gv-match', !!q && hit);
        if (q && hit) count++;
      });
      cy.edges().toggleClass('gv-dim', !!q);
    });
    searchCount.textContent = q ? `${count} found` : '';
    root.dataset.matches = String(count);
  }
  function findNext(back = false) {
    const q = query.trim().toLowerCase();
    if (!q) return;
    const ids = [...model.nodes.values()].filter((n) => matches(n, q)).map((n) => n.id);
    if (ids.length === 0) return;
    matchAt = (matchAt + (back ? ids.length - 1 : 1)) % ids.length;
    select(ids[matchAt], true);
    const ele = cy.getElementById(nodeKey(ids[matchAt]));
    if (ele.nonempty()) {
      unfit();
      cy.center(ele);
    }
    searchCount.textContent = `${matchAt + 1} / ${ids.length}`;
  }
  search.addEventListener('input', () => {
    query = search.value;
    matchAt = -1;
    applySearch();
  });
  search.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') {
      findNext(ev.shiftKey);
      ev.preventDefault();
    } else if (ev.key === 'Escape') {
      search.value = query = '';
      applySearch();
    }
  });

  function buildChips() {
    const list: HTMLButtonElement[] = [];
    for (const li of model.lanes) {
      const b = button(doc, '', `${li.title}: ${li.nodeCount} nodes. Click to collapse or expand this lane.`, () => toggleLane(li.lane.id), 'gv-lane-chip' + (li.isMain ? '' : ' gv-agent'));
      b.append(el(doc, 'span', 'gv-chip-dot'), el(doc, 'span', undefined, shorten(li.title, 24)));
      b.setAttribute('aria-pressed', String(collapsed.has(li.lane.id)));
      b.dataset.lane = li.lane.id;
      list.push(b);
    }
    chips.replaceChildren(...list);
  }

  function relayout() {
    const z = cy.zoom();
    const p = cy.pan();
    stats.layoutMs = runLayout(cy, model.lanes);
    cy.viewport({ zoom: z, pan: p });
    const ms = Math.round(stats.layoutMs);
    root.dataset.layoutMs = String(stats.layoutMs.toFixed(1));
    statsEl.textContent = `${stats.nodes} nodes · ${stats.lanes} lane${stats.lanes === 1 ? '' : 's'} · layout ${ms} ms`;
  }

  // ---- viewport ----
  function visibleEles() {
    return cy.elements().filter((e) => !e.hasClass('gv-hidden'));
  }
  /** Fits the graph in view, but never blows a small graph up past a natural size. */
  // A long session fitted whole is a thin unreadable strip. Below READABLE_ZOOM, Fit shows what
  // fits at a readable zoom (the graph's width when that is readable) around the selected node
  // (the cursor's, in an editor) or else the session's start, and says so; ⤢ (fit(true)) always
  // shows it all.
  const READABLE_ZOOM = 0.5;
  let lastWhole = false;
  function fit(whole = false) {
    const eles = visibleEles();
    if (eles.empty()) return;
    cy.fit(eles, 30);
    if (cy.zoom() > FIT_MAX_ZOOM) {
      cy.zoom(FIT_MAX_ZOOM);
      cy.center(eles);
    }
    fitNote.hidden = true;
    if (cy.zoom() < READABLE_ZOOM && !whole) {
      const bb = eles.boundingBox();
      const W = cy.width();
      const H = cy.height();
      const z = Math.min(FIT_MAX_ZOOM, Math.max(READABLE_ZOOM, (W - 60) / Math.max(1, bb.w)));
      const sel = selected !== null ? cy.getElementById(nodeKey(selected)) : cy.collection();
      const focus = sel.nonempty() && !sel.hasClass('gv-hidden') ? sel : firstNode();
      const fx = focus ? focus.position('x') : bb.x1 + bb.w / 2;
      const fy = focus ? focus.position('y') : bb.y1;
      const gw = bb.w * z;
      // The graph's width centred when it fits, else the focus; the focus a third down the view
      // (what follows it is what one reads next), never past the graph's top.
      let x = gw + 48 <= W ? (W - gw) / 2 - bb.x1 * z : W / 2 - fx * z;
      if (gw + 48 > W) x = Math.max(Math.min(x, 24 - bb.x1 * z), W - 24 - bb.x2 * z);
      const y = Math.min(H / 3 - fy * z, 20 - bb.y1 * z);
      cy.viewport({ zoom: z, pan: { x, y } });
      const total = cy.nodes('.gv-node').filter((n) => !n.hasClass('gv-hidden')).length;
      const ext = cy.extent();
      const inView = cy.nodes('.gv-node').filter((n) => {
        if (n.hasClass('gv-hidden')) return false;
        const p = n.position();
        return p.x >= ext.x1 && p.x <= ext.x2 && p.y >= ext.y1 && p.y <= ext.y2;
      }).length;
      const around = focus && focus === sel ? 'the selected node' : "the session's start";
      fitNote.textContent = `${inView} of ${total} nodes in view (the whole would be too small to read), around ${around} — ⤢ shows all`;
      fitNote.hidden = false;
    }
    lastWhole = whole;
    fitted = true;
  }
  /** The session's first drawn node: the topmost, then leftmost. */
  function firstNode(): cytoscape.NodeSingular | undefined {
    let first: cytoscape.NodeSingular | undefined;
    cy.nodes('.gv-node, .gv-box').forEach((n) => {
      if (n.hasClass('gv-hidden')) return;
      if (!first || n.position('y') < first.position('y') || (n.position('y') === first.position('y') && n.position('x') < first.position('x'))) first = n;
    });
    return first;
  }
  function zoomBy(f: number) {
    unfit();
    cy.zoom({ level: cy.zoom() * f, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
  }
  function initialView() {
    const eles = visibleEles();
    if (eles.empty()) return;
    fit();
    if (options.fitOnLoad || cy.zoom() >= 0.6) return;
    // Too big to read when fitted: start readable, at the beginning of the session, with the
    // first node a third of the way across so that the agents to its right show too.
    const z = 0.85;
    const bb = eles.boundingBox();
    const W = cy.width();
    const first = firstNode();
    const fx = first ? first.position('x') : bb.x1 + bb.w / 2;
    const gw = bb.w * z;
    let x: number;
    if (gw + 48 <= W) {
      x = (W - gw) / 2 - bb.x1 * z;
    } else {
      x = Math.min(W * 0.34 - fx * z, 24 - bb.x1 * z);
      x = Math.max(x, W - 24 - bb.x2 * z);
    }
    cy.viewport({ zoom: z, pan: { x, y: 20 - bb.y1 * z } });
    fitted = false;
    fitNote.hidden = true;
  }
  function ensureVisible(ele: cytoscape.NodeSingular) {
    const bb = ele.renderedBoundingBox({});
    if (bb.x1 < 0 || bb.y1 < 0 || bb.x2 > cy.width() || bb.y2 > cy.height()) cy.center(ele);
  }

  // ---- lanes ----
  function toggleLane(id: string) {
    setLaneCollapsed(id, !collapsed.has(id));
  }
  function setLaneCollapsed(id: string, c: boolean) {
    if (!model.laneById.has(id) || collapsed.has(id) === c) return;
    if (c) collapsed.add(id);
    else collapsed.delete(id);
    applyCollapse();
    applyProblems();
    buildChips();
    relayout();
  }
  function toggleAllAgents() {
    const agents = model.lanes.filter((l) => !l.isMain).map((l) => l.lane.id);
    const collapse = !agents.every((id) => collapsed.has(id));
    for (const id of agents) {
      if (collapse) collapsed.add(id);
      else collapsed.delete(id);
    }
    applyCollapse();
    applyProblems();
    buildChips();
    relayout();
  }

  // ---- selection and details ----
  function select(id: string | null, reveal = false) {
    cy.edges('.gv-hl').removeClass('gv-hl');
    cy.nodes(':selected').unselect();
    selected = null;
    if (id !== null) {
      const n = model.nodes.get(id);
      if (n) {
        const lane = typeof n.lane === 'string' && n.lane ? n.lane : 'main';
        if (collapsed.has(lane)) setLaneCollapsed(lane, false);
        const ele = cy.getElementById(nodeKey(id)) as cytoscape.NodeSingular;
        if (ele.nonempty()) {
          selected = id;
          ele.select();
          ele.connectedEdges().addClass('gv-hl');
          if (reveal) ensureVisible(ele);
        }
      }
    }
    refreshDetails();
  }
  function refreshDetails() {
    const n = selected !== null ? model.nodes.get(selected) : undefined;
    if (!n) {
      showEmpty(details, doc);
      return;
    }
    const parents: GraphNode[] = [];
    const children: GraphNode[] = [];
    for (const e of model.edges) {
      if (e.target === n.id) parents.push(model.nodes.get(e.source)!);
      if (e.source === n.id) children.push(model.nodes.get(e.target)!);
    }
    showNode(details, n, {
      doc,
      palette,
      lane: model.laneById.get(typeof n.lane === 'string' && n.lane ? n.lane : 'main'),
      parents,
      children,
      onReveal,
      onGoto: (id) => select(id, true),
      problems: problemsOf.get(n.id),
      turn: n.kind === 'USER_INPUT' && (typeof n.lane !== 'string' || !n.lane || n.lane === 'main')
        ? { folded: collapsedTurns.has(n.id), toggle: () => setTurnCollapsed(n.id, !collapsedTurns.has(n.id)) }
        : undefined,
      onCenter: () => {
        const ele = cy.getElementById(nodeKey(n.id));
        if (ele.nonempty()) cy.center(ele);
      },
    });
  }
  function toggleLegend() {
    legend.hidden = !legend.hidden;
    legendBtn.setAttribute('aria-pressed', String(!legend.hidden));
  }
  function toggleDetails() {
    details.hidden = !details.hidden;
    detailsBtn.setAttribute('aria-pressed', String(!details.hidden));
    cy.resize();
  }

  cy.on('tap', 'node.gv-node', (ev) => select(String(ev.target.data('ref'))));
  cy.on('tap', 'node.gv-head, node.gv-box', (ev) => toggleLane(String(ev.target.data('lane'))));
  cy.on('tap', (ev) => {
    if (ev.target === cy) select(null);
  });
  cy.on('dbltap', 'node.gv-node', (ev) => {
    const n = model.nodes.get(String(ev.target.data('ref')));
    if (n && onReveal) onReveal(n);
  });
  cy.on('mouseover', 'node.gv-node, node.gv-head, node.gv-box', () => {
    cyDiv.style.cursor = 'pointer';
  });
  cy.on('mouseout', 'node', () => {
    cyDiv.style.cursor = '';
    tip.hidden = true;
  });
  // Hovering a node shows its whole label (the canvas shows two lines of it).
  cy.on('mouseover', 'node.gv-node', (ev) => {
    const n = model.nodes.get(String(ev.target.data('ref')));
    if (!n) return;
    const kind = el(doc, 'span', 'gv-tip-kind', String(n.kind ?? ''));
    const body = el(doc, 'span', undefined, shorten(typeof n.label === 'string' ? n.label : '', 400) || String(n.toolName ?? ''));
    tip.replaceChildren(kind, body);
    const bb = (ev.target as cytoscape.NodeSingular).renderedBoundingBox({});
    const w = stage.clientWidth;
    tip.style.maxWidth = `${Math.min(420, Math.max(200, w - 40))}px`;
    tip.hidden = false;
    const left = Math.max(8, Math.min(bb.x1, w - tip.offsetWidth - 8));
    const below = bb.y2 + 8 + tip.offsetHeight < stage.clientHeight;
    tip.style.left = `${left}px`;
    tip.style.top = `${below ? bb.y2 + 8 : Math.max(8, bb.y1 - 8 - tip.offsetHeight)}px`;
  });
  cy.on('viewport tapstart', () => {
    tip.hidden = true;
  });

  // Keys, while the viewer has focus: Escape clears the selection, f fits, + and - zoom.
  root.tabIndex = -1;
  root.addEventListener('keydown', (ev) => {
    const t = ev.target as HTMLElement | null;
    if (ev.ctrlKey || ev.metaKey || ev.altKey || (t && t !== root && /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    if (ev.key === 'Escape') select(null);
    else if (ev.key === 'f') fit();
    else if (ev.key === '+' || ev.key === '=') zoomBy(1.25);
    else if (ev.key === '-') zoomBy(1 / 1.25);
    else return;
    ev.preventDefault();
  });
  cy.on('tapstart', () => root.focus({ preventScroll: true }));
  // A pan or zoom by the user ends "fitted": a resize then keeps their view.
  cyDiv.addEventListener('wheel', unfit, { passive: true });
  cy.on('tapdrag', unfit);
  function unfit() {
    fitted = false;
    fitNote.hidden = true;
  }

  let ro: ResizeObserver | undefined;
  if (typeof ResizeObserver !== 'undefined') {
    ro = new ResizeObserver(() => {
      if (destroyed) return;
      cy.resize();
      if (fitted) fit(lastWhole);
    });
    ro.observe(stage);
  }

  // ---- first render ----
  sync();
  relayout();
  initialView();
  showEmpty(details, doc);

  const handle: GraphHandle = {
    update(next: WorkflowGraph) {
      if (destroyed) return;
      graph = next || {};
      model = buildModel(graph);
      const z = cy.zoom();
      const p = cy.pan();
      const wasEmpty = cy.nodes('.gv-node').empty();
      sync();
      relayout();
      if (wasEmpty) initialView();
      else cy.viewport({ zoom: z, pan: p });
      if (selected !== null && !model.nodes.has(selected)) select(null);
      else if (selected !== null) select(selected);
      if (query) applySearch();
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      unwatch();
      if (ro) ro.disconnect();
      cy.destroy();
      root.remove();
    },
    fit,
    select: (id) => select(id, true),
    setLaneCollapsed,
    setTurnCollapsed,
    find(q: string) {
      search.value = query = q;
      matchAt = -1;
      applySearch();
      findNext();
      return Number(root.dataset.matches || 0);
    },
    setTheme(t: ThemeName) {
      themeOpt = t;
      lastDark = isDark(t, doc);
      applyTheme();
    },
    get stats() {
      return { ...stats };
    },
    get cy() {
      return cy;
    },
  };
  return handle;
}
