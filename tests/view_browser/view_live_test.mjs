// gltrace view --attach in a real browser: a traceable gltrace-demo is
// captured while Debian's headless chromium shows the page. The frame list
// and the frame slider grow while the capture streams, the page says the
// trace is live and follows the latest frame; picking an older frame stops
// following, and that frame stays open while frames keep coming.
// Screenshots go to ARTIFACTS_DIR.
//
//   node view_live_test.mjs GLTRACE GLTRACE_DEMO ARTIFACTS_DIR
//
// Exits 77 (skip) when chromium is not installed, 1 when a check fails.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { check, children, cleanUpAtExit, launchBrowser, loadChromium, results, startView } from './harness.mjs';

const [gltrace, demo, artifacts] = process.argv.slice(2);
if (!gltrace || !demo || !artifacts) {
  console.error('usage: view_live_test.mjs GLTRACE GLTRACE_DEMO ARTIFACTS_DIR');
  process.exit(2);
}
const chromium = await loadChromium('view_live');

fs.rmSync(artifacts, { recursive: true, force: true });
fs.mkdirSync(artifacts, { recursive: true });
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gltrace-view-live-'));
const runtime = path.join(work, 'run');
fs.mkdirSync(runtime, { mode: 0o700 });
const env = { ...process.env, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: path.join(work, 'config'), GLTRACE_SYSTEM_SETTINGS: '/nonexistent' };
for (const k of ['LD_PRELOAD', 'DEBUG_GLES_LAYERS', 'GLTRACE_LAYER_PATH', 'GLTRACE_TRACE_FILE', 'GLTRACE_LIVE', 'WAYLAND_DISPLAY', 'DISPLAY']) delete env[k];

cleanUpAtExit(work, 'SIGKILL');

// A traceable demo that draws until it is killed (gltrace run becomes the app: same pid).
const app = spawn(gltrace, ['run', '--traceable', '--', demo, '--frames', '1000000', '--fps', '20'], { env, stdio: 'ignore' });
children.push(app);
const socket = path.join(runtime, 'gltrace', `gltrace-${app.pid}.sock`);
for (let i = 0; i < 1200 && !fs.existsSync(socket) && app.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
if (!check(fs.existsSync(socket), 'the demo is traceable')) process.exit(1);

const tracePath = path.join(work, 'live.gltrace');
const live = startView(gltrace, ['--framebuffer', 'swap', '-o', tracePath, '--attach', String(app.pid)], env);
const view = live.proc;
const pageUrl = await live.url;
check(true, 'gltrace view --attach printed its URL');

const browser = await launchBrowser(chromium);
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(e.stack || e.message));
const WAIT = { timeout: 120000 };
const frameTotal = async () => Number((await page.textContent('#frame-total')).replace(/[^0-9]/g, ''));
const currentFrame = () => page.$eval('#frames .vrow.frame.current', (r) => Number(r.dataset.frame)).catch(() => -1);

