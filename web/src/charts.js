// The charts, drawn with Apache ECharts (tree-shaken: line, scatter, bar and heatmap on
// the canvas renderer). Animation is off so a chart is complete when it is first drawn
// (screenshots, the browser tests, printing a report).
import * as echarts from 'echarts/core';
import { BarChart, HeatmapChart, LineChart, ScatterChart } from 'echarts/charts';
import {
  DataZoomComponent, GridComponent, LegendComponent, MarkLineComponent, MarkPointComponent, TitleComponent,
  TooltipComponent, VisualMapComponent,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { el, fmt, si } from './format.js';

echarts.use([BarChart, HeatmapChart, LineChart, ScatterChart, DataZoomComponent, GridComponent, LegendComponent,
  MarkLineComponent, MarkPointComponent, TitleComponent, TooltipComponent, VisualMapComponent, CanvasRenderer]);

const charts = new Set();
window.addEventListener('resize', () => charts.forEach((c) => c.resize()));

// Disposes the charts of a page that is being replaced.
export function disposeCharts() {
  charts.forEach((c) => c.dispose());
  charts.clear();
}

// `kind` names the chart in data-chart (tests and screenshots find charts by it).
export function makeChart(container, option, height = 260, kind = '') {
  const box = el('div', { class: 'chart', style: `height:${height}px`, 'data-chart': kind || null });
  container.append(box);
  const chart = echarts.init(box, null, { renderer: 'canvas' });
  chart.setOption({ animation: false, textStyle: { fontFamily: 'system-ui, sans-serif' }, ...option });
  charts.add(chart);
  return chart;
}

const axisName = (name) => ({ name, nameLocation: 'middle', nameGap: 32 });

// One panel of the GPU timeline: lines over time (seconds from the start).
export function timelinePanel(container, panel) {
  const series = [];
  for (const s of panel.series) {
    series.push({
      name: s.name,
      type: 'line',
      // A series of a few samples (one nvidia-smi -q snapshot) would be invisible as a bare line.
      showSymbol: s.t_s.length < 20,
      data: s.t_s.map((t, i) => [t, s.v[i]]),
    });
    // An envelope of many series (one line for 143 pods): their min and max per bucket too.
    if (s.series_count > 1 && s.min && s.max) {
      for (const [edge, values] of [['min', s.min], ['max', s.max]]) {
        series.push({ name: `${s.name.replace(/: mean, min, max$/, '')} (${edge})`, type: 'line', showSymbol: false,
          lineStyle: { width: 1, type: 'dashed' }, data: s.t_s.map((t, i) => [t, values[i]]) });
      }
    }
  }
  const chart = makeChart(container, {
    title: { text: `${panel.title} (${panel.unit})`, left: 0, textStyle: { fontSize: 13 } },
    tooltip: { trigger: 'axis', valueFormatter: (v) => fmt(v, 2) },
    legend: { top: 0, right: 0, type: 'scroll', width: '60%' },
    grid: { left: 56, right: 16, top: 40, bottom: 40 },
    xAxis: { type: 'value', ...axisName('time (s)'), min: 'dataMin', max: 'dataMax' },
    yAxis: { type: 'value', min: panel.min ?? null, max: panel.max ?? null },
    series,
  }, 220, 'series');
  // The drawn time axis, for the browser tests (a capture of 19 s must not span 56 years).
  const [lo, hi] = chart.getModel().getComponent('xAxis', 0).axis.scale.getExtent();
  chart.getDom().setAttribute('data-x-min', String(lo));
  chart.getDom().setAttribute('data-x-max', String(hi));
  chart.getDom().setAttribute('data-panel', panel.id || '');
  return chart;
}

// Roofline: kernels at (FLOP/byte, FLOP/s) under the device's two roofs, log-log.
export function rooflineChart(container, roofline) {
  const points = roofline.points || [];
  const series = [];
  const byBound = {};
  for (const p of points) (byBound[p.bound] ||= []).push(p);
  for (const [bound, list] of Object.entries(byBound)) {
    series.push({
      name: `${bound}-bound`,
      type: 'scatter',
      symbolSize: (v) => Math.max(6, Math.min(30, 4 + Math.sqrt(v[2]) * 4)),
      data: list.map((p) => [p.ai, p.flops_per_s, p.pct, p.name]),
    });
  }
  const peak = roofline.peak_flops_per_s;
  const bw = roofline.peak_dram_bytes_per_s;
  const xs = points.map((p) => p.ai);
  const ridge = peak && bw ? peak / bw : 1;
  const xMin = Math.min(ridge / 100, ...xs.map((x) => x / 2));
  const xMax = Math.max(ridge * 100, ...xs.map((x) => x * 2));
  if (peak && bw) {
    series.push({
      name: 'roof',
      type: 'line',
      showSymbol: false,
      lineStyle: { color: '#555', width: 2 },
      itemStyle: { color: '#555' },
      data: [[xMin, xMin * bw], [ridge, peak], [xMax, peak]],
    });
  }
  const chart = makeChart(container, {
    title: { text: `Roofline${roofline.device ? ` — ${roofline.device}` : ''}`, left: 0, textStyle: { fontSize: 13 } },
    tooltip: {
      trigger: 'item',
      formatter: (p) => (p.seriesName === 'roof' ? 'roof'
        : `${p.value[3]}<br>AI ${fmt(p.value[0], 2)} FLOP/B, ${fmt(p.value[1] / 1e12, 2)} TFLOP/s, ${fmt(p.value[2], 1)} % of kernel time`),
    },
    legend: { top: 0, right: 0 },
    grid: { left: 72, right: 24, top: 40, bottom: 44 },
    xAxis: { type: 'log', ...axisName('arithmetic intensity (FLOP/byte)'), min: xMin, max: xMax,
      axisLabel: { formatter: (v) => si(v, 2) } },
    yAxis: { type: 'log', name: 'FLOP/s', nameLocation: 'middle', nameGap: 48, axisLabel: { formatter: (v) => si(v, 1) } },
    series,
  }, 320, 'roofline');
  // The plotted points, readable without ECharts (the browser tests compare them with kraken's JSON).
  chart.getDom().setAttribute('data-points', JSON.stringify(points.map((p) => [p.ai, p.flops_per_s, p.pct, p.name])));
  return chart;
}

// Step-time histogram with the p50 and p90 marked.
export function stepHistogram(container, steps) {
  const values = steps.durations_ms;
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const bins = Math.max(5, Math.min(40, Math.ceil(Math.sqrt(values.length)) * 2));
  const width = hi > lo ? (hi - lo) / bins : 1;
  const counts = new Array(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor((v - lo) / width))] += 1;
  const labels = counts.map((_, i) => fmt(lo + (i + 0.5) * width, 1));
  return makeChart(container, {
    title: { text: `Step time (ms), ${steps.count} steps`, left: 0, textStyle: { fontSize: 13 } },
    tooltip: { trigger: 'axis' },
    grid: { left: 48, right: 16, top: 40, bottom: 44 },
    xAxis: { type: 'category', data: labels, ...axisName('step time (ms)') },
    yAxis: { type: 'value', minInterval: 1 },
    series: [{ type: 'bar', data: counts, barCategoryGap: '5%', itemStyle: { color: '#3b6fb6' } }],
  }, 240, 'steps');
}

