// A virtualised list: only the rows on screen exist in the DOM, whatever the
// row count. The scroll height is capped (browsers cap element heights near
// 2^25 px), and past the cap a scroll position maps proportionally onto the
// rows, so a 10 M-row list scrolls end to end.

import { el, clamp, throttleFrame } from './util.js';

const MAX_SCROLL_PX = 4_000_000;

export class VirtualList {
  // source: {count(), row(i) -> data|null (null: being fetched), render(data, i, node)}
  constructor(container, source, { rowHeight = 20, className = '' } = {}) {
    this.source = source;
    this.rowHeight = rowHeight;
    this.scroller = el('div', { class: `vlist ${className}`, tabindex: '0' });
    this.spacer = el('div', { class: 'vlist-spacer' });
    this.rows = el('div', { class: 'vlist-rows' });
    this.scroller.append(this.spacer, this.rows);
    container.append(this.scroller);
    this.first = 0;
    this.onrange = null; // (first, last) after each redraw
    this.redraw = throttleFrame(() => this.draw());
    this.scroller.addEventListener('scroll', this.redraw);
    new ResizeObserver(this.redraw).observe(this.scroller);
  }

  visibleCount() {
    return Math.max(1, Math.floor(this.scroller.clientHeight / this.rowHeight));
  }

  // Height of the spacer and whether positions are scaled.
  geometry() {
    const n = this.source.count();
    const full = n * this.rowHeight;
    const height = Math.min(full, MAX_SCROLL_PX);
    return { n, height, scaled: full > MAX_SCROLL_PX };
  }

  // The first row shown and the pixel offset of the rows for a scroll position.
  position() {
    const { n, height, scaled } = this.geometry();
    const top = this.scroller.scrollTop;
    if (!scaled) {
      const first = Math.floor(top / this.rowHeight);
      return { first, offset: first * this.rowHeight - top };
    }
    const maxTop = Math.max(1, height - this.scroller.clientHeight);
    const maxFirst = Math.max(0, n - this.visibleCount());
    return { first: Math.round((top / maxTop) * maxFirst), offset: 0 };
  }

  // The geometry, with the spacer sized for it (a list that grew since the
  // last draw cannot scroll to its new rows before).
  sizeSpacer() {
    const g = this.geometry();
    if (this.spacer.style.height !== `${g.height}px`) this.spacer.style.height = `${g.height}px`;
    return g;
  }

  draw() {
    const { n } = this.sizeSpacer();
    const { first, offset } = this.position();
    const count = Math.min(this.visibleCount() + 2, Math.max(0, n - first));
    this.first = first;
    // Reuse the row nodes: only their content changes while scrolling.
    while (this.rows.childElementCount < count) this.rows.append(el('div', { class: 'vrow' }));
    while (this.rows.childElementCount > count) this.rows.lastElementChild.remove();
    this.rows.style.transform = `translateY(${this.scroller.scrollTop + offset}px)`;
    for (let k = 0; k < count; k++) {
      const node = this.rows.children[k];
      const i = first + k;
      node.dataset.index = i;
      const data = this.source.row(i);
      this.source.render(data, i, node);
    }
    if (this.onrange) this.onrange(first, Math.min(n, first + this.visibleCount()) - 1);
  }

  // Scrolls so that row i is visible (centred when it was far away).
  scrollToRow(i, center = false) {
    const { n, height, scaled } = this.sizeSpacer();
    i = clamp(i, 0, Math.max(0, n - 1));
    const vis = this.visibleCount();
    if (!center && i >= this.first && i < this.first + vis - 1) return;
    let target = center ? i - Math.floor(vis / 2) : i < this.first ? i : i - vis + 2;
    target = clamp(target, 0, Math.max(0, n - vis));
    if (!scaled) {
      this.scroller.scrollTop = target * this.rowHeight;
    } else {
      const maxTop = Math.max(1, height - this.scroller.clientHeight);
      const maxFirst = Math.max(1, n - vis);
      this.scroller.scrollTop = (target / maxFirst) * maxTop;
    }
    this.draw();
  }

  // The row index under a client Y coordinate, or -1.
  indexAt(node) {
    const row = node.closest('.vrow');
    return row ? Number(row.dataset.index) : -1;
  }

  reset() {
    this.scroller.scrollTop = 0;
    this.draw();
  }
}
