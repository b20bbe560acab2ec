// Governance per application: the resources its agents have seen, live charts per resource from
// the agents' reports (at most about 2 s behind), editors for the five Sentinel rule kinds and for
// the namespace's lane document (saved only when sluice-flow's parsers, the agents' own, accept
// them), and which instances are in which lane.
import { h, clear, formatTime, message, go, link, missingNodes } from './dom.js';
import * as api from './api.js';
import { lineChart } from './chart.js';
import { laneForm, laneMembers } from './lanes.js';

const TRAFFIC = '/nacos/v1/sluice/traffic';
const RULES = '/nacos/v1/sluice/rules';
const KINDS = ['flow', 'degrade', 'param-flow', 'system', 'authority', 'lanes'];
const EXAMPLES = {
  flow: '[\n  {"resource": "GET /orders/{id}", "grade": 1, "count": 100}\n]',
  degrade: '[\n  {"resource": "GET /orders/{id}", "grade": 0, "count": 200, "timeWindow": 10, "slowRatioThreshold": 0.5, "minRequestAmount": 5}\n]',
  'param-flow': '[\n  {"resource": "GET /orders/{id}", "paramSource": {"header": "x-user-id"}, "count": 5}\n]',
  system: '[\n  {"qps": 1000}\n]',
  authority: '[\n  {"resource": "GET /orders/{id}", "strategy": 1, "limitApp": "untrusted-app"}\n]',
  lanes: '{"lanes": [\n  {"name": "beta-users", "tag": "gray", "conditions": [{"header": "x-user-id", "oneOf": ["42"]}]},\n'
    + '  {"name": "gray-half", "tag": "gray", "percentage": 50, "stickyOn": {"header": "x-user-id"}}\n]}',
};
const EMPTY = (kind) => (kind === 'lanes' ? '{"lanes": []}' : '[]');
const REFRESH_MS = 1000;

export async function apps(el) {
  const open = h('input', { type: 'text', name: 'app', placeholder: 'application name' });
  const form = h('form', { class: 'bar' }, open, h('button', { type: 'submit' }, 'Open'),
    h('span', { class: 'muted' }, 'an application that does not report (no agent running) can still get rules'));
  form.addEventListener('submit', (e) => { e.preventDefault(); if (open.value.trim()) go('app', { name: open.value.trim() }); });
  el.append(h('h1', {}, 'Governance'), form,
    h('p', {}, h('a', { href: link('lanes'), 'data-test': 'edit-lanes' }, 'Edit the lanes'),
      h('span', { class: 'muted' }, ' (one document for every application of the namespace)')));
  const body = await api.get(TRAFFIC + '/apps');
  const rows = (body.apps || []).map(a => h('tr', { 'data-test': 'app-row' },
    h('td', {}, h('a', { href: link('app', { name: a.app }) }, a.app)),
    h('td', { class: 'num' }, a.instances.length),
    h('td', {}, [...new Set(a.instances.map(i => i.lane || 'base'))].map(l => h('span', { class: 'pill lane' }, l + ' '))),
    h('td', {}, formatTime(Math.max(...a.instances.map(i => i.lastReportMillis))))));
  el.append(missingNodes(body), h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Application'), h('th', { class: 'num' }, 'Instances reporting'),
    h('th', {}, 'Lanes'), h('th', {}, 'Last report'))),
    h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: 4, class: 'muted' },
      'No agent reports traffic. Agents report when started with sluice.server.addr pointing here.')))));
}

