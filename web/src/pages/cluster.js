// #/cluster : per-GPU utilization heatmap of the live profiles and the pooling candidates.
import * as api from '../api.js';
import { utilizationHeatmap } from '../charts.js';
import { bytes, el, fmt, pct, table } from '../format.js';

export async function clusterPage(container) {
  const doc = await api.cluster();
  container.append(el('h1', {}, 'Cluster'));
  const gpus = doc.gpus || [];
  if (!gpus.length) {
    container.append(el('p', { class: 'muted' }, 'No live profile stored yet (`kraken record-nvml --db PATH`).'));
    return;
  }
  const label = (g) => `${g.hostname || 'host'} GPU ${g.gpu_index}${g.gpu_instance_id >= 0 ? ` MIG ${g.gpu_instance_id}` : ''}`;
  // Two columns the API gives per GPU: the latest sample and the whole-profile mean.
  const heat = {
    title: 'GPU utilization (%) per GPU: latest sample and profile mean',
    columns: ['latest', 'mean'],
    rows: gpus.map((g) => ({ label: label(g), values: [g.gpu_util_pct, g.mean_gpu_util_pct] })),
  };
  const box = el('section', { class: 'panel', 'data-section': 'heatmap' });
  container.append(box);
  utilizationHeatmap(box, heat);
  box.append(table(['GPU', 'name', 'utilization', 'mean utilization', 'memory used', 'power'],
    gpus.map((g) => [label(g), g.gpu_name || '', pct(g.gpu_util_pct), pct(g.mean_gpu_util_pct), bytes(g.fb_used_bytes ?? g.memory_used_bytes), `${fmt(g.power_w, 0)} W`])));
  const candidates = doc.pooling_candidates || [];
  const c = el('section', { class: 'panel', 'data-section': 'candidates' },
    el('h2', {}, `Pooling candidates (mean utilization < ${fmt(doc.threshold_pct, 0)} %)`));
  c.append(candidates.length ? table(['profile', 'GPU', 'mean utilization', 'why'],
    candidates.map((x) => [String(x.profile_id), String(x.gpu_index), pct(x.mean_gpu_util_pct), x.reason]))
    : el('p', { class: 'muted' }, 'None: every GPU is busy enough.'));
  container.append(c);
}
