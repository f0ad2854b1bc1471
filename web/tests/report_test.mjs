// Browser test of `kraken report` on real files: generates each report, opens it in headless
// Chromium with the network blocked, and checks that the charts were drawn, the top-kernel
// table lists the kernels `kraken analyze --json` lists, and the summary's figures are the
// ones kraken computed. Screenshots go to --out (printed).
// node report_test.mjs --kraken BIN --data DATA_DIR --out DIR --modules NODE_MODULES --chromium PATH
//   [--promtool PATH --prometheus PATH]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  chartStats, check, failureCount, launchChromium, near, openOfflinePage, parseArgs, runKraken,
} from './browser_common.mjs';
import { HISTORY_SPAN_S, HISTORY_STEP_S, startPrometheusHistory } from './prometheus_history.mjs';

const args = parseArgs(process.argv.slice(2));
const CASES = [
  {
    name: 'resnet50_tb_plugin',
    inputs: ['kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz'],
    charts: ['timeline', 'kernels', 'steps'],
  },
  {
    name: 'hta_two_ranks',
    inputs: ['kineto/hta/trace_filter/sampled_rank-0.json.gz', 'kineto/hta/trace_filter/sampled_rank-1.json.gz'],
    charts: ['timeline', 'kernels'],
  },
  {
    name: 'nvidia_smi_h100',
    inputs: ['nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt'],
    charts: ['series'],
  },
  {
    // Nsight Compute counters give FLOP and bytes: the roofline is drawn against the A100's roofs.
    name: 'ncu_a100_sgemm',
    inputs: ['ncu/a100-cc8.0_sgemm_nersc-roofline-metrics_details.csv'],
    flags: ['--device', 'a100-40gb-sxm'],
    charts: ['kernels'],
    roofline: true,
  },
];

const kraken = (...argv) => runKraken(args.kraken, ...argv);

