// The summary a manager reads first: what the workload is, what it uses, what it wastes,
// what to do and what that is worth. Each figure carries its raw value in data-value so
// the browser tests compare it with kraken's JSON exactly.
import { summarize } from './derive.js';
import { bytes, el, fmt, money, pct } from './format.js';

function figure(key, label, value, text, note) {
  return el('div', { class: 'figure', 'data-key': key, 'data-value': value === null || value === undefined ? '' : String(value) },
    el('div', { class: 'label' }, label), el('div', { class: 'value' }, text), note ? el('div', { class: 'muted small' }, note) : null);
}

export function renderSummary(container, data) {
  const s = summarize(data);
  const box = el('section', { class: 'panel summary', 'data-section': 'summary' }, el('h2', {}, 'Summary'));
  const what = `${s.type}${s.confidence ? ` (${s.confidence} confidence)` : ''} workload, ${s.bound}-bound, `
    + `${s.profiles} profile${s.profiles === 1 ? '' : 's'}${s.devices.length ? ` on ${s.devices.join(', ')}` : ''}.`;
  box.append(el('p', { class: 'lead', 'data-key': 'what' }, what));
  box.append(el('div', { class: 'figures' },
    figure('gpu_busy_pct', 'GPU busy', s.gpu_busy_pct, pct(s.gpu_busy_pct), s.idle_basis),
    figure('idle_pct', 'GPU idle (wasted)', s.idle_pct, pct(s.idle_pct),
      s.idle_cost_per_gpu_hour === null ? null : `${money(s.idle_cost_per_gpu_hour * 100)} per 100 GPU-hours at $${fmt(s.gpu_hour_cost_usd, 2)}/GPU-hour`),
    figure('unused_memory_pct', 'Device memory never used', s.unused_memory_pct, pct(s.unused_memory_pct),
      s.peak_memory_bytes === null ? 'not measured in this input' : `peak ${bytes(s.peak_memory_bytes)} of ${bytes(s.device_memory_bytes)} (${s.memory_basis})`),
    figure('kernel_count', 'Kernels', s.kernel_count, fmt(s.kernel_count, 0),
      s.kernel_time_us === null ? null : `${fmt(s.kernel_time_us / 1000, 1)} ms of kernel time`),
    figure('savings_per_month_hi', 'Savings if pooled (per GPU)', s.savings_per_month_hi,
      s.savings_per_month_hi === null ? '—' : `${money(s.savings_per_month_lo)}..${money(s.savings_per_month_hi)} / month`,
      s.freed_gpu_hours_per_hour_hi === null ? 'no pooling verdict for this input'
        : `${fmt(s.freed_gpu_hours_per_hour_lo, 2)}..${fmt(s.freed_gpu_hours_per_hour_hi, 2)} GPU-hours freed per hour, at $${fmt(s.gpu_hour_cost_usd, 2)}/GPU-hour`)));
  const actions = s.actions.slice(0, 6);
  box.append(el('h3', {}, 'What to do'));
  box.append(actions.length
    ? el('ol', { class: 'actions', 'data-key': 'actions' }, actions.map((a) => el('li', {}, el('span', { class: `badge ${a.severity}` }, a.severity), ' ', a.text,
      a.count > 1 ? el('span', { class: 'muted' }, ` (${a.count} profiles)`) : null)))
    : el('p', { class: 'muted', 'data-key': 'actions' }, 'Nothing to change: no diagnosis fired and no pooling strategy applies.'));
  box.append(el('p', { class: 'muted small' },
    `Price: $${fmt(s.gpu_hour_cost_usd, 2)} per GPU-hour (${data.gpu_hour_cost_source}). Savings are kraken disagg's: the freed GPU share reused at the same price.`));
  container.append(box);
  return s;
}
