// Browser test of the dashboard's timeline explorer (#/timeline/ID) against a real
// `kraken serve` on the largest shared Kineto trace: the kernels drawn over the whole trace
// are `kraken analyze --json`'s count, every stream's count adds up, zooming narrows the
// range (and the server's window count matches the page's), a kernel shows the CPU op that
// launched it; each view's draw time is printed (the 1 s target is a benchmark's to check).
// node timeline_page_test.mjs --kraken BIN --data DATA_DIR --out DIR --modules NODE_MODULES --chromium PATH
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { check, failureCount, importProfile, launchChromium, parseArgs, startKrakenServe } from './browser_common.mjs';

const args = parseArgs(process.argv.slice(2));
const TRACE = 'kineto/hta/mtia_trace_single_rank/mtia_rank_0.json.gz';

const view = async (page) => ({
  start: Number(await page.getAttribute('[data-key="timeline-canvas"]', 'data-start')),
  end: Number(await page.getAttribute('[data-key="timeline-canvas"]', 'data-end')),
  kernels: Number(await page.getAttribute('[data-key="timeline-canvas"]', 'data-kernels')),
  ms: Number(await page.getAttribute('[data-key="timeline-canvas"]', 'data-draw-ms')),
});

const full = path.join(args.data, TRACE);
if (!fs.existsSync(full)) throw new Error(`missing real data file ${full}`);
fs.mkdirSync(args.out, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kraken-timeline-'));
const db = path.join(tmp, 'profiles.db');
const id = importProfile(args.kraken, db, full);
const analyzed = JSON.parse(execFileSync(args.kraken, ['analyze', '--json', full], { encoding: 'utf8', maxBuffer: 1 << 28 }));
const wantKernels = analyzed.ranks[0].kernels.count;
const { server, base } = await startKrakenServe(args.kraken, db);
const browser = await launchChromium(args.modules, args.chromium);
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}/#/timeline/${id}`);
  await page.waitForSelector('body[data-rendered]', { timeout: 60000 });
  check(await page.getAttribute('body', 'data-rendered') === 'true', 'timeline page rendered');
  check(errors.length === 0, `no script error (${errors.join('; ')})`);
  const whole = await view(page);
  check(wantKernels > 1000, `the trace has many kernels (${wantKernels})`);
  check(whole.kernels === wantKernels, `whole trace: ${whole.kernels} kernels drawn = kraken analyze --json's ${wantKernels}`);
  const doc = await (await fetch(`${base}/api/v1/profiles/${id}/timeline?width=1080`)).json();
  const perStream = doc.streams.reduce((sum, s) => sum + s.kernels, 0);
  check(perStream === wantKernels, `the streams' counts add up to ${wantKernels} (got ${perStream})`);
  check(doc.streams.some((s) => s.bucketed), 'a stream of the whole trace comes as per-pixel buckets');
  check(doc.streams.every((s) => !s.bucketed || s.buckets.reduce((n, b) => n + b[0], 0) === s.kernels), 'buckets count every kernel once');
  // The first view after loading also loaded the profile into the server's index; the
  // next views are what zooming and panning cost.
  await page.click('[data-key="zoom-in"]');
  await page.waitForFunction((s) => Number(document.querySelector('[data-key="timeline-canvas"]').dataset.end) < s, whole.end);
  const zoomed = await view(page);
  check(zoomed.end - zoomed.start < (whole.end - whole.start) * 0.51, `zoom in halves the range (${whole.start}-${whole.end} -> ${zoomed.start}-${zoomed.end} µs)`);
  check(zoomed.kernels > 0 && zoomed.kernels < whole.kernels, `fewer kernels in the zoomed window (${zoomed.kernels})`);
  const api = await (await fetch(`${base}/api/v1/profiles/${id}/timeline?width=1080&start_us=${zoomed.start}&end_us=${zoomed.end}`)).json();
  check(api.kernels === zoomed.kernels, `the page's window count = the API's (${api.kernels})`);
  console.log(`  zoomed view drawn in ${zoomed.ms} ms`);  // a figure: speed is a benchmark's to check
  // Zoom in until kernels are drawn one by one, then hover one: its launching op shows.
  for (let i = 0; i < 40; ++i) {
    const d = await (await fetch(`${base}/api/v1/profiles/${id}/timeline?width=1080&start_us=${(await view(page)).start}&end_us=${(await view(page)).end}`)).json();
    if (d.streams.some((s) => !s.bucketed && s.events.some((e) => e.op))) break;
    const before = (await view(page)).end;
    await page.click('[data-key="zoom-in"]');
    await page.waitForFunction((s) => Number(document.querySelector('[data-key="timeline-canvas"]').dataset.end) !== s, before);
  }
  const near = await view(page);
  console.log(`  deep-zoom view drawn in ${near.ms} ms`);
  const d = await (await fetch(`${base}/api/v1/profiles/${id}/timeline?width=1080&start_us=${near.start}&end_us=${near.end}`)).json();
  const lane = d.streams.findIndex((s) => !s.bucketed && s.events.some((e) => e.op));
  check(lane >= 0, 'zoomed in, kernels come one by one with their launching op');
  if (lane >= 0) {
    const e = d.streams[lane].events.find((x) => x.op);
    const box = await page.$eval('[data-key="timeline-canvas"]', (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, cw: c.width }; });
    const mid = Math.max(e.start_us, near.start) + Math.min(e.dur_us, near.end - Math.max(e.start_us, near.start)) / 2;
    const px = 120 + ((mid - near.start) / (near.end - near.start)) * (box.cw - 120);
    await page.mouse.click(box.x + px * (box.w / box.cw), box.y + lane * 22 + 11);
    const text = await page.textContent('[data-key="timeline-hover"]');
    check(text.includes(e.op), `clicking a kernel shows the op that launched it (${e.op}): "${text}"`);
  }
  // Panning moves the window without changing its length.
  const beforePan = await view(page);
  await page.click('[data-key="pan-left"]');
  await page.waitForFunction((s) => Number(document.querySelector('[data-key="timeline-canvas"]').dataset.start) !== s, beforePan.start);
  const panned = await view(page);
  check(Math.abs((panned.end - panned.start) - (beforePan.end - beforePan.start)) < 1e-3 * (beforePan.end - beforePan.start) + 1e-6, 'pan keeps the window length');
  await page.screenshot({ path: path.join(args.out, 'dashboard_timeline.png'), fullPage: true });
  await page.close();
} finally {
  await browser.close();
  server.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true });
}
const failures = failureCount();
console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