async function runCase(browser, c) {
  console.log(`case ${c.name}`);
  const inputs = c.inputs.map((p) => path.join(args.data, p));
  for (const f of inputs) if (!fs.existsSync(f)) throw new Error(`missing real data file ${f}`);
  const html = path.join(args.out, `${c.name}.html`);
  const flags = c.flags || [];
  kraken('report', ...flags, ...inputs, '-o', html);
  const analyze = JSON.parse(kraken('analyze', '--json', ...flags, ...inputs));
  const text = fs.readFileSync(html, 'utf8');
  check(!/<script[^>]+src=|<link[^>]+href=/i.test(text), 'the page loads no script or stylesheet from elsewhere');

  const page = await openOfflinePage(browser, pathToFileURL(html).href, 'the report');

  // The page renders exactly the document `kraken analyze --json` prints.
  const data = await page.$eval('#kraken-report-data', (n) => JSON.parse(n.textContent));
  check(JSON.stringify(data.analyze) === JSON.stringify(analyze), 'embedded analysis equals `kraken analyze --json`');

  // Charts with real drawing in the sections this input has data for.
  const stats = await chartStats(page);
  for (const section of c.charts) {
    const drawn = stats.filter((s) => s.section === section && s.width > 100 && s.height > 50 && s.inked > 300 && s.colours >= 4);
    check(drawn.length > 0, `section '${section}' has a drawn chart (${JSON.stringify(stats.filter((s) => s.section === section))})`);
  }

  if (c.roofline) {
    const roof = stats.filter((s) => s.chart === 'roofline' && s.inked > 300 && s.colours >= 4);
    check(roof.length === 1, `roofline drawn (${JSON.stringify(stats.filter((s) => s.chart === 'roofline'))})`);
    // Its points are the top kernels with FLOP and byte counts, at kraken's figures.
    const points = JSON.parse(await page.getAttribute('[data-chart="roofline"]', 'data-points'));
    const measured = analyze.kernels.top.filter((k) => k.arithmetic_intensity > 0 && k.achieved_tflops > 0);
    check(points !== null && points.length === measured.length, `roofline has the ${measured.length} measured kernels (got ${points && points.length})`);
    if (points) {
      for (const k of measured) {
        const p = points.find((x) => x[3] === k.name);
        check(p && near(p[0], k.arithmetic_intensity) && near(p[1], k.achieved_tflops * 1e12),
          `roofline point of ${k.name.slice(0, 40)} at AI ${k.arithmetic_intensity}, ${k.achieved_tflops} TFLOP/s`);
      }
    }
  } else {
    check(stats.every((s) => s.chart !== 'roofline') && (await page.$('[data-empty="roofline"]')) !== null || (analyze.kernels.top || []).length === 0,
      'no roofline without FLOP counts, and the page says why');
  }

  // Idle breakdown table: one row per rank with streams, at kraken's host-wait figure.
  const idleRanks = (analyze.ranks || []).filter((r) => r.idle_breakdown && r.idle_breakdown.streams.length);
  const idleRows = await page.$$eval('table[data-table="idle-breakdown"] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  check(idleRows.length === idleRanks.length, `idle-breakdown table has ${idleRanks.length} rows (got ${idleRows.length})`);
  idleRanks.forEach((r, i) => {
    const shown = idleRows[i] ? Number(idleRows[i][2].replace(/[^0-9.]/g, '')) : NaN;
    check(near(shown, r.idle_breakdown.rank.host_wait_us / 1000, 1e-3), `idle-breakdown host wait of row ${i} is ${r.idle_breakdown.rank.host_wait_us} us (shown ${idleRows[i] && idleRows[i][2]})`);
  });

  // Top kernels table = kraken's top kernels, in order.
  const top = (analyze.kernels && analyze.kernels.top) || [];
  if (top.length) {
    const names = await page.$$eval('table[data-table="top-kernels"] tbody tr td:first-child', (tds) => tds.map((td) => td.textContent));
    check(names.length === top.length, `top-kernels table has ${top.length} rows (got ${names.length})`);
    check(JSON.stringify(names) === JSON.stringify(top.map((k) => k.name)), 'top-kernels rows are kraken\'s kernels in order');
  }

  // Summary figures against the analyze document.
  const figure = async (key) => {
    const v = await page.getAttribute(`[data-section="summary"] [data-key="${key}"]`, 'data-value');
    return v === null || v === '' ? null : Number(v);
  };
  const kernelCount = await figure('kernel_count');
  check(kernelCount === (analyze.kernels ? analyze.kernels.count : null), `summary kernels = ${analyze.kernels && analyze.kernels.count} (got ${kernelCount})`);
  const timelines = analyze.ranks.map((r) => r.trace_timeline).filter(Boolean);
  const idle = await figure('idle_pct');
  if (timelines.length) {
    const expected = (100 * timelines.reduce((s, t) => s + t.idle_us, 0)) / timelines.reduce((s, t) => s + t.total_us, 0);
    check(near(idle, expected), `summary idle % = ${expected} from the timelines (got ${idle})`);
    if (timelines.length === 1) check(near(idle, timelines[0].idle_pct, 1e-6), `single rank: idle % = trace_timeline.idle_pct ${timelines[0].idle_pct}`);
  } else {
    const util = analyze.ranks.flatMap((r) => r.series || []).filter((s) => s.metric === 'gpu_util_pct');
    const n = util.reduce((s, x) => s + x.samples, 0);
    if (n > 0) {
      const expected = 100 - util.reduce((s, x) => s + x.mean * x.samples, 0) / n;
      check(near(idle, expected), `summary idle % = 100 - mean gpu_util_pct = ${expected} (got ${idle})`);
    } else {
      check(idle === null, `no timeline and no utilization samples: idle % not shown (got ${idle})`);
    }
  }
  // Savings: kraken disagg's per GPU, priced at the default $2.50; the phases of one GPU
  // ("gpu 0 [idle]", "gpu 0 [load]") count once, at their highest.
  const disagg = JSON.parse(kraken('disagg', '--json', ...inputs));
  const best = new Map();
  for (const w of disagg.workloads) {
    const key = w.workload.replace(/ \[[^\]]*\]$/, '');
    best.set(key, Math.max(best.get(key) ?? 0, w.savings.per_month_hi));
  }
  const expectedSavings = [...best.values()].reduce((a, b) => a + b, 0);
  const savings = await figure('savings_per_month_hi');
  check(near(savings, expectedSavings), `summary savings up to $${expectedSavings}/month = kraken disagg's (got ${savings})`);
  // "What to do": kraken's distinct recommendations, then each workload's pooling strategy (at most 6).
  const distinct = new Set((analyze.diagnoses || []).map((d) => d.recommendation || d.summary));
  const expectedActions = Math.min(6, distinct.size + disagg.workloads.filter((w) => w.strategy && w.strategy.name).length);
  const actions = await page.$$eval('[data-key="actions"] li', (li) => li.length);
  check(actions === expectedActions, `what-to-do lists ${expectedActions} actions (got ${actions})`);
  const what = await page.textContent('[data-section="summary"] [data-key="what"]');
  check(what.startsWith(`${analyze.workload.type}`), `summary says the workload is ${analyze.workload.type}: "${what}"`);
  const diagnoses = await page.$$eval('table[data-table="diagnoses"] tbody tr', (rows) => rows.length);
  check(diagnoses === (analyze.diagnoses || []).length, `diagnoses table has ${(analyze.diagnoses || []).length} rows (got ${diagnoses})`);

  const shot = path.join(args.out, `${c.name}.png`);
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`  screenshot: ${shot}`);
  console.log(`  report: ${html} (${fs.statSync(html).size} bytes)`);
  await page.close();
}

