// #/timeline/ID[?start_us=&end_us=] : the timeline explorer. Kernels per stream of a stored
// profile drawn on a canvas; the server sends only the visible window (GET
// /api/v1/profiles/{id}/timeline), as events or per-pixel buckets when a stream has more
// kernels than pixels, so zooming and panning stay fast on the largest traces. Wheel or
// the buttons zoom around the pointer / the centre, dragging pans; hovering or clicking a
// kernel shows its name and the CPU op that launched it.
import * as api from '../api.js';
import { el } from '../format.js';

const LANE_PX = 22;
const LABEL_PX = 120;

function laneLabel(s) {
  return `GPU ${s.device} stream ${s.stream}`;
}

// Draws one window's document; returns the hit boxes of the drawn kernels for hovering.
function draw(canvas, doc) {
  const ctx = canvas.getContext('2d');
  const width = canvas.width - LABEL_PX;
  const span = Math.max(doc.end_us - doc.start_us, 1e-9);
  const x = (us) => LABEL_PX + ((us - doc.start_us) / span) * width;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.font = '11px sans-serif';
  const boxes = [];
  doc.streams.forEach((s, lane) => {
    const y = lane * LANE_PX;
    ctx.fillStyle = '#555';
    ctx.fillText(laneLabel(s), 4, y + 15);
    if (s.bucketed) {
      const px = width / s.buckets.length;
      const pxUs = span / s.buckets.length;
      s.buckets.forEach(([count, busyUs], i) => {
        if (count === 0 && busyUs === 0) return;
        // Shade by how busy the pixel is: a full pixel is as dark as a drawn kernel.
        ctx.fillStyle = `rgba(47, 111, 196, ${Math.max(0.15, Math.min(1, busyUs / pxUs))})`;
        ctx.fillRect(LABEL_PX + i * px, y + 3, Math.max(px, 1), LANE_PX - 6);
        boxes.push({ x0: LABEL_PX + i * px, x1: LABEL_PX + (i + 1) * px, y, text: `${count} kernels starting here, ${busyUs.toFixed(1)} µs busy` });
      });
    } else {
      ctx.fillStyle = '#2f6fc4';
      for (const e of s.events) {
        const x0 = Math.max(LABEL_PX, x(e.start_us));
        const x1 = Math.min(canvas.width, x(e.start_us + e.dur_us));
        ctx.fillRect(x0, y + 3, Math.max(x1 - x0, 1), LANE_PX - 6);
        boxes.push({ x0, x1: Math.max(x1, x0 + 1), y, text: `${e.name} (${e.dur_us.toFixed(1)} µs) launched by ${e.op || 'an unknown op'}`, event: e });
      }
    }
  });
  return boxes;
}

export async function timelinePage(container, id, params) {
  const num = (k) => (params.get(k) === null ? null : Number(params.get(k)));
  const info = el('p', { 'data-key': 'timeline-info' });
  const hover = el('p', { class: 'muted', 'data-key': 'timeline-hover' }, 'Hover or click a kernel to see the CPU op that launched it.');
  const canvas = el('canvas', { 'data-key': 'timeline-canvas', width: 1200, height: 100 });
  let doc = null;
  let boxes = [];
  const show = async (startUs, endUs) => {
    const started = performance.now();
    doc = await api.loadTimeline(id, startUs, endUs, canvas.width - LABEL_PX);
    canvas.height = Math.max(1, doc.streams.length) * LANE_PX;
    boxes = draw(canvas, doc);
    const ms = Math.round(performance.now() - started);
    info.textContent = `${doc.start_us.toFixed(1)}–${doc.end_us.toFixed(1)} µs of ${doc.trace_us.toFixed(1)} µs: ${doc.kernels} kernels on ${doc.streams.length} streams (drawn in ${ms} ms)`;
    for (const [k, v] of [['start', doc.start_us], ['end', doc.end_us], ['kernels', doc.kernels], ['draw-ms', ms]])
      canvas.setAttribute(`data-${k}`, String(v));
    history.replaceState(null, '', `#/timeline/${id}?start_us=${doc.start_us}&end_us=${doc.end_us}`);
  };
  // Zooms by `factor` (< 1: in) keeping the time under canvas x `px` in place.
  const zoom = (factor, px) => {
    const frac = Math.min(1, Math.max(0, (px - LABEL_PX) / (canvas.width - LABEL_PX)));
    const span = doc.end_us - doc.start_us;
    const at = doc.start_us + frac * span;
    const next = Math.max(span * factor, 0.001);
    const start = Math.max(0, at - frac * next);
    return show(start, Math.min(doc.trace_us, start + next));
  };
  const pan = (deltaUs) => {
    const span = doc.end_us - doc.start_us;
    const start = Math.min(Math.max(0, doc.start_us + deltaUs), Math.max(0, doc.trace_us - span));
    return show(start, start + span);
  };
  const hit = (ev) => {
    const r = canvas.getBoundingClientRect();
    const px = (ev.clientX - r.left) * (canvas.width / r.width);
    const py = ev.clientY - r.top;
    return boxes.find((b) => py >= b.y && py < b.y + LANE_PX && px >= b.x0 - 1 && px <= b.x1 + 1);
  };
  canvas.addEventListener('mousemove', (ev) => { const b = hit(ev); if (b) hover.textContent = b.text; });
  canvas.addEventListener('click', (ev) => { const b = hit(ev); if (b) hover.textContent = b.text; });
  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const r = canvas.getBoundingClientRect();
    zoom(ev.deltaY < 0 ? 0.5 : 2, (ev.clientX - r.left) * (canvas.width / r.width));
  }, { passive: false });
  let dragFrom = null;
  canvas.addEventListener('mousedown', (ev) => { dragFrom = ev.clientX; });
  window.addEventListener('mouseup', (ev) => {
    if (dragFrom === null || !doc) return;
    const dx = ev.clientX - dragFrom;
    dragFrom = null;
    if (Math.abs(dx) > 3) pan((-dx / (canvas.width - LABEL_PX)) * (doc.end_us - doc.start_us));
  });
  const button = (label, key, fn) => el('button', { type: 'button', 'data-key': key, onclick: fn }, label);
  const middle = () => LABEL_PX + (canvas.width - LABEL_PX) / 2;
  container.append(el('h1', {}, `Timeline of profile ${id}`),
    el('p', { class: 'controls' },
      button('Zoom in', 'zoom-in', () => zoom(0.5, middle())), ' ',
      button('Zoom out', 'zoom-out', () => zoom(2, middle())), ' ',
      button('◀ Pan', 'pan-left', () => pan(-(doc.end_us - doc.start_us) / 2)), ' ',
      button('Pan ▶', 'pan-right', () => pan((doc.end_us - doc.start_us) / 2)), ' ',
      button('Whole trace', 'reset', () => show(null, null))),
    info, el('div', { class: 'timeline-scroll' }, canvas), hover);
  await show(num('start_us'), num('end_us'));
}
