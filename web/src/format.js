// Number and text formatting shared by the pages and the report.

export function fmt(value, digits = 1) {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  return Number(value).toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

// 1.2e12 -> "1.2 T", 3.4e-3 -> "3.4 m": readable labels on log axes spanning many decades.
export function si(value, digits = 2) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  if (value === 0) return '0';
  const prefixes = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'], [1, ''], [1e-3, 'm'], [1e-6, 'µ']];
  const abs = Math.abs(value);
  const [scale, prefix] = prefixes.find(([s]) => abs >= s) || prefixes[prefixes.length - 1];
  return `${fmt(value / scale, digits)}${prefix ? ` ${prefix}` : ''}`;
}

export function pct(value, digits = 1) {
  return value === null || value === undefined ? '—' : `${fmt(value, digits)} %`;
}

export function bytes(value) {
  if (value === null || value === undefined) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = Number(value);
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${fmt(v, v < 10 ? 2 : 1)} ${units[i]}`;
}

export function money(value) {
  return value === null || value === undefined ? '—' : `$${fmt(value, 0)}`;
}

// Creates an element: el('div', {class: 'x'}, child, 'text', ...).
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function table(headers, rows) {
  return el('table', { class: 'grid' },
    el('thead', {}, el('tr', {}, headers.map((h) => el('th', {}, h)))),
    el('tbody', {}, rows.map((cells) => el('tr', {}, cells.map((c) => el('td', {}, c))))));
}

export function badge(text, kind) {
  return el('span', { class: `badge ${kind || text || ''}` }, text || '—');
}
