// The GL state pane: the replay worker's state after the selected call
// (/api/state), flattened to one row per value, with the values that changed
// since the previously selected call highlighted (and their old value shown).

import { getJson, aborted } from './api.js';
import { el, note, fmtNumber } from './util.js';
import { bufferViewer } from './buffer.js';
import { loadState, isObjectRef, showValue, replayTexture, replayBufferBytes } from './replay.js';

function isLeafArray(v) {
  return Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object' || isObjectRef(x));
}

// What an element of an array of objects is called in a path: its name
// (uniforms, attributes), unit and target (textures), attachment, index, or
// else its position. A stable label keeps the comparison with the previous
// call's state on the same object when the array's order changes.
function elementLabel(x, i) {
  if (typeof x.name === 'string') return x.name;
  if (x.unit !== undefined && x.target !== undefined) return `unit ${x.unit} ${x.target}`;
  if (typeof x.attachment === 'string') return x.attachment;
  if (x.index !== undefined && typeof x.index !== 'object') return `index ${x.index}`;
  return String(i);
}

// {group: {...}} -> Map(path -> {raw, shown}): raw (exact JSON) is what is
// compared, shown is what the page prints. Arrays of plain values and object
// references stay one row, arrays of objects get a row per field.
export function flatten(state) {
  const out = new Map();
  const walk = (prefix, v) => {
    if (v === null || typeof v !== 'object' || isObjectRef(v) || isLeafArray(v)) {
      out.set(prefix, { raw: JSON.stringify(v), shown: showValue(v) });
    } else if (Array.isArray(v)) {
      if (!v.length) out.set(prefix, { raw: '[]', shown: '[]' });
      v.forEach((x, i) => walk(`${prefix}[${elementLabel(x, i)}]`, x));
    } else {
      const keys = Object.keys(v);
      if (!keys.length) out.set(prefix, { raw: '{}', shown: '{}' });
      for (const k of keys) walk(prefix ? `${prefix}.${k}` : k, v[k]);
    }
  };
  walk('', state);
  return out;
}

// What the replay went on from: a checkpoint at a frame start, the call a
// worker was at, or the trace's start (docs/viewer.md, the state workers).
export function replayedFrom(reply) {
  if (!reply.replayed) return '';
  const from = reply.from === null || reply.from === undefined ? "the trace's start"
    : `${reply.checkpoint ? 'the frame start, ' : ''}call ${reply.from}`;
  return `: ${fmtNumber(reply.replayed)} calls from ${from}`;
}

export class StatePane {
  constructor(container) {
    this.root = el('div', { class: 'state-pane' });
    container.append(this.root);
    this.previous = null; // {call, flat}
    this.current = null;
    this.filter = el('input', { class: 'state-filter', placeholder: 'filter state (e.g. blend, texture)', type: 'search' });
    this.changedOnly = el('input', { type: 'checkbox', class: 'changed-only' });
    this.filter.addEventListener('input', () => this.render());
    this.changedOnly.addEventListener('change', () => this.render());
    this.head = el('div', { class: 'state-head' });
    this.viewer = el('div', { class: 'state-viewer' });
    this.body = el('div', { class: 'state-body' });
    this.root.append(
      el('div', { class: 'state-bar' }, this.filter, el('label', {}, this.changedOnly, ' changed only')),
      this.head,
      this.viewer,
      this.body,
    );
    this.body.append(note('empty', 'Select a call to see the GL state after it (the replay runs up to it).'));
    this.call = null;
  }

  async show(call) {
    if (call === this.call) return;
    this.call = call;
    this.head.replaceChildren();
    this.viewer.replaceChildren();
    this.body.replaceChildren(note('loading', `replaying up to call ${call}…`));
    this.root.dataset.call = '';
    let reply;
    try {
      reply = await loadState(call);
    } catch (e) {
      if (aborted(e) || this.call !== call) return;
      this.body.replaceChildren(note('error', `no state for call ${call}: ${e.message}`));
      return;
    }
    if (this.call !== call) return;
    if (this.current) this.previous = this.current;
    this.current = { call, flat: flatten(reply.state || {}), reply };
    this.render();
    this.root.dataset.call = String(call);
  }

