// The call list of one frame: rows fetched by range from /api/calls (pages
// kept in a small cache), shown in a VirtualList as a tree by debug groups
// (a group's push row folds the calls up to its pop), draws highlighted and
// GL errors marked, with their wall, thread and GPU times. A trace that starts with a state snapshot (a trim, a
// capture started mid-run) shows the snapshot's calls, the first of frame 0,
// as one group under a heading row (row 0, no call), folded at first.

import { getJson, aborted } from './api.js';
import { el, fmtNs } from './util.js';
import { VirtualList } from './vlist.js';

const PAGE = 256;
const MAX_PAGES = 400;
const MAX_INFLIGHT = 2;
// The snapshot's heading row: a list row that is no call (index -1).
const SNAPSHOT_HEAD = Object.freeze({ snapshotHead: true });

export class CallSource {
  constructor(onchange, onerror) {
    this.onchange = onchange; // rows arrived or the list changed
    this.onerror = onerror;
    this.query = null; // {frame, filter, thread, context, snapshot: {calls, inexact}|null}
    this.total = 0;
    this.pages = new Map(); // page index -> [call] (insertion order = LRU)
    this.pending = new Map(); // page index -> request entry (see fetchPage)
    this.folds = []; // sorted disjoint [firstHidden, lastHidden] row ranges
    this.snapshot = 0; // calls [0, snapshot) are the snapshot's group (0: none)
    this.generation = 0;
    this.inflight = 0;
    this.asked = 0;
  }

  // Loads the first page of a new query; resolves once total is known.
  open(query) {
    this.ready = this.reopen(query);
    return this.ready;
  }

  async reopen(query) {
    const gen = ++this.generation;
    for (const entry of [...this.pending.values()]) this.drop(entry);
    this.query = query;
    this.pages.clear();
    this.folds = [];
    this.total = 0;
    this.snapshot = 0;
    const promise = this.fetchPage(0);
    const entry = this.pending.get(0);
    entry.opening = true; // its error is open()'s, not one more for onerror
    entry.awaited = true;
    if ((await promise) === null && entry.error) throw entry.error;
    if (gen !== this.generation) return; // another list opened meanwhile: its total, its group
    // the group only in the whole list (a filtered one marks the rows)
    const whole = !query.filter && query.thread == null && query.context == null;
    if (whole && query.snapshot && query.snapshot.calls > 0 && this.total > 0) {
      this.snapshot = Math.min(query.snapshot.calls, this.total);
      this.folds = [[0, this.snapshot - 1]];
    }
  }

  params(from, count) {
    const q = this.query;
    return { frame: q.frame, from, count, filter: q.filter, thread: q.thread, context: q.context };
  }

  // A page's calls (a promise; null when the list changed or the page was
  // dropped). At most MAX_INFLIGHT requests are out at once and the newest
  // asked-for page goes first, so a fast scroll does not queue up pages at
  // the server that are off screen by the time they come back.
  fetchPage(p) {
    if (this.pages.has(p)) return Promise.resolve(this.pages.get(p));
    if (this.pending.has(p)) return this.pending.get(p).promise;
    const entry = { page: p, started: false, awaited: false, controller: new AbortController(), order: ++this.asked };
    entry.promise = new Promise((resolve) => (entry.resolve = resolve));
    this.pending.set(p, entry);
    this.schedule();
    return entry.promise;
  }

  schedule() {
    while (this.inflight < MAX_INFLIGHT) {
      let next = null;
      for (const e of this.pending.values()) {
        if (e.started) continue;
        if (!next || (e.awaited && !next.awaited) || (e.awaited === next.awaited && e.order > next.order)) next = e;
      }
      if (!next) return;
      this.start(next);
    }
  }

