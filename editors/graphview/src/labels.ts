// Node and lane-box labels. Node labels are wrapped here, with the canvas's own text metrics, so
// that a line breaks between words and a long path or id is cut where it must be, never
// overflowing its node.

import { NODE_W } from './cystyle';
import { measurer, shorten, wrapText } from './text';
import type { WorkflowGraph } from './types';
import type { View } from './view';

export function displayFor(v: View, classes: string, text: string): string {
  const system = /\bk-(system|other)\b/.test(classes);
  const user = /\bk-user\b/.test(classes);
  const font = `${system ? 'italic ' : 'normal '}${user ? '600' : 'normal'} 12px ${v.palette.font}`;
  let m = v.measures.get(font);
  if (!m) v.measures.set(font, (m = measurer(v.doc, font)));
  return wrapText(text, m, system ? NODE_W - 64 : user ? NODE_W - 40 : NODE_W - 28, 2);
}

/** The label of a collapsed lane's box. */
export function boxLabel(nodes: number): string {
  return `${nodes} node${nodes === 1 ? '' : 's'} collapsed\nclick to expand`;
}

export function sessionTitle(graph: WorkflowGraph): string {
  const id = graph && graph.session && typeof graph.session.id === 'string' ? graph.session.id : '';
  return id ? `Session ${shorten(id, 13)}` : 'Workflow graph';
}
