// Browser test of the dashboard against a real `kraken serve`: imports real profiles into a
// temporary store, starts the server on an ephemeral port, opens every page on every real
// input in headless Chromium and checks, per page: the time axis it draws (the input's own
// span, not 0..1.78e9 s), the summary figures (equal to `kraken analyze --json` and
// `kraken list --json` of the same input), and the render time (printed and written to
// dashboard_render_times.json, from the route's start to the page drawn; the 1 s target is
// checked by bench/dashboard_render.mjs, never by a test). Screenshots go to --out.
// node dashboard_test.mjs --kraken BIN --data DATA_DIR --out DIR --modules NODE_MODULES --chromium PATH
//   --replay-lib LIBKRAKEN_NVML_REPLAY --capture NVML_CAPTURE
// The cluster and live pages need live data: `kraken agent` samples the replayed 8-GPU
// capture (tests/fixtures/nvml/h100x8.nvml), committing a profile every second (several
// profiles of the same 8 GPUs), and a second agent that has committed nothing yet feeds
// the live view of `kraken serve --agent` from its ring.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chartStats, check, failureCount, launchChromium, near, parseArgs, startKrakenServe } from './browser_common.mjs';

const args = parseArgs(process.argv.slice(2));
// Every real input the dashboard is held to, the largest (the GenAI trace: 143 pods,
// 157,417 samples) included.
const INPUTS = [
  { name: 'trace', file: 'kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz' },
  { name: 'hta_rank0', file: 'kineto/hta/trace_filter/sampled_rank-0.json.gz' },
  { name: 'h100', file: 'nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt' },
  { name: 'h200_mig', file: 'nvidia-smi/capture__linux-x86_64__nvidia-h200-mig__590.48.01.txt' },
  { name: 'genai_duty_cycle', file: 'alibaba-genai-v2026/pod_gpu_duty_cycle_anon.csv.gz' },
  { name: 'genai_memory', file: 'alibaba-genai-v2026/pod_gpu_memory_used_bytes_anon.csv.gz' },
];
const kraken = (...argv) => execFileSync(args.kraken, argv, { encoding: 'utf8', maxBuffer: 1 << 30 });
const timings = [];
// The passes the committing agent makes before it is stopped (awaitPasses).
const COMMITTING_PASSES = 45;

function importInputs(db) {
  for (const input of INPUTS) {
    input.path = path.join(args.data, input.file);
    if (!fs.existsSync(input.path)) throw new Error(`missing real data file ${input.path}`);
    input.id = JSON.parse(kraken('import', '--json', '--db', db, input.path)).stored_ids[0];
    input.analyze = JSON.parse(kraken('analyze', '--json', input.path));
  }
  const listed = JSON.parse(kraken('list', '--json', '--db', db)).profiles;
  for (const input of INPUTS) input.listed = listed.find((p) => p.id === input.id);
}

// Starts `kraken agent` on the replay library; resolves with the process and its address.
function startAgent(db, extra) {
  const env = { ...process.env, KRAKEN_NVML_REPLAY: args.capture };
  const agent = spawn(args.kraken, ['agent', '--listen', '127.0.0.1:0', '--interval', '100ms', '--db', db,
    '--nvml-library', args['replay-lib'], ...extra], { stdio: ['ignore', 'pipe', 'pipe'], env });
  const exited = new Promise((resolve) => agent.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`kraken agent printed no address in 20 s: ${log}`)), 20000);
    const onData = (chunk) => {
      log += chunk.toString();
      const m = log.match(/serving (http:\/\/[0-9.]+:[0-9]+)\/metrics/);
      if (m) {
        clearTimeout(timer);
        resolve({ agent, url: m[1], exited, log: () => log });
      }
    };
    agent.stdout.on('data', onData);
    agent.stderr.on('data', onData);
  });
}

// Waits until the agent's /metrics counts `passes` sampling passes (60 s at most).
async function awaitPasses(running, passes) {
  const deadline = Date.now() + 60000;
  let seen = 0;
  while (Date.now() < deadline) {
    const text = await (await fetch(`${running.url}/metrics`)).text();
    const m = text.match(/^kraken_agent_samples_total(?:\{[^}]*\})? ([0-9.e+]+)$/m);
    seen = m ? Number(m[1]) : 0;
    if (seen >= passes) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`kraken agent made ${seen} of ${passes} passes in 60 s: ${running.log()}`);
}

