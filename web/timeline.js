// The timeline: one lane per thread with its calls as spans, a lane of
// frames, and (when the trace has GPU times) a GPU lane with each GPU-work
// call's span on the GPU (placed by the trace's GPU clock, or at its call's
// start when the trace has no clock pairs: the info line says which), over a time window (wheel: zoom around the pointer, drag: pan,
// click a span: select its call). The server merges spans when the window
// holds more than the canvas can show.

import { getJson, aborted } from './api.js';
import { el, fmtNs } from './util.js';

const LANE = 22;
const TOP = 22;
const GUTTER = 120; // lane labels

export class Timeline {
  constructor(container, { onselect, onerror }) {
    this.root = el('div', { class: 'timeline' });
    this.info = el('div', { class: 'timeline-info muted' }, 'wheel: zoom · drag: pan · click a call to select it');
    this.canvas = el('canvas', { class: 'timeline-canvas' });
    this.root.append(this.info, this.canvas);
    container.append(this.root);
    this.onselect = onselect;
    this.onerror = onerror;
    this.window = null; // [start_ns, end_ns]
    this.data = null;
    this.controller = null;
    this.threadNames = new Map();
    this.hover = null;
    let drag = null;
    this.canvas.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      if (!this.window) return;
      const [a, b] = this.window;
      const at = a + ((b - a) * Math.max(0, ev.offsetX - GUTTER)) / (this.canvas.clientWidth - GUTTER);
      const k = ev.deltaY > 0 ? 1.25 : 0.8;
      this.setWindow(at - (at - a) * k, at + (b - at) * k);
    });
    this.canvas.addEventListener('pointerdown', (ev) => {
      drag = { x: ev.clientX, window: this.window, moved: false };
      this.canvas.setPointerCapture(ev.pointerId);
    });
    this.canvas.addEventListener('pointermove', (ev) => {
      if (drag && this.window) {
        const dx = ev.clientX - drag.x;
        if (Math.abs(dx) > 3) drag.moved = true;
        if (drag.moved) {
          const [a, b] = drag.window;
          const dt = ((b - a) * dx) / (this.canvas.clientWidth - GUTTER);
          this.setWindow(a - dt, b - dt);
        }
      } else {
        const span = this.spanAt(ev.offsetX, ev.offsetY);
        this.canvas.title = span ? `#${span.call} ${span.name} · ${fmtNs(span.dur_ns)}` : '';
      }
    });
    this.canvas.addEventListener('pointerup', (ev) => {
      if (drag && !drag.moved) {
        const span = this.spanAt(ev.offsetX, ev.offsetY);
        if (span) this.onselect(span.call);
      }
      drag = null;
    });
    new ResizeObserver(() => this.draw()).observe(this.canvas);
  }

  setThreads(threads) {
    for (const t of threads) this.threadNames.set(t.index, t.name ? `${t.name} (${t.tid})` : `thread ${t.tid}`);
  }

  setWindow(a, b) {
    if (b - a < 1000) b = a + 1000;
    this.window = [Math.max(0, Math.floor(a)), Math.ceil(b)];
    this.load();
  }

  async load() {
    if (!this.window || !this.root.offsetParent) return;
    if (this.controller) this.controller.abort();
    this.controller = new AbortController();
    const [a, b] = this.window;
    try {
      this.data = await getJson('/api/timeline', { start_ns: a, end_ns: b, max: Math.max(100, this.canvas.clientWidth * 2) }, this.controller.signal);
      const gpu = this.data.gpu;
      const where = !gpu ? '' : gpu.placed === 'call start'
        ? ` · GPU lane: ${gpu.source === 'replay' ? 'times measured by a replay, ' : ''}each span laid at its call's start (the trace has no GPU clock)`
        : gpu.placed === 'gpu clock' ? ' · GPU lane: spans placed by the GPU\'s clock' : '';
      this.info.textContent = `wheel: zoom · drag: pan · click a call to select it${where}`;
      this.draw();
    } catch (e) {
      if (!aborted(e)) this.onerror(e);
    }
  }

  x(t) {
    const [a, b] = this.window;
    return GUTTER + ((t - a) / (b - a)) * (this.canvas.clientWidth - GUTTER);
  }

  // The lanes below the frames: the threads', then the GPU's.
  lanes() {
    if (!this.data) return [];
    const lanes = this.data.threads.map((th) => ({ label: this.threadNames.get(th.thread) || `thread ${th.thread}`, spans: th.spans }));
    if (this.data.gpu) lanes.push({ label: 'GPU', spans: this.data.gpu.spans, gpu: true });
    return lanes;
  }

  spanAt(px, py) {
    if (!this.data) return null;
    const lane = Math.floor((py - TOP - LANE) / LANE);
    const th = this.lanes()[lane];
    if (!th) return null;
    let best = null;
    for (const s of th.spans) {
      const x0 = this.x(s.start_ns);
      const x1 = Math.max(x0 + 2, this.x(s.start_ns + s.dur_ns));
      if (px >= x0 - 1 && px <= x1 + 1) best = s;
    }
    return best;
  }

  draw() {
    const c = this.canvas;
    const dpr = window.devicePixelRatio || 1;
    const laneList = this.lanes();
    const lanes = laneList.length;
    this.canvas.dataset.lanes = String(lanes);
    this.canvas.dataset.gpuSpans = this.data && this.data.gpu ? String(this.data.gpu.spans.length) : '';
    const cssH = TOP + LANE * (lanes + 1) + 4;
    c.style.height = `${cssH}px`;
    c.width = Math.max(1, Math.floor(c.clientWidth * dpr));
    c.height = Math.floor(cssH * dpr);
    const g = c.getContext('2d');
    g.scale(dpr, dpr);
    g.fillStyle = '#16181c';
    g.fillRect(0, 0, c.clientWidth, cssH);
    if (!this.window || !this.data) return;
    const [a, b] = this.window;
    g.font = '11px sans-serif';
    g.fillStyle = '#9aa3ad';
    g.fillText(`${fmtNs(a)} … ${fmtNs(b)} (${fmtNs(b - a)})`, 4, 14);
    // frames lane
    for (const f of this.data.frames) {
      const x0 = this.x(f.start_ns);
      const x1 = this.x(f.end_ns);
      g.fillStyle = f.number % 2 ? '#3a4452' : '#2d3642';
      g.fillRect(x0, TOP, Math.max(1, x1 - x0), LANE - 4);
      g.fillStyle = '#dfe6ee';
      if (x1 - x0 > 30) g.fillText(`frame ${f.number}`, Math.max(x0, 0) + 3, TOP + 13);
    }
    laneList.forEach((th, i) => {
      const y = TOP + LANE * (i + 1);
      for (const s of th.spans) {
        const x0 = this.x(s.start_ns);
        const w = Math.max(1, this.x(s.start_ns + s.dur_ns) - x0);
        g.fillStyle = th.gpu ? '#7fd17f' : s.draw ? '#e8a33d' : '#4f8fd1';
        g.fillRect(x0, y + 2, w, LANE - 6);
        if (w > 60) {
          g.fillStyle = '#0b0c0e';
          g.fillText(s.name, x0 + 2, y + 13, w - 4);
        }
      }
    });
    g.fillStyle = '#16181c';
    g.fillRect(0, TOP, GUTTER - 2, cssH - TOP);
    g.fillStyle = '#9aa3ad';
    g.fillText('frames', 4, TOP + 13);
    laneList.forEach((th, i) => g.fillText(th.label, 4, TOP + LANE * (i + 1) + 13, GUTTER - 8));
  }
}