export async function app(el, params, state) {
  const name = params.name;
  let selected = params.resource || '';
  let stopped = false;
  el.append(h('h1', {}, 'Application ' + name));

  const instancesBox = h('div', {});
  const resourcesBody = h('tbody', {});
  const chartsBox = h('div', {});
  el.append(h('h2', {}, 'Instances and lanes'), instancesBox,
    h('h2', {}, 'Resources'),
    h('p', { class: 'muted' }, 'Last complete second, summed over instances. Statistics are kept for resources with a rule, '
      + 'or for all with the agent option sluice.traffic.all-resources=true.'),
    h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Resource'), h('th', {}, 'Where'), h('th', { class: 'num' }, 'Pass/s'),
      h('th', { class: 'num' }, 'Block/s'), h('th', { class: 'num' }, 'Failed/s'), h('th', { class: 'num' }, 'Avg RT ms'),
      h('th', { class: 'num' }, 'p99 ms'), h('th', { class: 'num' }, 'In flight'))), resourcesBody),
    chartsBox);
  el.append(rulesEditor(name, state, () => selected, params.kind));

  const ms = (micros) => (micros == null || micros < 0 ? '' : (micros / 1000).toFixed(micros < 10000 ? 2 : 0));
  async function refresh() {
    const [apps, resources] = await Promise.all([
      api.get(TRAFFIC + '/apps'), api.get(TRAFFIC + '/resources', { app: name })]);
    const mine = (apps.apps || []).find(a => a.app === name);
    // In a cluster each agent reports to one node; the server merges every node's share.
    const clustered = mine && mine.instances.some(i => i.node);
    clear(instancesBox);
    instancesBox.append(missingNodes(apps.missing && apps.missing.length ? apps : resources),
      mine ? h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Instance'), h('th', {}, 'Lane'),
      clustered ? h('th', {}, 'Reports to node') : null, h('th', {}, 'Last report'), h('th', { class: 'num' }, 'Resources seen'))),
      h('tbody', {}, mine.instances.map(i => h('tr', { 'data-test': 'instance-row' }, h('td', {}, i.instance),
        h('td', {}, h('span', { class: 'pill lane' }, i.lane || 'base')), clustered ? h('td', { 'data-test': 'node' }, i.node) : null,
        h('td', {}, formatTime(i.lastReportMillis)),
        h('td', { class: 'num' }, i.resourcesSeen))))) : h('p', { class: 'muted' }, 'No instance of ' + name + ' reports traffic now.'));
    clear(resourcesBody);
    for (const r of resources.resources || []) {
      const s = r.lastSecond;
      resourcesBody.append(h('tr', { 'data-test': 'resource-row', 'data-resource': r.name, class: r.name === selected ? 'selected' : '' },
        h('td', {}, h('a', { href: '#', onclick: (e) => { e.preventDefault(); selected = r.name; refresh(); } }, r.name)),
        h('td', { class: 'muted' }, r.kind),
        h('td', { class: 'num', 'data-test': 'pass' }, s ? s.pass : ''), h('td', { class: 'num', 'data-test': 'block' }, s ? s.block : ''),
        h('td', { class: 'num' }, s ? s.failed : ''), h('td', { class: 'num' }, s ? ms(s.avgRtMicros) : ''),
        h('td', { class: 'num' }, s ? ms(s.p99RtMicros) : ''), h('td', { class: 'num' }, s ? s.concurrency : '')));
    }
    if (!selected && resources.resources && resources.resources.length) selected = resources.resources[0].name;
    clear(chartsBox);
    if (selected) {
      const series = await api.get(TRAFFIC + '/series', { app: name, resource: selected });
      chartsBox.append(charts(selected, series.seconds || []));
    }
  }

  async function loop() {
    while (!stopped) {
      try { await refresh(); } catch (e) { if (e.status === 401) return; }
      await new Promise(r => setTimeout(r, REFRESH_MS));
    }
  }
  loop();
  return () => { stopped = true; };
}

// How long after a second ends its report may still be on the way: an agent sends each completed
// second on its next tick (up to a second later) and the page polls once a second, so the newest
// seconds are often not reported yet. They are drawn as gaps, not as zero.
const REPORT_LAG_SECONDS = 5;