// The chargeback section: `kraken report --chargeback-prometheus` against a real Prometheus
// holding a day of the real A100 MIG DCGM capture; the table's rows are the teams and the
// total of the document's "chargeback", at its figures. With --chargeback-forecast 1h and a
// budget of $1600 for ml, the forecast month (the flat A100 + 1g.5gb rate for 720 h) and
// the verdict OVER.
async function runChargebackCase(browser) {
  console.log('case chargeback');
  const prom = await startPrometheusHistory({ data: args.data, dir: path.join(args.out, 'chargeback-prometheus'),
    promtool: args.promtool, prometheus: args.prometheus });
  try {
    const input = path.join(args.data, 'nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt');
    const html = path.join(args.out, 'chargeback.html');
    const budgets = path.join(args.out, 'chargeback-budgets.csv');
    fs.writeFileSync(budgets, 'team,monthly_usd\nml,1600\n');
    kraken('report', input, '-o', html, '--chargeback-prometheus', prom.url, '--chargeback-end', String(prom.endS),
      '--chargeback-range', `${HISTORY_SPAN_S}s`, '--chargeback-step', `${HISTORY_STEP_S}s`,
      '--chargeback-gpu-model', 'a100-40gb-sxm', '--chargeback-forecast', '1h', '--chargeback-budgets', budgets);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(html).href);
    await page.waitForSelector('body[data-rendered]', { timeout: 20000 });
    const data = await page.$eval('#kraken-report-data', (n) => JSON.parse(n.textContent));
    const charge = data.chargeback;
    check(charge && charge.teams.length === 1 && charge.teams[0].team === 'ml', 'the document holds the chargeback of team ml');
    // A day at 300 s, both ends: 289 samples of the whole A100 plus its 1g.5gb (1/7), at $1.99.
    const allocated = (289 * 300 / 3600) * (1 + 1 / 7);
    check(near(charge.teams[0].allocated_gpu_hours, allocated, 1e-9), `ml allocated ${allocated} GPU-hours (got ${charge.teams[0].allocated_gpu_hours})`);
    const rows = await page.$$eval('[data-section="chargeback"] tbody tr',
      (trs) => trs.map((tr) => ({ team: tr.getAttribute('data-team'), cost: Number(tr.getAttribute('data-cost-usd')), cells: [...tr.children].map((td) => td.textContent) })));
    check(rows.length === 2, `chargeback table: one team and the total (got ${rows.length})`);
    check(rows[0] && rows[0].team === 'ml' && near(rows[0].cost, 1.99 * allocated, 1e-9), `ml row costs $${1.99 * allocated} (got ${rows[0] && rows[0].cost})`);
    check(rows[0] && rows[0].cells[5] === `$${(1.99 * allocated).toFixed(2)}`, `ml cost cell reads $${(1.99 * allocated).toFixed(2)} (got ${rows[0] && rows[0].cells[5]})`);
    check(rows[1] && rows[1].cells[0] === 'total' && near(rows[1].cost, charge.total.cost_usd, 1e-12), 'the last row is the total');
    // The forecast month: the whole A100 and its 1g.5gb held at every step, 720 h at $1.99.
    const month = 1.99 * (1 + 1 / 7) * 720;
    const f = charge.teams[0].forecast;
    check(f && f.available && f.horizon === '1h', `ml has a 1h forecast (got ${JSON.stringify(f)})`);
    check(f && near(f.month_usd, month, 1e-6), `ml forecast month $${month} (got ${f && f.month_usd})`);
    const cells = rows[0] ? rows[0].cells : [];
    // "$1,637.49 [$1,637.49, $1,637.49]": the month, then its interval, to the cent.
    const dollars = (text) => (String(text).match(/\$[\d,]+(\.\d+)?/g) || []).map((d) => Number(d.slice(1).replace(/,/g, '')));
    const shown = dollars(cells[8]);
    check(Boolean(f) && shown.length === 3 && near(shown[0], month, 0.005 / month) && near(shown[1], f.month_low_usd, 0.005 / month)
      && near(shown[2], f.month_high_usd, 0.005 / month), `ml forecast cell reads $${month.toFixed(2)} and its interval (got ${cells[8]})`);
    check(dollars(cells[9])[0] === 1600 && cells[10] === 'OVER', `ml budget $1,600 OVER (got ${cells[9]} ${cells[10]})`);
    const header = await page.$$eval('[data-section="chargeback"] thead th', (ths) => ths.map((th) => th.textContent));
    check(header[8] === 'month (forecast 1h, 95%)', `forecast column header (got ${header[8]})`);
    const notes = await page.$$eval('[data-key="forecast-note"]', (ps) => ps.map((p) => p.textContent));
    check(notes.length === 1 && notes[0].startsWith(`Forecast: ${f && f.method}`), `the forecaster is named (got ${notes})`);
    await page.screenshot({ path: path.join(args.out, 'chargeback.png'), fullPage: true });
    await page.close();
  } finally {
    prom.stop();
  }
}

