// CcdagGraph: draws a ccdag workflow graph (docs/spec.md §4) with cytoscape; dagre lays it out.
//
//   const view = CcdagGraph.render(containerEl, graph, { theme: 'auto', onReveal: (node) => ... });
//   view.update(newGraph);   // re-render, keeping the viewport, collapsed lanes and selection
//   view.destroy();
//
// Everything taken from the log reaches the page as textContent or as canvas labels: never HTML.
//
// render() makes the viewer's state (view.ts) and wires its modules: chrome (toolbar and panels),
// sync (elements), collapse and lanes (folding), problems, viewport (layout, fit, zoom),
// selection (and the details panel), search, events, overview (the minimap).

import cytoscape from 'cytoscape';
import type { GraphHandle, RenderOptions, ThemeName, WorkflowGraph } from './types';
import { buildModel } from './elements';
import { buildStyle } from './cystyle';
import { isDark, readPalette, watchTheme, type Palette } from './theme';
import { buildLegend } from './legend';
import { showEmpty } from './details';
import { buildChrome } from './chrome';
import { sync } from './sync';
import { setLaneCollapsed, setTurnCollapsed, toggleAllAgents, wireLaneSelect } from './lanes';
import { firstShown, fit, initialView, relayout, showLayoutStats, zoomBy } from './viewport';
import { applyLayout, computeLayout, inputFromDefs } from './layout';
import { refreshDetails, select, toggleDetails, toggleLegend } from './selection';
import { applySearch, findNext, wireSearch } from './search';
import { applyWidth, wireEvents } from './events';
import { wireOverview } from './overview';
import type { Actions, View } from './view';

export const STYLE_ID = 'ccdag-graphview-style';
/** Narrower than this (CSS px), the viewer opens with its details pane folded (docs/spec.md §10). */
const DETAILS_MIN_VIEW = 600;

/** The viewer's stylesheet, internal/graphhtml/assets/graphview.css, is the host's to put in the
 *  page (a <link> or <style> with this id): the HTML page inlines it under a CSP hash, the VS Code
 *  webview links it. It is shipped once, not also inside this bundle. */
function warnIfUnstyled(doc: Document): void {
  if (!doc.getElementById(STYLE_ID)) {
    console.warn(`CcdagGraph: no stylesheet #${STYLE_ID} in the page (graphview.css); the viewer is unstyled`);
  }
}

