// hta_sections_view.js: the HTA-style sections of a workload (`ranks[]` keys idle_breakdown, launch_queue,
// memcpy_bandwidth, overlap, memory_timeline, step_kernels; docs/json-output.md): one table
// each, a row per rank; the time series (queue length, bandwidth, memory) also as charts
// (hta_charts.js). Shared by `kraken report` and the dashboard's workload page.
import { bandwidthChart, launchQueueChart, MAX_CHART_RANKS, memoryTimelineChart, rankOrigin } from './hta_charts.js';
import { bytes, el, fmt, pct, table } from './format.js';

const ms = (v) => (v === null || v === undefined ? '—' : `${fmt(v / 1000, 3)} ms`);
const rankLabel = (r, i) => `${(r.source || `rank ${i}`).split('/').pop()}${r.rank !== null && r.rank !== undefined ? ` (rank ${r.rank})` : ''}`;

// `draw(box)`, when given, adds the section's charts above its table.
function section(container, id, title, note, headers, rows, draw) {
  if (!rows.length) return;
  const t = table(headers, rows);
  t.setAttribute('data-table', id);
  const box = el('section', { class: 'panel', 'data-section': id }, el('h2', {}, title), el('p', { class: 'muted' }, note));
  container.append(box);
  if (draw) draw(box);
  box.append(t);
}

// Calls chart(box, label, value, origin) for each of the first MAX_CHART_RANKS ranks that
// have `key`, and says so when ranks were left out.
function rankCharts(ranks, key, chart) {
  return (box) => {
    const has = (v) => (Array.isArray(v) ? v.length > 0 : Boolean(v && v.streams && v.streams.length));
    const withData = ranks.map((r, i) => [r, i]).filter(([r]) => has(r[key]));
    for (const [r, i] of withData.slice(0, MAX_CHART_RANKS)) chart(box, rankLabel(r, i), r[key], rankOrigin(r));
    if (withData.length > MAX_CHART_RANKS) {
      box.append(el('p', { class: 'muted small' }, `Charts for the first ${MAX_CHART_RANKS} of ${withData.length} ranks; the table lists all.`));
    }
  };
}

export function renderHtaSections(container, analyze) {
  const ranks = (analyze && analyze.ranks) || [];
  section(container, 'idle-breakdown', 'Why the GPU was idle',
    'HTA\'s categories: host wait = the next GPU event was not launched yet; kernel wait = queued, gap under 30 ns; other = queued but waiting (events, syncs, peers).',
    ['rank', 'idle', 'host wait', 'kernel wait', 'other', 'gaps'],
    ranks.filter((r) => r.idle_breakdown && r.idle_breakdown.streams.length).map((r, i) => {
      const x = r.idle_breakdown.rank;
      return [rankLabel(r, i), ms(x.idle_us), ms(x.host_wait_us), ms(x.kernel_wait_us), ms(x.other_us), fmt(x.gaps, 0)];
    }));
  section(container, 'overlap', 'Overlap of computation, communication and memcpy',
    'Disjoint parts of the GPU span; communication overlapped = share of communication time hidden by computation.',
    ['rank', 'compute only', 'comm only', 'compute + comm', 'memcpy (any)', 'idle', 'comm overlapped'],
    ranks.filter((r) => r.overlap && r.overlap.total_us > 0).map((r, i) => {
      const c = r.overlap.categories;
      const memcpy = c.memcpy_only_us + c.compute_memcpy_us + c.comm_memcpy_us + c.compute_comm_memcpy_us;
      return [rankLabel(r, i), ms(c.compute_only_us), ms(c.comm_only_us), ms(c.compute_comm_us), ms(memcpy), ms(c.idle_us), pct(r.overlap.comm_overlap_pct)];
    }));
  section(container, 'launch-queue', 'CUDA launch queues',
    'Operations launched and not yet started, per stream; blocked = time at the full-queue length.',
    ['rank', 'device', 'stream', 'launches', 'max', 'mean', 'blocked'],
    ranks.flatMap((r, i) => ((r.launch_queue && r.launch_queue.streams) || []).map((q) => [
      rankLabel(r, i), fmt(q.device, 0), fmt(q.stream, 0), fmt(q.launches, 0), fmt(q.max_length, 0), fmt(q.mean_length, 2), ms(q.blocked_us)])),
    rankCharts(ranks, 'launch_queue', launchQueueChart));
  section(container, 'memcpy-bandwidth', 'Memcpy and memset bandwidth', 'Per kind; peak = highest concurrent total.',
    ['rank', 'kind', 'operations', 'bytes', 'busy', 'mean GB/s', 'peak GB/s'],
    ranks.flatMap((r, i) => (r.memcpy_bandwidth || []).map((b) => [
      rankLabel(r, i), b.kind, fmt(b.operations, 0), bytes(b.bytes), ms(b.busy_us), fmt(b.mean_gbps, 2), fmt(b.max_gbps, 2)])),
    rankCharts(ranks, 'memcpy_bandwidth', bandwidthChart));
  section(container, 'memory-timeline', 'Allocator memory', 'From the profiler\'s [memory] events; fragmentation = reserved − allocated.',
    ['rank', 'device', 'peak allocated', 'where', 'peak reserved', 'fragmentation at peak', 'mean fragmentation'],
    ranks.flatMap((r, i) => (r.memory_timeline || []).map((d) => [
      rankLabel(r, i), fmt(d.device, 0), bytes(d.peak_allocated_bytes),
      `${d.peak_allocated_op || '—'}${d.peak_allocated_step !== null ? `, step ${d.peak_allocated_step}` : ''}`,
      bytes(d.peak_reserved_bytes), bytes(d.fragmentation_at_peak_bytes), pct(d.mean_fragmentation_pct)])),
    rankCharts(ranks, 'memory_timeline', memoryTimelineChart));
  section(container, 'step-kernels', 'Heaviest kernel of each step', 'Kernels that started in the step\'s GPU window.',
    ['rank', 'step', 'kernels', 'kernel time', 'heaviest', 'its share'],
    ranks.flatMap((r, i) => (r.step_kernels || []).filter((s) => s.top.length).map((s) => [
      rankLabel(r, i), fmt(s.step, 0), fmt(s.kernels, 0), ms(s.kernel_time_us),
      el('span', { class: 'kname', title: s.top[0].name }, s.top[0].name), pct(s.top[0].pct_of_step_kernel_time)])));
}
