// #/ : every stored profile with its class, bound, utilization and disaggregation score.
import * as api from '../api.js';
import { badge, el, fmt, pct, table } from '../format.js';

export async function workloadsPage(container) {
  const rows = await api.listWorkloads();
  container.append(el('h1', {}, 'Workloads'));
  if (!rows.length) {
    container.append(el('p', { class: 'muted' }, 'No stored profile yet: `kraken import FILE --db PATH`, then reload.'));
    return;
  }
  const t = table(['id', 'name', 'format', 'devices', 'class', 'bound', 'GPU utilization', 'disagg score'],
    rows.map((w) => [
      String(w.id), el('a', { href: `#/workload/${w.id}` }, w.name || w.source || `profile ${w.id}`), w.format || '',
      w.device_summary || '—', badge(w.workload_type), badge(w.bound), pct(w.gpu_util_pct),
      w.disagg_score === null || w.disagg_score === undefined ? '—' : fmt(w.disagg_score, 2),
    ]));
  t.setAttribute('data-table', 'workloads');
  container.append(t);
}
