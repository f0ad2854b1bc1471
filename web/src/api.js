// The dashboard's one data-fetching module: every call to `kraken serve` (docs/api.md of the
// server) is here, and each returns the shapes the shared renderers take: the same
// {analyze, disagg, series} document `kraken report` inlines. Adapting to an API change
// means editing this file only.

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

// One workload as the report document: {title, inputs, device_memory_bytes, analyze,
// disagg, series}. The server renders it with `kraken report`'s own code path, so the
// summary's figures (idle %, unused memory, savings) are the report's, and the sampled
// series arrive already reduced to at most 600 min/max/mean buckets per line (a metric
// with many series, such as 143 pods, as one envelope line).
export async function loadWorkload(id) {
  const doc = await getJson(`/api/v1/profiles/${id}/report`);
  return { ...doc, kind: 'kraken-workload' };
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

// The kernels per stream of a stored profile inside [startUs, endUs] (µs from its first
// kernel; both null: the whole trace), as events or per-pixel buckets of `width` pixels.
export async function loadTimeline(id, startUs, endUs, width) {
  const range = startUs === null || endUs === null ? '' : `&start_us=${startUs}&end_us=${endUs}`;
  return getJson(`/api/v1/profiles/${encodeURIComponent(id)}/timeline?width=${width}${range}`);
}
