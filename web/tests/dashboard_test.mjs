// Browser test of the dashboard against a real `kraken serve`: imports real profiles into a
// temporary store, starts the server on an ephemeral port, visits every page in headless
// Chromium, checks the charts and tables against the API's own answers, and saves screenshots.
// node dashboard_test.mjs --kraken BIN --data DATA_DIR --out DIR --modules NODE_MODULES --chromium PATH
//   --replay-lib LIBKRAKEN_NVML_REPLAY --capture NVML_CAPTURE
// The cluster and live pages need a live profile: `kraken agent` samples the replayed
// 8-GPU capture (tests/fixtures/nvml/h100x8.nvml) into the store for a few seconds first.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chartStats, check, failureCount, launchChromium, parseArgs } from './browser_common.mjs';

const args = parseArgs(process.argv.slice(2));
const PROFILES = [
  'kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz',
  'kineto/hta/trace_filter/sampled_rank-0.json.gz',
  'nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt',
];

function importProfiles(db) {
  const ids = [];
  for (const file of PROFILES) {
    const full = path.join(args.data, file);
    if (!fs.existsSync(full)) throw new Error(`missing real data file ${full}`);
    const out = JSON.parse(execFileSync(args.kraken, ['import', '--json', '--db', db, full], { encoding: 'utf8' }));
    ids.push(...out.stored_ids);
  }
  return ids;
}

// Runs `kraken agent` on the replay library for `seconds`, storing into `db`, then stops
// it with SIGTERM (the agent commits its live profile and exits 0).
async function recordLiveProfile(db, seconds) {
  const env = { ...process.env, KRAKEN_NVML_REPLAY: args.capture };
  const agent = spawn(args.kraken, ['agent', '--listen', '127.0.0.1:0', '--interval', '100ms', '--db', db,
    '--nvml-library', args['replay-lib']], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let log = '';
  agent.stdout.on('data', (c) => { log += c.toString(); });
  agent.stderr.on('data', (c) => { log += c.toString(); });
  const exited = new Promise((resolve) => agent.on('exit', (code) => resolve(code)));
  await new Promise((r) => setTimeout(r, seconds * 1000));
  agent.kill('SIGTERM');
  const code = await exited;
  if (code !== 0) throw new Error(`kraken agent exited with ${code}: ${log}`);
}

// Starts `kraken serve --port 0` and resolves with its base URL once it prints it.
function startServer(db) {
  const server = spawn(args.kraken, ['serve', '--host', '127.0.0.1', '--port', '0', '--db', db], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`kraken serve printed no address in 20 s: ${seen}`)), 20000);
    const onData = (chunk) => {
      seen += chunk.toString();
      const m = seen.match(/listening on (http:\/\/[0-9.:]+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ server, base: m[1] });
      }
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.on('exit', (code) => reject(new Error(`kraken serve exited with ${code}: ${seen}`)));
  });
}

async function visit(browser, base, hash, name, assertions) {
  console.log(`page ${hash}`);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}/${hash}`);
  await page.waitForSelector('body[data-rendered]', { timeout: 30000 });
  check(await page.getAttribute('body', 'data-rendered') === 'true', `${hash} rendered (${await page.textContent('#app')})`.slice(0, 300));
  check(errors.length === 0, `${hash}: no script error (${errors.join('; ')})`);
  await assertions(page);
  const shot = path.join(args.out, `dashboard_${name}.png`);
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`  screenshot: ${shot}`);
  await page.close();
}

const drawn = (stats, section) => stats.some((s) => s.section === section && s.inked > 300 && s.colours >= 4);

fs.mkdirSync(args.out, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kraken-dashboard-'));
const db = path.join(tmp, 'profiles.db');
const ids = importProfiles(db);
await recordLiveProfile(db, 3);
const { server, base } = await startServer(db);
const browser = await launchChromium(args.modules, args.chromium);
try {
  const api = async (p) => (await fetch(`${base}${p}`)).json();
  const listing = await api('/api/v1/profiles');
  await visit(browser, base, '#/', 'workloads', async (page) => {
    const rows = await page.$$eval('table[data-table="workloads"] tbody tr', (r) => r.length);
    check(rows === listing.count, `workload list has the ${listing.count} stored profiles (got ${rows})`);
  });
  const trace = ids[0];
  const analysis = await api(`/api/v1/profiles/${trace}/analysis`);
  await visit(browser, base, `#/workload/${trace}`, 'workload', async (page) => {
    const stats = await chartStats(page);
    check(drawn(stats, 'timeline') && drawn(stats, 'kernels') && drawn(stats, 'steps'), 'timeline, kernel and step charts drawn');
    const names = await page.$$eval('table[data-table="top-kernels"] tbody tr td:first-child', (t) => t.map((x) => x.textContent));
    check(JSON.stringify(names) === JSON.stringify(analysis.kernels.top.map((k) => k.name)), 'top kernels = the analysis endpoint\'s');
  });
  const sampled = ids[ids.length - 1];
  await visit(browser, base, `#/workload/${sampled}`, 'workload_sampled', async (page) => {
    check(drawn(await chartStats(page), 'series'), 'utilization/memory/power charts drawn for the nvidia-smi capture');
  });
  await visit(browser, base, `#/colocate?a=${ids[0]}&b=${ids[1]}`, 'colocate', async (page) => {
    const rows = await page.$$eval('table[data-table="colocation"] tbody tr', (r) => r.length);
    check(rows > 0, `co-location figures listed (${rows})`);
  });
  await visit(browser, base, '#/cluster', 'cluster', async (page) => {
    const cluster = await api('/api/v1/cluster');
    check((cluster.gpus || []).length === 8, `cluster has the agent's 8 replayed GPUs (got ${(cluster.gpus || []).length})`);
    check(drawn(await chartStats(page), 'heatmap'), 'cluster heatmap drawn');
  });
  await visit(browser, base, '#/live', 'live', async (page) => {
    await page.waitForSelector('[data-key="live-status"][data-events]', { timeout: 5000 });
    const events = Number(await page.getAttribute('[data-key="live-status"]', 'data-events'));
    check(events >= 1, `live view received server-sent events (${events})`);
  });
} finally {
  await browser.close();
  server.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true });
}
const failures = failureCount();
console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