export function render(container: HTMLElement, graph: WorkflowGraph, options: RenderOptions = {}): GraphHandle {
  const startAt = typeof performance !== 'undefined' ? performance.now() : 0;
  if (!container || !container.ownerDocument) throw new Error('CcdagGraph.render: a container element is required');
  const doc = container.ownerDocument;
  warnIfUnstyled(doc);

  // The actions run once v exists: the buttons that call them are made before it.
  const act: Actions = {
    fit: (whole) => fit(v, whole),
    zoomBy: (f) => zoomBy(v, f),
    toggleAllAgents: () => toggleAllAgents(v),
    toggleLegend: () => toggleLegend(v),
    toggleDetails: () => toggleDetails(v),
    select: (id, reveal) => select(v, id, reveal),
    refreshDetails: () => refreshDetails(v),
  };
  const ui = buildChrome(doc, act);
  container.appendChild(ui.root);

  // ---- theme ----
  const themeOpt: ThemeName = options.theme || 'auto';
  const applyThemeClass = (t: ThemeName): Palette => {
    const dark = isDark(t, doc);
    ui.root.classList.toggle('gv-dark', dark);
    ui.root.classList.toggle('gv-light', !dark);
    return readPalette(ui.root, dark);
  };
  const palette = applyThemeClass(themeOpt);

  const cy = cytoscape({
    container: ui.cyDiv,
    elements: [],
    style: buildStyle(palette) as unknown as cytoscape.StylesheetJson,
    layout: { name: 'preset' },
    minZoom: 0.005, // ⤢ fits a session of thousands of nodes whole
    maxZoom: 3,
    autoungrabify: true,
    boxSelectionEnabled: false,
    selectionType: 'single',
  });

  const v: View = {
    doc,
    ui,
    cy,
    options,
    onReveal: typeof options.onReveal === 'function' ? options.onReveal : undefined,
    act,
    graph,
    model: buildModel(graph || {}),
    themeOpt,
    palette,
    lastDark: ui.root.classList.contains('gv-dark'),
    collapsed: new Set(),
    collapsedTurns: new Set(),
    turnSize: new Map(),
    problemsOf: new Map(),
    measures: new Map(),
    stats: { nodes: 0, edges: 0, lanes: 0, layoutMs: 0 },
    fitted: false,
    lastWhole: false,
    query: '',
    matchAt: -1,
    selected: null,
    destroyed: false,
  };

  function applyTheme() {
    v.palette = applyThemeClass(v.themeOpt);
    cy.style(buildStyle(v.palette) as unknown as cytoscape.StylesheetJson);
    buildLegend(doc, ui.legend, v.palette);
    refreshDetails(v);
  }
  const unwatch = watchTheme(doc, () => {
    if (v.themeOpt !== 'auto' || v.destroyed) return;
    const dark = isDark('auto', doc);
    if (dark !== v.lastDark) {
      v.lastDark = dark;
      applyTheme();
    }
  });
  buildLegend(doc, ui.legend, palette);

  wireSearch(v);
  wireLaneSelect(v);
  const ro = wireEvents(v);
  wireOverview(v);

  // ---- first render ----
  // In a narrow view (a side panel) the details pane starts folded: the graph needs the room.
  if (ui.root.clientWidth > 0 && ui.root.clientWidth < DETAILS_MIN_VIEW) toggleDetails(v);
  applyWidth(v);
  // Where the time of the first picture goes: build, layout, draw (docs/PERFORMANCE.md).
  const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());
  // The layout runs on the element definitions, before cytoscape holds them; the first view is
  // set from it; then cytoscape gets, placed, only what that view shows (styling, measuring and
  // drawing an element is most of the first picture's cost), and the rest right after the first
  // frame (complete), or as soon as anything needs the whole graph.
  v.stats.startAt = startAt;
  const tl = now();
  const first = computeLayout(inputFromDefs(v.model.defs), v.model.lanes);
  v.laid = first.laid;
  for (const d of v.model.defs) {
    const turn = d.group === 'edges' ? first.turns.get(d.data.id) : undefined;
    if (turn !== undefined) d.data.turn = turn;
  }
  v.stats.layoutMs = now() - tl;
  const tv = now();
  initialView(v);
  const only = firstShown(v, first);
  v.stats.viewMs = now() - tv;
  v.stats.firstIds = only ? Array.from(only) : undefined;
  const t0 = now();
  sync(v, only, first.pos);
  applyLayout(cy, first, false);
  const t1 = now();
  v.stats.buildMs = t1 - t0;
  const complete = () => {
    if (v.complete !== complete) return;
    v.complete = undefined;
    if (v.destroyed) return;
    const tc = now();
    sync(v, undefined, first.pos);
    // sync gave the lane boxes and headers their definitions' sizes again
    applyLayout(cy, first, false);
    v.stats.completeMs = now() - tc;
    showLayoutStats(v, first.ms);
  };
  if (only) {
    v.complete = complete;
    // a hidden page draws no frame: the rest comes then at the latest after a second
    setTimeout(complete, 1000);
  } else showLayoutStats(v, first.ms);
  cy.one('render', () => {
    const t2 = now();
    v.stats.drawMs = t2 - t1;
    v.stats.firstPictureAt = t2;
    ui.root.dataset.firstPicture = t2.toFixed(1);
    // after this frame is on the screen
    if (only) setTimeout(complete, 0);
  });
  // The overview is drawn on the frame after the first picture (wireOverview queues it on
  // cytoscape's render), not before it.
  showEmpty(ui.details, doc);

  const handle: GraphHandle = {
    update(next: WorkflowGraph) {
      if (v.destroyed) return;
      v.complete?.();
      v.graph = next || {};
      v.model = buildModel(v.graph);
      const z = cy.zoom();
      const p = cy.pan();
      const wasEmpty = cy.nodes('.gv-node').empty();
      sync(v);
      relayout(v);
      if (wasEmpty) initialView(v);
      else cy.viewport({ zoom: z, pan: p });
      if (v.selected !== null && !v.model.nodes.has(v.selected)) select(v, null);
      else if (v.selected !== null) select(v, v.selected);
      if (v.query) applySearch(v);
    },
    destroy() {
      if (v.destroyed) return;
      v.destroyed = true;
      unwatch();
      if (ro) ro.disconnect();
      cy.destroy();
      ui.root.remove();
    },
    fit: (whole?: boolean) => fit(v, whole),
    select: (id) => select(v, id, true),
    setLaneCollapsed: (id, c) => setLaneCollapsed(v, id, c),
    setTurnCollapsed: (id, c) => setTurnCollapsed(v, id, c),
    find(q: string) {
      v.complete?.();
      ui.search.value = v.query = q;
      v.matchAt = -1;
      applySearch(v);
      findNext(v);
      return Number(ui.root.dataset.matches || 0);
    },
    setTheme(t: ThemeName) {
      v.themeOpt = t;
      v.lastDark = isDark(t, doc);
      applyTheme();
    },
    get stats() {
      return { ...v.stats };
    },
    get cy() {
      // a host that reads cytoscape wants the whole graph
      v.complete?.();
      return cy;
    },
  };
  return handle;
}
