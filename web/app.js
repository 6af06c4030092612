// gltrace view: the page. Wires the frame list, the call list with its
// minimap, the detail panes (frame summary, call, GL state) and the timeline
// to the server's API, and keeps the position in the URL's hash so that a
// reload (or a shared link) comes back to the same call.

import { getJson, getText, hasToken, aborted } from './api.js';
import { el, note, fmtNs, fmtBytes, fmtCount, regexError, download } from './util.js';
import { VirtualList } from './vlist.js';
import { CallList } from './calls.js';
import { Minimap } from './minimap.js';
import { CallDetails } from './details.js';
import { StatePane } from './state.js';
import { FrameSummary } from './summary.js';
import { Timeline } from './timeline.js';
import { GpuPane } from './gpu.js';

const $ = (sel) => document.querySelector(sel);

// The page's one state object: what is open and selected, and its parts
// (made once the trace is known). No other module-level variable changes.
const app = {
  trace: null,
  frame: null,
  frames: new Map(), // number -> frame entry (fetched pages)
  framePending: new Set(),
  selected: null, // the selected call's list entry
  tab: 'frame',
  frameList: null,
  calls: null,
  filterTimer: null, // a filter being typed reloads the list when typing pauses
  minimap: null,
  details: null,
  statePane: null,
  summary: null,
  timeline: null,
  gpu: null, // the GPU tab
  followBusy: false, // a follow poll is in flight
};

// ---- status line: errors and progress never leave the page blank ----
function showError(e) {
  if (aborted(e)) return;
  const msg = e && e.message ? e.message : String(e);
  $('#status').replaceChildren(el('span', { class: 'error' }, msg), el('button', { class: 'link', onclick: () => $('#status').replaceChildren() }, '×'));
  console.error(e);
}
function showInfo(text) {
  $('#status').replaceChildren(el('span', { class: 'muted' }, text));
}

// ---- frame list (virtualised: traces have thousands of frames) ----
const FRAME_PAGE = 200;
function frameEntry(n) {
  if (app.frames.has(n)) return app.frames.get(n);
  const page = Math.floor(n / FRAME_PAGE);
  if (!app.framePending.has(page)) {
    app.framePending.add(page);
    getJson('/api/frames', { from: page * FRAME_PAGE, count: FRAME_PAGE })
      .then((r) => {
        for (const f of r.frames) app.frames.set(f.number, f);
        app.frameList.redraw();
      })
      .catch(showError)
      .finally(() => app.framePending.delete(page));
  }
  return null;
}
async function frameEntryAsync(n) {
  if (app.frames.has(n)) return app.frames.get(n);
  const r = await getJson('/api/frames', { from: n, count: 1 });
  for (const f of r.frames) app.frames.set(f.number, f);
  return app.frames.get(n) || null;
}

function makeFrameList() {
  app.frameList = new VirtualList(
    $('#frames'),
    {
      count: () => (app.trace ? app.trace.frames : 0),
      row: (i) => frameEntry(i),
      render: (f, i, node) => {
        node.className = `vrow frame${i === app.frame ? ' current' : ''}`;
        node.dataset.frame = i;
        if (!f) {
          node.replaceChildren(el('span', { class: 'f-num' }, i), el('span', { class: 'loading' }, '…'));
          return;
        }
        node.title = `calls ${f.first_call}–${f.last_call} · context ${f.context} · thread ${f.thread}`;
        node.replaceChildren(
          el('span', { class: 'f-num' }, f.number),
          el('span', { class: 'f-calls', title: `${f.calls} calls` }, fmtCount(f.calls)),
          el('span', { class: 'f-draws' }, `${f.draws}`),
          el('span', { class: 'f-time' }, fmtNs(f.wall_ns)),
          el('span', { class: 'f-gpu', title: f.gpu_ns === null ? 'no GPU time' : `GPU time of ${f.gpu_calls} calls` }, f.gpu_ns === null ? '' : fmtNs(f.gpu_ns)),
          el('span', { class: 'f-flags' }, f.has_image ? '▣' : '', f.errors ? el('span', { class: 'err-dot', title: `${f.errors} GL errors` }, '●') : ''),
        );
      },
    },
    { className: 'frames' },
  );
  app.frameList.scroller.addEventListener('click', (ev) => {
    const i = app.frameList.indexAt(ev.target);
    if (i >= 0) openFrame(i);
  });
}

// ---- call list ----