function charts(resource, points) {
  // One value per second of the last minute. A second before the latest report that no instance
  // reported counts as 0 (no calls); a second after it is still on its way unless it is older than
  // REPORT_LAG_SECONDS (then the agents went quiet, and it counts as 0 too).
  const now = Math.floor(Date.now() / 1000) - 1;
  const bySecond = new Map(points.map(p => [Math.floor(p.startMillis / 1000), p]));
  const latest = bySecond.size ? Math.max(...bySecond.keys()) : -Infinity;
  const pending = (t) => t > latest && now - t < REPORT_LAG_SECONDS;
  const seconds = [];
  for (let t = now - 59; t <= now; t++) seconds.push(bySecond.get(t) || (pending(t) ? undefined : null));
  const v = (f) => seconds.map(p => (p === undefined ? null : p ? f(p) : 0));
  const rt = (f) => seconds.map(p => (p && f(p) >= 0 ? f(p) / 1000 : null));
  const box = (title, legend, svg, test) => h('div', { class: 'chart', 'data-test': test },
    h('h3', {}, title), svg, h('div', { class: 'legend' }, legend.map(([n, c]) => h('span', { style: 'color:' + c }, '■ ' + n))));
  const newest = now - latest < REPORT_LAG_SECONDS + 60 ? bySecond.get(latest) : null;
  return h('div', {},
    h('h2', {}, 'Live: ' + resource),
    h('div', { class: 'charts' },
      box('Calls per second', [['pass', '#2b6cb0'], ['block', '#c53030'], ['failed', '#dd6b20']],
        lineChart([{ name: 'pass', color: '#2b6cb0', values: v(p => p.pass) },
          { name: 'block', color: '#c53030', values: v(p => p.block) },
          { name: 'failed', color: '#dd6b20', values: v(p => p.failed) }], '/s'), 'qps-chart'),
      box('Response time (ms)', [['p50', '#38a169'], ['p99', '#805ad5'], ['avg', '#718096']],
        lineChart([{ name: 'p50', color: '#38a169', values: rt(p => p.p50RtMicros) },
          { name: 'p99', color: '#805ad5', values: rt(p => p.p99RtMicros) },
          { name: 'avg', color: '#718096', values: rt(p => p.avgRtMicros) }], 'ms'), 'rt-chart'),
      box('In flight', [['concurrency', '#2c7a7b']],
        lineChart([{ name: 'concurrency', color: '#2c7a7b', values: v(p => p.concurrency) }]), 'concurrency-chart')),
    newest
      ? h('p', { class: 'muted', 'data-test': 'latest-block' },
        `Blocked in the latest reported second (${formatTime(newest.startMillis)}): `,
        h('span', { 'data-test': 'latest-block-count' }, String(newest.block)))
      : h('p', { class: 'muted', 'data-test': 'latest-block' }, 'No calls of this resource reported in the last minute.'));
}

/** The namespace's lane document on a page of its own (the same editor, lanes only). */
export async function lanes(el, params, state) {
  el.append(h('h1', {}, 'Lanes'),
    h('p', { class: 'muted' }, 'Entry rules that tag requests with a lane, for every application of this namespace. '
      + 'Instances join a lane with the agent setting sluice.lane; the Services and Governance pages show which are in which.'),
    rulesEditor(null, state, () => '', 'lanes'));
  const members = h('div', { 'data-test': 'lane-members-box' });
  el.append(members);
  laneMembers(members).catch(e => message(members, e.message));
}

