// The Stunwatch console: plain ES modules over the public API, nothing of its own on the server.
import { get, query, token, ApiError } from './api.js';
import { el, table, badge, num, time, gib, UNKNOWN } from './format.js';
import { timelineChart } from './chart.js';

const view = document.getElementById('view');
const nav = document.getElementById('nav');
const PAGE = 50;

function show(...nodes) {
  view.replaceChildren(...nodes);
}

function failure(e) {
  if (e instanceof ApiError && e.status === 401) {
    login('The token was refused: sign in again.');
    return null;
  }
  return el('p', { class: 'error', role: 'alert' }, e.message);
}

function parseHash() {
  const h = location.hash.replace(/^#\/?/, '');
  const [path, q] = h.split('?');
  return { parts: path.split('/').map(decodeURIComponent), params: new URLSearchParams(q || '') };
}

function go(path, params = {}) {
  location.hash = `#/${path}${query(params)}`;
}

function login(message) {
  nav.hidden = true;
  const input = el('input', { id: 'token', type: 'password', autocomplete: 'off', required: true,
    placeholder: 'api.token' });
  const note = el('p', { class: 'error', role: 'alert' }, message || '');
  show(el('form', { class: 'login', id: 'login', onsubmit: async (ev) => {
    ev.preventDefault();
    token.set(input.value.trim());
    try {
      await get('/api/migrations?limit=1');
      route();
    } catch (e) {
      token.clear();
      note.textContent = e.status === 401 ? 'That token is not the API\'s.' : e.message;
    }
  } },
  el('h1', {}, 'Sign in to Stunwatch'),
  el('label', { for: 'token' }, 'Bearer token (api.token); kept in this tab only'),
  input, el('button', { class: 'primary', type: 'submit' }, 'Sign in'), note));
  input.focus();
}

async function migrations(params) {
  const f = Object.fromEntries(params.entries());
  const field = (name, label, attrs = {}) => el('label', {}, label,
    el('input', { name, value: f[name] || '', ...attrs }));
  const select = (name, label, options) => el('label', {}, label, el('select', { name },
    options.map(([v, t]) => el('option', { value: v, selected: (f[name] || '') === v }, t))));
  const form = el('form', { class: 'filters', id: 'filters', onsubmit: (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    const next = {};
    for (const [k, v] of data.entries()) next[k] = v;
    next.underLoad = data.get('underLoad') ? 'true' : '';
    for (const k of ['from', 'to']) next[k] = next[k] ? new Date(next[k]).toISOString() : '';
    go('migrations', next);
  } },
  field('vm', 'VM'), field('host', 'Host'), field('profile', 'vGPU profile'),
  select('initiator', 'Initiator', [['', 'any'], ['USER', 'user'], ['DRS', 'DRS'], ['UNKNOWN', 'unknown']]),
  select('result', 'Result', [['', 'any'], ['SUCCEEDED', 'succeeded'], ['FAILED', 'failed'],
    ['IN_PROGRESS', 'in progress'], ['UNKNOWN', 'unknown']]),
  field('from', 'From', { type: 'datetime-local', value: local(f.from) }),
  field('to', 'To', { type: 'datetime-local', value: local(f.to) }),
  el('label', { class: 'check' }, el('input', { type: 'checkbox', name: 'underLoad', id: 'under-load',
    checked: f.underLoad === 'true' }), 'under load only'),
  el('button', { class: 'primary', type: 'submit' }, 'Filter'));
  show(el('h1', {}, 'Migrations'), form, el('p', { class: 'muted' }, 'Loading…'));
  try {
    const { body, headers } = await get(`/api/migrations${query({ ...f, limit: PAGE, sort: '-start' })}`);
    const next = headers.get('X-Next-Cursor');
    const rows = table([
      ['started', (m) => time(m.migration.startTime)],
      ['VM', (m) => m.migration.vmName || m.migration.vmMoref],
      ['profile', (m) => m.migration.vgpuProfile || UNKNOWN],
      ['from → to', (m) => `${host(m.migration.sourceHost)} → ${host(m.migration.destHost)}`],
      ['initiator', (m) => m.migration.initiator],
      ['result', (m) => m.migration.state],
      ['under load', (m) => (m.underLoad ? badge('under load', 'busy') : '')],
      // HOST: a VM with no worker in its guest, read by its ESXi hosts (collect hosts)
      ['load seen by', (m) => (m.loadSource ? m.loadSource.toLowerCase() : UNKNOWN)],
      ['stun', (m) => (m.stun && m.stun.seconds !== undefined && m.stun.seconds !== null
        ? `${num(m.stun.seconds)} s ${m.stun.source === 'VMWARE_LOG' ? '(vmware.log)' : '(estimate)'}` : UNKNOWN),
      'num'],
      ['framebuffer', (m) => gib(m.fbUsedMiB), 'num'],
      ['throughput dip', (m) => num(m.throughputDipPct, 1, ' %'), 'num'],
    ], body, (m) => go(`migration/${encodeURIComponent(m.migration.id)}`), (m) => m.migration.id);
    rows.id = 'migrations';
    const pager = el('div', { class: 'pager' },
      f.cursor ? el('button', { type: 'button', onclick: () => history.back() }, '← Previous') : null,
      el('span', { class: 'muted' }, `${body.length} shown`),
      next ? el('button', { type: 'button', id: 'next-page', onclick: () => go('migrations', { ...f, cursor: next }) },
        'Next →') : null);
    show(el('h1', {}, 'Migrations'), form, body.length ? rows : el('p', { class: 'muted' }, 'No migration matches.'),
      pager);
  } catch (e) {
    show(el('h1', {}, 'Migrations'), form, failure(e));
  }
}

/** An ISO instant as a datetime-local input shows it: in the browser's zone. */
function local(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString()
    .slice(0, 16);
}

function host(ref) {
  return ref ? ref.name || ref.value : UNKNOWN;
}

function card(k, v) {
  return el('div', { class: 'card' }, el('div', { class: 'k' }, k), el('div', { class: 'v' }, v));
}

/** Where a vMotion's time went, in words; unknown without its vmware.log lines. */
function phases(p) {
  if (!p) {
    return UNKNOWN;
  }
  const parts = [['precopy', p.precopySeconds], ['time to stop', p.timeToStopSeconds], ['stun', p.stunSeconds],
    ['destination waited', p.destinationWaitSeconds]].filter(([, v]) => v !== undefined && v !== null);
  return parts.length ? parts.map(([k, v]) => `${k} ${num(v)} s`).join(' · ') : UNKNOWN;
}

async function migration(id) {
  show(el('h1', {}, 'Migration'), el('p', { class: 'muted' }, 'Loading…'));
  try {
    const { body } = await get(`/api/migrations/${encodeURIComponent(id)}`);
    const m = body.migration;
    const start = m.startTime ? new Date(m.startTime).getTime() : null;
    let alert = null;
    if (start) {
      const around = query({ from: new Date(start - 60000).toISOString(), to: new Date(start + 60000).toISOString(),
        limit: 100 });
      alert = (await get(`/api/alerts${around}`)).body.find((a) => a.migrationId === m.id) || null;
    }
    const stun = body.stun || {};
    const nodes = [el('h1', {}, `vMotion of ${m.vmName || m.vmMoref}`),
      el('div', { class: 'cards', id: 'summary' },
        card('hosts', `${host(m.sourceHost)} → ${host(m.destHost)}`),
        card('started / ended', `${time(m.startTime)} / ${time(m.endTime)}`),
        card('initiator', m.initiator), card('result', m.state), card('vGPU profile', m.vgpuProfile || UNKNOWN),
        card('stun', stun.seconds === undefined || stun.seconds === null ? UNKNOWN
          : `${num(stun.seconds)} s from ${stun.source === 'VMWARE_LOG' ? 'vmware.log' : 'the gap in samples'}`),
        card('throughput dip', num(body.throughputDipPct, 1, ' %')),
        card('load seen by', body.loadSource || UNKNOWN),
        card('alert', alert ? `${alert.state.toLowerCase()}: ${alert.reasons.join(', ')}` : 'none'),
        card('vMotion id', body.vmotionId || UNKNOWN),
        card('phases', phases(body.phases)),
        card('precopy bandwidth', body.vmotionBandwidthMBps === undefined || body.vmotionBandwidthMBps === null
          ? UNKNOWN : `${num(body.vmotionBandwidthMBps)} MB/s, ${body.pagesLeftAtSwitchover === undefined
            || body.pagesLeftAtSwitchover === null ? 'pages left unknown'
            : `${body.pagesLeftAtSwitchover} pages left at switchover`}`),
        ...(body.failure ? [card('failure', `${body.failure.cause}: ${body.failure.message || ''}`
          + `${body.failure.id ? ` [${body.failure.id}]` : ''} (from ${body.failure.source === 'VMWARE_LOG'
            ? 'vmware.log' : 'vCenter'})`)] : []))];
    if (body.timeline && body.timeline.length) {
      nodes.push(el('h2', {}, 'Per-second timeline'), timelineChart(body));
    } else {
      nodes.push(el('p', { class: 'muted' }, 'No timeline yet: the impact settles after the migration ends.'));
    }
    show(...nodes);
  } catch (e) {
    show(el('h1', {}, 'Migration'), failure(e));
  }
}

async function alerts(params) {
  const state = params.get('state') || '';
  const pick = el('select', { id: 'alert-state', onchange: () => go('alerts', { state: pick.value }) },
    [['', 'firing and resolved'], ['firing', 'firing'], ['resolved', 'resolved']].map(([v, t]) =>
      el('option', { value: v, selected: v === state }, t)));
  show(el('h1', {}, 'Migration-under-load alerts'), pick, el('p', { class: 'muted' }, 'Loading…'));
  try {
    const { body } = await get(`/api/alerts${query({ state, limit: 200 })}`);
    show(el('h1', {}, 'Migration-under-load alerts'), el('form', { class: 'filters' }, el('label', {}, 'State', pick)),
      table([
        ['raised', (a) => time(a.raisedAt)],
        ['state', (a) => badge(a.state.toLowerCase(), a.state === 'FIRING' ? 'busy' : 'ok')],
        ['VM', (a) => a.vmName || a.vmMoref], ['profile', (a) => a.vgpuProfile || UNKNOWN],
        ['why', (a) => a.reasons.join(', ')],
        ['GPU', (a) => num(a.load.gpuUtilizationAvgPct, 0, ' %'), 'num'],
        ['framebuffer', (a) => num(a.load.fbUsedPct, 0, ' %'), 'num'],
        ['forecast stun', (a) => (a.forecast ? `${num(a.forecast.p50Seconds)} s` : UNKNOWN), 'num'],
        ['measured stun', (a) => (a.measured && a.measured.stun && a.measured.stun.seconds !== undefined
          ? `${num(a.measured.stun.seconds)} s` : UNKNOWN), 'num'],
      ], body, (a) => go(`migration/${encodeURIComponent(a.migrationId)}`)));
  } catch (e) {
    show(el('h1', {}, 'Migration-under-load alerts'), failure(e));
  }
}

async function utilization() {
  show(el('h1', {}, 'Fleet utilization'), el('p', { class: 'muted' }, 'Loading…'));
  try {
    const [hosts, vms] = await Promise.all([get('/api/utilization?groupBy=host'), get('/api/utilization?groupBy=vm')]);
    const cols = (key) => [[key, (r) => r[key]], ['day', (r) => r.day],
      ['busy GPU-h', (r) => num(r.busyGpuHours, 2), 'num'], ['idle GPU-h', (r) => num(r.idleGpuHours, 2), 'num'],
      ['unknown GPU-h', (r) => num(r.unknownGpuHours, 2), 'num'], ['busy', (r) => num(r.busyPct, 0, ' %'), 'num']];
    show(el('h1', {}, 'Fleet utilization'),
      el('p', { class: 'muted' }, 'GPU-hours per UTC day: busy, idle (below the idle threshold) and unknown.'),
      el('h2', {}, 'By host'), table(cols('host'), hosts.body), el('h2', {}, 'By VM'), table(cols('vm'), vms.body));
  } catch (e) {
    show(el('h1', {}, 'Fleet utilization'), failure(e));
  }
}

async function guard() {
  show(el('h1', {}, 'DRS guard'), el('p', { class: 'muted' }, 'Loading…'));
  try {
    const { body } = await get('/api/guard');
    const status = body.enabled
      ? `DRS leaves a busy VM where it is while the p95 of its forecast stun is over ${num(body.maxStunSeconds, 0)} s, `
        + `and lets it go after ${num(body.releaseAfterSeconds / 60, 0)} min below the thresholds. `
        + `${body.protectedVms.length} VM${body.protectedVms.length === 1 ? '' : 's'} protected now.`
      : 'The guard is off (guard.enabled): no VM is protected, and none is judged.';
    // the processor knows VMs by id; the collectors' audit records name them
    const names = new Map(body.actions.map((a) => [a.vmId, a.vmName]));
    const override = (o) => (o ? `${o.behavior || 'cluster default'}${o.enabled === false ? ' (off)' : ''}` : 'none');
    show(el('h1', {}, 'DRS guard'), el('p', { id: 'guard-status', class: body.enabled ? '' : 'muted' }, status),
      body.enabled ? table([
        ['VM', (g) => names.get(g.vmId) || g.vmId],
        ['since', (g) => time(g.since)],
        ['why', (g) => (g.decision ? g.decision.reasons.join(', ') : UNKNOWN)],
        ['GPU', (g) => (g.decision ? num(g.decision.load.gpuUtilizationAvgPct, 0, ' %') : UNKNOWN), 'num'],
        ['stun p95', (g) => (g.decision && g.decision.forecast
          ? `${num(g.decision.forecast.p95Seconds)} s` : UNKNOWN), 'num'],
        ['last busy', (g) => time(g.lastBusy)],
      ], body.protectedVms) : el('span'),
      body.enabled ? el('h2', {}, 'Audit trail') : el('span'),
      body.enabled ? table([
        ['at', (a) => time(a.at)],
        ['VM', (a) => a.vmName || a.vmMoref],
        ['action', (a) => a.kind.toLowerCase()],
        ['result', (a) => a.result.toLowerCase().replaceAll('_', ' ')],
        ['DRS override', (a) => `${override(a.previous)} → ${override(a.set)}`],
        ['why', (a) => a.why],
      ], body.actions) : el('span'));
  } catch (e) {
    show(el('h1', {}, 'DRS guard'), failure(e));
  }
}

async function plan(params) {
  const hostName = params.get('host') || '';
  const input = el('input', { id: 'evacuate-host', name: 'host', value: hostName, placeholder: 'esx01.lab.local' });
  const form = el('form', { class: 'filters', onsubmit: (ev) => {
    ev.preventDefault();
    go('plan', { host: input.value.trim() });
  } }, el('label', {}, 'Evacuate host', input), el('button', { class: 'primary', type: 'submit' }, 'Plan'));
  if (!hostName) {
    show(el('h1', {}, 'Plan a move'), form);
    return;
  }
  show(el('h1', {}, 'Plan a move'), form, el('p', { class: 'muted' }, 'Loading…'));
  try {
    const { body } = await get(`/api/hosts/${encodeURIComponent(hostName)}/evacuation`);
    const t = body.totals;
    show(el('h1', {}, 'Plan a move'), form,
      el('div', { class: 'cards' }, card('VMs', t.vms), card('deferred', t.deferred),
        card('stun p50 / p95', t.stunP50Seconds === null ? `unknown (${t.unknownStun} VMs)`
          : `${num(t.stunP50Seconds)} s / ${num(t.stunP95Seconds)} s${t.unknownStun ? `, ${t.unknownStun} unknown` : ''}`),
        card('migration time', t.durationSeconds === null ? 'unknown' : `${num(t.durationSeconds, 0)} s`),
        card('stun limit', `${body.maxStunSeconds} s`)),
      table([
        ['#', (r) => r.order, 'num'],
        ['action', (r) => badge(r.action, r.action === 'DEFER' ? 'busy' : r.action === 'MOVE' ? 'ok' : 'warn')],
        ['VM', (r) => r.vmName], ['profile', (r) => r.vgpuProfile || UNKNOWN],
        ['framebuffer', (r) => gib(r.fbUsedMiB), 'num'], ['GPU', (r) => num(r.gpuUtilizationPct, 0, ' %'), 'num'],
        ['stun p50/p95', (r) => (r.forecast ? `${num(r.forecast.p50Seconds)} / ${num(r.forecast.p95Seconds)} s`
          : UNKNOWN), 'num'],
        ['basis', (r) => (r.forecast ? r.forecast.basis : '')],
        ['VMware\'s figure', (r) => (r.forecast ? `${num(r.forecast.reference.p50Seconds)} s` : UNKNOWN), 'num'],
        ['why', (r) => r.reason],
      ], body.vms));
  } catch (e) {
    show(el('h1', {}, 'Plan a move'), form, failure(e));
  }
}

function route() {
  if (!token.get()) {
    login();
    return;
  }
  nav.hidden = false;
  const { parts, params } = parseHash();
  for (const a of nav.querySelectorAll('a')) {
    a.classList.toggle('active', a.getAttribute('href') === `#/${parts[0]}`);
  }
  switch (parts[0]) {
    case 'migration': return migration(parts.slice(1).join('/'));
    case 'alerts': return alerts(params);
    case 'utilization': return utilization();
    case 'plan': return plan(params);
    case 'guard': return guard();
    default: return migrations(params);
  }
}

document.getElementById('sign-out').addEventListener('click', () => {
  token.clear();
  location.hash = '#/migrations';
  login();
});
window.addEventListener('hashchange', route);
route();