try {
  await page.goto(pageUrl);
  await page.waitForSelector('body[data-ready="1"]', WAIT);
  await page.screenshot({ path: path.join(artifacts, '01-live.png') });
  const stats = await page.textContent('#trace-stats');
  check(/live/.test(stats), 'the page says the trace is live', stats);
  check(await page.isVisible('#follow') && await page.isChecked('#follow'), '"follow latest frame" is shown and on');

  // The frame list grows while the capture streams, and the page follows it.
  const before = await frameTotal();
  await page.waitForFunction((n) => Number(document.querySelector('#frame-slider').max) >= n + 10, before, WAIT);
  const after = await frameTotal();
  check(after >= before + 10, 'the frame count grows while live', `${before} -> ${after}`);
  // The open frame (its row listed, marked current) moves on to frames that came after that.
  await page.waitForFunction((n) => {
    const current = document.querySelector('#frames .vrow.frame.current');
    return current && Number(current.dataset.frame) >= n;
  }, after, WAIT);
  const followed = await currentFrame();
  check(followed >= after, 'following: the newest frames are listed and the open frame moves on to them', `frame ${followed} of ${await frameTotal()}`);
  await page.screenshot({ path: path.join(artifacts, '02-followed.png') });

  // Another frame stops following; it stays open while the list grows.
  // The row is found and clicked in one task of the page: a click by
  // coordinates races the list, which scrolls on to each new frame while
  // following and can put the latest frame under the pointer (CI stop 35).
  // The list marks the row current at its next redraw (an animation frame later).
  const picked = await page.evaluate(() => {
    const latest = Number(document.querySelector('#frame-slider').max);
    const rows = [...document.querySelectorAll('#frames .vrow.frame[data-frame]')];
    const row = rows.find((r) => Number(r.dataset.frame) < latest - 1);
    if (!row) return -1;
    row.click();
    return Number(row.dataset.frame);
  });
  check(picked >= 0, 'a frame older than the latest is listed to pick', `latest ${await frameTotal()}`);
  await page.waitForFunction((p) => {
    const current = document.querySelector('#frames .vrow.frame.current');
    return current && Number(current.dataset.frame) === p;
  }, picked, WAIT);
  check(!(await page.isChecked('#follow')), 'picking a frame turns following off', `frame ${picked}`);
  const grownFrom = await frameTotal();
  await page.waitForFunction((n) => Number(document.querySelector('#frame-slider').max) >= n + 10, grownFrom, WAIT);
  const stayed = await currentFrame();
  check(stayed === picked, 'the picked frame stays open while frames come', `frame ${picked}, then ${stayed}; ${grownFrom} -> ${await frameTotal()} frames`);
  // Turned on again, it goes to the latest frame.
  await page.check('#follow');
  await page.waitForFunction((p) => {
    const current = document.querySelector('#frames .vrow.frame.current');
    return current && Number(current.dataset.frame) > p + 10;
  }, picked, WAIT);
  check(true, 'following again goes to the latest frame');
  await page.screenshot({ path: path.join(artifacts, '03-refollowed.png') });
  check(pageErrors.length === 0, 'no errors in the page', pageErrors.join('\n'));
} catch (e) {
  // What the page said (totals, status line, call list) tells a start that
  // failed from one still waiting for the server (a page whose script hangs
  // never answers: not waited for long).
  const said = await Promise.race([
    page.evaluate(() => ['#trace-stats', '#status', '#loading', '#calls']
      .map((s) => document.querySelector(s))
      .filter((n) => n && !n.hidden && n.textContent.trim())
      .map((n) => `${n.id}: ${n.textContent.trim().slice(0, 200)}`)
      .join(' | ')),
    new Promise((resolve) => setTimeout(() => resolve('no answer in 10 s'), 10000).unref()),
  ]).catch((err) => `not readable: ${err.message}`);
  check(false, 'the page works while live', `${e.stack || String(e)}\n  the page: ${said}\n  page errors: ${pageErrors.join('\n') || 'none'}`);
  await page.screenshot({ path: path.join(artifacts, 'failure.png') }).catch(() => {});
}

const exited = new Promise((resolve) => {
  if (view.exitCode !== null || view.signalCode !== null) resolve(view.exitCode);
  else view.on('exit', (c) => resolve(c));
});
view.kill('SIGINT');
const code = await exited;
check(code === 0, 'Ctrl-C ends the viewer once the trace is finished', `status ${code}: ${live.log().slice(-300)}`);

// The finished trace in an ordinary viewer: not live, no follow control, frame 0 first.
try {
  const plain = startView(gltrace, [tracePath], env);
  await page.goto(await plain.url);
  await page.waitForSelector('body[data-ready="1"]', WAIT);
  const stats = await page.textContent('#trace-stats');
  check(!/live/.test(stats) && !(await page.isVisible('#follow')), 'the finished trace opens as an ordinary one', stats);
  check(await currentFrame() === 0, 'it opens at frame 0');
  await page.screenshot({ path: path.join(artifacts, '04-finished.png') });
} catch (e) {
  check(false, 'the finished trace opens in the page', e.stack || String(e));
} finally {
  await browser.close();
}
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed === 0 ? 0 : 1);
