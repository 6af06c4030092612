// What the viewer's browser tests share: Debian's chromium driven through
// playwright-core, PASS/FAIL checks, children ended at exit, and
// `gltrace view` started on a free port with the URL it prints.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';

export const CHROMIUM = process.env.GLTRACE_CHROMIUM || '/usr/bin/chromium';

// playwright-core's chromium; exits 77 (skip) when Debian's chromium is not
// installed, 1 when playwright-core is missing.
export async function loadChromium(test) {
  if (!fs.existsSync(CHROMIUM)) {
    console.log(`SKIP: ${CHROMIUM} is not installed (tools/deps.sh installs Debian's chromium)`);
    process.exit(77);
  }
  try {
    return (await import('playwright-core')).chromium;
  } catch (e) {
    console.error(`${test}: playwright-core is missing (${e.message}); run tools/deps.sh (npm ci in tests/view_browser)`);
    process.exit(1);
  }
}

export function launchBrowser(chromium) {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
}

export const results = { passed: 0, failed: 0 };
export function check(ok, what, detail = '') {
  if (ok) results.passed++;
  else results.failed++;
  console.log(`${ok ? 'PASS' : 'FAIL'}: ${what}${detail ? ` (${detail})` : ''}`);
  return ok;
}

// Processes to end at exit (with `signal` if still running), and a work
// directory to remove then.
export const children = [];
export function cleanUpAtExit(work, signal) {
  process.on('exit', () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill(signal);
    fs.rmSync(work, { recursive: true, force: true });
  });
}

// Starts `gltrace view --no-browser --port 0 ARGS...`: its process, what it
// said on stderr so far (log()), and its URL once printed (url).
export function startView(gltrace, args, env) {
  const proc = spawn(gltrace, ['view', '--no-browser', '--port', '0', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(proc);
  let log = '';
  proc.stderr.on('data', (d) => (log += d));
  const url = new Promise((resolve, reject) => {
    readline.createInterface({ input: proc.stdout }).on('line', (line) => {
      const m = /^gltrace view: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)$/.exec(line.trim());
      if (m) resolve(m[1]);
    });
    proc.on('exit', (code) => reject(new Error(`gltrace view exited (${code}) before printing its URL: ${log}`)));
  });
  return { proc, url, log: () => log };
}
