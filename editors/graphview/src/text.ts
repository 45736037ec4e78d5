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

/** shorten, but a path in `s` (its last word with a / or \\) gives up characters from its
 *  middle first, so that its file name stays (docs/spec.md §10); else the end is cut. */
export function shortenPath(s: string | undefined | null, max: number): string {
  if (!s) return '';
  const flat = String(s).replace(/\s+/g, ' ').trim();
  const over = Array.from(flat).length - max;
  if (over <= 0) return flat;
  const words = flat.split(' ');
  for (let k = words.length - 1; k >= 0; k--) {
    const cps = Array.from(words[k]);
    if (!/[/\\]/.test(words[k])) continue;
    const base = cps.length - 1 - Math.max(cps.lastIndexOf('/'), cps.lastIndexOf('\\'));
    const keep = cps.length - over - 1; // characters of the path left beside the ellipsis
    if (keep < Math.min(base + 2, 12)) break;
    const tail = Math.max(keep - Math.floor(keep * 0.3), Math.min(keep - 1, base + 1));
    words[k] = cps.slice(0, keep - tail).join('') + '…' + cps.slice(cps.length - tail).join('');
    return words.join(' ');
  }
  return shorten(flat, max);
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
  const first = wrap(text, measure, maxWidth, maxLines);
  if (!first.overflow) return first.text;
  // Too long: a path in it (the server's labels cut paths in the middle to 80 characters, more
  // than two lines of a node hold) is cut in its middle again, so that its file name stays
  // (docs/spec.md §10), rather than the end going under the ellipsis.
  const words = text.split(' ');
  let at = -1;
  for (let k = words.length - 1; k >= 0; k--) {
    if (/[/\\]/.test(words[k]) && Array.from(words[k]).length > 8) {
      at = k;
      break;
    }
  }
  if (at < 0) return first.text;
  const cps = Array.from(words[at]);
  const base = cps.length - 1 - Math.max(cps.lastIndexOf('/'), cps.lastIndexOf('\\'));
  const cut = (n: number) => {
    const tail = Math.max(n - Math.floor(n * 0.3), Math.min(n - 1, base + 1));
    const w = words.slice();
    w[at] = cps.slice(0, n - tail).join('') + '…' + cps.slice(cps.length - tail).join('');
    return wrap(w.join(' '), measure, maxWidth, maxLines);
  };
  // The most of the path that fits (kept characters, by bisection).
  let lo = 2;
  let hi = cps.length - 1;
  if (cut(lo).overflow) return first.text;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (cut(mid).overflow) hi = mid - 1;
    else lo = mid;
  }
  return cut(lo).text;
}

function wrap(text: string, measure: Measure, maxWidth: number, maxLines: number): { text: string; overflow: boolean } {
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
  return { text: lines.join('\n'), overflow };
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
