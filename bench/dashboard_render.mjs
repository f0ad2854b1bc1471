// The dashboard's workload page on the largest shared inputs, timed in headless Chromium:
//   node bench/dashboard_render.mjs build/src/cli/kraken ../shared/data build/web/node_modules
// Imports the inputs into a temporary store, starts `kraken serve`, and times each workload
// page from page.goto to body[data-rendered] (wall clock, a new tab each, two visits: the
// second hits the server's caches). Figures: docs/dashboard.md. Works with any kraken
// binary (an older one too: it waits for data-rendered only).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
const [bin, data, modules] = process.argv.slice(2);
const inputs = ['nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt',
  'alibaba-genai-v2026/pod_gpu_duty_cycle_anon.csv.gz', 'alibaba-genai-v2026/pod_gpu_memory_used_bytes_anon.csv.gz'];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'measure-'));
const db = path.join(tmp, 'p.db');
const ids = inputs.map((f) => JSON.parse(execFileSync(bin, ['import', '--json', '--db', db, path.join(data, f)], { encoding: 'utf8' })).stored_ids[0]);
console.log(execFileSync(bin, ['list', '--db', db], { encoding: 'utf8' }));
const server = spawn(bin, ['serve', '--host', '127.0.0.1', '--port', '0', '--db', db], { stdio: ['ignore', 'pipe', 'pipe'] });
const base = await new Promise((resolve) => {
  let seen = '';
  const on = (c) => { seen += c; const m = seen.match(/listening on (http:\/\/[0-9.:]+)/); if (m) resolve(m[1]); };
  server.stdout.on('data', on); server.stderr.on('data', on);
});
const require = createRequire(path.join(path.resolve(modules), 'noop.js'));
const { chromium } = require('playwright-core');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
for (let i = 0; i < inputs.length; i += 1) {
  for (let run = 0; run < 2; run += 1) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto('about:blank');
    const t0 = Date.now();
    await page.goto(`${base}/#/workload/${ids[i]}`);
    await page.waitForSelector('body[data-rendered]', { timeout: 120000 });
    const ms = Date.now() - t0;
    const nav = await page.evaluate(() => Math.round(performance.now()));
    console.log(`${path.basename(inputs[i])} run ${run + 1}: ${ms} ms from goto to drawn (performance.now at drawn: ${nav} ms)`);
    await page.close();
  }
}
await browser.close();
server.kill('SIGTERM');
fs.rmSync(tmp, { recursive: true, force: true });
