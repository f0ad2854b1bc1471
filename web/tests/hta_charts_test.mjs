// Browser test of the HTA-style time-series charts (launch queue length per stream,
// memcpy/memset bandwidth per kind, allocator memory with its peak marked) on real traces,
// in `kraken report` pages and in the dashboard's workload page under the real
// `kraken serve`. Each chart's lines, as ECharts holds them (data-series), must have the
// points and the largest value of the series in kraken's JSON; the memory chart's marked
// peak must be kraken's peak, at its time. Screenshots go to --out.
// node hta_charts_test.mjs --kraken BIN --data DATA_DIR --out DIR --modules NODE_MODULES --chromium PATH
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  chartStats, check, failureCount, importProfile, launchChromium, near, parseArgs, realDataFile, runKraken,
  startKrakenServe,
} from './browser_common.mjs';

const args = parseArgs(process.argv.slice(2));
// A100 trace with [memory] events, D2D copies and launch queues on several streams.
const MEMORY_TRACE = 'kineto/hta/df_index_resolver/df_index_resolver.json.gz';
// H2D and D2D copies and NCCL streams (FBGEMM/DLRM-like training).
const COPY_TRACE = 'kineto/hta/trace_diff/control/control.json.gz';
// 8 ranks: more than the charts draw.
const EIGHT_RANKS = 'kineto/param/dlrm_kineto.tar.gz';
const MAX_CHART_RANKS = 4;  // web/src/hta_charts.js

const kraken = (...argv) => runKraken(args.kraken, ...argv);

const dataFile = (relative) => realDataFile(args.data, relative);

async function openPage(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector('body[data-rendered]', { timeout: 30000 });
  check(await page.getAttribute('body', 'data-rendered') === 'true', `${url.slice(-60)} rendered`);
  check(errors.length === 0, `no script error (${errors.join('; ')})`);
  return page;
}

const charts = (page, kind) => page.$$eval(`[data-section="${kind}"] [data-chart="${kind}"]`, (els) => els.map((e) => ({
  series: JSON.parse(e.getAttribute('data-series')),
  origin: Number(e.getAttribute('data-origin-us')),
  peaks: e.hasAttribute('data-peaks') ? JSON.parse(e.getAttribute('data-peaks')) : null,
})));

const maxOf = (series, column) => series.reduce((m, p) => Math.max(m, p[column]), -Infinity);

// The lines one rank's chart should hold: [{name, points, max}].
function expectedLines(kind, value) {
  if (kind === 'launch-queue') {
    return value.streams.filter((q) => q.series.length).map((q) => {
      check(maxOf(q.series, 1) === q.max_length, `queue series of stream ${q.stream} peaks at max_length ${q.max_length}`);
      return { name: `device ${q.device} stream ${q.stream}`, points: q.series.length, max: q.max_length };
    });
  }
  if (kind === 'memcpy-bandwidth') {
    return value.filter((b) => b.series.length).map((b) => ({ name: b.kind, points: b.series.length, max: b.max_gbps }));
  }
  return value.filter((d) => d.series.length).flatMap((d) => [
    { name: `allocated (device ${d.device})`, points: d.series.length, max: d.peak_allocated_bytes },
    { name: `reserved (device ${d.device})`, points: d.series.length, max: maxOf(d.series, 2) },
  ]);
}

const KEYS = { 'launch-queue': 'launch_queue', 'memcpy-bandwidth': 'memcpy_bandwidth', 'memory-timeline': 'memory_timeline' };
const hasData = (v) => (Array.isArray(v) ? v.length > 0 : Boolean(v && v.streams && v.streams.length));

