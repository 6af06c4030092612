// gltrace view in a real browser: records a glmark2-es2 trace under Xvfb,
// serves it with `gltrace view --no-browser --port 0`, and drives Debian's
// headless chromium through the page the way a user would: filter calls by
// regex, open a frame and see its image, open a draw and see its shader
// source, a texture image and the GL state (bound program and viewport as
// `gltrace dump` says), step to the next draw and see the changed state
// highlighted. Screenshots of every step are written to ARTIFACTS_DIR.
//
//   node view_browser_test.mjs GLTRACE ARTIFACTS_DIR [GROUPS_APP]
//
// GROUPS_APP (gltrace-view-app): a program whose trace has nested debug
// groups; the page folds one and unfolds it.
//
// Exits 77 (skip) when chromium is not installed, 1 when a check fails.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

import { check, children, cleanUpAtExit, launchBrowser, loadChromium, results, startView } from './harness.mjs';

const [gltrace, artifacts, groupsApp] = process.argv.slice(2);
if (!gltrace || !artifacts) {
  console.error('usage: view_browser_test.mjs GLTRACE ARTIFACTS_DIR');
  process.exit(2);
}
const chromium = await loadChromium('view_browser');
const GLMARK2 = '/usr/bin/glmark2-es2';
if (!fs.existsSync(GLMARK2)) {
  console.error(`view_browser: ${GLMARK2} is missing (tools/deps.sh installs glmark2-es2-x11)`);
  process.exit(1);
}

fs.rmSync(artifacts, { recursive: true, force: true });
fs.mkdirSync(artifacts, { recursive: true });
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gltrace-view-browser-'));
const xdg = path.join(work, 'xdg');
fs.mkdirSync(xdg, { mode: 0o700 });
const env = { ...process.env, XDG_RUNTIME_DIR: xdg };
for (const k of ['LD_PRELOAD', 'DEBUG_GLES_LAYERS', 'GLTRACE_TRACE_FILE', 'WAYLAND_DISPLAY', 'DISPLAY']) delete env[k];

cleanUpAtExit(work, 'SIGTERM');