function query() {
  const filter = $('#filter').value.trim();
  const t = $('#thread').value;
  const c = $('#context').value;
  // frame 0 of a trace that starts with a state snapshot: its calls are a group
  const snapshot = app.frame === 0 && app.trace.snapshot_calls > 0 ? { calls: app.trace.snapshot_calls, inexact: app.trace.snapshot_inexact || 0 } : null;
  return { frame: app.frame, filter: filter || null, thread: t === '' ? null : Number(t), context: c === '' ? null : Number(c), snapshot };
}

async function openFrame(n, { call = null } = {}) {
  if (!app.trace || n < 0 || n >= app.trace.frames) return;
  // Following a live capture stops when another frame than the latest is
  // asked for (as a log viewer stops scrolling when one scrolls up).
  if (app.trace.live && n !== app.trace.frames - 1 && $('#follow').checked) $('#follow').checked = false;
  const changed = n !== app.frame;
  app.frame = n;
  $('#frame-slider').value = n;
  $('#frame-number').value = n;
  app.frameList.scrollToRow(n);
  app.frameList.redraw();
  if (changed) {
    clearTimeout(app.filterTimer); // the list opened below reads the filter as it is
    app.selected = null;
    $('#call-count').textContent = '';
    const q = query();
    $('#calls-pane').classList.add('busy');
    try {
      await app.calls.open(q);
    } catch (e) {
      showError(e);
    } finally {
      $('#calls-pane').classList.remove('busy');
    }
    if (app.frame !== n) return; // another frame was opened meanwhile (a click while following)
    updateCallCount();
    app.minimap.setFrame(n);
    app.summary.show(n);
    frameEntryAsync(n).then((f) => {
      if (f && app.timeline.root.offsetParent) app.timeline.setWindow(f.start_ns, f.start_ns + f.wall_ns);
    }).catch(showError);
    if (app.tab === 'gpu') app.gpu.show(n); // the GPU tab stays, on the new frame
    if (call === null) {
      if (app.tab !== 'gpu') setTab('frame');
      saveHash();
    }
  }
  if (call !== null) await selectCall(call);
}

function updateCallCount() {
  const q = query();
  const total = app.calls.source.total;
  const f = app.frames.get(app.frame);
  $('#call-count').textContent = q.filter || q.thread !== null || q.context !== null
    ? `${total} of ${f ? f.calls : '?'} calls match`
    : `${total} calls`;
}

async function reloadCalls() {
  if (app.frame === null) return;
  const q = query();
  const err = q.filter ? regexError(q.filter) : null;
  $('#filter').classList.toggle('bad', !!err);
  $('#filter').title = err || 'regular expression over function name and arguments';
  if (err) return;
  try {
    await app.calls.open(q);
    $('#filter').classList.remove('bad');
  } catch (e) {
    $('#filter').classList.add('bad');
    showError(e);
    return;
  }
  updateCallCount();
  // the call selected now (a find may have moved it while the list reloaded)
  const keep = app.selected ? app.selected.call : null;
  if (keep !== null) {
    const i = await app.calls.source.indexOfCall(keep);
    if (i >= 0) app.calls.select(i, { center: true });
  }
}

async function selectCall(call) {
  const i = await app.calls.source.indexOfCall(call);
  if (i < 0) {
    showInfo(`call ${call} is not in the list (filtered out?)`);
    return;
  }
  const found = await app.calls.source.callAsync(i);
  if (found && found.call !== call) showInfo(`call ${call} is filtered out: the next call the filter shows is selected`);
  await app.calls.select(i, { center: true });
}

// Goes to a call anywhere in the trace (find, timeline).
async function gotoCall(call, frame = null) {
  if (frame === null) {
    try {
      frame = (await getJson('/api/call', { call })).frame;
    } catch (e) {
      showError(e);
      return;
    }
  }
  if (frame !== app.frame) await openFrame(frame, { call });
  else await selectCall(call);
}

function onCallSelected(entry) {
  app.selected = entry;
  app.details.show(entry.call);
  if (app.tab === 'state') app.statePane.show(entry.call);
  if (app.tab === 'frame') setTab('call');
  saveHash();
}

// ---- tabs ----
function setTab(tab) {
  app.tab = tab;
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('active', b.dataset.tab === tab);
  for (const p of document.querySelectorAll('.tab-pane')) p.hidden = p.id !== `pane-${tab}`;
  if (tab === 'state' && app.selected) app.statePane.show(app.selected.call);
  if (tab === 'gpu') app.gpu.show(app.frame);
}

