// #/cluster : one row per GPU over every live profile the agents committed (or, with
// `kraken serve --prometheus`, over the DCGM series in Prometheus), a GPU x time
// utilization heatmap, the pooling candidates and, from Prometheus, the use per namespace
// and per pod.
import * as api from '../api.js';
import { utilizationHeatmap } from '../charts.js';
import { bytes, el, fmt, pct, table } from '../format.js';

const label = (g) => `${g.hostname || 'host'} GPU ${g.gpu_index}${g.gpu_instance_id >= 0 ? ` MIG ${g.gpu_instance_id}` : ''}`;

// "08:12" for a bin's start (UTC, as the agent stamps its samples); the date when the span
// crosses days.
function binLabels(heat) {
  const days = heat.bins * heat.bin_ns > 86400e9;
  return Array.from({ length: heat.bins }, (_, i) => {
    const iso = new Date((heat.start_ns + i * heat.bin_ns) / 1e6).toISOString();
    return days ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 19);
  });
}

export async function clusterPage(container) {
  const doc = await api.cluster();
  container.append(el('h1', {}, 'Cluster'));
  const gpus = doc.gpus || [];
  if (!gpus.length) {
    container.append(el('p', { class: 'muted' }, doc.source === 'prometheus'
      ? `No DCGM utilization series in ${doc.prometheus.url} over the range.`
      : 'No live profile stored yet (`kraken agent --db PATH` or `kraken record-nvml --db PATH`).'));
    return;
  }
  const heat = doc.heatmap || { rows: [], bins: 0 };
  const box = el('section', { class: 'panel', 'data-section': 'heatmap', 'data-gpus': String(gpus.length), 'data-bins': String(heat.bins) });
  container.append(box);
  utilizationHeatmap(box, {
    title: `GPU utilization (%) per GPU over time (${heat.bins} bins of ${fmt(heat.bin_ns / 1e9, 1)} s, UTC)`,
    columns: binLabels(heat),
    rows: heat.rows.map((r) => ({ label: label(gpus[r.gpu]), values: r.values })),
  });
  const t = table(['GPU', 'name', 'profiles', 'utilization (latest)', 'mean utilization', 'memory used', 'power'],
    gpus.map((g) => [label(g), g.gpu_name || '', String(g.profiles), pct(g.gpu_util_pct), pct(g.mean_gpu_util_pct),
      bytes(g.fb_used_bytes), g.power_w === null ? '—' : `${fmt(g.power_w, 0)} W`]));
  t.setAttribute('data-table', 'gpus');
  box.append(t);
  const candidates = doc.pooling_candidates || [];
  const c = el('section', { class: 'panel', 'data-section': 'candidates' },
    el('h2', {}, `Pooling candidates (mean utilization < ${fmt(doc.threshold_pct, 0)} %)`));
  c.append(candidates.length ? table(['GPU', 'mean utilization', 'why'],
    candidates.map((x) => [label(x), pct(x.mean_gpu_util_pct), x.reason]))
    : el('p', { class: 'muted' }, 'None: every GPU is busy enough.'));
  container.append(c);
  for (const [key, title] of [['namespaces', 'Use per namespace'], ['pods', 'Use per pod']]) {
    if (!doc[key]) continue;  // only from Prometheus: the store's live profiles carry no pods
    const u = el('section', { class: 'panel', 'data-section': key }, el('h2', {}, title));
    u.append(table(key === 'pods' ? ['namespace', 'pod', 'GPUs', 'mean utilization'] : ['namespace', 'GPUs', 'mean utilization'],
      doc[key].map((x) => [x.namespace, ...(key === 'pods' ? [x.pod] : []), String(x.gpus), pct(x.mean_gpu_util_pct)])));
    container.append(u);
  }
}
