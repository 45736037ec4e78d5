// Theme resolution and the palette the canvas uses. The DOM chrome is styled by CSS variables
// (internal/graphhtml/assets/graphview.css); the canvas cannot use CSS, so the same variables are read back from the computed
// style of the root element whenever the theme changes.

import type { ThemeName } from './types';

export interface Palette {
  canvas: string;
  nodeFg: string;
  laneBg: string;
  laneBorder: string;
  laneHead: string;
  agentLaneBg: string;
  agentLaneBorder: string;
  agentLaneHead: string;
  laneHeadFg: string;
  userFill: string;
  userLine: string;
  thoughtFill: string;
  thoughtLine: string;
  actionFill: string;
  actionLine: string;
  obsFill: string;
  obsLine: string;
  failFill: string;
  failLine: string;
  systemFill: string;
  systemLine: string;
  edgeFlow: string;
  edgeTool: string;
  edgeSpawn: string;
  edgeReturn: string;
  edgeCompact: string;
  select: string;
  muted: string;
  font: string;
}

const LIGHT: Palette = {
  canvas: '#f6f8fa',
  nodeFg: '#1f2328',
  laneBg: '#eaeef2',
  laneBorder: '#d1d9e0',
  laneHead: '#d6dde5',
  agentLaneBg: '#f0ecfa',
  agentLaneBorder: '#d8ccf1',
  agentLaneHead: '#e0d6f5',
  laneHeadFg: '#1f2328',
  userFill: '#dbeafe',
  userLine: '#2563eb',
  thoughtFill: '#ede9fe',
  thoughtLine: '#7c3aed',
  actionFill: '#fef3c7',
  actionLine: '#c2410c',
  obsFill: '#dcfce7',
  obsLine: '#15803d',
  failFill: '#fee2e2',
  failLine: '#dc2626',
  systemFill: '#e5e7eb',
  systemLine: '#4b5563',
  edgeFlow: '#8c959f',
  edgeTool: '#c2410c',
  edgeSpawn: '#0e7490',
  edgeReturn: '#be185d',
  edgeCompact: '#6e7781',
  select: '#0969da',
  muted: '#59636e',
  font: 'system-ui, "DejaVu Sans", "Liberation Sans", sans-serif',
};

const DARK: Palette = {
  ...LIGHT,
  canvas: '#0d1117',
  nodeFg: '#e6edf3',
  laneBg: '#151b23',
  laneBorder: '#2a313c',
  laneHead: '#212830',
  agentLaneBg: '#1b1828',
  agentLaneBorder: '#352d52',
  agentLaneHead: '#2b2445',
  laneHeadFg: '#e6edf3',
  userFill: '#0f2a5c',
  userLine: '#60a5fa',
  thoughtFill: '#2b1760',
  thoughtLine: '#a78bfa',
  actionFill: '#3f2306',
  actionLine: '#fb923c',
  obsFill: '#0b3320',
  obsLine: '#4ade80',
  failFill: '#4a0f12',
  failLine: '#f87171',
  systemFill: '#262c36',
  systemLine: '#9ca3af',
  edgeFlow: '#6e7681',
  edgeTool: '#fb923c',
  edgeSpawn: '#22d3ee',
  edgeReturn: '#f472b6',
  edgeCompact: '#9198a1',
  select: '#4493f8',
  muted: '#9198a1',
};

const VARS: Record<keyof Palette, string> = {
  canvas: '--gv-canvas',
  nodeFg: '--gv-node-fg',
  laneBg: '--gv-lane-bg',
  laneBorder: '--gv-lane-border',
  laneHead: '--gv-lane-head',
  agentLaneBg: '--gv-agent-lane-bg',
  agentLaneBorder: '--gv-agent-lane-border',
  agentLaneHead: '--gv-agent-lane-head',
  laneHeadFg: '--gv-lane-head-fg',
  userFill: '--gv-user-fill',
  userLine: '--gv-user-line',
  thoughtFill: '--gv-thought-fill',
  thoughtLine: '--gv-thought-line',
  actionFill: '--gv-action-fill',
  actionLine: '--gv-action-line',
  obsFill: '--gv-obs-fill',
  obsLine: '--gv-obs-line',
  failFill: '--gv-fail-fill',
  failLine: '--gv-fail-line',
  systemFill: '--gv-system-fill',
  systemLine: '--gv-system-line',
  edgeFlow: '--gv-edge-flow',
  edgeTool: '--gv-edge-tool',
  edgeSpawn: '--gv-edge-spawn',
  edgeReturn: '--gv-edge-return',
  edgeCompact: '--gv-edge-compact',
  select: '--gv-select',
  muted: '--gv-muted',
  font: '--gv-font',
};

// Colours the canvas can draw: hex (3, 6 digits), rgb()/rgba(), hsl()/hsla(). Anything else
// (8-digit hex from a VS Code theme, color-mix(), ...) falls back to the built-in palette.
const DRAWABLE = /^(#[0-9a-f]{3}|#[0-9a-f]{6}|rgba?\([^()]*\)|hsla?\([^()]*\))$/i;

/** The palette of the resolved theme, with any --gv-* overrides the page's CSS makes. */
export function readPalette(root: HTMLElement, dark: boolean): Palette {
  const base = dark ? DARK : LIGHT;
  const out: Palette = { ...base };
  let cs: CSSStyleDeclaration | null = null;
  try {
    cs = root.ownerDocument.defaultView?.getComputedStyle(root) ?? null;
  } catch {
    cs = null;
  }
  if (!cs) return out;
  for (const key of Object.keys(VARS) as (keyof Palette)[]) {
    const v = cs.getPropertyValue(VARS[key]).trim();
    if (!v) continue;
    if (key === 'font') {
      out.font = v;
    } else if (DRAWABLE.test(v)) {
      out[key] = v;
    }
  }
  return out;
}

/** Whether `theme` means dark right now in this document. */
export function isDark(theme: ThemeName, doc: Document): boolean {
  if (theme === 'dark') return true;
  if (theme === 'light') return false;
  const body = doc.body;
  if (body) {
    const cl = body.classList;
    // VS Code webviews: vscode-light, vscode-dark, vscode-high-contrast, vscode-high-contrast-light.
    if (cl.contains('vscode-high-contrast-light') || cl.contains('vscode-light')) return false;
    if (cl.contains('vscode-dark') || cl.contains('vscode-high-contrast')) return true;
  }
  const win = doc.defaultView;
  return !!(win && win.matchMedia && win.matchMedia('(prefers-color-scheme: dark)').matches);
}

/** Calls `onChange` when what 'auto' resolves to may have changed. Returns the unsubscribe. */
export function watchTheme(doc: Document, onChange: () => void): () => void {
  const cleanups: (() => void)[] = [];
  const win = doc.defaultView;
  if (win && win.matchMedia) {
    const mq = win.matchMedia('(prefers-color-scheme: dark)');
    const h = () => onChange();
    if (mq.addEventListener) {
      mq.addEventListener('change', h);
      cleanups.push(() => mq.removeEventListener('change', h));
    }
  }
  if (doc.body && typeof MutationObserver !== 'undefined') {
    const mo = new MutationObserver(() => onChange());
    mo.observe(doc.body, { attributes: true, attributeFilter: ['class'] });
    cleanups.push(() => mo.disconnect());
  }
  return () => cleanups.forEach((c) => c());
}
