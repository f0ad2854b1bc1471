// Trace insights in the report and the dashboard: the critical path of each rank, the
// stragglers across ranks, frequent kernel sequences (from `kraken analyze --json`), and
// the comparison of two profiles (`kraken diff --json`).
import { el, fmt, pct, table } from './format.js';

const ms = (us) => (us === null || us === undefined ? '—' : `${fmt(us / 1000, 3)} ms`);
const signedMs = (us) => (us === null || us === undefined ? '—' : `${us >= 0 ? '+' : ''}${fmt(us / 1000, 3)} ms`);

function section(container, id, title, note) {
  const box = el('section', { class: 'panel', 'data-section': id }, el('h2', {}, title), note ? el('p', { class: 'muted' }, note) : null);
  container.append(box);
  return box;
}

const rankLabel = (r, i) => (r.rank !== null && r.rank !== undefined ? `rank ${r.rank}` : (r.source || `#${i}`).split('/').pop());

// The three largest kinds of a by_kind object, as "gpu_compute 97.5 %, ...".
function largestKinds(byKind) {
  return Object.entries(byKind || {}).filter(([, v]) => v.us > 0).sort((a, b) => b[1].us - a[1].us).slice(0, 3)
    .map(([k, v]) => `${k} ${pct(v.pct)}`).join(', ');
}

function renderCriticalPath(container, analyze) {
  const ranks = (analyze.ranks || []).filter((r) => r.critical_path && r.critical_path.total_us > 0);
  if (!ranks.length) return;
  const box = section(container, 'critical-path', 'Critical path',
    'What sets each step: the chain of CPU work, launches, kernels and syncs walked back from the step end (docs/analysis.md). Shorten the largest kind first.');
  const t = table(['rank', 'windows', 'path', 'bound by', 'largest shares', 'top item on the path'],
    ranks.map((r, i) => {
      const cp = r.critical_path;
      const top = (cp.top || [])[0];
      return [rankLabel(r, i), fmt(cp.windows.length, 0), ms(cp.total_us), cp.by_kind[cp.dominant] ? cp.by_kind[cp.dominant].bound_by : '—',
        largestKinds(cp.by_kind), top ? el('span', { class: 'kname', title: top.name }, `${top.name} (${ms(top.us)})`) : '—'];
    }));
  t.setAttribute('data-table', 'critical-path');
  box.append(t);
}

function renderStragglers(container, analyze) {
  const s = analyze.stragglers;
  if (!s || !(s.ranks || []).length) return;
  const box = section(container, 'stragglers', 'Stragglers',
    `${fmt(s.collectives_matched, 0)} collectives matched across ${s.ranks.length} ranks; wait = a rank's collective time beyond the last arrival's.`);
  box.append(el('p', { 'data-key': 'straggler', 'data-value': s.straggler_rank === null ? '' : String(s.straggler_rank) },
    s.straggler_rank === null ? 'No rank stands out.' : `Straggler: ${s.evidence}`));
  const t = table(['rank', 'step', 'GPU compute', 'communication', 'comm wait', 'last arrivals'],
    s.ranks.map((r) => [String(r.rank), ms(r.step_us), ms(r.compute_us), ms(r.comm_us), ms(r.comm_wait_us), fmt(r.last_arrivals, 0)]));
  t.setAttribute('data-table', 'stragglers');
  box.append(t);
}

function renderSequences(container, analyze) {
  const rank = (analyze.ranks || []).find((r) => (r.kernel_sequences || []).length);
  if (!rank) return;
  const box = section(container, 'kernel-sequences', 'Frequent kernel sequences',
    `Back-to-back kernel runs that repeat (fusion or CUDA-graph candidates), ${rankLabel(rank, 0)}.`);
  const t = table(['sequence', 'count', 'kernel time', 'gaps', 'launched by'],
    rank.kernel_sequences.slice(0, 5).map((s) => [el('span', { class: 'kname', title: s.kernels.join(' > ') }, s.kernels.join(' > ')),
      fmt(s.count, 0), ms(s.kernel_us), ms(s.gap_us), s.launching_operator || '—']));
  t.setAttribute('data-table', 'kernel-sequences');
  box.append(t);
}

// The analyze document's insights sections.
export function renderInsights(container, analyze) {
  if (!analyze) return;
  renderCriticalPath(container, analyze);
  renderStragglers(container, analyze);
  renderSequences(container, analyze);
}

function entryTable(entries, id, withScope) {
  const t = table([withScope ? 'what' : null, 'name', 'A', 'B', 'change', 'change %', 'status'].filter(Boolean),
    entries.map((e) => [withScope ? e.scope : null, el('span', { class: 'kname', title: e.name }, e.name), ms(e.a_us), ms(e.b_us),
      signedMs(e.delta_us), e.a_us ? pct(e.delta_pct) : 'new', e.status].filter((c) => c !== null)));
  t.setAttribute('data-table', id);
  return t;
}

// `kraken diff --json`: what changed from A to B, ranked by impact.
export function renderDiff(container, diff) {
  const step = diff.step || {};
  const box = section(container, 'diff', 'What changed',
    `A: ${diff.a_name} (${diff.a.ranks} rank(s)); B: ${diff.b_name} (${diff.b.ranks} rank(s)). Times are per-rank means.`);
  box.append(el('p', { 'data-key': 'step_delta', 'data-value': String(step.delta_us) },
    `${step.name === 'step' ? 'Step time' : 'GPU span'}: ${ms(step.a_us)} → ${ms(step.b_us)} (${signedMs(step.delta_us)}, ${step.a_us ? pct(step.delta_pct) : 'new'})`));
  box.append(el('h3', {}, 'Changes ranked by impact'), entryTable(diff.ranked || [], 'diff-ranked', true));
  box.append(el('h3', {}, 'GPU timeline'), entryTable(diff.timeline || [], 'diff-timeline', false));
  box.append(el('h3', {}, 'Kernel time by class'), entryTable(diff.kernel_classes || [], 'diff-classes', false));
  if ((diff.added_kernels || []).length) box.append(el('h3', {}, 'Kernels only in B'), entryTable(diff.added_kernels, 'diff-added', false));
  if ((diff.removed_kernels || []).length) box.append(el('h3', {}, 'Kernels only in A'), entryTable(diff.removed_kernels, 'diff-removed', false));
}
