// GPU time in the viewer, in a real browser: a `gltrace trace --gpu-time`
// trace of gltrace-heavy-draw (one draw a frame ten times heavier) opened in
// Debian's headless chromium. The call list has a GPU column with the draws'
// times, the frame list each frame's GPU time, the GPU tab lists the frame's
// most expensive work with the heavy draw first (as /api/gpu/top says),
// sorts by another column and by the whole trace, and a click on a row
// selects its call; the timeline has a GPU lane. Then a trace without GPU
// times: the GPU tab's "measure GPU time (replay)" runs the replay, shows its
// progress, and the times appear in the lists. Screenshots go to ARTIFACTS_DIR.
//
//   node view_gpu_test.mjs GLTRACE GLTRACE_HEAVY_DRAW ARTIFACTS_DIR
//
// Exits 77 (skip) when chromium is not installed, 1 when a check fails.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { check, cleanUpAtExit, launchBrowser, loadChromium, results, startView } from './harness.mjs';

const [gltrace, heavyApp, artifacts] = process.argv.slice(2);
if (!gltrace || !heavyApp || !artifacts) {
  console.error('usage: view_gpu_test.mjs GLTRACE GLTRACE_HEAVY_DRAW ARTIFACTS_DIR');
  process.exit(2);
}
const chromium = await loadChromium('view_gpu');

