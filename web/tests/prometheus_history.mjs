// A real Prometheus for the browser tests (as src/cli/prometheus_test_server.h for the C++
// ones): a day of history at 300 s built from the real A100 MIG dcgm-exporter capture in
// ../shared/data/dcgm, its values unchanged at every sample; the whole GPU is attributed to
// pod ml/trainer-0 and the 1g.5gb instance to ml/notebook-0 (the capture has no pods).
// Loaded with `promtool tsdb create-blocks-from openmetrics`, served on a free loopback port.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const HISTORY_CAPTURE = 'dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom';
export const HISTORY_SPAN_S = 86400;
export const HISTORY_STEP_S = 300;

function historyText(capturePath, endS) {
  const series = new Map();  // "name{labels}" -> value, first seen wins
  for (const line of fs.readFileSync(capturePath, 'utf8').split('\n')) {
    const m = /^([A-Za-z_:][A-Za-z0-9_:]*)\{(.*)\}\s+(\S+)$/.exec(line.trim());
    if (!m || !m[2].includes('Hostname="ub20-a100-k8s"')) continue;
    const pod = m[2].includes('GPU_I_ID=') ? 'notebook-0' : 'trainer-0';
    const key = `${m[1]}{${m[2]},namespace="ml",pod="${pod}"}`;
    if (!series.has(key)) series.set(key, { name: m[1], value: m[3] });
  }
  const byName = new Map();
  for (const [key, s] of series) byName.set(s.name, [...(byName.get(s.name) || []), [key, s.value]]);
  const out = [];
  for (const [name, list] of byName) {
    out.push(`# TYPE ${name} gauge`);
    for (const [key, value] of list)
      for (let t = endS - HISTORY_SPAN_S; t <= endS; t += HISTORY_STEP_S) out.push(`${key} ${value} ${t}`);
  }
  out.push('# EOF');
  return `${out.join('\n')}\n`;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// Starts it; returns { url, endS, stop() }. A missing binary throws (CI installs them).
export async function startPrometheusHistory({ data, dir, promtool = '/usr/bin/promtool', prometheus = '/usr/bin/prometheus' }) {
  const endS = Math.floor(Date.now() / 1000 / 300) * 300 - 3600;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const input = path.join(dir, 'history.om');
  fs.writeFileSync(input, historyText(path.join(data, HISTORY_CAPTURE), endS));
  fs.writeFileSync(path.join(dir, 'prometheus.yml'), 'global:\n  scrape_interval: 15s\n');
  execFileSync(promtool, ['tsdb', 'create-blocks-from', 'openmetrics', '--max-block-duration=24h', input, path.join(dir, 'data')],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  const port = await freePort();
  const log = fs.openSync(path.join(dir, 'prometheus.log'), 'w');
  const child = spawn(prometheus, [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--storage.tsdb.retention.time=30d'], { stdio: ['ignore', log, log] });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 120; attempt += 1) {
    try {
      if ((await fetch(`${url}/-/ready`)).status === 200) return { url, endS, stop: () => child.kill('SIGTERM') };
    } catch { /* not listening yet */ }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGTERM');
  throw new Error(`prometheus did not become ready: ${fs.readFileSync(path.join(dir, 'prometheus.log'), 'utf8').slice(-2000)}`);
}