  start(entry) {
    const gen = this.generation;
    const p = entry.page;
    entry.started = true;
    this.inflight++;
    getJson('/api/calls', this.params(p * PAGE, PAGE), entry.controller.signal)
      .then((reply) => {
        if (gen !== this.generation) return entry.resolve(null);
        this.total = reply.total;
        this.pages.set(p, reply.calls);
        if (this.pages.size > MAX_PAGES) this.pages.delete(this.pages.keys().next().value);
        entry.resolve(reply.calls);
        this.onchange();
      })
      .catch((e) => {
        if (!aborted(e)) entry.error = e;
        if (!aborted(e) && gen === this.generation && !entry.opening) this.onerror(e);
        entry.resolve(null);
      })
      .finally(() => {
        if (this.pending.get(p) === entry) this.pending.delete(p);
        this.inflight--;
        this.schedule();
      });
  }

  // Drops a page request: not sent yet, or aborted on the way.
  drop(entry) {
    this.pending.delete(entry.page);
    if (entry.started) entry.controller.abort();
    else entry.resolve(null);
  }

  // The call at a row (filtered index), or null while it is fetched.
  call(i) {
    if (!this.query || i < 0 || i >= this.total) return null; // nothing opened, or past the end
    const p = Math.floor(i / PAGE);
    const page = this.pages.get(p);
    if (page) {
      // refresh its LRU place
      this.pages.delete(p);
      this.pages.set(p, page);
      return page[i - p * PAGE] || null;
    }
    this.fetchPage(p);
    return null;
  }

  // Fetches the pages around rows [first, last] before they are scrolled to.
  prefetch(first, last) {
    const span = last - first + 1;
    const from = Math.max(0, Math.floor((first - span) / PAGE));
    const to = Math.floor(Math.min(this.total - 1, last + span) / PAGE);
    for (let p = from; p <= to; p++) if (!this.pages.has(p)) this.fetchPage(p);
    // a fast scroll left pages behind: never ask for them, so the server
    // answers the ones on screen sooner (awaited pages are never dropped)
    // (a request already sent runs to its end: the server would answer an
    // aborted one anyway, and a new one would queue behind it)
    for (const entry of [...this.pending.values()]) {
      if (!entry.started && !entry.awaited && (entry.page < from || entry.page > to)) this.drop(entry);
    }
  }

  async callAsync(i) {
    const p = Math.floor(i / PAGE);
    const promise = this.fetchPage(p);
    if (this.pending.has(p)) this.pending.get(p).awaited = true;
    const page = await promise;
    return page ? page[i % PAGE] || null : null;
  }

  // Rows shown = rows minus folded ranges, plus the snapshot's heading.
  count() {
    let hidden = 0;
    for (const [a, b] of this.folds) hidden += b - a + 1;
    return this.total - hidden + (this.snapshot ? 1 : 0);
  }

  // The call index a row shows; -1 for the snapshot's heading.
  rowToIndex(r) {
    if (this.snapshot) r--;
    if (r < 0) return -1;
    for (const [a, b] of this.folds) {
      if (r < a) break;
      r += b - a + 1;
    }
    return r;
  }

  indexToRow(i) {
    if (i < 0) return 0; // the snapshot's heading
    let r = i;
    for (const [a, b] of this.folds) {
      if (i < a) break;
      if (i <= b) return this.indexToRow(a - 1); // inside a fold: its push row (or heading)
      r -= b - a + 1;
    }
    return r + (this.snapshot ? 1 : 0);
  }

  snapshotFolded() {
    return this.snapshot > 0 && this.foldAt(-1) !== null;
  }

  // Folds or unfolds the snapshot's group.
  toggleSnapshot() {
    if (!this.snapshot) return;
    const existing = this.foldAt(-1);
    if (existing) this.folds = this.folds.filter((f) => f !== existing);
    else this.folds = [[0, this.snapshot - 1], ...this.folds.filter(([a]) => a >= this.snapshot)];
    this.onchange();
  }

  foldAt(i) {
    return this.folds.find(([a]) => a === i + 1) || null;
  }

  // Folds (or unfolds) the group a push call at index i opens: finds its pop
  // (the first later call back at the push's depth) page by page.
  async toggleFold(i) {
    const existing = this.foldAt(i);
    if (existing) {
      this.folds = this.folds.filter((f) => f !== existing);
      this.onchange();
      return;
    }
    const push = await this.callAsync(i);
    if (!push || !push.group) return;
    let j = i + 1;
    for (;;) {
      if (j >= this.total) break;
      const c = await this.callAsync(j);
      if (!c) return;
      if (c.depth <= push.depth) break;
      j++;
    }
    // j is the pop (or the end): hide i+1 .. j (the pop folds with its group)
    const last = Math.min(j, this.total - 1);
    if (last < i + 1) return;
    // a fold inside the new one disappears into it
    this.folds = this.folds.filter(([a]) => a < i + 1 || a > last);
    this.folds.push([i + 1, last]);
    this.folds.sort((x, y) => x[0] - y[0]);
    this.onchange();
  }

