// Entry point of the bundle. In a `kraken report` page the data is inlined in
// #kraken-report-data and the report is drawn at once; under `kraken serve` the hash
// routes pick a dashboard page.
import './style.css';
import { disposeCharts } from './charts.js';
import { el } from './format.js';
import { clusterPage } from './pages/cluster.js';
import { colocatePage } from './pages/colocate.js';
import { comparePage } from './pages/compare.js';
import { livePage, stopLive } from './pages/live.js';
import { timelinePage } from './pages/timeline.js';
import { workloadPage } from './pages/workload.js';
import { workloadsPage } from './pages/workloads.js';
import { renderReport } from './report_view.js';

function showError(container, error) {
  container.replaceChildren(el('p', { class: 'error', 'data-key': 'error' }, String(error && error.message ? error.message : error)));
  document.body.setAttribute('data-rendered', 'error');
}

async function route() {
  const started = performance.now();
  const app = document.getElementById('app');
  stopLive();
  disposeCharts();
  app.replaceChildren();
  document.body.removeAttribute('data-rendered');
  const [path, query] = (location.hash.replace(/^#/, '') || '/').split('?');
  const params = new URLSearchParams(query || '');
  const parts = path.split('/').filter(Boolean);
  document.querySelectorAll('[data-nav]').forEach((a) => a.classList.toggle('active', a.dataset.nav === (parts[0] || 'workloads')));
  try {
    if (parts[0] === 'workload' && parts[1]) await workloadPage(app, parts[1]);
    else if (parts[0] === 'colocate') await colocatePage(app, params);
    else if (parts[0] === 'compare') await comparePage(app, params);
    else if (parts[0] === 'timeline' && parts[1]) await timelinePage(app, parts[1], params);
    else if (parts[0] === 'cluster') await clusterPage(app);
    else if (parts[0] === 'live') livePage(app);
    else await workloadsPage(app);
    // From the route's start to the page drawn: fetching, rendering and charting (the
    // browser tests hold every page of the real inputs under 1 s).
    document.body.setAttribute('data-render-ms', String(Math.round(performance.now() - started)));
    // From the navigation's start (performance's time origin): loading the page and the bundle too.
    document.body.setAttribute('data-page-ms', String(Math.round(performance.now())));
    document.body.setAttribute('data-rendered', 'true');
  } catch (error) {
    showError(app, error);
  }
}

function start() {
  const inline = document.getElementById('kraken-report-data');
  const app = document.getElementById('app');
  if (inline) {
    try {
      renderReport(app, JSON.parse(inline.textContent));
    } catch (error) {
      showError(app, error);
    }
    return;
  }
  window.addEventListener('hashchange', route);
  route();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
