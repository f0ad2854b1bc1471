// A whole report: title, summary, then the workload sections. `kraken report` renders the
// document it inlines with this; the dashboard's workload page renders the fetched one.
import { renderChargeback } from './chargeback_view.js';
import { renderSummary } from './summary_view.js';
import { el } from './format.js';
import { renderDiff, renderInsights } from './insights_view.js';
import { renderWorkload } from './workload_view.js';

export function renderReport(container, data) {
  container.replaceChildren();
  container.append(el('h1', {}, data.title || 'kraken report'));
  if (data.inputs && data.inputs.length)
    container.append(el('p', { class: 'muted small' }, `Inputs: ${data.inputs.join(', ')}`));
  if (data.kind === 'kraken-diff-report') {
    renderDiff(container, data.diff);
  } else {
    renderSummary(container, data);
    renderWorkload(container, data);
    renderInsights(container, data.analyze);
    renderChargeback(container, data.chargeback);
  }
  document.body.setAttribute('data-rendered', 'true');
}
