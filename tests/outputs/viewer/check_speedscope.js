// Loads a trace in speedscope (the npm package) in headless Chromium and
// checks that it imports without error and lists the given function names.
// usage: node check_speedscope.js CHROMIUM PROFILE NAME... ; exit 0 when
// every NAME is shown, 1 otherwise (what went wrong on stderr).
'use strict';
const path = require('path');
const { chromium } = require('playwright-core');

async function main() {
  const [executable, profile, ...names] = process.argv.slice(2);
  if (!executable || !profile || names.length === 0) {
    console.error('usage: node check_speedscope.js CHROMIUM PROFILE NAME...');
    return 2;
  }
  const browser = await chromium.launch({
    executablePath: executable,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  const problems = [];
  try {
    const page = await browser.newPage();
    // speedscope reports a file it cannot import with alert().
    page.on('dialog', async (dialog) => {
      problems.push('dialog: ' + dialog.message());
      await dialog.dismiss();
    });
    page.on('pageerror', (error) => problems.push('page error: ' + error.message));
    const index = path.join(__dirname, 'node_modules/speedscope/dist/release/index.html');
    await page.goto('file://' + index);
    await page.setInputFiles('input[type=file]', profile);
    // The sandwich view lists functions by name as text (the flame graphs
    // draw on a canvas); it draws only the rows on screen, so each name is
    // searched for (Ctrl+F filters the list).
    await page.getByText('Sandwich').click({ timeout: 60000 });
    await page.keyboard.press('Control+f');
    const search = page.locator('input');
    await search.waitFor({ timeout: 30000 });
    for (const name of names) {
      await search.fill(name);
      // A row whose symbol is the name: the list is filtered as one types.
      const row = page.locator('td', { hasText: new RegExp('^' + name + '$') });
      try {
        await row.first().waitFor({ timeout: 30000 });
      } catch (error) {
        problems.push('not shown: ' + name);
      }
    }
    if (problems.length === 0) console.log('speedscope shows ' + names.join(', '));
  } catch (error) {
    problems.push(String(error));
  } finally {
    await browser.close();
  }
  for (const p of problems) console.error(p);
  return problems.length === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (error) => {
  console.error(error);
  process.exit(1);
});
