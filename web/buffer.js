// Buffer contents shown as a table of elements in a format the user picks
// (float, vec3, ushort, ubyte4..., or a struct such as "3f 2f 4ub"), one page
// of elements fetched at a time.

import { ApiError, aborted } from './api.js';
import { el, note, fmtNumber } from './util.js';

// component letters: size in bytes and DataView reader
const TYPES = {
  f: [4, (v, o) => v.getFloat32(o, true)],
  h: [2, (v, o) => half(v.getUint16(o, true))],
  i: [4, (v, o) => v.getInt32(o, true)],
  u: [4, (v, o) => v.getUint32(o, true)],
  s: [2, (v, o) => v.getInt16(o, true)],
  us: [2, (v, o) => v.getUint16(o, true)],
  b: [1, (v, o) => v.getInt8(o)],
  ub: [1, (v, o) => v.getUint8(o)],
};

export const PRESETS = {
  hex: 'hex',
  float: 'f',
  vec2: '2f',
  vec3: '3f',
  vec4: '4f',
  mat4: '16f',
  half: 'h',
  int: 'i',
  ivec4: '4i',
  uint: 'u',
  short: 's',
  ushort: 'us',
  byte: 'b',
  ubyte: 'ub',
  ubyte4: '4ub',
};

function half(bits) {
  const s = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const m = bits & 0x3ff;
  if (e === 0) return s * 2 ** -14 * (m / 1024);
  if (e === 31) return m ? NaN : s * Infinity;
  return s * 2 ** (e - 15) * (1 + m / 1024);
}

// "3f 2f 4ub" -> [{type:'f', count:3}, ...]; throws on a bad format.
export function parseFormat(text) {
  const spec = text.trim();
  if (spec === 'hex') return 'hex';
  const fields = [];
  for (const tok of spec.split(/[\s,]+/).filter(Boolean)) {
    const m = /^(\d*)(f|h|i|u|s|us|b|ub)$/.exec(tok);
    if (!m) throw new Error(`bad element format "${tok}": use e.g. f, 3f, 2h, i, u, s, us, b, ub, 4ub or hex`);
    fields.push({ type: m[2], count: m[1] ? Number(m[1]) : 1 });
  }
  if (!fields.length) throw new Error('empty element format');
  return fields;
}

// The elements of bytes (little-endian) in a parsed format, one every stride
// bytes: [[component values...], ...], whole elements only.
export function decodeElements(bytes, fields, stride) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = formatSize(fields);
  const out = [];
  for (let o = 0; o + size <= bytes.length; o += stride) {
    const row = [];
    let p = o;
    for (const f of fields) {
      const [sz, read] = TYPES[f.type];
      for (let k = 0; k < f.count; k++, p += sz) row.push(read(view, p));
    }
    out.push(row);
  }
  return out;
}

export function formatSize(fields) {
  return fields.reduce((n, f) => n + TYPES[f.type][0] * f.count, 0);
}