// GPU times were measured by a replay: what shows them asks again.
async function gpuMeasured() {
  app.trace = await getJson('/api/trace');
  app.gpu.setTrace(app.trace);
  app.frames.clear();
  app.frameList.redraw();
  showInfo(app.trace.gpu_measure.message);
  await reloadCalls();
  if (app.frame !== null) app.summary.show(app.frame);
  app.timeline.load();
}

// ---- find, draws, export ----
// Where a search starts: the selected call, else just before the open frame
// (no `after`: the server searches from the trace's start).
function searchStart() {
  if (app.selected) return app.selected.call;
  const first = app.frames.get(app.frame)?.first_call;
  return first > 0 ? first - 1 : null;
}

async function find(backward) {
  const regex = $('#find').value.trim();
  if (!regex) {
    $('#find').focus();
    return;
  }
  const err = regexError(regex);
  if (err) {
    showError(new Error(`find: ${err}`));
    return;
  }
  const after = searchStart();
  try {
    const r = await getJson('/api/find', { regex, after, backward: backward ? 1 : null });
    if (r.call === null || r.call === undefined) {
      showInfo(`no ${backward ? 'earlier' : 'later'} call matches /${regex}/`);
      return;
    }
    showInfo(`found call ${r.call} in frame ${r.frame}`);
    await gotoCall(r.call, r.frame);
  } catch (e) {
    showError(e);
  }
}

async function stepDraw(dir) {
  if (app.frame === null) return;
  const i = await app.calls.findDraw(dir, 5000);
  if (i !== null) {
    await app.calls.select(i);
    return;
  }
  // none near in this frame's list: ask the server (it searches every frame)
  try {
    const after = searchStart();
    const r = await getJson('/api/find', { draw: 1, after, backward: dir < 0 ? 1 : null });
    if (r.call === null || r.call === undefined) showInfo(`no ${dir < 0 ? 'previous' : 'next'} draw`);
    else await gotoCall(r.call, r.frame);
  } catch (e) {
    showError(e);
  }
}

async function exportSelection() {
  if (app.frame === null) return;
  const q = query();
  const range = app.calls.selectionRange();
  const params = { frame: app.frame, filter: q.filter };
  let name = `frame${app.frame}`;
  if (range && range[1] > range[0]) {
    params.from = range[0];
    params.count = range[1] - range[0] + 1;
    name += `-calls${range[0]}-${range[1]}`;
  }
  try {
    const text = await getText('/api/export', params);
    download(`${name}.txt`, text);
    showInfo(`exported ${text.split('\n').filter(Boolean).length} lines (${fmtBytes(text.length)})`);
  } catch (e) {
    showError(e);
  }
}

// ---- URL hash: #frame=F&call=S ----
function saveHash() {
  const h = new URLSearchParams();
  if (app.frame !== null) h.set('frame', app.frame);
  if (app.selected) h.set('call', app.selected.call);
  history.replaceState(null, '', `${location.pathname}${location.search}#${h}`);
}

// ---- keyboard ----
function onKey(ev) {
  const t = ev.target;
  const typing = t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement;
  if (ev.key === 'F3' || (ev.ctrlKey && ev.key === 'g')) {
    ev.preventDefault();
    find(ev.shiftKey);
    return;
  }
  if (ev.ctrlKey && ev.key === 'f') {
    ev.preventDefault();
    $('#find').focus();
    return;
  }
  if (typing) {
    if (ev.key === 'Escape') t.blur();
    if (ev.key === 'Enter' && t.id === 'find') find(ev.shiftKey);
    return;
  }
  if (ev.ctrlKey || ev.altKey || ev.metaKey) return;
  const page = app.calls.list.visibleCount() - 1;
  const keys = {
    ArrowDown: () => app.calls.move(1, ev.shiftKey),
    ArrowUp: () => app.calls.move(-1, ev.shiftKey),
    PageDown: () => app.calls.move(page, ev.shiftKey),
    PageUp: () => app.calls.move(-page, ev.shiftKey),
    Home: () => app.calls.select(0),
    End: () => app.calls.select(app.calls.source.total - 1),
    n: () => stepDraw(1),
    p: () => stepDraw(-1),
    ']': () => openFrame(app.frame + 1),
    '[': () => openFrame(app.frame - 1),
    '/': () => $('#filter').focus(),
    '1': () => setTab('frame'),
    '2': () => setTab('call'),
    '3': () => setTab('state'),
    '4': () => setTab('gpu'),
    t: () => toggleTimeline(),
    '?': () => toggleHelp(),
    Escape: () => ($('#help').hidden = true),
    ArrowLeft: () => app.selected && app.calls.source.foldAt(app.calls.selected) === null && app.selected.group && app.calls.source.toggleFold(app.calls.selected),
    ArrowRight: () => app.calls.source.foldAt(app.calls.selected) !== null && app.calls.source.toggleFold(app.calls.selected),
  };
  if (keys[ev.key]) {
    ev.preventDefault();
    keys[ev.key]();
  }
}

