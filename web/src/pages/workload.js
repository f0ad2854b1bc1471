// #/workload/ID : one stored profile, drawn by the same renderer as `kraken report`, with a
// link to the timeline explorer when the profile has a GPU timeline (traces, not samples).
import * as api from '../api.js';
import { el } from '../format.js';
import { renderReport } from '../report_view.js';

export async function workloadPage(container, id) {
  const data = await api.loadWorkload(id);
  renderReport(container, data);
  const ranks = (data.analyze && data.analyze.ranks) || [];
  const title = container.querySelector('h1');
  if (ranks.length && title) {
    title.after(el('p', { class: 'small', 'data-link': 'timeline' },
      el('a', { href: `#/timeline/${id}` }, 'Open the timeline explorer (kernels per stream, zoom and pan)')));
  }
}
