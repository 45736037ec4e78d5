// The cytoscape stylesheet: node kinds differ by shape AND colour, edge kinds by dash, width and
// colour. Labels come from data(display), drawn on the canvas as plain text.

import type { Palette } from './theme';

export const NODE_W = 210;
export const NODE_H = 48;
export const HEAD_H = 30;

type Rule = { selector: string; style: Record<string, unknown> };

export function buildStyle(p: Palette): Rule[] {
  return [
    {
      selector: 'node',
      style: {
        'font-family': p.font,
        'font-size': 12,
        color: p.nodeFg,
        'min-zoomed-font-size': 5,
      },
    },
    {
      selector: 'node.gv-node, node.gv-box',
      style: {
        width: NODE_W,
        height: NODE_H,
        label: 'data(display)',
        'text-valign': 'center',
        'text-halign': 'center',
        'text-wrap': 'wrap',
        // labels arrive wrapped (index.ts measures them); this only guards against overflow
        'text-max-width': NODE_W - 8,
        'text-overflow-wrap': 'anywhere',
        'line-height': 1.25,
        'border-width': 1.5,
        'border-opacity': 1,
        'background-opacity': 1,
        'transition-property': 'opacity',
        'transition-duration': 0,
      },
    },
    {
      selector: 'node.k-user',
      style: {
        shape: 'round-rectangle',
        'corner-radius': NODE_H / 2,
        'background-color': p.userFill,
        'border-color': p.userLine,
        'border-width': 2,
        'font-weight': 600,
      },
    },
    {
      selector: 'node.k-thought',
      style: {
        shape: 'round-rectangle',
        'corner-radius': 8,
        'background-color': p.thoughtFill,
        'border-color': p.thoughtLine,
      },
    },
    {
      selector: 'node.k-action',
      style: {
        shape: 'cut-rectangle',
        'background-color': p.actionFill,
        'border-color': p.actionLine,
        'font-family': p.font,
      },
    },
    {
      selector: 'node.k-obs',
      style: {
        shape: 'rectangle',
        'background-color': p.obsFill,
        'border-color': p.obsLine,
      },
    },
    {
      selector: 'node.k-system, node.k-other',
      style: {
        shape: 'hexagon',
        'background-color': p.systemFill,
        'border-color': p.systemLine,
        'font-style': 'italic',
      },
    },
    {
      selector: 'node.failure',
      style: {
        'background-color': p.failFill,
        'border-color': p.failLine,
        'border-width': 2.5,
        color: p.nodeFg,
      },
    },
    {
      selector: 'node.fork, node.join',
      style: {
        'border-style': 'double',
        'border-width': 4.5,
      },
    },
    {
      selector: 'node.inactive',
      style: {
        opacity: 0.38,
        'border-style': 'dashed',
        'border-width': 1.5,
      },
    },
    {
      selector: 'node.gv-lane',
      style: {
        shape: 'round-rectangle',
        'corner-radius': 10,
        width: 'data(w)',
        height: 'data(h)',
        'background-color': p.laneBg,
        'border-color': p.laneBorder,
        'border-width': 1,
        events: 'no',
        label: '',
        'z-compound-depth': 'bottom',
      },
    },
    {
      selector: 'node.gv-lane.gv-outline',
      style: {
        shape: 'polygon',
        'shape-polygon-points': (n: { data: (k: string) => unknown }) => String(n.data('points') || '-1 -1 1 -1 1 1 -1 1'),
      },
    },
    {
      selector: 'node.gv-lane.agent',
      style: {
        'background-color': p.agentLaneBg,
        'border-color': p.agentLaneBorder,
      },
    },
    {
      selector: 'node.gv-head',
      style: {
        shape: 'round-rectangle',
        'corner-radius': 6,
        width: 'data(w)',
        height: HEAD_H,
        label: 'data(display)',
        'text-valign': 'center',
        'text-halign': 'center',
        'text-wrap': 'ellipsis',
        'text-max-width': 'data(tw)',
        'font-size': 12.5,
        'font-weight': 700,
        color: p.laneHeadFg,
        'background-color': p.laneHead,
        'border-width': 1,
        'border-color': p.laneBorder,
      },
    },
    {
      selector: 'node.gv-head.agent',
      style: {
        'background-color': p.agentLaneHead,
        'border-color': p.agentLaneBorder,
      },
    },
    {
      selector: 'node.gv-box',
      style: {
        shape: 'round-rectangle',
        'corner-radius': 8,
        'background-color': p.agentLaneHead,
        'border-color': p.thoughtLine,
        'border-style': 'dashed',
        'border-width': 1.5,
        'font-style': 'italic',
      },
    },
    {
      selector: 'node.gv-problem',
      style: { 'border-width': 3, 'border-style': 'solid' },
    },
    {
      selector: 'node.gv-problem-error',
      style: { 'border-color': '#e5484d' },
    },
    {
      selector: 'node.gv-problem-warning',
      style: { 'border-color': '#f5a524' },
    },
    {
      selector: 'node.gv-problem-information, node.gv-problem-hint',
      style: { 'border-color': '#3e9cf0' },
    },
    {
      selector: 'node.gv-turn-folded',
      style: { 'border-width': 3, 'border-style': 'double' },
    },
    {
      selector: '.gv-dim',
      style: { opacity: 0.18 },
    },
    {
      selector: 'node.gv-match',
      style: { 'underlay-color': '#f5d90a', 'underlay-opacity': 0.45, 'underlay-padding': 6 },
    },
    {
      selector: '.gv-hidden',
      style: { display: 'none' },
    },
    {
      selector: 'edge',
      style: {
        width: 1.5,
        'curve-style': 'bezier',
        'line-color': p.edgeFlow,
        'target-arrow-color': p.edgeFlow,
        'target-arrow-shape': 'triangle',
        'arrow-scale': 0.9,
        'line-cap': 'round',
      },
    },
    {
      selector: 'edge.e-tool',
      style: {
        'line-style': 'dashed',
        'line-dash-pattern': [6, 4],
        'line-color': p.edgeTool,
        'target-arrow-color': p.edgeTool,
        'target-arrow-shape': 'vee',
      },
    },
    {
      // between lanes: down out of the source, across in the gap between two rows, down into
      // the target, so the line crosses no node of the row it leaves
      selector: 'edge.e-spawn, edge.e-return, edge.gv-cross',
      style: {
        'curve-style': 'taxi',
        'taxi-direction': 'downward',
        'taxi-turn': (e: { data: (k: string) => unknown }) => String(e.data('turn') || '50%'),
        'taxi-turn-min-distance': 3,
        'taxi-radius': 10,
      },
    },
    {
      selector: 'edge.e-spawn',
      style: {
        width: 3.5,
        'line-color': p.edgeSpawn,
        'target-arrow-color': p.edgeSpawn,
        'arrow-scale': 1.1,
        'z-index': 5,
      },
    },
    {
      selector: 'edge.e-return',
      style: {
        width: 3.5,
        'line-color': p.edgeReturn,
        'target-arrow-color': p.edgeReturn,
        'arrow-scale': 1.1,
        'z-index': 5,
      },
    },
    {
      selector: 'edge.e-compact',
      style: {
        width: 2.5,
        'line-style': 'dotted',
        'line-color': p.edgeCompact,
        'target-arrow-color': p.edgeCompact,
        'target-arrow-shape': 'triangle-backcurve',
      },
    },
    {
      selector: 'edge.inactive',
      style: { opacity: 0.3 },
    },
    {
      selector: 'edge.gv-proxy',
      style: { 'line-style': 'dashed', 'line-dash-pattern': [3, 3] },
    },
    {
      selector: 'node.gv-node:selected',
      style: {
        'border-color': p.select,
        'border-width': 3,
        'border-style': 'solid',
        'underlay-color': p.select,
        'underlay-opacity': 0.22,
        'underlay-padding': 6,
        'underlay-shape': 'round-rectangle',
        opacity: 1,
      },
    },
    {
      selector: 'edge.gv-hl',
      style: {
        'line-color': p.select,
        'target-arrow-color': p.select,
        width: 3,
        opacity: 1,
        'z-index': 10,
      },
    },
  ];
}
