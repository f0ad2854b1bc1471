// #/live : one event per second from the server's SSE stream: the agent's in-memory ring
// (`kraken serve --agent URL`), Prometheus (`--prometheus URL`) or else the store's newest
// live profile.
import * as api from '../api.js';
import { liveChart } from '../charts.js';
import { el } from '../format.js';

let source = null;

// Called by the router before another page replaces this one.
export function stopLive() {
  if (source) source.close();
  source = null;
}

// A chart line's name; samples from Prometheus name their node too (a cluster, not one host).
function sampleLabel(s) {
  const gpu = `GPU ${s.gpu_index}${s.gpu_instance_id >= 0 ? ` MIG ${s.gpu_instance_id}` : ''}`;
  return s.hostname ? `${s.hostname} ${gpu}` : gpu;
}

export function livePage(container) {
  container.append(el('h1', {}, 'Live'));
  const status = el('p', { class: 'muted', 'data-key': 'live-status' }, 'Waiting for samples…');
  container.append(status);
  const box = el('section', { class: 'panel', 'data-section': 'live' });
  container.append(box);
  const charts = {};
  let events = 0;
  source = api.subscribeLive((msg) => {
    events += 1;
    if (msg.source === 'prometheus') {
      status.textContent = msg.error ? `${msg.error} (${events} events).`
        : `Prometheus ${msg.prometheus}: ${events} events${msg.truncated ? ', samples cut at 100,000' : ''}.`;
    } else if (msg.source === 'agent') {
      status.textContent = msg.error ? `${msg.error} (${events} events).`
        : `Agent ${msg.agent} ring: ${events} events, ${msg.committed_profiles} profiles committed so far.`;
    } else {
      status.textContent = msg.profile_id === null ? `No live profile in the store (${events} events).`
        : `Profile ${msg.profile_id}: ${events} events.`;
    }
    status.setAttribute('data-events', String(events));
    status.setAttribute('data-source', msg.source || 'store');
    status.setAttribute('data-samples', String((msg.samples || []).length));
    const byMetric = {};
    for (const s of msg.samples || []) (byMetric[s.metric] ||= {})[sampleLabel(s)] = s.value;
    for (const [metric, values] of Object.entries(byMetric)) {
      charts[metric] ||= liveChart(box, metric, '');
      charts[metric](msg.time_ns / 1e6, values);
    }
  }, (error) => { status.textContent = error.message; });
}