  // The filtered index of the first call numbered `number` or more (binary
  // search over pages; call numbers grow along a frame's list).
  async indexOfCall(number) {
    // a list reopened meanwhile (filter typed, frame changed): search the new one
    for (;;) {
      await this.ready.catch(() => {});
      const gen = this.generation;
      const i = await this.searchCall(number);
      if (gen === this.generation) return i;
    }
  }

  async searchCall(number) {
    let lo = 0;
    let hi = this.total - 1;
    if (hi < 0) return -1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = await this.callAsync(mid);
      if (!c) return -1;
      if (c.call < number) lo = mid + 1;
      else hi = mid;
    }
    const c = await this.callAsync(lo);
    return c && c.call >= number ? lo : -1;
  }

  // The filtered index of the first call at frame position >= pos.
  async indexOfPos(pos) {
    if (!this.query.filter && this.query.thread == null && this.query.context == null) {
      return Math.min(pos, this.total - 1);
    }
    let lo = 0;
    let hi = this.total - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = await this.callAsync(mid);
      if (!c) return -1;
      if (c.pos < pos) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

// The call list widget: a VirtualList over a CallSource, with selection
// (click, shift-click for a range, keyboard).
export class CallList {
  constructor(container, { onselect, onerror }) {
    this.source = new CallSource(() => this.list.redraw(), onerror);
    this.selected = -1; // filtered index
    this.anchor = -1; // other end of a shift-click range
    this.onselect = onselect;
    this.header = el(
      'div',
      { class: 'call-header vrow' },
      el('span', { class: 'c-call' }, 'call'),
      el('span', { class: 'c-name' }, 'function'),
      el('span', { class: 'c-time' }, 'wall'),
      el('span', { class: 'c-time' }, 'thread'),
      el('span', { class: 'c-time c-gpu', title: 'GPU time of the call\'s work (draws, clears, blits, dispatches)' }, 'GPU'),
    );
    container.append(this.header);
    const self = this;
    this.list = new VirtualList(
      container,
      {
        count: () => self.source.count(),
        row: (r) => {
          const i = self.source.rowToIndex(r);
          return i < 0 ? SNAPSHOT_HEAD : self.source.call(i);
        },
        render: (call, r, node) => self.renderRow(call, self.source.rowToIndex(r), node),
      },
      { className: 'calls' },
    );
    this.list.scroller.addEventListener('click', (ev) => {
      const r = this.list.indexAt(ev.target);
      if (r < 0) return;
      const i = this.source.rowToIndex(r);
      if (i < 0) {
        this.source.toggleSnapshot();
        return;
      }
      if (ev.target.classList.contains('fold')) {
        this.source.toggleFold(i);
        return;
      }
      this.select(i, { extend: ev.shiftKey });
    });
  }

  renderRow(call, i, node) {
    const sel = this.selectionRange();
    if (call === SNAPSHOT_HEAD) {
      this.renderSnapshotHead(node);
      return;
    }
    node.className = 'vrow call';
    if (!call) {
      delete node.dataset.call; // a reused row node: not the call it showed before
      node.replaceChildren(el('span', { class: 'c-call' }, '…'), el('span', { class: 'c-name loading' }, 'loading'));
      return;
    }
    if (call.draw) node.classList.add('draw');
    if (call.error) node.classList.add('error');
    if (call.snapshot) node.classList.add('snapshot');
    if (sel && i >= sel[0] && i <= sel[1]) node.classList.add('selected');
    if (i === this.selected) node.classList.add('current');
    node.dataset.call = call.call;
    const folded = this.source.foldAt(i) !== null;
    const indent = el('span', { class: 'indent', style: `width:${call.depth * 14}px` });
    const fold = call.group
      ? el('span', { class: 'fold', title: folded ? 'unfold the group' : 'fold the group' }, folded ? '▸' : '▾')
      : el('span', { class: 'nofold' });
    const name = el(
      'span',
      { class: 'c-name', title: `${call.name}(${call.args})` },
      indent,
      fold,
      call.group ? el('span', { class: 'group-label' }, call.group, ' ') : null,
      el('b', {}, call.name),
      el('span', { class: 'args' }, `(${call.args})`),
      call.error ? el('span', { class: 'err-tag', title: 'this call raised a GL error' }, call.error) : null,
      call.snapshot_inexact ? el('span', { class: 'err-tag inexact', title: 'the snapshot could not recreate something exactly: see the call\'s details' }, 'not exact') : null,
    );
    node.replaceChildren(
      el('span', { class: 'c-call' }, call.call),
      name,
      el('span', { class: 'c-time' }, fmtNs(call.dur_ns)),
      el('span', { class: 'c-time' }, fmtNs(call.thread_ns)),
      el('span', { class: 'c-time c-gpu' }, call.gpu_ns === null || call.gpu_ns === undefined ? '' : fmtNs(call.gpu_ns)),
    );
  }

  // "▸ Snapshot: N calls (…) · K not exact", a click folds or unfolds it.
  renderSnapshotHead(node) {
    const folded = this.source.snapshotFolded();
    const inexact = this.source.query.snapshot.inexact;
    node.className = 'vrow snapshot-head';
    delete node.dataset.call;
    node.title = 'the calls that recreate the state the app had when the capture began (gltrace trim, attach, --start-frame)';
    node.replaceChildren(
      el('span', { class: 'c-call' }),
      el(
        'span',
        { class: 'c-name' },
        el('span', { class: 'fold', title: folded ? 'show the snapshot\'s calls' : 'fold the snapshot' }, folded ? '▸' : '▾'),
        el('b', {}, 'Snapshot: '),
        `${this.source.snapshot} calls (state before the capture started)`,
        inexact ? el('span', { class: 'err-tag', title: 'what the snapshot could not recreate exactly: see its calls\' details' }, `${inexact} not exact`) : null,
      ),
    );
  }

  selectionRange() {
    if (this.selected < 0) return null;
    const a = this.anchor < 0 ? this.selected : this.anchor;
    return [Math.min(a, this.selected), Math.max(a, this.selected)];
  }

  async open(query) {
    this.selected = -1;
    this.anchor = -1;
    await this.source.open(query);
    this.list.reset();
  }

  async select(i, { extend = false, center = false } = {}) {
    if (i < 0 || i >= this.source.total) return;
    if (extend) {
      if (this.anchor < 0) this.anchor = this.selected < 0 ? i : this.selected;
    } else {
      this.anchor = -1;
    }
    // a selected call inside a fold unfolds it
    this.source.folds = this.source.folds.filter(([a, b]) => i < a || i > b);
    this.selected = i;
    this.list.scrollToRow(this.source.indexToRow(i), center);
    this.list.redraw();
    const call = await this.source.callAsync(i);
    if (call && this.selected === i) this.onselect(call, { extend });
  }

  // Moves the selection by delta shown rows (folded rows are skipped).
  move(delta, extend = false) {
    const cur = this.selected < 0 ? -1 : this.source.indexToRow(this.selected);
    const last = this.source.count() - 1;
    let r = Math.max(0, Math.min(last, cur + delta));
    if (this.source.rowToIndex(r) < 0) r = delta > 0 || cur < 0 ? Math.min(last, r + 1) : cur; // not onto the heading
    this.select(this.source.rowToIndex(r), { extend });
  }

  // The next (dir 1) or previous (dir -1) draw of the list within limit rows
  // of the selection (pages fetched as needed); null when there is none there.
  async findDraw(dir, limit) {
    let i = this.selected + dir;
    for (let n = 0; i >= 0 && i < this.source.total && n < limit; i += dir, n++) {
      const c = await this.source.callAsync(i);
      if (!c) return null;
      if (c.draw) return i;
    }
    return null;
  }
}