fs.rmSync(artifacts, { recursive: true, force: true });
fs.mkdirSync(artifacts, { recursive: true });
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gltrace-view-gpu-'));
const xdg = path.join(work, 'xdg');
fs.mkdirSync(xdg, { mode: 0o700 });
const env = { ...process.env, XDG_RUNTIME_DIR: xdg };
for (const k of ['LD_PRELOAD', 'DEBUG_GLES_LAYERS', 'GLTRACE_TRACE_FILE', 'WAYLAND_DISPLAY', 'DISPLAY']) delete env[k];
cleanUpAtExit(work, 'SIGTERM');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { env, encoding: 'utf8', timeout: 120000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr}`);
  return r.stdout;
}

const FRAMES = 8;
const gpuTrace = path.join(work, 'heavy-gpu.gltrace');
run(gltrace, ['trace', '--gpu-time', '-o', gpuTrace, '--', heavyApp, '--frames', String(FRAMES)]);
const plainTrace = path.join(work, 'heavy.gltrace');
run(gltrace, ['trace', '-o', plainTrace, '--', heavyApp, '--frames', '3']);

const browser = await launchBrowser(chromium);
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(e.stack || e.message));
const WAIT = { timeout: 120000 };
let shot = 0;
const screenshot = (name) => page.screenshot({ path: path.join(artifacts, `${String(++shot).padStart(2, '0')}-${name}.png`) });
// The page's own API (its token), for what the page must show.
const api = (p) => page.evaluate(async (q) => {
  const token = new URLSearchParams(location.search).get('token');
  return (await fetch(`${q}${q.includes('?') ? '&' : '?'}token=${token}`)).json();
}, p);

try {
  const pageUrl = await startView(gltrace, [gpuTrace], env).url;
  await page.goto(pageUrl);
  await page.waitForSelector('body[data-ready="1"]', WAIT);
  // A frame (after the first, where shaders compile) whose most expensive
  // work is its heavy draw, the 4th glDrawArrays: nearly every frame.
  let frame = null;
  let heavy = null;
  for (let f = 1; f < FRAMES && frame === null; f++) {
    const calls = (await api(`/api/calls?frame=${f}&count=1000`)).calls;
    const draws = calls.filter((c) => c.name === 'glDrawArrays').map((c) => c.call).sort((a, b) => a - b);
    const top = (await api(`/api/gpu/top?frame=${f}`)).rows;
    if (draws.length === 6 && top.length && top[0].call === draws[3]) [frame, heavy] = [f, draws[3]];
  }
  if (!check(frame !== null, 'a frame\'s most expensive GPU work is its heavy draw (API)', `frame ${frame}, call ${heavy}`)) throw new Error('no frame to look at');
  const heavyRow = (await api(`/api/gpu/top?frame=${frame}`)).rows[0];

  await page.goto('about:blank'); // (a new hash alone would not reload the page)
  await page.goto(`${pageUrl}#frame=${frame}`);
  await page.waitForSelector('body[data-ready="1"]', WAIT);
  await page.waitForSelector(`#calls .vrow.call[data-call="${heavy}"]`, WAIT);
  const header = await page.$$eval('#calls .call-header span', (s) => s.map((x) => x.textContent));
  const heavyGpu = await page.textContent(`#calls .vrow.call[data-call="${heavy}"] .c-gpu`);
  const clearGpu = await page.$$eval('#calls .vrow.call[data-call] .c-gpu', (s) => s.filter((x) => x.textContent.trim() !== '').length);
  check(header.includes('GPU') && /\d/.test(heavyGpu) && clearGpu === 7,
    'the call list has a GPU column with the clear\'s and draws\' GPU times', `header ${header.join('|')}; heavy draw "${heavyGpu}", ${clearGpu} timed rows`);
  await page.waitForSelector(`#frames .vrow.frame[data-frame="${frame}"] .f-gpu`, WAIT);
  const frameGpu = await page.textContent(`#frames .vrow.frame[data-frame="${frame}"] .f-gpu`);
  check(/\d/.test(frameGpu), 'the frame list shows the frame\'s GPU time', frameGpu);
  await screenshot('gpu-column');

  // ---- the GPU tab: the frame's most expensive work, the heavy draw first ----
  await page.focus('#calls .vlist').catch(() => {});
  await page.click('#tabs button[data-tab="gpu"]');
  const firstRow = '#pane-gpu .gpu-pane[data-scope="frame"] table.gpu-top tr.gpu-row';
  await page.waitForSelector(`#pane-gpu .gpu-pane[data-frame="${frame}"] table.gpu-top tr.gpu-row`, WAIT);
  const shown = await page.$$eval(firstRow, (rs) => rs.map((r) => Number(r.dataset.call)));
  check(shown.length === 7 && shown[0] === heavy, 'the GPU tab lists the frame\'s GPU work, the heavy draw first',
    `${shown.join(', ')}; heavy ${heavy} (${heavyRow.gpu_ns} ns)`);
  await screenshot('gpu-tab');
  // sorted by CPU time: as the API sorts
  await page.click('#pane-gpu table.gpu-top th[data-key="cpu"]');
  await page.waitForSelector('#pane-gpu table.gpu-top th[data-key="cpu"].desc', WAIT);
  const byCpu = await page.$$eval(firstRow, (rs) => rs.map((r) => Number(r.dataset.call)));
  const apiCpu = (await api(`/api/gpu/top?frame=${frame}&sort=cpu&order=desc`)).rows.map((r) => r.call);
  check(JSON.stringify(byCpu) === JSON.stringify(apiCpu), 'a click on the CPU column sorts by CPU time', byCpu.join(', '));
  await page.click('#pane-gpu table.gpu-top th[data-key="gpu"]');
  await page.waitForSelector('#pane-gpu table.gpu-top th[data-key="gpu"].desc', WAIT);
  // the whole trace
  await page.selectOption('#pane-gpu select.gpu-scope', 'trace');
  await page.waitForSelector('#pane-gpu .gpu-pane[data-scope="trace"] table.gpu-top tr.gpu-row', WAIT);
  const whole = await page.$$eval('#pane-gpu table.gpu-top tr.gpu-row', (rs) => rs.map((r) => Number(r.dataset.call)));
  const apiWhole = (await api('/api/gpu/top?count=200')).rows.map((r) => r.call);
  check(whole.length === FRAMES * 7 && JSON.stringify(whole) === JSON.stringify(apiWhole),
    'the whole trace\'s GPU work, most expensive first', `${whole.slice(0, 5).join(', ')}…`);
  await page.selectOption('#pane-gpu select.gpu-scope', 'frame');
  await page.waitForSelector(`#pane-gpu .gpu-pane[data-scope="frame"][data-frame="${frame}"] table.gpu-top tr.gpu-row`, WAIT);
  // a click on the heavy draw's row selects that call
  await page.click(`#pane-gpu table.gpu-top tr.gpu-row[data-call="${heavy}"]`);
  await page.waitForSelector(`#calls .vrow.call.current[data-call="${heavy}"]`, WAIT);
  check(true, 'a click on the heavy draw\'s row selects that call in the list');
  await screenshot('gpu-row-selected');

  // ---- the timeline's GPU lane ----
  await page.keyboard.press('Escape');
  await page.focus('#calls .vlist').catch(() => {});
  await page.click('#timeline-toggle');
  await page.waitForFunction(() => {
    const c = document.querySelector('#timeline-pane canvas.timeline-canvas');
    return c && Number(c.dataset.gpuSpans) > 0;
  }, null, WAIT);
  const lanes = await page.$eval('#timeline-pane canvas.timeline-canvas', (c) => [Number(c.dataset.lanes), Number(c.dataset.gpuSpans)]);
  const info = await page.textContent('#timeline-pane .timeline-info');
  check(lanes[0] === 2 && lanes[1] > 0 && /GPU lane/.test(info), 'the timeline has a GPU lane with the frame\'s GPU spans',
    `${lanes[0]} lanes, ${lanes[1]} GPU spans; "${info}"`);
  await screenshot('timeline-gpu');
  await page.click('#timeline-toggle');

  // ---- a trace without GPU times: measured by a replay ----
  const plainUrl = await startView(gltrace, [plainTrace], env).url;
  await page.goto('about:blank');
  await page.goto(`${plainUrl}#frame=1`);
  await page.waitForSelector('body[data-ready="1"]', WAIT);
  await page.click('#tabs button[data-tab="gpu"]');
  await page.waitForSelector('#pane-gpu button.gpu-measure', WAIT);
  const before = await page.textContent('#pane-gpu .gpu-pane');
  check(/no GPU time/.test(before) && (await page.locator('#pane-gpu tr.gpu-row').count()) === 0,
    'without GPU times the GPU tab offers to measure them', before.trim().slice(0, 120));
  await page.click('#pane-gpu button.gpu-measure');
  await page.waitForSelector('#pane-gpu .gpu-measure-state[data-state="done"], #pane-gpu .gpu-measure-state[data-state="failed"]', WAIT);
  const state = await page.textContent('#pane-gpu .gpu-measure-state');
  check(/measured/.test(state), 'the replay\'s measure ends and says so', state);
  await page.waitForSelector('#pane-gpu table.gpu-top tr.gpu-row', WAIT);
  const measured = await page.locator('#pane-gpu table.gpu-top tr.gpu-row').count();
  const source = await page.textContent('#pane-gpu .gpu-source');
  check(measured === 7 && /replay/.test(source), 'the measured GPU times are listed, marked as a replay\'s', `${measured} rows; "${source.trim().slice(0, 80)}"`);
  await page.waitForFunction(() => [...document.querySelectorAll('#calls .vrow.call[data-call] .c-gpu')].some((s) => /\d/.test(s.textContent)), null, WAIT);
  await page.waitForFunction(() => /\d/.test(document.querySelector('#frames .vrow.frame[data-frame="1"] .f-gpu')?.textContent || ''), null, WAIT);
  check(true, 'the call and frame lists show the measured times');
  await screenshot('measured');

  check(pageErrors.length === 0, 'no script error in the page', pageErrors.join('; '));
} catch (e) {
  check(false, 'the page went through every step', e.stack || String(e));
  await screenshot('failure').catch(() => {});
} finally {
  await browser.close();
}
console.log(`screenshots: ${artifacts}`);
console.log(`view_gpu: ${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);