// Xvfb on a display it picks itself (-displayfd), for glmark2's X11 window.
async function startXvfb() {
  const x = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    env,
  });
  children.push(x);
  const display = await new Promise((resolve, reject) => {
    let text = '';
    x.stdio[3].on('data', (d) => {
      text += d;
      if (text.includes('\n')) resolve(`:${text.trim()}`);
    });
    x.on('exit', () => reject(new Error('Xvfb did not start')));
  });
  return { proc: x, display };
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr}`);
  return r.stdout;
}

// ---- 1. a glmark2 trace, and what `gltrace dump` says about it ----
const trace = path.join(work, 'glmark2.gltrace');
const xvfb = await startXvfb();
run(gltrace, ['trace', '--framebuffer', 'swap', '--thread-time', '-o', trace, '--', GLMARK2, '-s', '320x240',
  '-b', 'texture:duration=0.4', '-b', 'shading:duration=0.3'], { env: { ...env, DISPLAY: xvfb.display }, timeout: 120000 });
xvfb.proc.kill('SIGTERM');

// "SEQ glName(arg = v, ...) = result" lines: the draws, and the program and
// viewport last set before each.
const draws = [];
let program = null;
let viewport = null;
const dump = spawn(gltrace, ['dump', trace], { env, stdio: ['ignore', 'pipe', 'inherit'] });
for await (const line of readline.createInterface({ input: dump.stdout })) {
  const m = /^(\d+) (gl\w+)\((.*)\)/.exec(line);
  if (!m) continue;
  const [, seq, name, args] = m;
  if (name === 'glUseProgram') program = Number(/program = (\d+)/.exec(args)[1]);
  else if (name === 'glViewport') viewport = args.match(/-?\d+/g).map(Number);
  else if (/^gl(Multi)?Draw/.test(name)) draws.push({ seq: Number(seq), name, program, viewport });
}
if (!check(draws.length >= 2, 'the glmark2 trace holds draws', `${draws.length} draws`)) process.exit(1);

// ---- 2. gltrace view ----
const pageUrl = await startView(gltrace, [trace], env).url;
check(true, 'gltrace view printed its URL', pageUrl.replace(/token=.*/, 'token=…'));

const browser = await launchBrowser(chromium);
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(e.stack || e.message));
let shot = 0;
async function screenshot(name) {
  shot++;
  await page.screenshot({ path: path.join(artifacts, `${String(shot).padStart(2, '0')}-${name}.png`) });
}
const WAIT = { timeout: 120000 }; // replays on llvmpipe under a loaded CI machine

try {
  // A page without the token says so instead of showing nothing.
  await page.goto(pageUrl.replace(/\?token=.*/, ''));
  const noToken = await page.textContent('#main');
  check(/token/.test(noToken), 'without the token the page says what to open', noToken.trim().slice(0, 80));

  await page.goto(pageUrl);
  await page.waitForSelector('body[data-ready="1"]', WAIT);
  await page.waitForSelector('#calls .vrow.call[data-call]', WAIT);
  await screenshot('opened');
  const frameRows = await page.locator('#frames .vrow.frame').count();
  check(frameRows > 0, 'the frame list shows frames', `${frameRows} rows`);

  // ---- filter by regex ----
  const totalBefore = await page.textContent('#call-count');
  await page.fill('#filter', '^glDraw');
  await page.waitForFunction(() => /match/.test(document.querySelector('#call-count').textContent), null, WAIT);
  await page.waitForSelector('#calls .vrow.call[data-call]', WAIT);
  const filtered = await page.$$eval('#calls .vrow.call[data-call] .c-name b', (bs) => bs.map((b) => b.textContent));
  check(filtered.length > 0 && filtered.every((n) => /^glDraw/.test(n)), 'the regex filter leaves only matching calls',
    `${filtered.length} rows: ${[...new Set(filtered)].join(', ')}; ${totalBefore} -> ${await page.textContent('#call-count')}`);
  await screenshot('filtered');

  // a bad regex is refused in the page, not silently
  await page.fill('#filter', 'glDraw(');
  await page.waitForSelector('#filter.bad', WAIT);
  check(true, 'a bad regex marks the filter field');
  await page.fill('#filter', '^glDraw');
  await page.waitForFunction(() => !document.querySelector('#filter.bad') && /match/.test(document.querySelector('#call-count').textContent), null, WAIT);

  // ---- open a frame: its image ----
  const target = draws[Math.min(3, draws.length - 2)];
  const frameOf = await page.evaluate(async (seq) => {
    const token = new URLSearchParams(location.search).get('token');
    return (await (await fetch(`/api/call?call=${seq}&token=${token}`)).json()).frame;
  }, target.seq);
  await page.fill('#frame-number', String(frameOf));
  await page.press('#frame-number', 'Enter');
  await page.waitForSelector(`#pane-frame .frame-summary[data-frame="${frameOf}"]`, WAIT);
  // the image, or the page's word that there is none (a failure, not a hang)
  await page.waitForSelector('#pane-frame .frame-image img, #pane-frame .frame-image .note.error, #pane-frame .note.empty', WAIT);
  await page.waitForFunction(() => [...document.querySelectorAll('#pane-frame img')].every((i) => i.complete), null, WAIT);
  const natural = await page.$$eval('#pane-frame .frame-image img', (imgs) => imgs.map((img) => [img.naturalWidth, img.naturalHeight]));
  check(natural.length === 1 && natural[0][0] > 0 && natural[0][1] > 0, `frame ${frameOf}'s captured image is shown`,
    natural.length ? `${natural[0][0]}x${natural[0][1]}` : (await page.textContent('#pane-frame .note')).trim());
  const funcs = await page.locator('#pane-frame table.functions tr').count();
  check(funcs > 1, 'the frame summary lists its functions', `${funcs - 1} functions`);
  await screenshot('frame');

  // ---- open a draw ----
  await page.click(`#calls .vrow.call[data-call="${target.seq}"]`);
  await page.waitForSelector(`#pane-call .call-details[data-call="${target.seq}"]`, WAIT);
  await page.waitForSelector('#pane-call .shader-source', WAIT);
  const sources = await page.$$eval('#pane-call .shader-source', (pres) => pres.map((p) => p.textContent));
  check(sources.some((s) => /gl_Position/.test(s)) && sources.some((s) => /gl_FragColor|out\s+\w+\s+\w+;/.test(s)),
    `draw ${target.seq} shows its vertex and fragment shader sources`, `${sources.length} shaders`);
  await page.waitForSelector('#pane-call .texture-image img', WAIT);
  await page.waitForFunction(() => [...document.querySelectorAll('#pane-call .texture-image img')].every((i) => i.complete), null, WAIT);
  const tex = await page.$$eval('#pane-call .texture-image img', (imgs) => imgs.map((i) => [i.naturalWidth, i.naturalHeight]));
  check(tex.length > 0 && tex.every(([w, h]) => w > 0 && h > 0), `draw ${target.seq} shows the textures it samples`, JSON.stringify(tex));
  await page.waitForSelector('#pane-call .framebuffer-image img, #pane-call .framebuffer-image .note.error', WAIT);
  await page.locator('#pane-call .shader-source').first().scrollIntoViewIfNeeded();
  await screenshot('draw-shaders');
  await page.locator('#pane-call .texture-image').first().scrollIntoViewIfNeeded();
  await screenshot('draw-textures');

  // ---- its GL state ----
  const stateOf = async (seq) => {
    await page.click('#tabs button[data-tab="state"]');
    await page.waitForSelector(`#pane-state .state-pane[data-call="${seq}"]`, WAIT);
    return page.$$eval('#pane-state tr[data-path]', (rows) =>
      rows.map((r) => ({ path: r.dataset.path, value: r.querySelector('.value').textContent, changed: r.classList.contains('changed') })));
  };
  const state = await stateOf(target.seq);
  const progRow = state.find((r) => /^bindings\..*program/i.test(r.path));
  check(progRow && Number(progRow.value) === target.program, `the state's bound program is the dump's (${target.program})`,
    progRow ? `${progRow.path} = ${progRow.value}` : 'no program row');
  const vp = state.filter((r) => /^pipeline\.viewport/.test(r.path)).map((r) => r.value).join(' ').match(/-?\d+/g);
  check(vp && vp.map(Number).join(',') === target.viewport.join(','), `the state's viewport is the dump's (${target.viewport})`,
    vp ? vp.join(',') : 'no viewport row');
  // the bound vertex buffer's contents, as the replay has them
  await page.click('#pane-state tr[data-path="bindings.array_buffer"] button');
  await page.waitForSelector('#pane-state .state-viewer .buffer-table, #pane-state .state-viewer .note.error', WAIT);
  const bufferRows = await page.locator('#pane-state .state-viewer .buffer-table tr').count();
  check(bufferRows > 1, 'the bound array buffer opens from the state pane', `${bufferRows - 1} rows of 16 bytes`);
  await screenshot('state');

  // ---- next draw: changed state highlighted ----
  const next = draws[draws.indexOf(target) + 1];
  await page.focus('#calls .vlist');
  await page.keyboard.press('n');
  const state2 = await stateOf(next.seq);
  const changed = state2.filter((r) => r.changed);
  check(changed.length > 0, `stepping to the next draw (${next.seq}) highlights the changed state`,
    [...new Set(changed.map((r) => r.path))].slice(0, 4).join(', '));
  const highlighted = await page.locator('#pane-state tr.changed').first().evaluate((r) => getComputedStyle(r.querySelector('td')).backgroundColor);
  check(highlighted !== 'rgba(0, 0, 0, 0)', 'changed rows are drawn highlighted', highlighted);
  await screenshot('next-draw-state');

  // ---- export of the list as it is shown (filtered): gltrace dump's text ----
  const [download] = await Promise.all([page.waitForEvent('download', WAIT), page.click('#export')]);
  const exported = fs.readFileSync(await download.path(), 'utf8');
  const exportedLines = exported.split('\n').filter((l) => /^\d+ /.test(l));
  check(exportedLines.length > 0 && exportedLines.every((l) => / glDraw/.test(l)) && exported.includes(`${next.seq} ${next.name}(`),
    'export saves the filtered frame as gltrace dump prints it', `${exportedLines.length} lines: ${exportedLines[0]}`);

  // ---- timeline: the frame's calls drawn per thread ----
  await page.keyboard.press('t');
  await page.waitForSelector('#timeline-pane:not([hidden]) canvas.timeline-canvas', WAIT);
  await page.waitForFunction(() => {
    const c = document.querySelector('canvas.timeline-canvas');
    return c.height > 60; // a lane per thread beside the frames lane
  }, null, WAIT);
  await screenshot('timeline');
  check(true, 'the timeline opens with the frame\'s thread lanes');
  await page.keyboard.press('t');

  // ---- find a texture upload: the recorded image ----
  await page.fill('#filter', '');
  await page.waitForFunction(() => !/match/.test(document.querySelector('#call-count').textContent), null, WAIT);
  await page.fill('#find', 'glTexImage2D');
  await page.press('#find', 'Shift+Enter'); // backwards: the upload comes before the draws
  await page.waitForFunction(() => /glTexImage2D/.test(document.querySelector('#pane-call .call-details h2')?.textContent || ''), null, WAIT);
  await page.click('#tabs button[data-tab="call"]');
  await page.waitForSelector('#pane-call .texture-image img, #pane-call .texture-image .note.error', WAIT);
  const upload = await page.$$eval('#pane-call .texture-image img', (imgs) => imgs.map((i) => i.naturalWidth));
  check(upload.length > 0 && upload[0] > 0, 'find goes to a glTexImage2D whose uploaded image is shown', JSON.stringify(upload));
  await screenshot('texture-upload');

  // ---- the minimap moves the list: a click a tenth of the way down ----
  const firstSeq = () => page.$eval('#calls .vrow.call[data-call]', (r) => Number(r.dataset.call));
  const before = await firstSeq();
  const box = await page.locator('canvas.minimap').boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height * 0.1);
  await page.waitForFunction((b) => {
    const r = document.querySelector('#calls .vrow.call[data-call]');
    return r && Number(r.dataset.call) < b;
  }, before, WAIT);
  const after = await firstSeq();
  const frame0 = await page.textContent('#call-count');
  check(after < before, 'a click on the minimap moves the list there', `first row ${before} -> ${after} (${frame0})`);
  await screenshot('minimap');

  // ---- debug groups: a push row folds its group up to the pop ----
  if (groupsApp) {
    const groupsTrace = path.join(work, 'groups.gltrace');
    run(gltrace, ['trace', '-o', groupsTrace, '--', groupsApp, '--frames', '2'], { timeout: 120000 });
    let push = null;
    let pop = null;
    let depth = 0;
    const groupsDump = spawn(gltrace, ['dump', groupsTrace], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    for await (const line of readline.createInterface({ input: groupsDump.stdout })) {
      const m = /^(\d+) (gl\w+)\(/.exec(line);
      if (!m || pop !== null) continue;
      if (/^glPush(DebugGroup|GroupMarkerEXT)$/.test(m[2])) {
        if (depth++ === 0) push = Number(m[1]);
      } else if (/^glPop(DebugGroup|GroupMarkerEXT)$/.test(m[2]) && push !== null && --depth === 0) {
        pop = Number(m[1]);
      }
    }
    check(push !== null && pop !== null, 'the groups trace has a debug group', `push ${push}, pop ${pop}`);
    await page.goto(`${await startView(gltrace, [groupsTrace], env).url}#call=${push}`);
    await page.waitForSelector('body[data-ready="1"]', WAIT);
    const row = `#calls .vrow.call[data-call="${push}"]`;
    await page.waitForSelector(`${row} .fold`, WAIT);
    const label = await page.textContent(`${row} .group-label`);
    const inner = await page.$eval(`#calls .vrow.call[data-call="${push + 1}"] .indent`, (i) => i.offsetWidth);
    check(label.trim().length > 0 && inner > 0, 'a group\'s push row shows its label and the calls inside are indented',
      `label "${label.trim()}", indent ${inner}px`);
    await page.click(`${row} .fold`);
    // the rows as shown, top to bottom, once the list has redrawn: in call
    // order (the virtual list reuses its row elements, so their order in the
    // document is not the order on screen)
    const shown = () => page.$$eval('#calls .vrow.call[data-call]',
      (rs) => rs.map((r) => Number(r.dataset.call)).sort((x, y) => x - y));
    // One look at the rows decides (the list may redraw between two looks).
    const folded = await page.waitForFunction(([a, b]) => {
      const seqs = [...document.querySelectorAll('#calls .vrow.call[data-call]')]
        .map((r) => Number(r.dataset.call)).sort((x, y) => x - y);
      const at = seqs.indexOf(a);
      return at >= 0 && seqs[at + 1] === b + 1 && !seqs.some((x) => x > a && x <= b);
    }, [push, pop], { timeout: 20000 }).then(() => true, () => false);
    const seqs = await shown();
    const after = seqs[seqs.indexOf(push) + 1];
    check(folded, 'folding the group hides its calls up to the pop', `row after ${push}: ${after}`);
    await screenshot('group-folded');
    await page.click(`${row} .fold`);
    await page.waitForSelector(`#calls .vrow.call[data-call="${push + 1}"]`, WAIT);
    check(true, 'unfolding shows them again');
  } else {
    console.log('note: no gltrace-view-app given, the debug-group steps are left out');
  }

  // ---- a trimmed trace: its state snapshot is one folded group before frame 0's calls ----
  const cut = path.join(work, 'glmark2-cut.gltrace');
  run(gltrace, ['trim', '--frames', '3-5', '-o', cut, trace], { timeout: 120000 });
  await page.goto(await startView(gltrace, [cut], env).url);
  await page.waitForSelector('body[data-ready="1"]', WAIT);
  const head = '#calls .vrow.snapshot-head';
  await page.waitForSelector(head, WAIT);
  await page.waitForSelector('#calls .vrow.call[data-call]', WAIT);
  const snapshotCalls = await page.evaluate(async () => {
    const token = new URLSearchParams(location.search).get('token');
    return (await (await fetch(`/api/trace?token=${token}`)).json()).snapshot_calls;
  });
  const headText = (await page.textContent(head)).trim();
  const foldedRows = await page.locator('#calls .vrow.call.snapshot[data-call]').count();
  check(snapshotCalls > 0 && headText.includes(`Snapshot: ${snapshotCalls} calls`) && foldedRows === 0,
    'a trimmed trace shows its snapshot as one folded group', `"${headText}", ${foldedRows} snapshot rows shown`);
  await screenshot('snapshot-folded');
  await page.click(head);
  await page.waitForSelector('#calls .vrow.call.snapshot[data-call]', WAIT);
  const shownSnapshot = await page.locator('#calls .vrow.call.snapshot[data-call]').count();
  check(shownSnapshot > 0, 'a click on the snapshot\'s heading shows its calls', `${shownSnapshot} rows`);
  const firstSnapshot = await page.$eval('#calls .vrow.call.snapshot[data-call]', (r) => r.dataset.call);
  await page.click(`#calls .vrow.call[data-call="${firstSnapshot}"]`);
  await page.waitForSelector(`#pane-call .call-details[data-call="${firstSnapshot}"] .badge.snapshot`, WAIT);
  check(true, 'a snapshot call\'s details say it is one');
  await screenshot('snapshot-open');
  await page.click(head);
  await page.waitForFunction(() => !document.querySelector('#calls .vrow.call.snapshot[data-call]'), null, WAIT);
  check(true, 'a second click folds the snapshot again');
  // a call of the folded snapshot named in the address: the group opens on it,
  // and a call with "not exact" notes is tagged and lists them
  const cutUrl = page.url().replace(/#.*/, '');
  const inexactCall = await page.evaluate(async (n) => {
    const token = new URLSearchParams(location.search).get('token');
    const reply = await (await fetch(`/api/calls?frame=0&from=0&count=${n}&token=${token}`)).json();
    const c = reply.calls.find((row) => row.snapshot_inexact) || reply.calls[reply.calls.length - 1];
    return { seq: c.call, inexact: !!c.snapshot_inexact };
  }, snapshotCalls);
  await page.goto('about:blank');
  await page.goto(`${cutUrl}#call=${inexactCall.seq}`);
  await page.waitForSelector(`#pane-call .call-details[data-call="${inexactCall.seq}"]`, WAIT);
  await page.waitForSelector(`#calls .vrow.call.snapshot.current[data-call="${inexactCall.seq}"]`, WAIT);
  const notes = await page.$$eval('#pane-call .snapshot-inexact li', (lis) => lis.map((li) => li.textContent));
  const tagged = await page.locator(`#calls .vrow.call[data-call="${inexactCall.seq}"] .err-tag.inexact`).count();
  check(!inexactCall.inexact || (notes.length > 0 && tagged === 1),
    'a snapshot call named in the address opens the group; its not-exact notes are shown',
    inexactCall.inexact ? `call ${inexactCall.seq}: ${notes.join('; ')}` : `call ${inexactCall.seq} (no notes in this cut)`);
  await screenshot('snapshot-inexact');

  check(pageErrors.length === 0, 'no script error in the page', pageErrors.join('; '));
} catch (e) {
  check(false, 'the page went through every step', e.stack || String(e));
  await screenshot('failure').catch(() => {});
} finally {
  await browser.close();
}
console.log(`screenshots: ${artifacts}`);
console.log(`view_browser: ${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);