async function stopAgent(running) {
  running.agent.kill('SIGTERM');
  const code = await running.exited;
  if (code !== 0) throw new Error(`kraken agent exited with ${code}: ${running.log()}`);
}

// The shared DCGM history in a real Prometheus (kraken_prometheus_fixture prints "URL END_S"
// and serves until its standard input closes).
function startPrometheusFixture() {
  const fixture = spawn(args['prometheus-fixture'], [], { stdio: ['pipe', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`prometheus fixture printed no URL in 120 s: ${seen}`)), 120000);
    fixture.stdout.on('data', (chunk) => {
      seen += chunk.toString();
      const m = seen.match(/^(http:\/\/\S+) (\d+)/m);
      if (m) {
        clearTimeout(timer);
        resolve({ fixture, url: m[1], end: Number(m[2]) });
      }
    });
    fixture.stderr.on('data', (chunk) => { seen += chunk.toString(); });
    fixture.on('exit', (code) => reject(new Error(`prometheus fixture exited with ${code}: ${seen}`)));
  });
}

async function visit(browser, base, hash, name, assertions, { timed = true } = {}) {
  console.log(`page ${hash}`);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const started = Date.now();
  await page.goto(`${base}/${hash}`);
  await page.waitForSelector('body[data-rendered]', { timeout: 30000 });
  const wallMs = Date.now() - started;
  check(await page.getAttribute('body', 'data-rendered') === 'true', `${hash} rendered (${await page.textContent('#app')})`.slice(0, 300));
  check(errors.length === 0, `${hash}: no script error (${errors.join('; ')})`);
  if (timed) {
    const renderMs = Number(await page.getAttribute('body', 'data-render-ms'));
    const pageMs = Number(await page.getAttribute('body', 'data-page-ms'));
    // A figure, not a check: a loaded CI machine (ASan, two cores) must not fail it.
    check(Number.isFinite(renderMs) && renderMs >= 0, `${hash}: the page reports its render time (${renderMs})`);
    timings.push({ page: name, hash, render_ms: renderMs, page_ms: pageMs, wall_ms: wallMs });
  }
  await assertions(page);
  const shot = path.join(args.out, `dashboard_${name}.png`);
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`  screenshot: ${shot}`);
  await page.close();
}

const drawn = (stats, section) => stats.some((s) => s.section === section && s.inked > 300 && s.colours >= 4);
const figure = async (page, key) => {
  const v = await page.getAttribute(`[data-key="${key}"]`, 'data-value');
  return v === null || v === '' ? null : Number(v);
};

// The figures the summary must show, from `kraken analyze --json` (and the device memory
// `kraken report` uses): kernel count, idle % and memory never used.
function expectedSummary(input, report) {
  const a = input.analyze;
  const rank = (a.ranks || [])[0] || {};
  let idle = null;
  if (rank.trace_timeline && (a.ranks || []).length === 1) idle = rank.trace_timeline.idle_pct;
  let utilSum = 0;
  let utilN = 0;
  let fbMax = null;
  for (const r of a.ranks || []) for (const s of r.series || []) {
    if (s.metric === 'gpu_util_pct' && s.samples > 0) { utilSum += s.mean * s.samples; utilN += s.samples; }
    if (s.metric === 'fb_used_bytes' && s.max !== null) fbMax = Math.max(fbMax ?? s.max, s.max);
  }
  if (idle === null && utilN) idle = 100 - utilSum / utilN;
  const device = (report.device_memory_bytes || [])[0];
  const unused = !rank.memory && fbMax !== null && device ? Math.max(0, 100 * (1 - fbMax / device)) : undefined;
  return { kernel_count: a.kernels ? a.kernels.count : null, idle_pct: idle, unused_memory_pct: unused };
}

