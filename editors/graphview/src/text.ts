// Small text helpers. Everything here returns plain strings that end up in textContent or in
// canvas labels: never HTML.

/** Collapses whitespace and cuts `s` to at most `max` characters (by code point), adding an ellipsis. */
export function shorten(s: string | undefined | null, max: number): string {
  if (!s) return '';
  const flat = String(s).replace(/\s+/g, ' ').trim();
  const cps = Array.from(flat);
  if (cps.length <= max) return flat;
  return cps.slice(0, Math.max(1, max - 1)).join('').trimEnd() + '…';
}

export function formatDuration(ms: number | undefined): string {
  if (typeof ms !== 'number' || !isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s - m * 60);
  if (m < 60) return `${m} min ${rest} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${m - h * 60} min`;
}

export function formatCount(n: number | undefined): string {
  if (typeof n !== 'number' || !isFinite(n)) return '';
  return n.toLocaleString('en-US');
}

/** The last path segment of a URI or path, percent-decoded when that is possible. */
export function baseName(uri: string): string {
  const seg = uri.replace(/[?#].*$/, '').split(/[\\/]/).filter(Boolean).pop() || uri;
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && isFinite(v) ? v : undefined;
}

export type Measure = (s: string) => number;

/** Breaks `text` into at most `maxLines` lines no wider than `maxWidth` (as `measure` says),
 *  at spaces where it can and inside long words (paths, ids) where it must; an ellipsis ends
 *  the last line when text is left over. */
export function wrapText(text: string, measure: Measure, maxWidth: number, maxLines: number): string {
  const words = text.split(' ').filter((w) => w !== '');
  const lines: string[] = [];
  let cur = '';
  let i = 0;
  let overflow = false;
  while (i < words.length) {
    const w = words[i];
    const cand = cur ? cur + ' ' + w : w;
    if (measure(cand) <= maxWidth) {
      cur = cand;
      i++;
      continue;
    }
    if (cur && measure(w) <= maxWidth) {
      lines.push(cur);
      cur = '';
    } else {
      // The word does not fit on a line of its own: put as much of it as fits here.
      const cps = Array.from(w);
      let lo = 0;
      const prefix = cur ? cur + ' ' : '';
      while (lo < cps.length && measure(prefix + cps.slice(0, lo + 1).join('')) <= maxWidth) lo++;
      if (lo === 0 && cur) {
        lines.push(cur);
        cur = '';
        continue;
      }
      lo = Math.max(lo, 1);
      lines.push(prefix + cps.slice(0, lo).join(''));
      cur = '';
      words[i] = cps.slice(lo).join('');
      if (words[i] === '') i++;
    }
    if (lines.length >= maxLines) {
      overflow = i < words.length || cur !== '';
      break;
    }
  }
  if (lines.length < maxLines && cur) lines.push(cur);
  else if (cur) overflow = true;
  if (lines.length > maxLines) {
    lines.length = maxLines;
    overflow = true;
  }
  if (overflow && lines.length) {
    let last = lines[lines.length - 1];
    while (last && measure(last + '…') > maxWidth) last = Array.from(last).slice(0, -1).join('');
    lines[lines.length - 1] = last.trimEnd() + '…';
  }
  return lines.join('\n');
}

/** A text measurer for a canvas font, or a rough one when there is no canvas. */
export function measurer(doc: Document, font: string): Measure {
  let ctx: CanvasRenderingContext2D | null = null;
  try {
    ctx = doc.createElement('canvas').getContext('2d');
  } catch {
    ctx = null;
  }
  if (!ctx) return (s) => Array.from(s).length * 6.2;
  const c = ctx;
  c.font = font;
  const cache = new Map<string, number>();
  return (s) => {
    let w = cache.get(s);
    if (w === undefined) {
      w = c.measureText(s).width;
      if (cache.size > 20000) cache.clear();
      cache.set(s, w);
    }
    return w;
  };
}