// The disaggregation section's MIG-slice budget: `kraken report --max-slowdown`, the flag of
// `kraken disagg`. The H100 BERT-base inference trace of examples/ would run ~66.5 % slower
// on its 1g.20gb slice: at the default 10 % the section says so and recommends no slice; at
// 1000 % it names the budget and recommends the slice, as `kraken disagg` does.
async function runDisaggBudgetCase(browser) {
  console.log('case disagg_budget');
  const input = fileURLToPath(new URL('../../examples/nvidia-h100-80gb-hbm3/bert-infer.cupti.json.gz', import.meta.url));
  for (const [name, flags, budget, sliced] of [['default', [], '10 %', false],
    ['wide', ['--max-slowdown', '1000'], '1,000 %', true]]) {
    const html = path.join(args.out, `disagg_budget_${name}.html`);
    kraken('report', ...flags, input, '-o', html);
    const disagg = JSON.parse(kraken('disagg', '--json', ...flags, input));
    const page = await openOfflinePage(browser, pathToFileURL(html).href, `the report (${name} budget)`);
    const note = await page.textContent('[data-section="disagg"] p');
    check(note.includes(`expected slowdown is at most ${budget} (--max-slowdown)`), `disagg section names the ${budget} budget: "${note}"`);
    const strategies = await page.$$eval('table[data-table="disagg"] tbody tr td:nth-child(4)', (tds) => tds.map((td) => td.textContent));
    const expected = disagg.workloads.map((w) => [w.strategy.name, w.strategy.mig_profile].filter(Boolean).join(' '));
    check(JSON.stringify(strategies) === JSON.stringify(expected), `disagg strategies are kraken disagg's ${JSON.stringify(expected)} (got ${JSON.stringify(strategies)})`);
    check(strategies.length > 0 && strategies.every((s) => (s === 'MIG slice 1g.20gb') === sliced), `${name} budget: MIG slice 1g.20gb ${sliced ? '' : 'not '}recommended (got ${JSON.stringify(strategies)})`);
    await page.close();
  }
}

fs.mkdirSync(args.out, { recursive: true });
const browser = await launchChromium(args.modules, args.chromium);
try {
  for (const c of CASES) await runCase(browser, c);
  await runDisaggBudgetCase(browser);
  await runChargebackCase(browser);
} finally {
  await browser.close();
}
const failures = failureCount();
console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
