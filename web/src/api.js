// The dashboard's one data-fetching module: every call to `kraken serve` (docs/api.md of the
// server) is here, and each returns the shapes the shared renderers take: the same
// {analyze, disagg, series} document `kraken report` inlines. Adapting to an API change
// means editing this file only.

const DEFAULT_GPU_HOUR_COST_USD = 2.5; // kraken report's default (docs/report.md)

async function getJson(path) {
  const response = await fetch(path, { headers: { Accept: 'application/json' } });
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const message = body && body.error ? body.error.message : `${response.status} ${response.statusText}`;
    throw new Error(`${path}: ${message}`);
  }
  return body;
}

// Workload list rows: {id, name, source, format, created, devices, workload_type, bound,
// gpu_util_pct, disagg_score}.
export async function listWorkloads() {
  const body = await getJson('/api/v1/profiles');
  return (body.profiles || []).map((p) => ({
    ...p,
    gpu_util_pct: p.gpu_util === null || p.gpu_util === undefined ? null : p.gpu_util * 100,
  }));
}

// The sampled metrics the workload page draws, as report panels.
const SERIES_PANELS = [
  { id: 'utilization', title: 'GPU utilization', unit: '%', metrics: ['gpu_util_pct', 'mem_copy_util_pct'], scale: 1 },
  { id: 'memory', title: 'Memory used', unit: 'GiB', metrics: ['fb_used_bytes', 'memory_used_bytes'], scale: 1 / 2 ** 30 },
  { id: 'power', title: 'Power', unit: 'W', metrics: ['power_w'], scale: 1 },
  { id: 'pcie', title: 'PCIe throughput', unit: 'MB/s', metrics: ['pcie_tx_bytes_per_s', 'pcie_rx_bytes_per_s'], scale: 1e-6 },
];

async function loadSeriesPanels(id) {
  const panels = [];
  let start = null;
  const answers = [];
  for (const panel of SERIES_PANELS) {
    for (const metric of panel.metrics) {
      let body;
      try {
        body = await getJson(`/api/v1/profiles/${id}/series?metric=${metric}&max_points=600`);
      } catch {
        continue; // a metric the server does not know: nothing to draw
      }
      for (const s of body.series || []) {
        for (const p of s.points || []) if (start === null || p.t_ns < start) start = p.t_ns;
        answers.push({ panel, metric, s });
      }
    }
  }
  for (const panel of SERIES_PANELS) {
    const series = answers.filter((a) => a.panel === panel).map(({ metric, s }) => ({
      name: `${s.entity && s.entity.gpu_index >= 0 ? `GPU ${s.entity.gpu_index} ` : ''}${metric}`,
      metric,
      samples: (s.points || []).reduce((n, p) => n + (p.count || 1), 0),
      t_s: (s.points || []).map((p) => (p.t_ns - start) / 1e9),
      v: (s.points || []).map((p) => p.mean * panel.scale),
    }));
    if (series.length) panels.push({ id: panel.id, title: panel.title, unit: panel.unit, series });
  }
  return { start_unix_s: start === null ? null : start / 1e9, panels };
}

// One workload as the report document: {title, analyze, disagg, series, ...}.
export async function loadWorkload(id) {
  const [info, analyze, disagg, series] = await Promise.all([
    getJson(`/api/v1/profiles/${id}`),
    getJson(`/api/v1/profiles/${id}/analysis`),
    getJson(`/api/v1/profiles/${id}/disagg`).catch(() => null),
    loadSeriesPanels(id),
  ]);
  return {
    kind: 'kraken-workload',
    title: info.name || `profile ${id}`,
    inputs: [info.source],
    gpu_hour_cost_usd: DEFAULT_GPU_HOUR_COST_USD,
    gpu_hour_cost_source: 'kraken report default',
    device_memory_bytes: [],
    analyze,
    disagg,
    series,
  };
}

export function colocate(a, b) {
  return getJson(`/api/v1/colocate?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`);
}

export function cluster() {
  return getJson('/api/v1/cluster');
}

// Calls onSamples({profile_id, time_ns, samples: [{gpu_index, metric, value, time_ns}]})
// for every server-sent event; returns the EventSource (close() it to stop).
export function subscribeLive(onSamples, onError) {
  const source = new EventSource('/api/v1/live');
  source.addEventListener('samples', (event) => {
    try {
      onSamples(JSON.parse(event.data));
    } catch (error) {
      if (onError) onError(error);
    }
  });
  source.onerror = () => onError && onError(new Error('live stream interrupted; the browser retries'));
  return source;
}

// `kraken diff --json` of two stored profiles (A = before, B = after).
export async function loadDiff(a, b) {
  return getJson(`/api/v1/diff?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`);
}
