// The viewer's DOM around the canvas: the toolbar (title, Fit, agents, search, lane chips, stats,
// Legend, Details), the stage (canvas, legend, zoom buttons, fit note, message, tooltip) and the
// details panel. The buttons call the viewer's actions.

import { button, el } from './dom';
import type { Actions } from './view';

export interface Chrome {
  root: HTMLDivElement;
  title: HTMLSpanElement;
  agentsBtn: HTMLButtonElement;
  chips: HTMLDivElement;
  statsEl: HTMLSpanElement;
  search: HTMLInputElement;
  searchCount: HTMLSpanElement;
  legendBtn: HTMLButtonElement;
  detailsBtn: HTMLButtonElement;
  stage: HTMLDivElement;
  cyDiv: HTMLDivElement;
  legend: HTMLDivElement;
  fitNote: HTMLDivElement;
  message: HTMLDivElement;
  tip: HTMLDivElement;
  details: HTMLElement;
}

export function buildChrome(doc: Document, act: Actions): Chrome {
  const root = el(doc, 'div', 'ccdag-gv');
  const toolbar = el(doc, 'div', 'gv-toolbar');
  toolbar.setAttribute('role', 'toolbar');
  const title = el(doc, 'span', 'gv-title');
  const fitBtn = button(doc, 'Fit', 'Fit the graph in view; when the whole would be too small to read, what fits at a readable zoom around the selected node or the start (⤢ shows all)', () => act.fit(), 'gv-fit');
  const agentsBtn = button(doc, 'Collapse agents', 'Collapse or expand every sub-agent lane', () => act.toggleAllAgents(), 'gv-agents');
  const chips = el(doc, 'div', 'gv-lanes');
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
    button(doc, '+', 'Zoom in', () => act.zoomBy(1.25)),
    button(doc, '−', 'Zoom out', () => act.zoomBy(1 / 1.25)),
    button(doc, '⤢', 'Fit the whole graph in view, however small', () => act.fit(true)),
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
  return { root, title, agentsBtn, chips, statsEl, search, searchCount, legendBtn, detailsBtn, stage, cyDiv, legend, fitNote, message, tip, details };
}