function rulesEditor(app, state, selectedResource, initialKind) {
  const box = h('div', {});
  let kind = KINDS.includes(initialKind) ? initialKind : 'flow';
  const tabs = h('div', { class: 'tabs' });
  const editor = h('textarea', { name: 'rules', spellcheck: 'false', 'data-test': 'rules-editor' });
  const status = h('div', { 'data-test': 'rules-status' });
  const inForce = h('ul', { 'data-test': 'rules-in-force' });
  const save = h('button', { type: 'button', 'data-test': 'save-rules' }, 'Save');
  const quickResource = h('input', { type: 'text', name: 'quick-resource', placeholder: 'resource', size: 40 });
  const quickQps = h('input', { type: 'number', name: 'quick-qps', min: 0, step: 1, value: 10, style: 'width:90px' });
  const quickAdd = h('button', { type: 'button', class: 'secondary', onclick: () => {
      let rules;
      try { rules = JSON.parse(editor.value || '[]'); } catch (e) { message(status, 'Fix the JSON first: ' + e.message); return; }
      if (!Array.isArray(rules)) { message(status, 'The rules must be a JSON array.'); return; }
      const resource = quickResource.value.trim() || selectedResource();
      rules = rules.filter(r => !(r && r.resource === resource && (r.grade === undefined || r.grade === 1)));
      rules.push({ resource, grade: 1, count: Number(quickQps.value) });
      editor.value = JSON.stringify(rules, null, 2);
    } }, 'Add to the rules below');
  const quick = h('div', { class: 'bar', 'data-test': 'quick-flow' }, 'Add a QPS limit: ', quickResource, quickQps, ' per second ', quickAdd);
  // While the stored document loads, nothing can be edited or saved: the load replaces the editor's
  // text, so an edit made before it arrived would be lost, or a save would store the wrong text.
  const editable = (on) => { editor.readOnly = !on; save.disabled = !on; quickAdd.disabled = !on; lanesForm.box.inert = !on; };

  const lanesForm = laneForm(editor, status);

  async function load() {
    editable(false);
    clear(status);
    clear(inForce);
    status.append(h('p', { class: 'muted' }, 'Loading…'));
    for (const b of tabs.children) b.classList.toggle('active', b.dataset.kind === kind);
    quick.hidden = kind !== 'flow';
    lanesForm.box.hidden = kind !== 'lanes';
    const body = await api.get(RULES, { app, kind, namespaceId: state.namespace });
    clear(status);
    editor.value = body.exists ? body.content : '';
    lanesForm.refresh();
    editor.placeholder = 'No ' + (kind === 'lanes' ? 'lanes' : kind + ' rules') + ' yet. For example:\n' + EXAMPLES[kind];
    showRules(body.rules || [], body.invalid);
    status.append(h('p', { class: 'muted' }, `Stored as ${body.dataId} in group ${body.group}` + (body.exists ? '' : ' (not yet)')
      + (kind === 'lanes' ? ': one document for every application of the namespace.' : '')));
    editable(true);
  }
  // A document that could not be read stays read-only: saving over it unseen could lose rules.
  function reload() {
    load().catch(e => { clear(status); message(status, 'Could not load the stored document (pick the tab again to retry): ' + e.message); });
  }
  function showRules(rules, invalid) {
    clear(inForce);
    if (invalid) inForce.append(h('li', { class: 'error' }, 'The stored document is refused by the agents: ' + invalid));
    for (const r of rules) inForce.append(h('li', {}, r));
  }
  for (const k of app ? KINDS : []) {
    tabs.append(h('button', { type: 'button', 'data-kind': k, 'data-test': 'rules-tab-' + k, onclick: () => { kind = k; reload(); } }, k));
  }
  save.addEventListener('click', async () => {
    save.disabled = true;
    clear(status);
    try {
      const body = await api.post(RULES, { app, kind, content: editor.value.trim() ? editor.value : EMPTY(kind), namespaceId: state.namespace });
      const noun = kind === 'lanes' ? 'lane' : 'rule';
      message(status, `Saved ${body.dataId}: ${body.rules.length} ${noun}${body.rules.length === 1 ? '' : 's'}; agents apply them within about a second.`, 'ok');
      showRules(body.rules);
    } catch (e) {
      message(status, e.status === 400 ? 'Refused, nothing saved: ' + e.message : 'Not saved: ' + e.message);
    } finally {
      save.disabled = false;
    }
  });
  box.append(h('h2', {}, app ? 'Rules' : 'Lane document'), tabs, quick, lanesForm.box, editor, h('div', { class: 'bar' }, save), status,
    h('h3', {}, 'In force after saving'), inForce);
  reload();
  return box;
}
