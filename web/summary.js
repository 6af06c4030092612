// Frame summary: the captured image, totals and a sortable per-function table.

import { getJson, aborted } from './api.js';
import { el, note, fmtNs } from './util.js';
import { imageBox } from './images.js';

const COLUMNS = [
  ['name', 'function', (f) => f.name],
  ['count', 'count', (f) => f.count],
  ['total_ns', 'total', (f) => fmtNs(f.total_ns)],
  ['mean_ns', 'mean', (f) => fmtNs(f.mean_ns)],
  ['max_ns', 'max', (f) => fmtNs(f.max_ns)],
  ['thread_total_ns', 'thread total', (f) => fmtNs(f.thread_total_ns)],
];

export class FrameSummary {
  constructor(container, { onfunction }) {
    this.root = el('div', { class: 'frame-summary' });
    container.append(this.root);
    this.onfunction = onfunction; // filter the list by a function name
    this.sort = { key: 'total_ns', desc: true };
    this.reply = null;
    this.frame = null;
  }

  async show(frame) {
    this.frame = frame;
    this.root.dataset.frame = '';
    this.root.replaceChildren(note('loading', `loading the summary of frame ${frame}…`));
    try {
      const reply = await getJson('/api/frame/summary', { frame });
      if (this.frame !== frame) return;
      this.reply = reply;
      this.render();
      this.root.dataset.frame = String(frame);
    } catch (e) {
      if (!aborted(e) && this.frame === frame) this.root.replaceChildren(note('error', `frame ${frame}: ${e.message}`));
    }
  }

  render() {
    const r = this.reply;
    const { key, desc } = this.sort;
    const funcs = [...r.functions].sort((a, b) => {
      const x = a[key];
      const y = b[key];
      const c = typeof x === 'string' ? x.localeCompare(y) : (x ?? -1) - (y ?? -1);
      return desc ? -c : c;
    });
    const head = el('tr', {}, COLUMNS.map(([k, label]) =>
      el('th', {
        class: `sortable${k === key ? (desc ? ' desc' : ' asc') : ''}`,
        dataset: { key: k },
        title: 'sort',
        onclick: () => {
          this.sort = { key: k, desc: k === key ? !desc : k !== 'name' };
          this.render();
        },
      }, label)));
    const table = el('table', { class: 'functions' }, head,
      funcs.map((f) => el('tr', { title: `show only ${f.name} calls`, onclick: () => this.onfunction(f.name) },
        COLUMNS.map(([k, , fmt]) => el('td', { class: k === 'name' ? '' : 'num' }, fmt(f))))));
    this.root.replaceChildren(
      el('h2', {}, `Frame ${r.frame}`),
      r.image ? imageBox(r.image, { caption: `frame ${r.frame}`, className: 'frame-image' }) : note('empty', 'no image was captured for this frame (trace with --framebuffer swap)'),
      el('table', { class: 'kv' },
        el('tr', {}, el('th', {}, 'calls'), el('td', {}, r.calls)),
        el('tr', {}, el('th', {}, 'draws'), el('td', {}, r.draws)),
        el('tr', {}, el('th', {}, 'wall time'), el('td', {}, fmtNs(r.wall_ns))),
        el('tr', {}, el('th', {}, 'thread time'), el('td', {}, fmtNs(r.thread_ns))),
        el('tr', {}, el('th', {}, 'GPU time'), el('td', { class: 'gpu-time' }, fmtNs(r.gpu_ns)))),
      el('h3', {}, 'Calls per function'),
      table,
    );
  }
}
