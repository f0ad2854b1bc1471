// #/workload/ID : one stored profile, drawn by the same renderer as `kraken report`.
import * as api from '../api.js';
import { renderReport } from '../report_view.js';

export async function workloadPage(container, id) {
  const data = await api.loadWorkload(id);
  renderReport(container, data);
}
