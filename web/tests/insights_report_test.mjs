// Browser test of the trace insights pages on real files: `kraken diff --html` (the
// comparison page of two profiles) and the critical-path / straggler / kernel-sequence
// sections of `kraken report` on the 8 DLRM ranks. Each page is opened in headless
// Chromium with the network blocked; its tables must hold exactly what the JSON
// documents say. Screenshots go to --out.
// node insights_report_test.mjs --kraken BIN --data DATA_DIR --out DIR --modules NODE_MODULES --chromium PATH
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  check, failureCount, launchChromium, near, openOfflinePage, parseArgs, realDataFile, runKraken,
} from './browser_common.mjs';

const args = parseArgs(process.argv.slice(2));

const kraken = (...argv) => runKraken(args.kraken, ...argv);

const dataFile = (relative) => realDataFile(args.data, relative);

const openPage = (browser, html) => openOfflinePage(browser, pathToFileURL(html).href, path.basename(html));

const cellTexts = (page, tableId, column) => page.$$eval(`table[data-table="${tableId}"] tbody tr td:nth-child(${column})`,
  (tds) => tds.map((td) => td.textContent));

async function diffPage(browser) {
  console.log('case diff_control_vs_test');
  const a = dataFile('kineto/hta/trace_diff/control/control.json.gz');
  const b = dataFile('kineto/hta/trace_diff/test/test.json.gz');
  const html = path.join(args.out, 'diff_control_vs_test.html');
  kraken('diff', '--top', '8', '--html', html, '-o', '/dev/null', a, b);
  const doc = JSON.parse(kraken('diff', '--json', '--top', '8', a, b));
  const page = await openPage(browser, html);
  const step = Number(await page.getAttribute('[data-key="step_delta"]', 'data-value'));
  check(near(step, doc.step.delta_us), `step change ${doc.step.delta_us} µs shown (got ${step})`);
  const ranked = await cellTexts(page, 'diff-ranked', 2);
  check(JSON.stringify(ranked) === JSON.stringify(doc.ranked.map((e) => e.name)), `ranked table = kraken diff's ${doc.ranked.length} changes in order`);
  const scopes = await cellTexts(page, 'diff-ranked', 1);
  check(JSON.stringify(scopes) === JSON.stringify(doc.ranked.map((e) => e.scope)), 'ranked rows carry their scope');
  const timeline = await cellTexts(page, 'diff-timeline', 1);
  check(JSON.stringify(timeline) === JSON.stringify(doc.timeline.map((e) => e.name)), 'timeline categories listed');
  const added = await cellTexts(page, 'diff-added', 1);
  check(JSON.stringify(added) === JSON.stringify(doc.added_kernels.map((e) => e.name)), `${doc.added_kernels.length} added kernels listed`);
  const removed = await cellTexts(page, 'diff-removed', 1);
  check(JSON.stringify(removed) === JSON.stringify(doc.removed_kernels.map((e) => e.name)), `${doc.removed_kernels.length} removed kernels listed`);
  await page.screenshot({ path: path.join(args.out, 'diff_control_vs_test.png'), fullPage: true });
  await page.close();
}

async function insightsReport(browser) {
  console.log('case dlrm_8_ranks_insights');
  const tar = dataFile('kineto/param/dlrm_kineto.tar.gz');
  const html = path.join(args.out, 'dlrm_insights.html');
  kraken('report', tar, '-o', html);
  const analyze = JSON.parse(kraken('analyze', '--json', tar));
  const page = await openPage(browser, html);
  const straggler = await page.getAttribute('[data-section="stragglers"] [data-key="straggler"]', 'data-value');
  check(straggler === String(analyze.stragglers.straggler_rank), `straggler rank ${analyze.stragglers.straggler_rank} shown (got ${straggler})`);
  const waits = await cellTexts(page, 'stragglers', 5);
  check(waits.length === 8, `straggler table has the 8 ranks (got ${waits.length})`);
  const paths = await cellTexts(page, 'critical-path', 3);
  const expected = analyze.ranks.map((r) => `${(r.critical_path.total_us / 1000).toLocaleString('en-US', { maximumFractionDigits: 3 })} ms`);
  check(JSON.stringify(paths) === JSON.stringify(expected), `critical-path table lists each rank's path length (${expected.join(', ')})`);
  const seq = await cellTexts(page, 'kernel-sequences', 2);
  const first = analyze.ranks.find((r) => r.kernel_sequences.length);
  check(first && seq.length === Math.min(5, first.kernel_sequences.length), 'kernel-sequence table lists the first rank\'s sequences');
  await page.screenshot({ path: path.join(args.out, 'dlrm_insights.png'), fullPage: true });
  await page.close();
}

fs.mkdirSync(args.out, { recursive: true });
const browser = await launchChromium(args.modules, args.chromium);
try {
  await diffPage(browser);
  await insightsReport(browser);
} finally {
  await browser.close();
}
const failures = failureCount();
console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
