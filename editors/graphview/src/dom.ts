// DOM helpers. Text only ever goes in through textContent; attributes set here are fixed names
// with values this code makes, never log text (except `title`, which the browser shows as text).

export function el<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  cls?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = doc.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

export function button(doc: Document, text: string, title: string, onClick: () => void, cls?: string): HTMLButtonElement {
  const b = el(doc, 'button', cls, text);
  b.type = 'button';
  b.title = title;
  if (Array.from(text).length <= 2) b.setAttribute('aria-label', title); // icon-only buttons
  b.addEventListener('click', (ev) => {
    ev.preventDefault();
    onClick();
  });
  return b;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(doc: Document, w: number, h: number): SVGSVGElement {
  const s = doc.createElementNS(SVG_NS, 'svg');
  s.setAttribute('width', String(w));
  s.setAttribute('height', String(h));
  s.setAttribute('viewBox', `0 0 ${w} ${h}`);
  s.setAttribute('aria-hidden', 'true');
  return s;
}

export function svgChild(doc: Document, parent: Element, tag: string, attrs: Record<string, string | number>): SVGElement {
  const c = doc.createElementNS(SVG_NS, tag) as SVGElement;
  for (const [k, v] of Object.entries(attrs)) c.setAttribute(k, String(v));
  parent.appendChild(c);
  return c;
}