  // A bound buffer or texture opens in the viewer at the top of the pane.
  viewButton(path, raw, state, call) {
    const open = (title, content) => {
      this.viewer.replaceChildren(
        el('div', { class: 'buffer-bar' }, el('b', {}, title), el('button', { class: 'link', onclick: () => this.viewer.replaceChildren() }, 'close')),
        content,
      );
      this.viewer.scrollIntoView({ block: 'nearest' });
    };
    const ref = JSON.parse(raw);
    if (/^bindings\.\w*buffer$/.test(path) && isObjectRef(ref) && ref.name) {
      return el('button', {
        class: 'link',
        title: 'show its contents (replay)',
        onclick: () => open(`buffer ${ref.name} after call ${call}`, bufferViewer({
          total: null,
          fetch: (offset, size, signal) => replayBufferBytes(call, ref.name, offset, size, signal),
        })),
      }, 'view');
    }
    const m = /^textures\[(.*)\]\.texture$/.exec(path);
    if (m && isObjectRef(ref) && ref.name) {
      const tex = (state.textures || []).find((t) => `unit ${t.unit} ${t.target}` === m[1]);
      if (tex) return el('button', { class: 'link', onclick: () => open(`texture ${ref.name}`, replayTexture(call, tex)) }, 'view');
    }
    return null;
  }

  render() {
    if (!this.current) return;
    const { call, flat, reply } = this.current;
    const prev = this.previous && this.previous.call !== call ? this.previous : null;
    const warnings = reply.warnings || [];
    this.head.replaceChildren(
      el('div', {}, `State after call ${call}`, reply.ms !== undefined ? ` (replayed in ${Number(reply.ms).toFixed(1)} ms${replayedFrom(reply)})` : '',
        prev ? el('span', { class: 'muted' }, ` · highlighted: changed since call ${prev.call}`) : ''),
      ...warnings.map((w) => el('div', { class: 'warning' }, w)),
    );
    const needle = this.filter.value.trim().toLowerCase();
    const groups = new Map();
    let changedCount = 0;
    for (const [path, { raw, shown: value }] of flat) {
      const before = prev ? prev.flat.get(path) : undefined;
      const changed = prev ? !before || before.raw !== raw : false;
      if (changed) changedCount++;
      if (needle && !path.toLowerCase().includes(needle) && !value.toLowerCase().includes(needle)) continue;
      if (this.changedOnly.checked && !changed) continue;
      const dot = path.search(/[.[]/);
      const group = dot < 0 ? path : path.slice(0, dot);
      const key = dot < 0 ? '' : path.slice(dot + (path[dot] === '.' ? 1 : 0));
      if (!groups.has(group)) groups.set(group, []);
      groups.get(group).push(
        el(
          'tr',
          { class: changed ? 'changed' : null, dataset: { path }, title: changed ? `was: ${before ? before.shown : '(not set)'}` : null },
          el('td', { class: 'key' }, key),
          el('td', { class: 'value' }, value, this.viewButton(path, raw, reply.state || {}, call)),
        ),
      );
    }
    // values that disappeared since the previous call count as changes too
    if (prev) for (const p of prev.flat.keys()) if (!flat.has(p)) changedCount++;
    this.root.dataset.changed = String(changedCount);
    const parts = [];
    if (prev && changedCount && !this.changedOnly.checked) {
      // the changes first, where the eye lands; the full groups below
      const changedRows = [...groups.values()].flat().filter((r) => r.classList.contains('changed')).map((r) => {
        const copy = r.cloneNode(true);
        copy.querySelector('.key').textContent = r.dataset.path;
        return copy;
      });
      if (changedRows.length) {
        parts.push(el('details', { open: true, class: 'state-group state-changes' },
          el('summary', {}, `changed since call ${prev.call}`, el('span', { class: 'badge changed' }, String(changedRows.length))),
          el('table', {}, changedRows)));
      }
    }
    for (const [group, rows] of groups) {
      const changedHere = rows.filter((r) => r.classList.contains('changed')).length;
      parts.push(
        el(
          'details',
          { open: true, class: 'state-group', dataset: { group } },
          el('summary', {}, group, changedHere ? el('span', { class: 'badge changed' }, `${changedHere} changed`) : ''),
          el('table', {}, rows),
        ),
      );
    }
    this.body.replaceChildren(...(parts.length ? parts : [note('empty', 'nothing matches')]));
  }
}
