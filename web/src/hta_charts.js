// hta_charts.js: the time series of the HTA-style sections (`ranks[]` keys launch_queue,
// memcpy_bandwidth, memory_timeline; docs/json-output.md) drawn as line charts: launch
// queue length per stream, copy bandwidth per kind, allocated/reserved memory with the
// peak marked. kraken already bounds each series (400 points by default), so the charts
// draw what the document holds, unchanged. Each chart says what ECharts holds in
// data-series (name, points, largest value per line) for the browser tests.
import { makeChart } from './charts.js';
import { bytes, fmt } from './format.js';

// A workload of many ranks gets the charts of its first ranks only (the tables list all).
export const MAX_CHART_RANKS = 4;

const firstTimes = (series) => series.filter((s) => s.length).map((s) => s[0][0]);

// The rank's time origin in µs: its first GPU event or sample, so the three charts of a
// rank share one axis ("ms from the start").
export function rankOrigin(rank) {
  const times = [];
  if (rank.overlap && rank.overlap.total_us > 0) times.push(rank.overlap.start_us);
  times.push(...firstTimes(((rank.launch_queue && rank.launch_queue.streams) || []).map((q) => q.series || [])));
  times.push(...firstTimes((rank.memcpy_bandwidth || []).map((b) => b.series || [])));
  times.push(...firstTimes((rank.memory_timeline || []).map((d) => d.series || [])));
  return times.length ? Math.min(...times) : 0;
}

// Writes what the chart holds into data-series: [{name, points, max}] per line, and the
// time origin (µs of the trace clock) into data-origin-us.
function describeSeries(chart, t0) {
  const lines = chart.getOption().series.map((s) => ({
    name: s.name,
    points: s.data.length,
    max: s.data.reduce((m, p) => Math.max(m, p[1]), -Infinity),
  }));
  chart.getDom().setAttribute('data-series', JSON.stringify(lines));
  chart.getDom().setAttribute('data-origin-us', String(t0));
  return chart;
}

function timeChart(container, kind, title, t0, yAxis, series, tooltipValue) {
  return describeSeries(makeChart(container, {
    title: { text: title, left: 0, textStyle: { fontSize: 13 } },
    tooltip: { trigger: 'axis', valueFormatter: tooltipValue },
    legend: { top: 0, right: 0, type: 'scroll', width: '55%' },
    grid: { left: 64, right: 24, top: 40, bottom: 44 },
    xAxis: { type: 'value', name: 'ms from the start', nameLocation: 'middle', nameGap: 28, min: 0, max: 'dataMax',
      axisLabel: { formatter: (v) => fmt(v, 1) } },
    yAxis,
    series,
  }, 230, kind), t0);
}

// Each value holds until the next point (a step function), as kraken's series define it.
const stepLine = (name, data, extra = {}) => ({ name, type: 'line', step: 'start', showSymbol: data.length < 3, data, ...extra });
const ms = (t, t0) => (t - t0) / 1000;

export function launchQueueChart(container, label, queues, t0) {
  const series = queues.streams.filter((q) => (q.series || []).length)
    .map((q) => stepLine(`device ${q.device} stream ${q.stream}`, q.series.map(([t, n]) => [ms(t, t0), n])));
  if (!series.length) return null;
  return timeChart(container, 'launch-queue', `Operations queued per stream, ${label}`, t0,
    { type: 'value', minInterval: 1 }, series, (v) => fmt(v, 0));
}

export function bandwidthChart(container, label, kinds, t0) {
  const series = kinds.filter((b) => (b.series || []).length)
    .map((b) => stepLine(b.kind, b.series.map(([t, gbps]) => [ms(t, t0), gbps])));
  if (!series.length) return null;
  return timeChart(container, 'memcpy-bandwidth', `Memcpy/memset bandwidth (GB/s), ${label}`, t0,
    { type: 'value' }, series, (v) => `${fmt(v, 2)} GB/s`);
}

// Allocated and reserved per device; the allocated peak is marked where it happened.
export function memoryTimelineChart(container, label, devices, t0) {
  const series = [];
  for (const d of devices.filter((x) => (x.series || []).length)) {
    const peak = { coord: [ms(d.peak_allocated_at_us, t0), d.peak_allocated_bytes], value: d.peak_allocated_bytes };
    series.push(stepLine(`allocated (device ${d.device})`, d.series.map(([t, a]) => [ms(t, t0), a]), {
      markPoint: { symbol: 'pin', symbolSize: 44, data: [peak], label: { formatter: () => 'peak', fontSize: 10 } },
    }));
    series.push(stepLine(`reserved (device ${d.device})`, d.series.map(([t, , r]) => [ms(t, t0), r]), { lineStyle: { type: 'dashed' } }));
  }
  if (!series.length) return null;
  const chart = timeChart(container, 'memory-timeline', `Allocated and reserved memory, ${label}`, t0,
    { type: 'value', axisLabel: { formatter: (v) => bytes(v) } }, series, (v) => bytes(v));
  // The marked peaks as ECharts holds them: [{name, time_ms, bytes}].
  const peaks = chart.getOption().series.filter((s) => s.markPoint && s.markPoint.data)
    .flatMap((s) => s.markPoint.data.map((p) => ({ name: s.name, time_ms: p.coord[0], bytes: p.coord[1] })));
  chart.getDom().setAttribute('data-peaks', JSON.stringify(peaks));
  return chart;
}