// A viewer bound to fetch(offset, size, signal) -> Uint8Array; total may be
// null when unknown (a replayed buffer's size).
// initialFormat: a preset's name or a format ("3f"); offset and stride: the
// first element's byte offset and the bytes between elements (0: packed).
export function bufferViewer({ fetch, total, title, initialFormat = 'hex', offset = 0, stride = 0 }) {
  const root = el('div', { class: 'buffer-viewer' });
  const fmtSelect = el('select', { class: 'buffer-format', title: 'element format' });
  for (const name of Object.keys(PRESETS)) fmtSelect.append(el('option', { value: PRESETS[name] }, name));
  fmtSelect.append(el('option', { value: 'custom' }, 'custom…'));
  const custom = el('input', { class: 'buffer-custom', placeholder: 'e.g. 3f 2f 4ub', size: '12' });
  const offsetIn = el('input', { type: 'number', min: '0', value: String(offset), class: 'num', title: 'byte offset of the first element' });
  const strideIn = el('input', { type: 'number', min: '0', value: String(stride), class: 'num', title: 'stride in bytes (0: packed)' });
  const rowsPer = 256;
  let page = 0;
  const body = el('div', { class: 'buffer-body' });
  const pager = el('span', { class: 'pager' });
  const prev = el('button', { onclick: () => go(page - 1) }, '◀');
  const next = el('button', { onclick: () => go(page + 1) }, '▶');
  let controller = null;
  const spec = PRESETS[initialFormat] ?? initialFormat;
  if (Object.values(PRESETS).includes(spec)) {
    fmtSelect.value = spec;
  } else {
    fmtSelect.value = 'custom';
    custom.value = spec;
  }
  const bar = el(
    'div',
    { class: 'buffer-bar' },
    title ? el('b', {}, title, ' ') : null,
    total !== null ? `${total} bytes · ` : '',
    'format ', fmtSelect, custom, ' offset ', offsetIn, ' stride ', strideIn, ' ', prev, pager, next,
  );
  custom.hidden = fmtSelect.value !== 'custom';
  root.append(bar, body);

  function go(p) {
    page = Math.max(0, p);
    render();
  }

  async function render() {
    let fields;
    try {
      fields = parseFormat(fmtSelect.value === 'custom' ? custom.value || 'f' : fmtSelect.value);
    } catch (e) {
      body.replaceChildren(note('error', e.message));
      return;
    }
    const elemSize = fields === 'hex' ? 16 : formatSize(fields);
    const stride = fields === 'hex' ? 16 : Number(strideIn.value) || elemSize;
    const base = (Number(offsetIn.value) || 0) + page * rowsPer * stride;
    let size = rowsPer * stride;
    if (total !== null) size = Math.max(0, Math.min(size, total - base));
    prev.disabled = page === 0;
    if (controller) controller.abort();
    controller = new AbortController();
    if (size <= 0) {
      body.replaceChildren(note('empty', 'no bytes at this offset'));
      next.disabled = true;
      pager.textContent = ` page ${page + 1} `;
      return;
    }
    body.replaceChildren(note('loading', 'loading buffer contents…'));
    let bytes;
    try {
      bytes = await fetch(base, size, controller.signal);
    } catch (e) {
      if (aborted(e)) return;
      body.replaceChildren(note('error', e instanceof ApiError ? e.message : String(e)));
      return;
    }
    // hex: every byte, the last line maybe short; elements: whole ones only
    const decoded = fields === 'hex' ? null : decodeElements(bytes, fields, stride);
    const rows = fields === 'hex' ? Math.ceil(bytes.length / 16) : decoded.length;
    next.disabled = bytes.length < size || (total !== null && base + size >= total);
    pager.textContent = ` elements ${page * rowsPer}–${page * rowsPer + Math.max(0, rows) - 1} `;
    const table = el('table', { class: 'buffer-table' });
    const head = el('tr', {}, el('th', {}, fields === 'hex' ? 'offset' : '#'));
    if (fields === 'hex') head.append(el('th', {}, 'bytes'), el('th', {}, 'ascii'));
    else fields.forEach((f) => head.append(el('th', { colspan: f.count }, f.count > 1 ? `${f.count}${f.type}` : f.type)));
    table.append(head);
    for (let r = 0; r < rows; r++) {
      const o = r * stride;
      const tr = el('tr', {});
      if (fields === 'hex') {
        const slice = bytes.subarray(o, o + 16);
        tr.append(
          el('td', { class: 'idx' }, (base + o).toString(16).padStart(8, '0')),
          el('td', { class: 'hex' }, Array.from(slice, (b) => b.toString(16).padStart(2, '0')).join(' ')),
          el('td', { class: 'ascii' }, Array.from(slice, (b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : '.')).join('')),
        );
      } else {
        tr.append(el('td', { class: 'idx' }, page * rowsPer + r), decoded[r].map((v) => el('td', {}, fmtNumber(v))));
      }
      table.append(tr);
    }
    body.replaceChildren(table);
  }

  fmtSelect.addEventListener('change', () => {
    custom.hidden = fmtSelect.value !== 'custom';
    go(0);
  });
  custom.addEventListener('change', () => go(0));
  offsetIn.addEventListener('change', () => go(0));
  strideIn.addEventListener('change', () => go(0));
  render();
  return root;
}

// The format letter of a GL component type (vertex attributes).
export function glTypeFormat(type) {
  return { GL_FLOAT: 'f', GL_HALF_FLOAT: 'h', GL_HALF_FLOAT_OES: 'h', GL_INT: 'i', GL_FIXED: 'i', GL_UNSIGNED_INT: 'u',
    GL_SHORT: 's', GL_UNSIGNED_SHORT: 'us', GL_BYTE: 'b', GL_UNSIGNED_BYTE: 'ub' }[type] || 'ub';
}
