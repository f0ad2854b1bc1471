// Browser test of the dashboard pages against a stand-in for `kraken serve` that answers
// the endpoints of the server's docs/api.md with documents kraken itself computes from real
// files (analyze, disagg, colocate, the series of an nvidia-smi capture). It checks the
// pages against the documented shapes while the real server lives on another branch;
// dashboard_test.mjs runs the same pages against `kraken serve` (KRAKEN_DASHBOARD_TESTS).
// node dashboard_api_stub_test.mjs --kraken BIN --data DATA_DIR --out DIR --modules NODE_MODULES
//      --chromium PATH --dist BUNDLE_DIR --index INDEX_HTML
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chartStats, check, failureCount, launchChromium, near, parseArgs } from './browser_common.mjs';

const args = parseArgs(process.argv.slice(2));
const kraken = (...argv) => execFileSync(args.kraken, argv, { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
const data = (p) => {
  const full = path.join(args.data, p);
  if (!fs.existsSync(full)) throw new Error(`missing real data file ${full}`);
  return full;
};

const TRACE = data('kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz');
const SMI = data('nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt');
const profiles = {
  1: { name: 'worker0.1623143089861.pt.trace', file: TRACE, format: 'kineto' },
  2: { name: 'capture nvidia-h100-80gb-hbm3', file: SMI, format: 'nvidia-smi' },
};
for (const p of Object.values(profiles)) {
  p.analysis = kraken('analyze', '--json', p.file);
  p.disagg = kraken('disagg', '--json', p.file);
  p.report = JSON.parse(kraken('report', '--data-only', '-o', '-', p.file));
}
const colocation = kraken('colocate', '--json', data('orion/resnet50_4_fwd.csv'), data('orion/bert_2_fwd.csv'));

// /series in the API's shape (points of t_ns and mean), from the report's panels.
function seriesAnswer(id, metric) {
  const report = profiles[id].report;
  const start = report.series.start_unix_s || 0;
  const series = [];
  for (const panel of report.series.panels) for (const s of panel.series) {
    if (s.metric !== metric) continue;
    const scale = panel.unit === 'GiB' ? 2 ** 30 : 1;
    const base = s.clock === 'unix' ? start : 0;
    series.push({ series_id: series.length + 1, source_name: s.name, entity: { gpu_index: 0 },
      points: s.t_s.map((t, i) => ({ t_ns: Math.round((base + t) * 1e9), mean: s.v[i] * scale, count: 1 })) });
  }
  return { profile_id: Number(id), metric, unit: '', series };
}

// The capture's dmon samples (sm %, power), replayed one per second as "live".
const dmon = profiles[2].report.series.panels.flatMap((p) => p.series);
const smUtil = dmon.find((s) => s.metric === 'gpu_util_pct' && s.name.endsWith('(sm)'));
const power = dmon.find((s) => s.metric === 'power_w' && s.name.endsWith('(pwr)'));
const lastValue = (metric) => {
  const s = profiles[2].report.series.panels.flatMap((p) => p.series).filter((x) => x.metric === metric && x.clock === 'unix').pop();
  return s ? s.v[s.v.length - 1] : null;
};
// /api/v1/cluster's shape (app/cluster_view.h): one row per GPU and a GPU x time heatmap,
// here the capture's query-gpu utilization as the one GPU's row.
const utilLine = profiles[2].report.series.panels.flatMap((p) => p.series).find((s) => s.metric === 'gpu_util_pct');
const clusterAnswer = {
  threshold_pct: 30,
  gpus: [{ profile_id: 2, profiles: 1, hostname: 'capture', gpu_index: 0, gpu_uuid: '', gpu_name: 'NVIDIA H100 80GB HBM3', time_ns: 0,
    gpu_util_pct: lastValue('gpu_util_pct'), gpu_instance_id: -1, fb_used_bytes: lastValue('fb_used_bytes') * 2 ** 30, power_w: lastValue('power_w'),
    mean_gpu_util_pct: JSON.parse(profiles[2].analysis).ranks[0].series.find((s) => s.metric === 'gpu_util_pct').mean }],
  heatmap: { metric: 'gpu_util_pct', start_ns: Math.round(profiles[2].report.series.start_unix_s * 1e9), bin_ns: 1e9,
    bins: utilLine.v.length, rows: [{ gpu: 0, values: utilLine.v }] },
  pooling_candidates: [],
};

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://stub');
  const send = (body, type = 'application/json', code = 200) => {
    res.writeHead(code, { 'Content-Type': type });
    res.end(body);
  };
  const p = url.pathname;
  if (p === '/') return send(fs.readFileSync(args.index), 'text/html');
  if (p === '/assets/app.js' || p === '/assets/app.css') return send(fs.readFileSync(path.join(args.dist, path.basename(p))), p.endsWith('js') ? 'text/javascript' : 'text/css');
  if (p === '/api/v1/profiles') {
    return send(JSON.stringify({ count: 2, profiles: Object.entries(profiles).map(([id, x]) => {
      const a = JSON.parse(x.analysis);
      return { id: Number(id), name: x.name, kind: 'import', source: x.file, format: x.format, devices: [], device_summary: '', workload_type: a.workload.type,
        bound: a.workload.bound, gpu_util: null, disagg_score: null };
    }) }));
  }
  const m = p.match(/^\/api\/v1\/profiles\/(\d+)(\/\w+)?$/);
  if (m && profiles[m[1]]) {
    const x = profiles[m[1]];
    if (!m[2]) return send(JSON.stringify({ id: Number(m[1]), name: x.name, source: x.file, format: x.format }));
    if (m[2] === '/analysis') return send(x.analysis);
    if (m[2] === '/disagg') return send(x.disagg);
    if (m[2] === '/report') return send(JSON.stringify(x.report));
    if (m[2] === '/series') return send(JSON.stringify(seriesAnswer(m[1], url.searchParams.get('metric'))));
  }
  if (p === '/api/v1/colocate') return send(colocation);
  if (p === '/api/v1/cluster') return send(JSON.stringify(clusterAnswer));
  if (p === '/api/v1/live') {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    let n = 0;
    const timer = setInterval(() => {
      const i = n % smUtil.v.length;
      n += 1;
      const samples = [{ gpu_index: 0, gpu_instance_id: -1, metric: 'gpu_util_pct', value: smUtil.v[i], time_ns: 0 }, { gpu_index: 0, gpu_instance_id: -1, metric: 'power_w', value: power.v[i], time_ns: 0 }];
      res.write(`event: samples\ndata: ${JSON.stringify({ profile_id: 2, time_ns: Date.now() * 1e6, samples })}\n\n`);
    }, 1000);
    req.on('close', () => clearInterval(timer));
    return undefined;
  }
  return send(JSON.stringify({ error: { code: 'not_found', message: `no ${p}` } }), 'application/json', 404);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

async function visit(browser, hash, name, assertions) {
  console.log(`page ${hash}`);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}/${hash}`);
  await page.waitForSelector('body[data-rendered]', { timeout: 20000 });
  check(await page.getAttribute('body', 'data-rendered') === 'true', `${hash} rendered`);
  check(errors.length === 0, `${hash}: no script error (${errors.join('; ')})`);
  await assertions(page);
  const shot = path.join(args.out, `dashboard_stub_${name}.png`);
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`  screenshot: ${shot}`);
  await page.close();
}
const drawn = (stats, chart) => stats.some((s) => s.chart === chart && s.inked > 300 && s.colours >= 4);

fs.mkdirSync(args.out, { recursive: true });
const browser = await launchChromium(args.modules, args.chromium);
try {
  await visit(browser, '#/', 'workloads', async (page) => {
    const rows = await page.$$eval('table[data-table="workloads"] tbody tr td:nth-child(5)', (t) => t.map((x) => x.textContent));
    check(JSON.stringify(rows) === JSON.stringify(['training', 'unknown']), `workload classes from the list (${rows})`);
  });
  const analysis = JSON.parse(profiles[1].analysis);
  await visit(browser, '#/workload/1', 'workload', async (page) => {
    const stats = await chartStats(page);
    check(drawn(stats, 'timeline') && drawn(stats, 'bound-mix') && drawn(stats, 'steps'), 'timeline, bound-mix and step charts drawn');
    const names = await page.$$eval('table[data-table="top-kernels"] tbody tr td:first-child', (t) => t.map((x) => x.textContent));
    check(JSON.stringify(names) === JSON.stringify(analysis.kernels.top.map((k) => k.name)), 'top kernels = /analysis');
    const idle = Number(await page.getAttribute('[data-key="idle_pct"]', 'data-value'));
    check(near(idle, analysis.ranks[0].trace_timeline.idle_pct, 1e-6), `idle % = ${analysis.ranks[0].trace_timeline.idle_pct}`);
  });
  await visit(browser, '#/workload/2', 'workload_sampled', async (page) => {
    const series = (await chartStats(page)).filter((s) => s.chart === 'series' && s.inked > 300);
    check(series.length === 4, `utilization, memory, power and PCIe charts drawn from /report (${series.length})`);
  });
  const colo = JSON.parse(colocation);
  await visit(browser, '#/colocate?a=1&b=2', 'colocate', async (page) => {
    const text = await page.textContent('[data-key="pair"]');
    check(text.startsWith(`Score ${colo.pairs[0].score.toFixed(2)}`), `pair score ${colo.pairs[0].score} shown: "${text}"`);
    check((await chartStats(page)).filter((s) => s.inked > 300).length === 2, 'SM split and slowdown charts drawn');
  });
  await visit(browser, '#/cluster', 'cluster', async (page) => {
    check(drawn(await chartStats(page), 'heatmap'), 'cluster heatmap drawn');
  });
  await visit(browser, '#/live', 'live', async (page) => {
    await page.waitForSelector('[data-key="live-status"][data-events="3"]', { timeout: 30000 });
    check((await chartStats(page)).filter((s) => s.inked > 300).length === 2, 'live charts of gpu_util_pct and power_w drawn after 3 events');
  });
} finally {
  await browser.close();
  server.close();
}
const failures = failureCount();
console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