// Checks the three kinds of chart of a page against the analysis document it renders.
async function checkCharts(page, analyze, label, expectKinds) {
  const stats = await chartStats(page);
  for (const kind of Object.keys(KEYS)) {
    const ranks = analyze.ranks.filter((r) => hasData(r[KEYS[kind]])).slice(0, MAX_CHART_RANKS);
    const drawn = await charts(page, kind);
    if (expectKinds.includes(kind)) check(ranks.length > 0, `${label}: the trace has ${kind} series`);
    check(drawn.length === ranks.length, `${label}: ${ranks.length} ${kind} chart(s) (got ${drawn.length})`);
    const inked = stats.filter((s) => s.chart === kind && s.inked > 300 && s.colours >= 4);
    check(inked.length === drawn.length, `${label}: every ${kind} chart is drawn (${inked.length} of ${drawn.length})`);
    ranks.forEach((r, i) => {
      const want = expectedLines(kind, r[KEYS[kind]]);
      const got = (drawn[i] && drawn[i].series) || [];
      check(JSON.stringify(got.map((l) => [l.name, l.points])) === JSON.stringify(want.map((l) => [l.name, l.points])),
        `${label} ${kind} rank ${i}: lines and points ${JSON.stringify(want.map((l) => [l.name, l.points]))} (got ${JSON.stringify(got.map((l) => [l.name, l.points]))})`);
      want.forEach((l, j) => check(got[j] && near(got[j].max, l.max, 1e-12), `${label} ${kind} rank ${i} ${l.name}: largest value ${l.max} (got ${got[j] && got[j].max})`));
      check(got.every((l) => l.points <= 400), `${label} ${kind} rank ${i}: every line has at most 400 points`);
      if (kind === 'memory-timeline') {
        const devices = r.memory_timeline.filter((d) => d.series.length);
        const peaks = drawn[i].peaks || [];
        check(peaks.length === devices.length, `${label}: one marked peak per device (${peaks.length})`);
        devices.forEach((d, k) => {
          const p = peaks[k] || {};
          check(p.bytes === d.peak_allocated_bytes, `${label} device ${d.device}: marked peak ${d.peak_allocated_bytes} B (got ${p.bytes})`);
          check(near(drawn[i].origin + p.time_ms * 1000, d.peak_allocated_at_us, 1e-9),
            `${label} device ${d.device}: peak marked at ${d.peak_allocated_at_us} µs (got ${drawn[i].origin + p.time_ms * 1000})`);
        });
      }
    });
  }
}

// `extra(page, analyze)`, when given, checks more on the open page.
async function reportCase(browser, name, relative, expectKinds, extra) {
  console.log(`case report_${name}`);
  const input = dataFile(relative);
  const html = path.join(args.out, `hta_charts_${name}.html`);
  kraken('report', input, '-o', html);
  const analyze = JSON.parse(kraken('analyze', '--json', input));
  const page = await openPage(browser, pathToFileURL(html).href);
  await checkCharts(page, analyze, name, expectKinds);
  if (extra) await extra(page, analyze);
  await page.screenshot({ path: path.join(args.out, `hta_charts_${name}.png`), fullPage: true });
  await page.close();
}

// 8 ranks with launch queues: 4 charts, and the section says the table has the rest.
async function sayWhichRanksAreCharted(page, analyze) {
  check(analyze.ranks.length === 8, 'the DLRM set has 8 ranks');
  const note = await page.textContent('[data-section="launch-queue"]');
  check(note.includes(`Charts for the first ${MAX_CHART_RANKS} of 8 ranks`), 'the page says only the first 4 ranks are charted');
}

async function dashboardCase(browser) {
  console.log('case dashboard_workload');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kraken-hta-charts-'));
  const db = path.join(tmp, 'profiles.db');
  const id = importProfile(args.kraken, db, dataFile(MEMORY_TRACE));
  const { server, base } = await startKrakenServe(args.kraken, db);
  try {
    const report = await (await fetch(`${base}/api/v1/profiles/${id}/report`)).json();
    const page = await openPage(browser, `${base}/#/workload/${id}`);
    await checkCharts(page, report.analyze, 'dashboard', ['launch-queue', 'memcpy-bandwidth', 'memory-timeline']);
    await page.screenshot({ path: path.join(args.out, 'hta_charts_dashboard.png'), fullPage: true });
    await page.close();
  } finally {
    server.kill('SIGTERM');
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

fs.mkdirSync(args.out, { recursive: true });
const browser = await launchChromium(args.modules, args.chromium);
try {
  await reportCase(browser, 'df_index', MEMORY_TRACE, ['launch-queue', 'memcpy-bandwidth', 'memory-timeline']);
  await reportCase(browser, 'control', COPY_TRACE, ['launch-queue', 'memcpy-bandwidth']);
  await reportCase(browser, 'dlrm_8_ranks', EIGHT_RANKS, ['launch-queue'], sayWhichRanksAreCharted);
  await dashboardCase(browser);
} finally {
  await browser.close();
}
const failures = failureCount();
console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