// Share of kernel time by bound class, one horizontal stacked bar.
export function boundMixBar(container, mix) {
  const order = ['compute', 'memory', 'latency', 'mixed', 'unknown'];
  const colors = { compute: '#c0504d', memory: '#3b6fb6', latency: '#e0a030', mixed: '#8064a2', unknown: '#aaaaaa' };
  return makeChart(container, {
    title: { text: 'Kernel time by bound (%)', left: 0, textStyle: { fontSize: 13 } },
    tooltip: { trigger: 'item', valueFormatter: (v) => `${fmt(v, 1)} %` },
    legend: { top: 0, right: 0 },
    grid: { left: 16, right: 16, top: 40, bottom: 24 },
    xAxis: { type: 'value', max: 100 },
    yAxis: { type: 'category', data: [''], show: false },
    series: order.map((k) => ({ name: k, type: 'bar', stack: 'mix', data: [mix[k] || 0], itemStyle: { color: colors[k] } })),
  }, 110, 'bound-mix');
}

// Bars of a few named values (co-location slowdowns per mode).
export function groupedBars(container, title, categories, groups, unit) {
  return makeChart(container, {
    title: { text: title, left: 0, textStyle: { fontSize: 13 } },
    tooltip: { trigger: 'axis', valueFormatter: (v) => `${fmt(v, 3)}${unit || ''}` },
    legend: { top: 0, right: 0 },
    grid: { left: 48, right: 16, top: 40, bottom: 32 },
    xAxis: { type: 'category', data: categories },
    yAxis: { type: 'value', min: (v) => Math.min(1, v.min) },
    series: groups.map((g) => ({ name: g.name, type: 'bar', data: g.values })),
  }, 240);
}

