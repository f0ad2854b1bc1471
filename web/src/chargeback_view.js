// The chargeback section of `kraken report --chargeback-prometheus URL`: the document's
// "chargeback" (`kraken cost chargeback --json`, docs/cost.md) as one table, a row per
// team and the total. Each row carries the team and its raw cost in data-* so the
// browser test compares them with kraken's JSON exactly.
import { el, fmt, pct } from './format.js';

function usd(value) {
  return value === null || value === undefined ? '—' : `$${fmt(value, 2)}`;
}

function verdict(team) {
  if (team.budget_usd === null || team.projected_month_usd === null) return '';
  return team.projected_month_usd > team.budget_usd ? 'OVER' : '';
}

function teamRow(team, isTotal) {
  const cells = [isTotal ? 'total' : team.team, fmt(team.pods, 0), fmt(team.allocated_gpu_hours, 2),
    fmt(team.used_gpu_hours, 2), pct(team.utilization * 100), usd(team.cost_usd), usd(team.idle_cost_usd),
    usd(team.projected_month_usd), usd(team.budget_usd), verdict(team)];
  return el('tr', { 'data-team': isTotal ? '' : team.team, 'data-cost-usd': String(team.cost_usd), class: isTotal ? 'total' : null },
    cells.map((c) => el('td', {}, c)));
}

export function renderChargeback(container, chargeback) {
  if (!chargeback) return;
  const box = el('section', { class: 'panel', 'data-section': 'chargeback' }, el('h2', {}, 'GPU chargeback'));
  const days = (chargeback.end_s - chargeback.start_s) / 86400;
  box.append(el('p', { class: 'muted small' },
    `Per ${chargeback.by}, ${fmt(days, 1)} days to ${new Date(chargeback.end_s * 1000).toISOString()} `
    + `from ${chargeback.prometheus} (step ${chargeback.step_s} s). Price: ${chargeback.price_basis}.`));
  const headers = ['team', 'pods', 'allocated GPU-h', 'used GPU-h', 'util', 'cost', 'idle cost', 'month (projected)', 'budget', ''];
  box.append(el('table', { class: 'grid', 'data-key': 'chargeback' },
    el('thead', {}, el('tr', {}, headers.map((h) => el('th', {}, h)))),
    el('tbody', {}, chargeback.teams.map((t) => teamRow(t, false)), teamRow(chargeback.total, true))));
  if (chargeback.unpriced_models.length)
    box.append(el('p', { class: 'muted small' },
      `No price for GPU model(s): ${chargeback.unpriced_models.join(', ')} (charged $0).`));
  container.append(box);
}
