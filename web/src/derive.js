// Figures the pages draw, derived from kraken's JSON documents (analyze, disagg) without
// new arithmetic of their own beyond sums and unit changes: every number shown can be
// traced to a key of `kraken analyze --json` or `kraken disagg --json`.

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

// Ranks that have a GPU timeline (traces); sampled captures have none.
export function timelineRanks(analyze) {
  return (analyze.ranks || []).filter((r) => r.trace_timeline || r.timeline);
}

// Per rank: GPU time split into compute, exposed communication, exposed memcpy and idle
// (they add up to the timeline's total: busy = compute + exposed comm + exposed memcpy).
export function timelineBreakdown(analyze) {
  return timelineRanks(analyze).map((r, i) => {
    const t = r.trace_timeline || r.timeline;
    const label = r.rank !== null && r.rank !== undefined ? `rank ${r.rank}` : (r.source || `input ${i + 1}`).split('/').pop();
    return {
      label,
      total_us: t.total_us,
      compute_us: t.compute_us,
      exposed_comm_us: t.exposed_comm_us,
      exposed_memcpy_us: t.exposed_memcpy_us,
      idle_us: t.idle_us,
      idle_pct: t.idle_pct,
    };
  });
}

// Kernels of the top list placed on the roofline (those with measured FLOP and bytes).
export function rooflineData(analyze) {
  const top = (analyze.kernels && analyze.kernels.top) || [];
  const withPeaks = top.find((k) => num(k.peak_tflops) && num(k.peak_dram_gbps));
  const rank0 = (analyze.ranks || [])[0];
  const points = top
    .filter((k) => num(k.arithmetic_intensity) > 0 && num(k.achieved_tflops) > 0)
    .map((k) => ({
      name: k.name, ai: k.arithmetic_intensity, flops_per_s: k.achieved_tflops * 1e12,
      pct: k.pct_of_kernel_time, bound: k.bound,
    }));
  return {
    device: rank0 && rank0.device ? rank0.device.name : null,
    peak_flops_per_s: withPeaks ? withPeaks.peak_tflops * 1e12 : null,
    peak_dram_bytes_per_s: withPeaks ? withPeaks.peak_dram_gbps * 1e9 : null,
    points,
    kernels_listed: top.length,
  };
}

// Step (ProfilerStep) CPU durations of every rank, in ms.
export function stepDurations(analyze) {
  const durations_ms = [];
  for (const r of analyze.ranks || []) for (const s of r.steps || []) if (num(s.cpu_duration_us) !== null) durations_ms.push(s.cpu_duration_us / 1000);
  return { count: durations_ms.length, durations_ms };
}

// Bound mix in the chart's keys (percent of kernel time).
export function boundMix(analyze) {
  const m = (analyze.workload && analyze.workload.bound_mix) || {};
  return { compute: m.compute_pct, memory: m.memory_pct, latency: m.latency_pct, mixed: m.mixed_pct, unknown: m.unknown_pct };
}

// Mean of a sampled metric over every rank's series (weighted by samples), or null.
export function seriesMean(analyze, metric) {
  let sum = 0;
  let n = 0;
  for (const r of analyze.ranks || []) for (const s of r.series || []) {
    if (s.metric === metric && num(s.mean) !== null && s.samples > 0) {
      sum += s.mean * s.samples;
      n += s.samples;
    }
  }
  return n ? sum / n : null;
}

function seriesMax(analyze, metric) {
  let best = null;
  for (const r of analyze.ranks || []) for (const s of r.series || []) if (s.metric === metric && num(s.max) !== null) best = Math.max(best ?? s.max, s.max);
  return best;
}