async function checkWorkloadPage(browser, base, input) {
  const durationS = input.listed.duration_ns / 1e9;
  // The page's first visit is the one timed: the document is fetched here only after it
  // (the server caches it once rendered).
  await visit(browser, base, `#/workload/${input.id}`, `workload_${input.name}`, async (page) => {
    const report = await (await fetch(`${base}/api/v1/profiles/${input.id}/report`)).json();
    const expected = expectedSummary(input, report);
    const kernels = await figure(page, 'kernel_count');
    if (expected.kernel_count !== null && expected.kernel_count !== undefined) {
      check(kernels === expected.kernel_count, `${input.name}: kernels ${kernels} = analyze --json ${expected.kernel_count}`);
    }
    const idle = await figure(page, 'idle_pct');
    if (expected.idle_pct !== null) {
      check(near(idle, expected.idle_pct, 1e-9), `${input.name}: idle ${idle} % = analyze --json ${expected.idle_pct} %`);
    }
    if (expected.unused_memory_pct !== undefined) {
      const unused = await figure(page, 'unused_memory_pct');
      check(near(unused, expected.unused_memory_pct, 1e-9), `${input.name}: memory never used ${unused} % = ${expected.unused_memory_pct} % (fb_used max of analyze --json)`);
    }
    const axes = await page.$$eval('[data-section="series"] .chart[data-x-max]', (c) => c.map((x) => ({
      panel: x.getAttribute('data-panel'), min: Number(x.getAttribute('data-x-min')), max: Number(x.getAttribute('data-x-max')) })));
    if (input.listed.counts.samples > 0 && report.series.panels.length) {
      check(axes.length === report.series.panels.length, `${input.name}: ${axes.length} series charts drawn with an axis`);
      for (const axis of axes) {
        check(axis.min >= 0 && axis.max <= durationS * (1 + 1e-9),
          `${input.name} ${axis.panel}: time axis ${axis.min}..${axis.max} s within the profile's ${durationS} s (kraken list --json)`);
      }
      // Some panel reaches the last sample: bucket means end at most half a bucket
      // (duration / 600 / 2) before it.
      const reach = Math.max(...axes.map((a) => a.max));
      check(reach >= durationS * (1 - 1 / 600) - 1e-9, `${input.name}: the axes reach ${reach} s of the ${durationS} s`);
    }
  });
}

// Nanosecond times as BigInt: JSON numbers past 2^53 lose their last digits in JavaScript.
async function fetchWithNs(url) {
  const text = await (await fetch(url)).text();
  return JSON.parse(text.replace(/"(t_ns|start_ns|bin_ns)":(-?[0-9]+)/g, '"$1":"$2"'));
}

// The heatmap each GPU should have: every live profile's utilization series, read back as
// the heatmap reads it (at most one point per bin), each point in the bin of the heatmap's
// own start and width; per bin, the count-weighted mean. Independent of how fast the agent
// sampled, unlike a count of filled bins. `cluster`: /api/v1/cluster read by fetchWithNs.
async function expectedHeatmapRows(base, liveIds, cluster) {
  const heat = cluster.heatmap;
  const start = BigInt(heat.start_ns);
  const width = BigInt(heat.bin_ns);
  const rows = [];
  for (const gpu of cluster.gpus) {
    const sum = new Array(heat.bins).fill(0);
    const count = new Array(heat.bins).fill(0);
    for (const id of liveIds) {
      const got = await fetchWithNs(`${base}/api/v1/profiles/${id}/series?metric=gpu_util_pct&max_points=${heat.bins}&gpu=${gpu.gpu_index}`);
      for (const series of got.series) {
        if (series.entity.pid >= 0 || series.entity.gpu_instance_id !== gpu.gpu_instance_id) continue;
        for (const p of series.points) {
          const bin = Math.min(heat.bins - 1, Number((BigInt(p.t_ns) - start) / width));
          sum[bin] += p.mean * p.count;
          count[bin] += p.count;
        }
      }
    }
    rows.push({ means: count.map((n, b) => (n > 0 ? sum[b] / n : null)), samples: count.reduce((a, n) => a + n, 0) });
  }
  return rows;
}

