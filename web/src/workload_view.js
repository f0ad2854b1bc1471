// The body of a workload: shared by `kraken report` (the document inlined in the page) and
// the dashboard's workload page (the same document fetched from `kraken serve`).
import {
  boundMixBar, rooflineChart, stepHistogram, timelineBreakdownChart, timelinePanel,
} from './charts.js';
import { boundMix, rooflineData, stepDurations, timelineBreakdown } from './derive.js';
import { badge, el, fmt, money, pct, table } from './format.js';
import { renderHtaSections } from './hta_sections_view.js';

function section(container, id, title, note) {
  const box = el('section', { class: 'panel', 'data-section': id }, el('h2', {}, title), note ? el('p', { class: 'muted' }, note) : null);
  container.append(box);
  return box;
}

const us = (v) => (v === null || v === undefined ? '—' : `${fmt(v / 1000, 2)} ms`);

function renderTimeline(container, analyze) {
  const rows = timelineBreakdown(analyze);
  if (!rows.length) return;
  const box = section(container, 'timeline', 'GPU timeline',
    'Whole-trace window per rank. Busy = compute + exposed communication + exposed memcpy; idle = no GPU event running.');
  timelineBreakdownChart(box, rows);
  box.append(table(['rank', 'total', 'compute', 'exposed comm', 'exposed memcpy', 'idle', 'idle %'],
    rows.map((r) => [r.label, us(r.total_us), us(r.compute_us), us(r.exposed_comm_us), us(r.exposed_memcpy_us), us(r.idle_us), pct(r.idle_pct)])));
}

function renderSeries(container, series) {
  const panels = (series && series.panels) || [];
  if (!panels.length) return;
  const box = section(container, 'series', 'Utilization, memory and power over time',
    'Sampled by the capture (nvidia-smi, DCGM, NVML, allocator); long series shown as bucket means.');
  for (const panel of panels) timelinePanel(box, panel);
}

function renderKernels(container, analyze) {
  const kernels = analyze.kernels || {};
  const top = kernels.top || [];
  if (!top.length) return;
  const box = section(container, 'kernels', 'Kernels',
    `${fmt(kernels.count, 0)} kernels, ${us(kernels.total_us)} of kernel time; the ${top.length} longest by total time below.`);
  boundMixBar(box, boundMix(analyze));
  const roof = rooflineData(analyze);
  if (roof.points.length) {
    rooflineChart(box, roof);
  } else {
    box.append(el('p', { class: 'muted', 'data-empty': 'roofline' },
      'Roofline: no kernel in the top list has FLOP and byte counts (a trace without hardware counters).'));
  }
  const t = table(['kernel', 'calls', 'total', 'mean', '% of kernel time', 'bound', 'basis', 'AI (FLOP/B)', 'TFLOP/s'],
    top.map((k) => [
      el('span', { class: 'kname', title: k.name }, k.name), fmt(k.count, 0), us(k.total_us), `${fmt(k.mean_us, 1)} us`,
      pct(k.pct_of_kernel_time), badge(k.bound), k.basis, fmt(k.arithmetic_intensity, 1), fmt(k.achieved_tflops, 2),
    ]));
  t.setAttribute('data-table', 'top-kernels');
  box.append(t);
}

function renderSteps(container, analyze) {
  const steps = stepDurations(analyze);
  if (!steps.count) return;
  const st = ((analyze.ranks || []).find((r) => r.step_time) || {}).step_time || {};
  const box = section(container, 'steps', 'Step time',
    `p50 ${us(st.p50_us)}, p90 ${us(st.p90_us)}, jitter (CV) ${pct(st.cv_pct)}.`);
  stepHistogram(box, steps);
}

function renderDiagnoses(container, analyze) {
  const list = analyze.diagnoses || [];
  const box = section(container, 'diagnoses', 'Diagnoses');
  if (!list.length) {
    box.append(el('p', { class: 'muted' }, 'No diagnosis fired.'));
    return;
  }
  const t = table(['severity', 'finding', 'recommendation', 'source'],
    list.map((d) => [badge(d.severity), d.summary, d.recommendation || '', `${(d.source || '').split('/').pop()}${d.rank !== null && d.rank !== undefined ? ` (rank ${d.rank})` : ''}`]));
  t.setAttribute('data-table', 'diagnoses');
  box.append(t);
}

function renderDisagg(container, disagg) {
  const list = (disagg && disagg.workloads) || [];
  if (!list.length) return;
  // The MIG-slice budget the analysis was held to (`--max-slowdown`): the same for every workload.
  const budget = list[0].strategy ? list[0].strategy.mig_max_slowdown : null;
  const budgetText = budget === null || budget === undefined ? ''
    : ` A MIG slice is recommended only where its expected slowdown is at most ${pct(budget * 100)} (--max-slowdown).`;
  const box = section(container, 'disagg', 'Disaggregation and pooling',
    `Score 0..1: how well the workload suits pooled, remote or shared GPUs (docs/disaggregation.md).${budgetText}`);
  const t = table(['workload', 'score', 'parts measured', 'strategy', 'slowdown (expected)', 'GPU-hours freed / h', 'savings / month'],
    list.map((w) => [
      (w.workload || '').split('/').pop(), fmt(w.score, 2), fmt(w.parts_measured, 0), w.strategy ? [w.strategy.name, w.strategy.mig_profile].filter(Boolean).join(' ') : '—',
      w.impact ? pct(w.impact.expected * 100) : '—',
      w.savings ? `${fmt(w.savings.gpu_hours_freed_per_hour_lo, 2)}..${fmt(w.savings.gpu_hours_freed_per_hour_hi, 2)}` : '—',
      w.savings ? `${money(w.savings.per_month_lo)}..${money(w.savings.per_month_hi)}` : '—',
    ]));
  t.setAttribute('data-table', 'disagg');
  box.append(t);
}

// Draws every section the document has data for.
export function renderWorkload(container, data) {
  renderTimeline(container, data.analyze);
  renderSeries(container, data.series);
  renderKernels(container, data.analyze);
  renderSteps(container, data.analyze);
  renderHtaSections(container, data.analyze);
  renderDiagnoses(container, data.analyze);
  renderDisagg(container, data.disagg);
}