function toggleHelp() {
  $('#help').hidden = !$('#help').hidden;
}

function toggleTimeline() {
  const pane = $('#timeline-pane');
  pane.hidden = !pane.hidden;
  $('#timeline-toggle').classList.toggle('active', !pane.hidden);
  if (!pane.hidden) {
    const f = app.frames.get(app.frame);
    if (f && !app.timeline.window) app.timeline.setWindow(f.start_ns, f.start_ns + f.wall_ns);
    else app.timeline.load();
  }
}

// ---- the trace's totals (they grow while the server still indexes it) ----
function showTraceStats() {
  const t = app.trace;
  const state = t.live ? ' · live' : t.indexing ? ' (indexing…)' : '';
  $('#trace-stats').textContent = `${t.calls.toLocaleString()} calls · ${t.frames} frames${state}`;
  $('#trace-stats').classList.toggle('live', !!t.live);
  $('#follow-group').hidden = !t.live;
  $('#frame-slider').max = Math.max(0, t.frames - 1);
  $('#frame-number').max = Math.max(0, t.frames - 1);
  $('#frame-total').textContent = `/ ${t.frames}`;
}

// While the server's first pass over a long trace runs, the frame list grows:
// the page shows the first frames at once and asks again every second, or
// every half second while a capture streams (gltrace view --attach), going
// to the latest frame as it comes when "follow" is on.
const POLL_MS = 1000;
const LIVE_POLL_MS = 500;
async function followIndexing() {
  while (app.trace.indexing) {
    await new Promise((r) => setTimeout(r, app.trace.live ? LIVE_POLL_MS : POLL_MS));
    try {
      const t = await getJson('/api/trace');
      const grew = t.frames !== app.trace.frames;
      app.trace = t;
      showTraceStats();
      if (grew) {
        app.frameList.redraw();
        if (t.live && $('#follow').checked && app.frame !== null) followLatest();
      }
    } catch (e) {
      showError(e);
      return;
    }
  }
}

// Opens the latest frame, one at a time: a frame that arrives while the
// previous one opens is opened next.
async function followLatest() {
  if (app.followBusy) return;
  app.followBusy = true;
  try {
    while (app.trace.live && $('#follow').checked && app.frame !== app.trace.frames - 1) await openFrame(app.trace.frames - 1);
  } finally {
    app.followBusy = false;
  }
}

