// The viewer's DOM around the canvas: the toolbar (title, Fit, agents, search, lane chips, stats,
// Legend, Details; in a narrow view two rows, the lanes a dropdown on the second), the stage (canvas, legend, zoom buttons, fit note, message, tooltip) and the
// details panel. The buttons call the viewer's actions.

import { button, el } from './dom';
import type { Actions } from './view';

export interface Chrome {
  root: HTMLDivElement;
  title: HTMLSpanElement;
  agentsBtn: HTMLButtonElement;
  chips: HTMLDivElement;
  /** The lanes as a dropdown: what a narrow view (a half-width panel) shows instead of the chips. */
  laneSelect: HTMLSelectElement;
  statsEl: HTMLSpanElement;
  search: HTMLInputElement;
  searchCount: HTMLSpanElement;
  legendBtn: HTMLButtonElement;
  detailsBtn: HTMLButtonElement;
  stage: HTMLDivElement;
  cyDiv: HTMLDivElement;
  legend: HTMLDivElement;
  fitNote: HTMLDivElement;
  /** The overview (minimap) canvas (overview.ts draws it). */
  overview: HTMLCanvasElement;
  message: HTMLDivElement;
  tip: HTMLDivElement;
  details: HTMLElement;
}

export function buildChrome(doc: Document, act: Actions): Chrome {
  const root = el(doc, 'div', 'ccdag-gv');
  const toolbar = el(doc, 'div', 'gv-toolbar');
  toolbar.setAttribute('role', 'toolbar');
  const title = el(doc, 'span', 'gv-title');
  const fitBtn = button(doc, 'Fit', 'Fit the whole graph in view: every lane, main and sub-agents (the overview, bottom right, goes to a part)', () => act.fit(), 'gv-fit');
  const agentsBtn = button(doc, 'Collapse agents', 'Collapse or expand every sub-agent lane', () => act.toggleAllAgents(), 'gv-agents');
  const chips = el(doc, 'div', 'gv-lanes');
  const laneSelect = el(doc, 'select', 'gv-lane-select');
  laneSelect.setAttribute('aria-label', 'Go to a lane');
  laneSelect.title = 'Go to a lane (click its header in the graph to fold or unfold it)';
  // A narrow view's toolbar breaks here: the buttons and the search above, the lanes below.
  const brk = el(doc, 'span', 'gv-break');
  const statsEl = el(doc, 'span', 'gv-stats');
  // Search: filters (fades what does not match) and finds (Enter: the next match, selected).
  const search = doc.createElement('input');
  search.type = 'search';
  search.className = 'gv-search';
  search.placeholder = 'Find nodes…';
  search.setAttribute('aria-label', 'Find nodes by text');
  const searchCount = el(doc, 'span', 'gv-search-count');
  const legendBtn = button(doc, 'Legend', 'Show or hide the legend', () => act.toggleLegend(), 'gv-legend-toggle');
  const detailsBtn = button(doc, 'Details', 'Show or hide the details panel', () => act.toggleDetails(), 'gv-details-toggle');
  legendBtn.setAttribute('aria-pressed', 'false');
  detailsBtn.setAttribute('aria-pressed', 'true');
  toolbar.append(title, fitBtn, agentsBtn, search, searchCount, el(doc, 'span', 'gv-sep'), chips, statsEl, legendBtn, detailsBtn, brk, laneSelect);

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
    button(doc, '+', 'Zoom in', () => act.zoomBy(1.25)),
    button(doc, '−', 'Zoom out', () => act.zoomBy(1 / 1.25)),
    button(doc, '⤢', 'Fit the whole graph in view, however small', () => act.fit(true)),
  );
  const overview = doc.createElement('canvas');
  overview.className = 'gv-overview';
  overview.setAttribute('role', 'img');
  overview.setAttribute('aria-label', 'Overview of the whole graph; click or drag to move the view');
  overview.title = 'Overview: click or drag to move the view';
  const fitNote = el(doc, 'div', 'gv-fit-note');
  fitNote.setAttribute('role', 'status');
  fitNote.hidden = true;
  const message = el(doc, 'div', 'gv-error');
  message.hidden = true;
  const tip = el(doc, 'div', 'gv-tip');
  tip.setAttribute('role', 'tooltip');
  tip.hidden = true;
  stage.append(cyDiv, legend, zoom, overview, fitNote, message, tip);
  const details = el(doc, 'aside', 'gv-details');
  details.setAttribute('aria-label', 'Node details');
  body.append(stage, details);
  root.append(toolbar, body);
  return { root, title, agentsBtn, chips, laneSelect, statsEl, search, searchCount, legendBtn, detailsBtn, stage, cyDiv, legend, fitNote, overview, message, tip, details };
}