// Per-GPU utilization heatmap: one row per GPU, one column per value the caller gives
// (the cluster page: the latest sample and the profile's mean; /api/v1/cluster has no time bins).
export function utilizationHeatmap(container, heat) {
  const data = [];
  heat.rows.forEach((row, y) => row.values.forEach((v, x) => {
    if (v !== null) data.push([x, y, v]);
  }));
  return makeChart(container, {
    title: { text: heat.title || 'GPU utilization (%) per GPU', left: 0, textStyle: { fontSize: 13 } },
    tooltip: { formatter: (p) => `${heat.rows[p.value[1]].label}<br>${heat.columns[p.value[0]]}: ${fmt(p.value[2], 1)} %` },
    grid: { left: 200, right: 24, top: 40, bottom: 72 },
    xAxis: { type: 'category', data: heat.columns, splitArea: { show: true } },
    yAxis: { type: 'category', data: heat.rows.map((r) => r.label), splitArea: { show: true } },
    visualMap: { min: 0, max: 100, calculable: true, orient: 'horizontal', left: 'center', bottom: 0,
      inRange: { color: ['#f7fbff', '#6baed6', '#08306b'] } },
    series: [{ type: 'heatmap', data, progressive: 0 }],
  }, Math.max(200, 90 + heat.rows.length * 26), 'heatmap');
}

// A rolling line chart for the live view; returns a function that appends one point per series.
export function liveChart(container, title, unit) {
  const chart = makeChart(container, {
    title: { text: `${title} (${unit})`, left: 0, textStyle: { fontSize: 13 } },
    tooltip: { trigger: 'axis' },
    legend: { top: 0, right: 0, type: 'scroll', width: '60%' },
    grid: { left: 56, right: 16, top: 40, bottom: 32 },
    xAxis: { type: 'time' },
    yAxis: { type: 'value' },
    series: [],
  }, 220);
  const data = new Map();
  return (time, values) => {
    for (const [name, v] of Object.entries(values)) {
      if (!data.has(name)) data.set(name, []);
      const list = data.get(name);
      list.push([time, v]);
      if (list.length > 300) list.shift();
    }
    chart.setOption({
      series: [...data.entries()].map(([name, list]) => ({ name, type: 'line', showSymbol: list.length < 3, data: list })),
    });
  };
}

// GPU timeline breakdown: one stacked bar per rank, in ms (compute, exposed communication,
// exposed memcpy, idle add up to the timeline's total).
export function timelineBreakdownChart(container, rows) {
  const parts = [
    ['compute_us', 'compute', '#3b6fb6'], ['exposed_comm_us', 'exposed comm', '#e0a030'],
    ['exposed_memcpy_us', 'exposed memcpy', '#8064a2'], ['idle_us', 'idle', '#cccccc'],
  ];
  return makeChart(container, {
    title: { text: 'GPU timeline breakdown (ms)', left: 0, textStyle: { fontSize: 13 } },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (v) => `${fmt(v, 2)} ms` },
    legend: { top: 0, right: 0 },
    grid: { left: 120, right: 24, top: 40, bottom: 32 },
    xAxis: { type: 'value', name: 'ms' },
    yAxis: { type: 'category', data: rows.map((r) => r.label), inverse: true },
    series: parts.map(([key, name, color]) => ({
      name, type: 'bar', stack: 'gpu', itemStyle: { color },
      data: rows.map((r) => (r[key] || 0) / 1000),
    })),
  }, Math.max(140, 80 + rows.length * 32), 'timeline');
}
