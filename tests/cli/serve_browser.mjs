// The web page in a real browser: headless Debian chromium driven by
// playwright-core (tests/cli/serve_browser.sh starts the server).
//
//   node serve_browser.mjs BASE_URL TABLE EXPECT.json SCREENSHOT.png -- APPEND_CMD...
//
// EXPECT.json (from the CLI): {"latest", "schema":[names], "from", "to",
// "rangeRows", "types":[change types of the range]}. The page must list the
// table, show its schema, show the change rows of a version range picked by
// a click and a shift-click with _change_type coloured per type, and in live
// mode prepend a commit that APPEND_CMD writes meanwhile. Prints one JSON
// line of what it saw; exit 1 on any failed expectation.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [base, table, expectFile, shot, dashdash, ...appendCmd] = process.argv.slice(2);
if (!shot || dashdash !== '--' || !appendCmd.length) {
  console.error('usage: serve_browser.mjs BASE TABLE EXPECT.json SCREENSHOT.png -- APPEND_CMD...');
  process.exit(2);
}
const want = JSON.parse(readFileSync(expectFile, 'utf8'));
const profile = mkdtempSync(join(tmpdir(), 'deltac-chromium-'));
const out = {};
const failures = [];
const expect = (what, cond) => { if (!cond) failures.push(what); };

// A fresh profile (playwright passes it as --user-data-dir) and no
// background traffic: the machine may have no network, and chromium
// otherwise keeps trying to reach Google's services.
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1280, height: 1000 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = browser.pages()[0] || await browser.newPage();
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('response', (r) => { if (r.status() >= 400) consoleErrors.push(`${r.status()} ${new URL(r.url()).pathname}`); });
  page.setDefaultTimeout(15000);
  await page.goto(base + '/');

  // the table list, then the table
  await page.locator(`#tables button[data-t="${table}"]`).click();
  await page.locator(`#summary tr[data-v="${want.latest}"]`).waitFor();
  out.name = await page.locator('#t-name').textContent();
  out.schema = await page.locator('#t-schema table tr td:first-child').allTextContents();
  expect('schema lists the columns', JSON.stringify(out.schema) === JSON.stringify(want.schema));
  out.versions = (await page.locator('#summary tr[data-v]').evaluateAll((rs) => rs.map((r) => +r.dataset.v)));
  expect('one summary row per version, newest first',
    out.versions.length === want.latest + 1 && out.versions[0] === want.latest);

  // a version range: click the last version, shift-click the first
  await page.locator(`#summary tr[data-v="${want.to}"]`).click();
  await page.locator('#changes-title', { hasText: `version ${want.to}` }).waitFor();
  await page.locator(`#summary tr[data-v="${want.from}"]`).click({ modifiers: ['Shift'] });
  await page.locator('#changes-title', { hasText: `versions ${want.from} to ${want.to}` }).waitFor();
  const rowsSel = '#t-changes table tr:has(td)';
  await page.waitForFunction(([sel, n]) => document.querySelectorAll(sel).length === n, [rowsSel, want.rangeRows]);
  out.changesTitle = await page.locator('#changes-title').textContent();
  out.changeRows = await page.locator(rowsSel).count();
  out.changeHeader = await page.locator('#t-changes table th').allTextContents();
  expect('change columns shown', ['_change_type', '_commit_version', '_commit_timestamp'].every((c) => out.changeHeader.includes(c)));
  // _change_type cells carry their type's class and colour, one colour per type
  out.typeColours = await page.locator('#t-changes td[class^="ct-"]').evaluateAll((tds) => {
    const m = {};
    for (const td of tds) m[td.textContent] = getComputedStyle(td).color;
    return m;
  });
  expect('every change type of the range is shown', JSON.stringify(Object.keys(out.typeColours).sort()) === JSON.stringify([...want.types].sort()));
  const colours = Object.values(out.typeColours);
  expect('change types coloured, each differently',
    new Set(colours).size === colours.length && !colours.includes('rgb(29, 35, 48)'));
  out.selectedVersions = await page.locator('#summary tr.sel').count();
  expect('the range is highlighted', out.selectedVersions === want.to - want.from + 1);
  await page.screenshot({ path: shot, fullPage: true });

  // live: a commit written while the page follows the stream is prepended
  await page.locator('#live').check();
  await page.locator('#livedot.on').waitFor();
  execFileSync(appendCmd[0], appendCmd.slice(1), { stdio: 'ignore' });
  await page.locator(`#summary tr[data-v="${want.latest + 1}"]`).waitFor();
  out.liveFirst = await page.locator('#summary tr[data-v]').first().getAttribute('data-v');
  expect('live commit prepended', +out.liveFirst === want.latest + 1);
  await page.locator('#live').uncheck();
  out.consoleErrors = consoleErrors;
  expect('no errors in the page', consoleErrors.length === 0);
} catch (e) {
  failures.push(String(e && e.message ? e.message.split('\n')[0] : e));
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
out.failures = failures;
console.log(JSON.stringify(out));
process.exit(failures.length ? 1 : 0);
