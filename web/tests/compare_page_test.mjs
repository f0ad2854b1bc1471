// Browser test of the dashboard's comparison page (#/compare) against a real `kraken serve`:
// two real traces imported into a temporary store, the page's tables checked against the
// server's GET /api/v1/diff and against `kraken diff --json` on the same files.
// node compare_page_test.mjs --kraken BIN --data DATA_DIR --out DIR --modules NODE_MODULES --chromium PATH
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { check, failureCount, importProfile, launchChromium, near, parseArgs, startKrakenServe } from './browser_common.mjs';

const args = parseArgs(process.argv.slice(2));
const A = 'kineto/hta/trace_diff/control/control.json.gz';
const B = 'kineto/hta/trace_diff/test/test.json.gz';

function importInto(db, relative) {
  const full = path.join(args.data, relative);
  if (!fs.existsSync(full)) throw new Error(`missing real data file ${full}`);
  return importProfile(args.kraken, db, full);
}

const cells = (page, id, column) => page.$$eval(`table[data-table="${id}"] tbody tr td:nth-child(${column})`, (t) => t.map((x) => x.textContent));

fs.mkdirSync(args.out, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kraken-compare-'));
const db = path.join(tmp, 'profiles.db');
const a = importInto(db, A);
const b = importInto(db, B);
const { server, base } = await startKrakenServe(args.kraken, db);
const browser = await launchChromium(args.modules, args.chromium);
try {
  const diff = await (await fetch(`${base}/api/v1/diff?a=${a}&b=${b}`)).json();
  const cli = JSON.parse(execFileSync(args.kraken, ['diff', '--json', path.join(args.data, A), path.join(args.data, B)], { encoding: 'utf8' }));
  check(near(diff.step.delta_us, cli.step.delta_us, 1e-9), `stored profiles diff like the files (step change ${cli.step.delta_us} µs)`);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}/#/compare?a=${a}&b=${b}`);
  await page.waitForSelector('body[data-rendered]', { timeout: 30000 });
  check(await page.getAttribute('body', 'data-rendered') === 'true', 'compare page rendered');
  check(errors.length === 0, `no script error (${errors.join('; ')})`);
  const step = Number(await page.getAttribute('[data-key="step_delta"]', 'data-value'));
  check(near(step, diff.step.delta_us), `step change shown = the API's ${diff.step.delta_us} µs (got ${step})`);
  const ranked = await cells(page, 'diff-ranked', 2);
  check(JSON.stringify(ranked) === JSON.stringify(diff.ranked.map((e) => e.name)), `ranked table = the API's ${diff.ranked.length} changes in order`);
  const added = await cells(page, 'diff-added', 1);
  check(JSON.stringify(added) === JSON.stringify(diff.added_kernels.map((e) => e.name)), 'added kernels = the API\'s');
  check(await page.$eval('[data-key="a"]', (s) => s.value) === String(a), 'picker A holds profile a');
  await page.screenshot({ path: path.join(args.out, 'dashboard_compare.png'), fullPage: true });
  // The pickers navigate: choose B as A and A as B.
  await page.selectOption('[data-key="a"]', String(b));
  await page.selectOption('[data-key="b"]', String(a));
  await page.click('button:has-text("Compare")');
  await page.waitForFunction((want) => location.hash === want, `#/compare?a=${b}&b=${a}`);
  await page.waitForSelector('body[data-rendered="true"] [data-key="step_delta"]', { timeout: 30000 });
  const reversed = Number(await page.getAttribute('[data-key="step_delta"]', 'data-value'));
  check(near(reversed, -diff.step.delta_us), `swapped sides: step change ${-diff.step.delta_us} µs (got ${reversed})`);
  await page.close();
} finally {
  await browser.close();
  server.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true });
}
const failures = failureCount();
console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
