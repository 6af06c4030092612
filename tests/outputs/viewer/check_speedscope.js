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
    // A loaded machine may deliver the key before the view listens for it:
    // pressed again until the search field shows (up to 2 minutes).
    const search = page.locator('input');
    for (let tries = 1; ; tries++) {
      await page.keyboard.press('Control+f');
      try {
        await search.waitFor({ timeout: 5000 });
        break;
      } catch (error) {
        if (tries === 24) throw error;
      }
    }
    for (const name of names) {
      await search.fill(name);
      // Filtered when every symbol shown holds the text searched for (none
      // is shown when nothing matches); then one must be the name itself.
      const found = await page.waitForFunction(
        (query) => {
          const symbols = [...document.querySelectorAll('tr td:last-child')].map(
            (cell) => cell.textContent);
          if (!symbols.every((symbol) => symbol.includes(query))) return null;
          return { found: symbols.includes(query) };
        },
        name,
        { timeout: 60000 },
      );
      if (!(await found.jsonValue()).found) problems.push('not shown: ' + name);
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