// ---- start ----
async function start() {
  if (!hasToken()) {
    $('#main').replaceChildren(note('error', 'This page needs the access token: open the full URL that `gltrace view` printed (…/?token=…).'));
    return;
  }
  $('#main').hidden = true;
  $('#loading').hidden = false;
  let trace;
  try {
    trace = await getJson('/api/trace');
  } catch (e) {
    $('#loading').replaceChildren(note('error', `Cannot open the trace: ${e.message}`));
    return;
  }
  app.trace = trace;
  $('#loading').hidden = true;
  $('#main').hidden = false;
  const file = trace.path.split('/').pop();
  document.title = `${file} — gltrace view`;
  $('#trace-name').textContent = file;
  $('#trace-name').title = `${trace.path} · ${fmtBytes(trace.size)} · ${trace.calls} calls · ${trace.frames} frames · ${fmtNs(trace.duration_ns)}` +
    (trace.process ? `\n${trace.process.name} (pid ${trace.process.pid}): ${trace.process.cmdline}` : '');
  showTraceStats();
  if (trace.warnings && trace.warnings.length) {
    $('#status').replaceChildren(...trace.warnings.map((w) => el('div', { class: 'warning' }, w)));
  }
  for (const c of trace.contexts) $('#context').append(el('option', { value: c.index }, `context ${c.index} (${c.api} ${c.version}${c.share_group !== undefined && c.share_group !== null ? `, share ${c.share_group}` : ''})`));
  for (const t of trace.threads) $('#thread').append(el('option', { value: t.index }, `thread ${t.index}: ${t.name || ''} ${t.tid}`));

  makeFrameList();
  followIndexing();
  app.calls = new CallList($('#calls'), { onselect: onCallSelected, onerror: showError });
  app.calls.list.onrange = (firstRow, lastRow) => {
    // (row 0 may be the snapshot's heading, index -1: the list starts at call 0)
    const first = Math.max(0, app.calls.source.rowToIndex(firstRow));
    app.calls.source.prefetch(first, app.calls.source.rowToIndex(lastRow));
    const a = app.calls.source.call(first);
    const b = app.calls.source.call(app.calls.source.rowToIndex(Math.max(firstRow, lastRow)));
    if (a && b) app.minimap.setRange(a.pos, b.pos);
  };
  app.minimap = new Minimap($('#minimap-holder'), {
    onerror: showError,
    onjump: async (fraction) => {
      const pos = Math.floor(fraction * app.minimap.calls);
      const i = await app.calls.source.indexOfPos(pos);
      if (i >= 0) app.calls.list.scrollToRow(app.calls.source.indexToRow(i), true);
    },
  });
  app.details = new CallDetails($('#pane-call'));
  app.statePane = new StatePane($('#pane-state'));
  app.summary = new FrameSummary($('#pane-frame'), {
    onfunction: (name) => {
      $('#filter').value = `^${name}\\b`;
      reloadCalls();
    },
  });
  app.timeline = new Timeline($('#timeline-pane'), { onselect: (call) => gotoCall(call), onerror: showError });
  app.timeline.setThreads(trace.threads);
  app.gpu = new GpuPane($('#pane-gpu'), { ongoto: (call, frame) => gotoCall(call, frame), onmeasured: gpuMeasured, onerror: showError });
  app.gpu.setTrace(trace);

  // controls
  $('#filter').addEventListener('input', () => {
    clearTimeout(app.filterTimer);
    app.filterTimer = setTimeout(reloadCalls, 250);
  });
  $('#thread').addEventListener('change', reloadCalls);
  $('#context').addEventListener('change', reloadCalls);
  $('#follow').addEventListener('change', () => {
    if ($('#follow').checked) followLatest();
  });
  $('#frame-slider').addEventListener('input', (ev) => openFrame(Number(ev.target.value)));
  $('#frame-number').addEventListener('change', (ev) => openFrame(Number(ev.target.value)));
  $('#frame-prev').addEventListener('click', () => openFrame(app.frame - 1));
  $('#frame-next').addEventListener('click', () => openFrame(app.frame + 1));
  $('#find-next').addEventListener('click', () => find(false));
  $('#find-prev').addEventListener('click', () => find(true));
  $('#draw-next').addEventListener('click', () => stepDraw(1));
  $('#draw-prev').addEventListener('click', () => stepDraw(-1));
  $('#export').addEventListener('click', exportSelection);
  $('#timeline-toggle').addEventListener('click', toggleTimeline);
  $('#help-toggle').addEventListener('click', toggleHelp);
  $('#help').addEventListener('click', toggleHelp);
  for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => setTab(b.dataset.tab));
  document.addEventListener('keydown', onKey);

  while (app.trace.indexing && app.trace.frames === 0) {
    // the first frame is still being read: show the list as soon as it is there
    await new Promise((r) => setTimeout(r, 200));
    app.trace = await getJson('/api/trace');
    showTraceStats();
  }
  if (app.trace.frames === 0) {
    $('#calls').replaceChildren(note('empty', 'The trace holds no frame.'));
    return;
  }
  const h = new URLSearchParams(location.hash.slice(1));
  const call = h.has('call') ? Number(h.get('call')) : null;
  if (call !== null && !h.has('frame')) {
    await gotoCall(call); // its frame from the server
  } else {
    // A live capture opens at its latest frame, unless the address names one.
    const latest = app.trace.live && $('#follow').checked ? app.trace.frames - 1 : 0;
    const frame = h.has('frame') ? Number(h.get('frame')) : latest;
    await openFrame(Math.min(Math.max(0, frame), app.trace.frames - 1), { call });
  }
  document.body.dataset.ready = '1';
}

start().catch(showError);
