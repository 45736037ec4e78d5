// The legend: node kinds (shape + colour) and edge kinds (dash + width + colour), drawn as small
// SVG swatches that match the canvas styles.

import type { Palette } from './theme';
import { el, svg, svgChild } from './dom';

type Shape = 'pill' | 'round' | 'cut' | 'rect' | 'hex';

function nodeSwatch(doc: Document, shape: Shape, fill: string, line: string, opts: { dash?: boolean; double?: boolean; opacity?: number } = {}) {
  const s = svg(doc, 30, 16);
  const common: Record<string, string | number> = { fill, stroke: line, 'stroke-width': 1.5 };
  if (opts.dash) common['stroke-dasharray'] = '3 2';
  if (opts.opacity !== undefined) common.opacity = opts.opacity;
  const draw = (inset: number, attrs: Record<string, string | number>) => {
    const x = 1 + inset, y = 1 + inset, w = 28 - 2 * inset, h = 14 - 2 * inset;
    switch (shape) {
      case 'pill':
        svgChild(doc, s, 'rect', { x, y, width: w, height: h, rx: h / 2, ...attrs });
        break;
      case 'round':
        svgChild(doc, s, 'rect', { x, y, width: w, height: h, rx: 3.5, ...attrs });
        break;
      case 'rect':
        svgChild(doc, s, 'rect', { x, y, width: w, height: h, ...attrs });
        break;
      case 'cut': {
        const c = 3.5;
        const pts = [[x + c, y], [x + w - c, y], [x + w, y + c], [x + w, y + h - c], [x + w - c, y + h], [x + c, y + h], [x, y + h - c], [x, y + c]];
        svgChild(doc, s, 'polygon', { points: pts.map((p) => p.join(',')).join(' '), ...attrs });
        break;
      }
      case 'hex': {
        const c = 5;
        const pts = [[x + c, y], [x + w - c, y], [x + w, y + h / 2], [x + w - c, y + h], [x + c, y + h], [x, y + h / 2]];
        svgChild(doc, s, 'polygon', { points: pts.map((p) => p.join(',')).join(' '), ...attrs });
        break;
      }
    }
  };
  draw(0, common);
  if (opts.double) draw(2.5, { fill: 'none', stroke: line, 'stroke-width': 1 });
  return s;
}

function edgeSwatch(doc: Document, color: string, width: number, dash?: string) {
  const s = svg(doc, 30, 16);
  const attrs: Record<string, string | number> = { x1: 1, y1: 8, x2: 22, y2: 8, stroke: color, 'stroke-width': width, 'stroke-linecap': 'round' };
  if (dash) attrs['stroke-dasharray'] = dash;
  svgChild(doc, s, 'line', attrs);
  svgChild(doc, s, 'polygon', { points: '21,3.5 29,8 21,12.5', fill: color });
  return s;
}

function row(doc: Document, swatch: SVGSVGElement, text: string): HTMLElement {
  const r = el(doc, 'div', 'gv-legend-row');
  r.appendChild(swatch);
  r.appendChild(el(doc, 'span', undefined, text));
  return r;
}

export function buildLegend(doc: Document, container: HTMLElement, p: Palette): void {
  const nodeRows = [
    row(doc, nodeSwatch(doc, 'pill', p.userFill, p.userLine), 'User input'),
    row(doc, nodeSwatch(doc, 'round', p.thoughtFill, p.thoughtLine), 'Thought'),
    row(doc, nodeSwatch(doc, 'cut', p.actionFill, p.actionLine), 'Action (tool call)'),
    row(doc, nodeSwatch(doc, 'rect', p.obsFill, p.obsLine), 'Observation'),
    row(doc, nodeSwatch(doc, 'rect', p.failFill, p.failLine), 'Failure'),
    row(doc, nodeSwatch(doc, 'hex', p.systemFill, p.systemLine), 'System'),
    row(doc, nodeSwatch(doc, 'round', p.thoughtFill, p.thoughtLine, { double: true }), 'Fork / join'),
    row(doc, nodeSwatch(doc, 'round', p.thoughtFill, p.thoughtLine, { dash: true, opacity: 0.4 }), 'Abandoned branch'),
  ];
  const edgeRows = [
    row(doc, edgeSwatch(doc, p.edgeFlow, 1.5), 'Flow'),
    row(doc, edgeSwatch(doc, p.edgeTool, 1.5, '4 3'), 'Tool result'),
    row(doc, edgeSwatch(doc, p.edgeSpawn, 3.5), 'Spawn agent'),
    row(doc, edgeSwatch(doc, p.edgeReturn, 3.5), 'Agent returns'),
    row(doc, edgeSwatch(doc, p.edgeCompact, 2.5, '1 3'), 'Compaction'),
  ];
  // Two columns: nodes on the left, edges on the right.
  const left = el(doc, 'div');
  const right = el(doc, 'div');
  left.appendChild(el(doc, 'h3', undefined, 'Nodes'));
  nodeRows.forEach((r) => left.appendChild(r));
  right.appendChild(el(doc, 'h3', undefined, 'Edges'));
  edgeRows.forEach((r) => right.appendChild(r));
  container.replaceChildren(left, right);
}
