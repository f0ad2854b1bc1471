// Shared by the browser tests: launching Debian's Chromium headless through playwright-core,
// starting the real `kraken serve` on a stored profile, checking that a chart's canvas holds
// a real drawing, and small assertion helpers.
// A missing browser is a failure, never a skip: CI installs it (scripts/install-deps.sh).
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

export function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 1) {
    if (!argv[i].startsWith('--')) continue;
    args[argv[i].slice(2)] = argv[i + 1];
    i += 1;
  }
  return args;
}

export async function launchChromium(modules, executable) {
  if (!executable || !fs.existsSync(executable)) {
    throw new Error(`Chromium not found at '${executable}': install it (scripts/install-deps.sh installs Debian's chromium)`);
  }
  const require = createRequire(path.join(path.resolve(modules), 'noop.js'));
  const { chromium } = require('playwright-core');
  // --no-sandbox: CI containers run as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: executable, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
}

let failures = 0;
export function check(condition, message) {
  if (condition) {
    console.log(`  ok: ${message}`);
  } else {
    failures += 1;
    console.log(`  FAIL: ${message}`);
  }
}
export function near(a, b, tolerance = 1e-9) {
  return typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b));
}
export function failureCount() {
  return failures;
}

// Per chart on the page: its canvas size and how many distinct colours and non-background
// pixels it holds (a blank or axis-only chart has few).
export async function chartStats(page) {
  return page.$$eval('.chart canvas', (canvases) => canvases.map((c) => {
    const ctx = c.getContext('2d');
    const { data } = ctx.getImageData(0, 0, c.width, c.height);
    const colours = new Set();
    let inked = 0;
    for (let i = 0; i < data.length; i += 16) {
      if (data[i + 3] === 0) continue;
      const rgb = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
      if (rgb !== 0xffffff) inked += 1;
      colours.add(rgb);
    }
    const section = c.closest('[data-section]');
    const chart = c.closest('[data-chart]');
    return { section: section ? section.getAttribute('data-section') : '', chart: chart ? chart.getAttribute('data-chart') : '', width: c.width, height: c.height, colours: colours.size, inked };
  }));
}

// `kraken import --json FILE` into DB; the id of the first profile it stored.
export function importProfile(kraken, db, file) {
  const out = JSON.parse(execFileSync(kraken, ['import', '--json', '--db', db, file], { encoding: 'utf8' }));
  const id = (out.stored_ids || [])[0];
  if (!id) throw new Error(`kraken import stored nothing: ${JSON.stringify(out).slice(0, 200)}`);
  return id;
}

// Starts `kraken serve --port 0` on loopback and resolves with { server, base } once it
// prints the address it listens on (not any other URL it prints, such as --agent's).
export function startKrakenServe(kraken, db, extra = []) {
  const server = spawn(kraken, ['serve', '--host', '127.0.0.1', '--port', '0', '--db', db, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
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

// Runs the kraken binary BIN with ARGV; its standard output (a failure throws, with stderr).
export function runKraken(bin, ...argv) {
  return execFileSync(bin, argv, { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
}

// DATA_DIR/RELATIVE, which must exist: the tests run on real files, never without them.
export function realDataFile(dataDir, relative) {
  const f = path.join(dataDir, relative);
  if (!fs.existsSync(f)) throw new Error(`missing real data file ${f}`);
  return f;
}

// Opens a self-contained page (a file written by kraken) with every non-file request
// blocked, waits until it says it rendered, and checks it rendered without a script error
// or a network request. WHAT names the page in the checks.
export async function openOfflinePage(browser, url, what) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const external = [];
  await page.route('**/*', (route) => {
    if (route.request().url().startsWith('file:')) return route.continue();
    external.push(route.request().url());
    return route.abort();
  });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector('body[data-rendered]', { timeout: 20000 });
  check(await page.getAttribute('body', 'data-rendered') === 'true', `${what} rendered without error`);
  check(errors.length === 0, `no script error (${errors.join('; ')})`);
  check(external.length === 0, `no network request (${external.join(', ')})`);
  return page;
}