fs.mkdirSync(args.out, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kraken-dashboard-'));
const db = path.join(tmp, 'profiles.db');
importInputs(db);
const committing = await startAgent(db, ['--commit-interval', '1s']);
// About 4.5 s of 100 ms passes, counted rather than timed: on a loaded machine (CI's
// sanitizer run) the passes come late, and the cluster heatmap below needs them over its
// 60 bins.
await awaitPasses(committing, COMMITTING_PASSES);
await stopAgent(committing);
const ringDb = path.join(tmp, 'ring.db');
const ringAgent = await startAgent(ringDb, []);  // commits after 5 min: nothing in the store during the test
const { server, base } = await startKrakenServe(args.kraken, db);
const live = await startKrakenServe(args.kraken, ringDb, ['--agent', ringAgent.url]);
const prometheus = await startPrometheusFixture();
const fromPrometheus = await startKrakenServe(args.kraken, path.join(tmp, 'empty.db'), ['--prometheus', prometheus.url]);
const browser = await launchChromium(args.modules, args.chromium);
try {
  const api = async (p, b = base) => (await fetch(`${b}${p}`)).json();
  const listing = await api('/api/v1/profiles');
  await visit(browser, base, '#/', 'workloads', async (page) => {
    const rows = await page.$$eval('table[data-table="workloads"] tbody tr', (r) => r.map((x) => [...x.children].map((td) => td.textContent)));
    check(rows.length === listing.count, `workload list has the ${listing.count} stored profiles (got ${rows.length})`);
    const live8 = rows.filter((r) => r[3] === '8x NVIDIA H100 80GB HBM3');
    check(live8.length >= 2, `each live profile's devices read "8x NVIDIA H100 80GB HBM3" (${live8.length} rows)`);
    check(rows.every((r) => !/(, ){1}$|^, |, ,/.test(r[3])), 'no device cell with empty names joined by commas');
  });
  for (const input of INPUTS) await checkWorkloadPage(browser, base, input);
  const trace = INPUTS[0];
  await visit(browser, base, `#/workload/${trace.id}`, 'workload', async (page) => {
    const stats = await chartStats(page);
    check(drawn(stats, 'timeline') && drawn(stats, 'kernels') && drawn(stats, 'steps'), 'timeline, kernel and step charts drawn');
    const names = await page.$$eval('table[data-table="top-kernels"] tbody tr td:first-child', (t) => t.map((x) => x.textContent));
    check(JSON.stringify(names) === JSON.stringify(trace.analyze.kernels.top.map((k) => k.name)), 'top kernels = analyze --json\'s');
  }, { timed: false });
  await visit(browser, base, `#/colocate?a=${INPUTS[0].id}&b=${INPUTS[1].id}`, 'colocate', async (page) => {
    const rows = await page.$$eval('table[data-table="colocation"] tbody tr', (r) => r.length);
    check(rows > 0, `co-location figures listed (${rows})`);
  });
  const liveProfiles = listing.profiles.filter((p) => p.kind === 'live').length;
  await visit(browser, base, '#/cluster', 'cluster', async (page) => {
    const cluster = await fetchWithNs(`${base}/api/v1/cluster`);
    check(cluster.gpus.length === 8, `cluster has one row per replayed GPU: 8 (got ${cluster.gpus.length}) over ${liveProfiles} live profiles`);
    check(cluster.gpus.every((g) => g.profiles === liveProfiles), `every GPU row spans the ${liveProfiles} committed profiles`);
    check(cluster.heatmap.rows.length === 8 && cluster.heatmap.bins === 60, `heatmap of 8 GPUs x ${cluster.heatmap.bins} time bins`);
    const filled = cluster.heatmap.rows.map((r) => r.values.filter((v) => v !== null).length);
    const expected = await expectedHeatmapRows(base, listing.profiles.filter((p) => p.kind === 'live').map((p) => p.id), cluster);
    const binsMatch = cluster.heatmap.rows.every((r, i) => r.values.every((v, b) =>
      (v === null) === (expected[i].means[b] === null) && (v === null || near(v, expected[i].means[b], 1e-9))));
    check(binsMatch, `every stored sample is in its heatmap bin (${filled.join(',')} of 60 bins filled; `
      + `the stored series fill ${expected.map((r) => r.means.filter((v) => v !== null).length).join(',')})`);
    // How many bins the passes fill depends on how evenly a loaded machine let them come
    // (35 of 60 with four browser tests at once under ASan); how many samples, not.
    const samples = expected.map((r) => r.samples);
    check(samples.every((n) => n >= COMMITTING_PASSES),
      `every GPU's row is made of the agent's ${COMMITTING_PASSES} or more passes (${samples.join(',')} samples)`);
    check(cluster.heatmap.rows.every((r) => r.values[0] !== null && r.values[59] !== null), 'every row has values in its first and last bin');
    check(Number(await page.getAttribute('[data-section="heatmap"]', 'data-gpus')) === 8, 'the page draws 8 GPU rows');
    const tableRows = await page.$$eval('table[data-table="gpus"] tbody tr', (r) => r.length);
    check(tableRows === 8, `the GPU table has 8 rows (got ${tableRows})`);
    check(drawn(await chartStats(page), 'heatmap'), 'cluster heatmap drawn');
  });
  // `kraken serve --prometheus`: the same page from the DCGM series, with the use per pod
  // equal to `kraken analyze --prometheus --json`'s gpu_busy over the same day.
  await visit(browser, fromPrometheus.base, '#/cluster', 'cluster_prometheus', async (page) => {
    const cluster = await api('/api/v1/cluster', fromPrometheus.base);
    check(cluster.source === 'prometheus' && cluster.gpus.length === 3, `3 GPU rows from Prometheus (got ${cluster.gpus.length})`);
    const analyzed = JSON.parse(kraken('analyze', '--prometheus', prometheus.url, '--namespace', 'ml', '--range', '1d',
      '--end', String(cluster.prometheus.end_s), '--json'));
    for (const pod of analyzed.pods) {
      const row = cluster.pods.find((p) => p.pod === pod.pod);
      check(row && near(row.mean_gpu_util_pct, pod.gpu_busy.mean * 100, 1e-6), `${pod.pod}: ${row && row.mean_gpu_util_pct} % = analyze's gpu_busy mean`);
    }
    const podRows = await page.$$eval('[data-section="pods"] tbody tr', (r) => r.map((x) => x.firstChild.textContent + '/' + x.children[1].textContent));
    check(podRows.length === analyzed.pods.length, `the page lists the ${analyzed.pods.length} pods (${podRows.join(', ')})`);
    check(Number(await page.getAttribute('[data-section="heatmap"]', 'data-gpus')) === 3, 'the page draws 3 GPU rows');
    check(drawn(await chartStats(page), 'heatmap'), 'cluster heatmap drawn from Prometheus');
  });
  await visit(browser, live.base, '#/live', 'live', async (page) => {
    // Events come a second apart. An agent slowed by a loaded machine (ASan, -j3) may miss
    // the server's 1 s deadline: that event carries the error and no samples, and the stream
    // goes on; the wait is for two events, the newest with samples.
    await page.waitForFunction(() => {
      const s = document.querySelector('[data-key="live-status"]');
      return s && Number(s.getAttribute('data-events')) >= 2 && Number(s.getAttribute('data-samples')) > 0;
    }, null, { timeout: 30000 }).catch(() => {});
    const status = await page.textContent('[data-key="live-status"]');
    check(await page.getAttribute('[data-key="live-status"]', 'data-source') === 'agent', `live view streams from the agent (${status})`);
    const samples = Number(await page.getAttribute('[data-key="live-status"]', 'data-samples'));
    check(samples >= 8, `live events carry the ring's samples before any commit (${samples} values; ${status})`);
    const stored = (await api('/api/v1/profiles', live.base)).count;
    check(stored === 0, `the agent has committed nothing yet (${stored} stored profiles)`);
    check((await chartStats(page)).filter((s) => s.inked > 300).length >= 2, 'live charts drawn from the ring');
  }, { timed: false });
} finally {
  await browser.close();
  server.kill('SIGTERM');
  live.server.kill('SIGTERM');
  fromPrometheus.server.kill('SIGTERM');
  prometheus.fixture.stdin.end();
  await stopAgent(ringAgent).catch((e) => console.log(`  ${e.message}`));
  fs.rmSync(tmp, { recursive: true, force: true });
}
fs.writeFileSync(path.join(args.out, 'dashboard_render_times.json'), `${JSON.stringify(timings, null, 1)}\n`);
for (const t of timings) console.log(`  render ${t.page}: ${t.render_ms} ms from the route, ${t.page_ms} ms from navigation, ${t.wall_ms} ms with the new tab`);
const failures = failureCount();
console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
