// A migration's per-second timeline: GPU utilization and framebuffer, then RDMA and training throughput, with the
// before, during and after phases shaded, the vMotion's own phases (precopy, time to stop) where the hosts' logs gave
// them, and the stun marked.
import uPlot from './vendor/uPlot.esm.js';
import { el } from './format.js';

const PHASES = [['before', 'rgba(47,111,222,0.06)'], ['during', 'rgba(194,65,12,0.08)'],
  ['after', 'rgba(21,128,61,0.06)']];

function seconds(iso) {
  return iso ? new Date(iso).getTime() / 1000 : null;
}

function value(v) {
  return v === undefined ? null : v; // a figure without a reading is a gap, never 0
}

const VMOTION = [['precopy', 'precopyStart', 'stunStart', 'rgba(217,119,6,0.18)'],
  ['stop', 'stunStart', 'stunned', 'rgba(124,58,237,0.35)']];

/**
 * The stun's span, in epoch seconds: the stun seconds before the VM ran again (vmware.log's Checkpoint_Unstun),
 * else before the migration's end.
 */
export function stunSpan(impact) {
  const unstun = impact.phases ? seconds(impact.phases.unstun) : null;
  const end = unstun !== null ? unstun : seconds(impact.migration.endTime);
  const s = impact.stun && impact.stun.seconds;
  return end !== null && s !== null && s !== undefined ? [end - s, end] : null;
}

/** The vMotion's phases the logs gave, each [name, from, to] in epoch seconds. */
export function vmotionSpans(impact) {
  const p = impact.phases;
  if (!p) {
    return [];
  }
  return VMOTION.filter(([, a, b]) => p[a] && p[b]).map(([name, a, b, color]) =>
    [name, seconds(p[a]), seconds(p[b]), color]);
}

function shading(impact, mark) {
  const stun = stunSpan(impact);
  const vmotion = vmotionSpans(impact);
  return (u) => {
    const { ctx } = u;
    const { top, height } = u.bbox;
    ctx.save();
    for (const [name, color] of PHASES) {
      const p = impact[name];
      if (p && p.from && p.to) {
        const x0 = u.valToPos(seconds(p.from), 'x', true);
        const x1 = u.valToPos(seconds(p.to), 'x', true);
        ctx.fillStyle = color;
        ctx.fillRect(x0, top, x1 - x0, height);
      }
    }
    for (const [, from, to, color] of vmotion) {
      const x0 = u.valToPos(from, 'x', true);
      const x1 = u.valToPos(to, 'x', true);
      ctx.fillStyle = color;
      ctx.fillRect(x0, top, Math.max(2, x1 - x0), height);
    }
    if (stun) {
      const x0 = u.valToPos(stun[0], 'x', true);
      const x1 = u.valToPos(stun[1], 'x', true);
      ctx.fillStyle = 'rgba(185,28,28,0.25)';
      ctx.fillRect(x0, top, Math.max(2, x1 - x0), height);
      mark();
    }
    ctx.restore();
  };
}

function plot(target, title, impact, series, data, mark) {
  const width = Math.max(480, Math.min(1300, (target.clientWidth || 1200) - 20));
  return new uPlot({
    title, width, height: 260,
    series: [{}, ...series],
    axes: [{}, ...series.filter((s) => s.axis).map((s) => s.axis)],
    scales: { x: { time: true } },
    hooks: { drawClear: [shading(impact, mark)] },
  }, data, target);
}

/**
 * The points with a null row in each gap of more than a second (a stunned VM sends nothing): uPlot draws a gap at a
 * null, and would otherwise draw a line straight across the missing seconds.
 */
function withGaps(points) {
  const out = [];
  let last = null;
  for (const p of points) {
    const t = seconds(p.t);
    if (last !== null && t - last > 1.5) {
      out.push({ t: new Date((last + 1) * 1000).toISOString(), gap: true });
    }
    out.push(p);
    last = t;
  }
  return out;
}

/** The chart element; its data attributes say what it drew, for whoever reads the page. */
export function timelineChart(impact) {
  const points = withGaps(impact.timeline);
  const x = points.map((p) => seconds(p.t));
  const box = el('div', { class: 'chart', id: 'timeline', 'data-points': String(impact.timeline.length) });
  const stun = stunSpan(impact);
  if (stun) {
    box.dataset.stunFrom = new Date(stun[0] * 1000).toISOString();
    box.dataset.stunTo = new Date(stun[1] * 1000).toISOString();
  }
  const vmotion = vmotionSpans(impact);
  for (const [name, from, to] of vmotion) {
    box.dataset[`${name}From`] = new Date(from * 1000).toISOString();
    box.dataset[`${name}To`] = new Date(to * 1000).toISOString();
  }
  const mark = () => {
    box.dataset.stunMarked = 'true';
  };
  const legend = el('p', { class: 'muted' }, 'Shaded: before, during and after the migration',
    vmotion.length ? `; amber: the precopy; purple: stopping the vCPUs (${vmotion.map(([n, a, b]) =>
      `${n} ${(b - a).toFixed(1)} s`).join(', ')})` : '',
    '; red: the stun', stun ? ` (${(stun[1] - stun[0]).toFixed(1)} s, ${impact.stun.source === 'VMWARE_LOG'
      ? 'vmware.log' : 'gap in samples'}).` : ' (unknown).');
  box.append(legend);
  // Drawn once the element is in the page, so that it knows its width.
  requestAnimationFrame(() => {
    plot(box, 'GPU', impact, [
      { label: 'GPU utilization %', stroke: '#2f6fde', scale: '%', axis: { scale: '%', label: '%' } },
      { label: 'framebuffer GiB', stroke: '#7c3aed', scale: 'GiB', axis: { scale: 'GiB', side: 1, label: 'GiB',
        grid: { show: false } } },
    ], [x, points.map((p) => value(p.gpuUtilizationPct)),
      points.map((p) => (p.fbUsedMiB === undefined || p.fbUsedMiB === null ? null : p.fbUsedMiB / 1024))], mark);
    plot(box, 'RDMA and training throughput', impact, [
      { label: 'RDMA Gbit/s', stroke: '#0f766e', scale: 'Gb', axis: { scale: 'Gb', label: 'Gbit/s' } },
      { label: 'throughput', stroke: '#c2410c', scale: 'tp', axis: { scale: 'tp', side: 1, grid: { show: false } } },
    ], [x, points.map((p) => (p.rdmaBytesPerSec === undefined || p.rdmaBytesPerSec === null ? null
      : p.rdmaBytesPerSec * 8 / 1e9)), points.map((p) => value(p.throughput))], mark);
  });
  return box;
}
