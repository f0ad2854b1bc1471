// The chargeback section of `kraken report --chargeback-prometheus URL`: the document's
// "chargeback" (`kraken cost chargeback --json`, docs/cost.md) as one table, a row per
// team and the total. Each row carries the team and its raw cost in data-* so the
// browser test compares them with kraken's JSON exactly.
import { el, fmt, pct } from './format.js';

function usd(value) {
  return value === null || value === undefined ? '—' : `$${fmt(value, 2)}`;
}

// Against the budget, as `kraken cost chargeback` says it: with a forecast, OVER when its
// month is above the budget and AT RISK when only its upper bound is; else the
// straight-line projection.
function verdict(team) {
  if (team.budget_usd === null) return '';
  const f = team.forecast;
  if (f && f.available) {
    if (f.month_usd > team.budget_usd) return 'OVER';
    return f.month_high_usd > team.budget_usd ? 'AT RISK' : '';
  }
  if (team.projected_month_usd === null) return '';
  return team.projected_month_usd > team.budget_usd ? 'OVER' : '';
}

// "$1637.49 [$1500.00, $1800.00]", or "—" (the reason is under the table).
function forecastCell(team) {
  const f = team.forecast;
  if (!f || !f.available) return '—';
  return `${usd(f.month_usd)} [${usd(f.month_low_usd)}, ${usd(f.month_high_usd)}]`;
}

function teamRow(team, isTotal, withForecast) {
  const cells = [isTotal ? 'total' : team.team, fmt(team.pods, 0), fmt(team.allocated_gpu_hours, 2),
    fmt(team.used_gpu_hours, 2), pct(team.utilization * 100), usd(team.cost_usd), usd(team.idle_cost_usd),
    usd(team.projected_month_usd)];
  if (withForecast) cells.push(forecastCell(team));
  cells.push(usd(team.budget_usd), verdict(team));
  const f = team.forecast && team.forecast.available ? team.forecast : null;
  return el('tr', { 'data-team': isTotal ? '' : team.team, 'data-cost-usd': String(team.cost_usd),
    'data-forecast-month-usd': f ? String(f.month_usd) : null, class: isTotal ? 'total' : null },
  cells.map((c) => el('td', {}, c)));
}

// Which forecaster, and why a team has none (`kraken cost chargeback --forecast`).
function forecastNotes(chargeback) {
  const notes = [];
  for (const t of chargeback.teams)
    if (t.forecast && !t.forecast.available) notes.push(`No forecast for ${t.team}: ${t.forecast.reason}.`);
  const f = chargeback.total.forecast;
  if (f && f.available)
    notes.push(`Forecast: ${f.method}${f.period_s > 0 ? `, period ${fmt(f.period_s / 60, 0)} min` : ''}; the month at `
      + `the forecast's mean rate over ${f.horizon}, the interval (95%) as if the error persisted all month.`);
  return notes;
}

export function renderChargeback(container, chargeback) {
  if (!chargeback) return;
  const box = el('section', { class: 'panel', 'data-section': 'chargeback' }, el('h2', {}, 'GPU chargeback'));
  const days = (chargeback.end_s - chargeback.start_s) / 86400;
  box.append(el('p', { class: 'muted small' },
    `Per ${chargeback.by}, ${fmt(days, 1)} days to ${new Date(chargeback.end_s * 1000).toISOString()} `
    + `from ${chargeback.prometheus} (step ${chargeback.step_s} s). Price: ${chargeback.price_basis}.`));
  const withForecast = Boolean(chargeback.total.forecast);
  const headers = ['team', 'pods', 'allocated GPU-h', 'used GPU-h', 'util', 'cost', 'idle cost', 'month (projected)'];
  if (withForecast) headers.push(`month (forecast ${chargeback.total.forecast.horizon}, 95%)`);
  headers.push('budget', '');
  box.append(el('table', { class: 'grid', 'data-key': 'chargeback' },
    el('thead', {}, el('tr', {}, headers.map((h) => el('th', {}, h)))),
    el('tbody', {}, chargeback.teams.map((t) => teamRow(t, false, withForecast)),
      teamRow(chargeback.total, true, withForecast))));
  for (const note of forecastNotes(chargeback)) box.append(el('p', { class: 'muted small', 'data-key': 'forecast-note' }, note));
  if (chargeback.unpriced_models.length)
    box.append(el('p', { class: 'muted small' },
      `No price for GPU model(s): ${chargeback.unpriced_models.join(', ')} (charged $0).`));
  container.append(box);
}
