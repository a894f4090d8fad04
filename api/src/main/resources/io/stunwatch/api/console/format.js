// Figures for people: an unknown value is shown as unknown, never as 0.
export const UNKNOWN = '–';

export function num(v, digits = 1, unit = '') {
  return v === null || v === undefined || Number.isNaN(v) ? UNKNOWN : `${Number(v).toFixed(digits)}${unit}`;
}

export function time(iso) {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : UNKNOWN;
}

export function gib(mib) {
  return mib === null || mib === undefined ? UNKNOWN : `${(mib / 1024).toFixed(1)} GiB`;
}

/** An element with attributes and children (strings become text, never HTML). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** A table of rows; columns are [header, row => cell, class]; key names each row (data-key). */
export function table(columns, rows, onRow, key) {
  return el('table', {},
    el('thead', {}, el('tr', {}, columns.map(([h, , cls]) => el('th', { class: cls }, h)))),
    el('tbody', {}, rows.map((r) => el('tr', {
      class: onRow ? 'link' : null, onclick: onRow ? () => onRow(r) : null, 'data-key': key ? key(r) : null,
    }, columns.map(([, f, cls]) => el('td', { class: cls }, f(r)))))));
}

export function badge(text, kind) {
  return el('span', { class: `badge ${kind || ''}` }, text);
}
