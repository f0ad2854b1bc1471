// #/compare?a=ID&b=ID : two stored profiles compared (`kraken diff`, GET /api/v1/diff),
// drawn by the same renderer as `kraken diff --html`. Without both ids: two pickers.
import * as api from '../api.js';
import { el } from '../format.js';
import { renderDiff } from '../insights_view.js';

function picker(id, rows, selected) {
  return el('select', { 'data-key': id, name: id },
    rows.map((w) => el('option', { value: String(w.id), selected: String(w.id) === selected }, `${w.id}: ${w.name || w.source || ''}`)));
}

export async function comparePage(container, params) {
  container.append(el('h1', {}, 'Compare two profiles'));
  const rows = await api.listWorkloads();
  if (rows.length < 2) {
    container.append(el('p', { class: 'muted' }, 'Comparing needs two stored profiles: `kraken import FILE --db PATH`, then reload.'));
    return;
  }
  const a = params.get('a') || String(rows[0].id);
  const b = params.get('b') || String(rows[1].id);
  const pickA = picker('a', rows, a);
  const pickB = picker('b', rows, b);
  const go = el('button', { type: 'button', onclick: () => { location.hash = `#/compare?a=${pickA.value}&b=${pickB.value}`; } }, 'Compare');
  container.append(el('p', { class: 'controls' }, 'A (before) ', pickA, ' B (after) ', pickB, ' ', go));
  if (!params.get('a') || !params.get('b')) return;
  renderDiff(container, await api.loadDiff(a, b));
}