// The manager's summary: what the workload is, what it uses, what it wastes, what to do,
// and what that is worth. `data` is the report document.
export function summarize(data) {
  const analyze = data.analyze;
  const ranks = analyze.ranks || [];
  const cost = data.gpu_hour_cost_usd;
  const timelines = timelineBreakdown(analyze);
  const total = timelines.reduce((s, t) => s + (t.total_us || 0), 0);
  const idle = timelines.reduce((s, t) => s + (t.idle_us || 0), 0);
  // Traces: idle share of the GPU timeline (all ranks together); captures: 100 - mean utilization.
  let idlePct = null;
  let idleBasis = null;
  if (total > 0) {
    idlePct = (100 * idle) / total;
    idleBasis = 'GPU timeline: no kernel, copy or memset running';
  } else {
    const util = seriesMean(analyze, 'gpu_util_pct');
    if (util !== null) {
      idlePct = 100 - util;
      idleBasis = '100 % minus the mean sampled GPU utilization';
    }
  }
  const memory = ranks.map((r, i) => {
    const deviceBytes = (data.device_memory_bytes || [])[i] ?? null;
    const used = num(r.memory && r.memory.peak_reserved_bytes);
    return { deviceBytes, used };
  });
  let peakUsed = null;
  let basis = null;
  let deviceBytes = null;
  for (const m of memory) if (m.used !== null && m.deviceBytes) {
    peakUsed = Math.max(peakUsed ?? 0, m.used);
    deviceBytes = m.deviceBytes;
    basis = 'framework allocator peak reserved';
  }
  if (peakUsed === null) {
    const fb = seriesMax(analyze, 'fb_used_bytes');
    const dev = memory.find((m) => m.deviceBytes);
    if (fb !== null && dev) {
      peakUsed = fb;
      deviceBytes = dev.deviceBytes;
      basis = 'peak sampled framebuffer used';
    }
  }
  const unusedMemoryPct = peakUsed !== null && deviceBytes ? Math.max(0, 100 * (1 - peakUsed / deviceBytes)) : null;

  const workloads = (data.disagg && data.disagg.workloads) || [];
  // disagg gives one workload per rank or GPU, and per phase of a capture ("gpu 0 [idle]",
  // "gpu 0 [load]"). Different GPUs add up; phases of one GPU are alternatives, so each
  // GPU counts with the range its phases span (lowest low to highest high).
  const byGpu = new Map();
  for (const w of workloads) {
    const key = (w.workload || '').replace(/ \[[^\]]*\]$/, '');
    const s = w.savings || {};
    const lo = { freed: num(s.gpu_hours_freed_per_hour_lo) || 0, hour: num(s.per_hour_lo) || 0, month: num(s.per_month_lo) || 0 };
    const hi = { freed: num(s.gpu_hours_freed_per_hour_hi) || 0, hour: num(s.per_hour_hi) || 0, month: num(s.per_month_hi) || 0 };
    const g = byGpu.get(key);
    if (!g) {
      byGpu.set(key, { lo, hi, phases: 1 });
    } else {
      g.phases += 1;
      for (const k of Object.keys(lo)) {
        g.lo[k] = Math.min(g.lo[k], lo[k]);
        g.hi[k] = Math.max(g.hi[k], hi[k]);
      }
    }
  }
  let savingLo = 0;
  let savingHi = 0;
  let freedLo = 0;
  let freedHi = 0;
  let monthLo = 0;
  let monthHi = 0;
  for (const g of byGpu.values()) {
    savingLo += g.lo.hour;
    savingHi += g.hi.hour;
    freedLo += g.lo.freed;
    freedHi += g.hi.freed;
    monthLo += g.lo.month;
    monthHi += g.hi.month;
  }
  const severity = { high: 0, medium: 1, low: 2, info: 3 };
  // One line per distinct recommendation (every rank of a job tends to give the same one).
  const actions = [];
  for (const d of [...(analyze.diagnoses || [])].sort((a, b) => (severity[a.severity] ?? 4) - (severity[b.severity] ?? 4))) {
    const text = d.recommendation || d.summary;
    const same = actions.find((a) => a.text === text);
    if (same) same.count += 1;
    else actions.push({ severity: d.severity, id: d.id, text, summary: d.summary, count: 1 });
  }
  for (const w of workloads) if (w.strategy && w.strategy.name) {
    actions.push({ severity: 'pooling', id: 'disagg', text: `${(w.workload || '').split('/').pop()}: ${w.strategy.name} (${w.strategy.reason || ''})`, summary: '', count: 1 });
  }
  const devices = [...new Set(ranks.map((r) => r.device && r.device.name).filter(Boolean))];
  const kernels = analyze.kernels || {};
  return {
    type: analyze.workload ? analyze.workload.type : 'unknown',
    confidence: analyze.workload ? analyze.workload.confidence : null,
    bound: analyze.workload ? analyze.workload.bound : 'unknown',
    profiles: ranks.length,
    devices,
    kernel_count: num(kernels.count),
    kernel_time_us: num(kernels.total_us),
    timeline_total_us: total || null,
    gpu_busy_pct: idlePct === null ? null : 100 - idlePct,
    idle_pct: idlePct,
    idle_basis: idleBasis,
    mean_gpu_util_pct: seriesMean(analyze, 'gpu_util_pct'),
    peak_memory_bytes: peakUsed,
    device_memory_bytes: deviceBytes,
    memory_basis: basis,
    unused_memory_pct: unusedMemoryPct,
    gpu_hour_cost_usd: cost,
    // Every GPU-hour this workload holds, this much is idle, at the given price.
    idle_gpu_hours_per_100: idlePct,
    idle_cost_per_gpu_hour: idlePct === null ? null : (idlePct / 100) * cost,
    freed_gpu_hours_per_hour_lo: workloads.length ? freedLo : null,
    freed_gpu_hours_per_hour_hi: workloads.length ? freedHi : null,
    savings_per_hour_lo: workloads.length ? savingLo : null,
    savings_per_hour_hi: workloads.length ? savingHi : null,
    savings_per_month_lo: workloads.length ? monthLo : null,
    savings_per_month_hi: workloads.length ? monthHi : null,
    actions,
  };
}
