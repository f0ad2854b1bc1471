// #/colocate?a=ID&b=ID : pick two workloads, see kraken's co-location prediction and SM split.
import * as api from '../api.js';
import { groupedBars } from '../charts.js';
import { el, fmt, table } from '../format.js';

function pickers(rows, a, b, onPick) {
  const select = (value) => el('select', {}, rows.map((w) => {
    const o = el('option', { value: String(w.id) }, `${w.id}: ${w.name || w.source}`);
    if (String(w.id) === String(value)) o.selected = true;
    return o;
  }));
  const sa = select(a);
  const sb = select(b);
  return el('form', { class: 'pick', onsubmit: (e) => { e.preventDefault(); onPick(sa.value, sb.value); } },
    'A ', sa, ' B ', sb, ' ', el('button', { type: 'submit' }, 'Predict'));
}

// Flattens the document's numeric leaves one level deep for the table (keys as kraken wrote them).
function numericRows(doc, prefix = '') {
  const out = [];
  for (const [k, v] of Object.entries(doc || {})) {
    if (typeof v === 'number') out.push([`${prefix}${k}`, fmt(v, 3)]);
    else if (typeof v === 'string' && v.length < 80) out.push([`${prefix}${k}`, v]);
    else if (v && typeof v === 'object' && !Array.isArray(v) && !prefix) out.push(...numericRows(v, `${k}.`));
  }
  return out;
}

export async function colocatePage(container, params) {
  const rows = await api.listWorkloads();
  container.append(el('h1', {}, 'Co-location'));
  const a = params.get('a') || (rows[0] && rows[0].id);
  const b = params.get('b') || (rows[1] && rows[1].id) || a;
  container.append(pickers(rows, a, b, (x, y) => { location.hash = `#/colocate?a=${x}&b=${y}`; }));
  if (!a || !b) {
    container.append(el('p', { class: 'muted' }, 'Store two profiles to compare them.'));
    return;
  }
  const doc = await api.colocate(a, b);
  const box = el('section', { class: 'panel', 'data-section': 'colocation' });
  container.append(box);
  // `kraken colocate --json` (docs/colocation.md): the pair's score and suggested SM split,
  // and each sharing mode's predicted slowdown per workload.
  const names = (doc.workloads || []).map((w) => w.name);
  const pair = (doc.pairs || [])[0];
  if (pair) {
    box.append(el('p', { class: 'lead', 'data-key': 'pair' },
      `Score ${fmt(pair.score, 2)} (${pair.model}); best mode ${pair.best_mode || '—'}; ${pair.explanation || ''}`));
    if (Array.isArray(pair.sm_split) && pair.sm_split.length) {
      groupedBars(box, 'Suggested SM split (% of SMs)', names.length ? names : pair.sm_split.map((_, i) => `workload ${i + 1}`),
        [{ name: 'SM share', values: pair.sm_split.map((x) => (x <= 1 ? x * 100 : x)) }], ' %');
    }
  }
  const modes = (doc.modes || []).filter((m) => m.feasible && (m.predictions || []).length);
  if (modes.length) {
    groupedBars(box, 'Predicted slowdown per sharing mode (x)', modes.map((m) => m.label || m.mode),
      names.map((n) => ({ name: n, values: modes.map((m) => ((m.predictions || []).find((p) => p.name === n) || {}).slowdown ?? null) })), 'x');
  }
  const t = table(['figure', 'value'], numericRows(doc));
  t.setAttribute('data-table', 'colocation');
  box.append(t);
}
