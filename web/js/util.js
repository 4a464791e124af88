// Small DOM and formatting helpers shared by the page's modules. Every piece
// of data reaches the page through textContent (el() and setText()), never
// through innerHTML: names come from players.

// el('td', {class: 'num', title: 't'}, 'text', child, ...) -> element.
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === undefined || child === null) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function setText(node, text) {
  node.textContent = text === undefined || text === null ? '' : String(text);
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

// A time in microseconds as m:ss.mmm (null: none -> dash).
export function lapTime(us) {
  if (us === null || us === undefined || us < 0) return '—';
  const ms = Math.round(us / 1000);
  const m = Math.floor(ms / 60000);
  const s = Math.floor((ms % 60000) / 1000);
  return `${m}:${String(s).padStart(2, '0')}.${String(ms % 1000).padStart(3, '0')}`;
}

// A sector or a gap: seconds with milliseconds ("27.313").
export function seconds(us) {
  if (us === null || us === undefined || us < 0) return '—';
  return (us / 1e6).toFixed(3);
}

// Gap or interval: "+1.234", "+2 L" laps behind; the leader has none.
export function gap(us, lapsBehind) {
  if (lapsBehind > 0) return `+${lapsBehind} L`;
  if (us === null || us === undefined) return '—';
  return `+${(us / 1e6).toFixed(3)}`;
}

// Guests are stored as "~name" (server/services); shown as "name (guest)".
export function driverName(name) {
  if (typeof name !== 'string') return '';
  return name.startsWith('~') ? `${name.slice(1)} (guest)` : name;
}

export function unixDate(s) {
  if (!s) return '—';
  const d = new Date(s * 1000);
  return d.toLocaleString(undefined, {dateStyle: 'short', timeStyle: 'medium'});
}

// What tests (tests/web/test_web.mjs) and curious people read: the page's own
// state, without scraping the canvas.
export const debug = (window.__racesim = window.__racesim || {});
