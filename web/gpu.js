// The GPU tab: the most expensive GPU work (draws, clears, blits, dispatches)
// of the open frame or of the whole trace, from /api/gpu/top, sortable by
// GPU time, CPU time, function, frame or call (the server sorts and pages);
// a click on a row goes to its call. A trace without GPU times offers to
// measure them by a replay (POST /api/gpu/measure), whose progress and
// errors show here.

import { getJson, postJson, aborted } from './api.js';
import { el, note, fmtNs } from './util.js';

const ROWS = 200;
// [sort key of the server, column label, cell]
const COLUMNS = [
  ['call', 'call', (r) => r.call],
  ['function', 'function', (r) => r.name],
  ['frame', 'frame', (r) => r.frame],
  ['gpu', 'GPU', (r) => fmtNs(r.gpu_ns)],
  [null, 'share', (r) => (r.share === null ? '—' : `${(r.share * 100).toFixed(1)}%`)],
  ['cpu', 'CPU', (r) => fmtNs(r.dur_ns)],
];
const MEASURE_POLL_MS = 500;

export class GpuPane {
  // ongoto(call, frame): go to a call; onmeasured(): GPU times came from a replay.
  constructor(container, { ongoto, onmeasured, onerror }) {
    this.root = el('div', { class: 'gpu-pane' });
    container.append(this.root);
    this.ongoto = ongoto;
    this.onmeasured = onmeasured;
    this.onerror = onerror;
    this.trace = null;
    this.frame = null;
    this.scope = 'frame'; // 'frame' or 'trace'
    this.sort = { key: 'gpu', desc: true };
    this.controller = null;
    this.polling = false;
  }

  setTrace(trace) {
    this.trace = trace;
    if (trace.gpu_measure && trace.gpu_measure.state === 'running') this.pollMeasure();
  }

  // Shows the open frame's (or the trace's) GPU work, when the tab is shown.
  show(frame) {
    this.frame = frame;
    this.load();
  }

  async load() {
    if (this.controller) this.controller.abort();
    this.controller = new AbortController();
    const { key, desc } = this.sort;
    const frame = this.scope === 'frame' ? this.frame : null;
    if (this.scope === 'frame' && frame === null) return;
    this.root.dataset.scope = '';
    try {
      const reply = await getJson('/api/gpu/top', { frame, sort: key, order: desc ? 'desc' : 'asc', count: ROWS }, this.controller.signal);
      this.render(reply);
      this.root.dataset.scope = this.scope;
      this.root.dataset.frame = frame === null ? '' : String(frame);
    } catch (e) {
      if (!aborted(e)) this.root.replaceChildren(this.controls(), note('error', `GPU time: ${e.message}`));
    }
  }

  controls() {
    const scope = el('select', { class: 'gpu-scope', title: 'the open frame or the whole trace', onchange: (ev) => {
      this.scope = ev.target.value;
      this.load();
    } },
    el('option', { value: 'frame' }, `frame ${this.frame ?? ''}`),
    el('option', { value: 'trace' }, 'whole trace'));
    scope.value = this.scope;
    return el('div', { class: 'gpu-controls' }, 'Most expensive GPU work of ', scope);
  }

  measureBox() {
    const m = (this.trace && this.trace.gpu_measure) || { state: 'idle' };
    const has = this.trace && this.trace.has_gpu_time;
    const source = has ? this.trace.gpu_source : null;
    const parts = [];
    if (source === 'capture') return el('div', { class: 'gpu-source muted' }, 'GPU times recorded by the capture (gltrace trace --gpu-time)');
    if (source === 'replay') parts.push(el('span', { class: 'muted' }, 'GPU times measured by a replay of the trace (not the capture\'s own) '));
    else parts.push(el('span', { class: 'muted' }, 'This trace has no GPU times (record with gltrace trace --gpu-time), or measure them by replaying it: '));
    const running = m.state === 'running';
    parts.push(el('button', { class: 'gpu-measure', disabled: running || (this.trace && (this.trace.indexing || this.trace.live)), onclick: () => this.startMeasure() },
      source === 'replay' ? 'measure again (replay)' : 'measure GPU time (replay)'));
    if (m.state !== 'idle') {
      const secs = m.elapsed_ms === null ? '' : ` (${(m.elapsed_ms / 1000).toFixed(1)} s)`;
      parts.push(el('div', { class: `gpu-measure-state ${m.state === 'failed' ? 'error' : 'muted'}`, dataset: { state: m.state } },
        running ? `${m.message}…${secs}` : `${m.message}${secs}`));
    }
    return el('div', { class: 'gpu-source' }, parts);
  }

  render(reply) {
    const { key, desc } = this.sort;
    const head = el('tr', {}, COLUMNS.map(([k, label]) => el('th', {
      class: `${k ? 'sortable' : ''}${k === key ? (desc ? ' desc' : ' asc') : ''}`,
      dataset: { key: k || '' },
      title: k ? 'sort' : 'share of the GPU time shown',
      onclick: k ? () => {
        this.sort = { key: k, desc: k === key ? !desc : k === 'gpu' || k === 'cpu' };
        this.load();
      } : null,
    }, label)));
    const rows = reply.rows.map((r) => el('tr', {
      class: 'gpu-row', dataset: { call: r.call }, title: `go to call ${r.call}${r.disjoint ? ' (the GPU timer said this time may be wrong)' : ''}`,
      onclick: () => this.ongoto(r.call, r.frame),
    }, COLUMNS.map(([k, , fmt]) => el('td', { class: k === 'function' ? '' : 'num' }, fmt(r)))));
    const what = reply.frame === null ? 'the trace' : `frame ${reply.frame}`;
    const summary = reply.total
      ? `${reply.total} calls with a GPU time, ${fmtNs(reply.gpu_ns)} in all${reply.total > reply.rows.length ? ` (the first ${reply.rows.length} shown)` : ''}`
      : `no GPU time in ${what}`;
    this.root.replaceChildren(
      el('h2', {}, 'GPU time'),
      this.measureBox(),
      this.controls(),
      el('div', { class: 'muted' }, summary),
      reply.rows.length ? el('table', { class: 'functions gpu-top' }, head, rows) : null,
    );
  }

  async startMeasure() {
    try {
      this.trace.gpu_measure = await postJson('/api/gpu/measure');
    } catch (e) {
      this.onerror(e);
      return;
    }
    this.load();
    this.pollMeasure();
  }

  // Until the measure ends: its state in the pane; then the page reloads
  // what shows GPU times.
  async pollMeasure() {
    if (this.polling) return;
    this.polling = true;
    try {
      for (;;) {
        await new Promise((r) => setTimeout(r, MEASURE_POLL_MS));
        const m = await getJson('/api/gpu/measure');
        this.trace.gpu_measure = m;
        if (m.state !== 'running') {
          if (m.state === 'done') await this.onmeasured();
          else this.onerror(new Error(`measuring GPU time failed: ${m.message}`));
          this.load();
          return;
        }
        const box = this.root.querySelector('.gpu-source');
        if (box) box.replaceWith(this.measureBox());
      }
    } catch (e) {
      this.onerror(e);
    } finally {
      this.polling = false;
    }
  }
}
