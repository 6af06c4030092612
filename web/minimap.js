// The duration minimap beside the call list: one horizontal line per bucket
// of calls (the frame's calls split into as many buckets as the strip has
// pixel rows), its length the longest call of the bucket, so slow calls stand
// out; a box shows the list's visible range, and a click or drag there moves
// the list.

import { getJson, aborted } from './api.js';

export class Minimap {
  constructor(container, { onjump, onerror }) {
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'minimap';
    this.canvas.title = 'call durations along the frame (longest call per line); click or drag to move the list';
    container.append(this.canvas);
    this.onjump = onjump; // (fraction of the frame's calls)
    this.onerror = onerror;
    this.buckets = [];
    this.calls = 0;
    this.range = null; // [firstPos, lastPos] shown in the list
    this.frame = null;
    this.controller = null;
    let dragging = false;
    const jump = (ev) => {
      const r = this.canvas.getBoundingClientRect();
      this.onjump(Math.max(0, Math.min(1, (ev.clientY - r.top) / r.height)));
    };
    this.canvas.addEventListener('pointerdown', (ev) => {
      dragging = true;
      this.canvas.setPointerCapture(ev.pointerId);
      jump(ev);
    });
    this.canvas.addEventListener('pointermove', (ev) => dragging && jump(ev));
    this.canvas.addEventListener('pointerup', () => (dragging = false));
    new ResizeObserver(() => this.load()).observe(this.canvas);
  }

  async setFrame(frame) {
    this.frame = frame;
    // nothing of the previous frame stays on while this one's is computed
    this.buckets = [];
    this.range = null;
    this.draw();
    await this.load();
  }

  async load() {
    if (this.frame === null) return;
    const height = Math.max(16, Math.floor(this.canvas.clientHeight));
    if (this.controller) this.controller.abort();
    this.controller = new AbortController();
    try {
      const reply = await getJson('/api/minimap', { frame: this.frame, buckets: height }, this.controller.signal);
      this.buckets = reply.buckets;
      this.calls = reply.calls;
      this.draw();
    } catch (e) {
      if (!aborted(e)) this.onerror(e);
    }
  }

  setRange(firstPos, lastPos) {
    this.range = [firstPos, lastPos];
    this.draw();
  }

  draw() {
    const c = this.canvas;
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.floor(c.clientWidth * dpr));
    const h = Math.max(1, Math.floor(c.clientHeight * dpr));
    if (c.width !== w) c.width = w;
    if (c.height !== h) c.height = h;
    const g = c.getContext('2d');
    g.fillStyle = '#1b1d22';
    g.fillRect(0, 0, w, h);
    const n = this.buckets.length;
    if (n) {
      const max = Math.max(...this.buckets, 1);
      const lineH = h / n;
      g.fillStyle = '#5fa8e8';
      for (let b = 0; b < n; b++) {
        // square root: a 100x slower call still shows, without flattening the rest
        const len = Math.sqrt(this.buckets[b] / max) * w;
        g.fillRect(0, Math.floor(b * lineH), Math.max(1, len), Math.max(1, Math.ceil(lineH)));
      }
    }
    if (this.range && this.calls > 0) {
      const y0 = (this.range[0] / this.calls) * h;
      const y1 = ((this.range[1] + 1) / this.calls) * h;
      g.fillStyle = 'rgba(255,255,255,0.18)';
      g.fillRect(0, y0, w, Math.max(2 * dpr, y1 - y0));
      g.strokeStyle = '#ffd24a';
      g.lineWidth = dpr;
      g.strokeRect(0.5, y0 + 0.5, w - 1, Math.max(2 * dpr, y1 - y0) - 1);
    }
  }
}
