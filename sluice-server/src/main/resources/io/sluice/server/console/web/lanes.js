// A form for one lane of the lane document (name, tag, on/off, match conditions, share and stickiness),
// which writes the lane into the document's JSON in the editor beside it; saving still goes through
// the server, which checks the whole document with sluice-flow's lane parser, the agents' own. Also
// which reporting instances are in each lane.
import { h, clear, missingNodes, message } from './dom.js';
import * as api from './api.js';

const SOURCES = ['header', 'cookie', 'query'];
const OPERATORS = ['equals', 'oneOf', 'prefix', 'regex'];

/** The lanes of the editor's document, or throws with what is wrong with its JSON. */
function documentOf(editor) {
  const text = editor.value.trim();
  if (!text) return { lanes: [] };
  const doc = JSON.parse(text);
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('the document must be a JSON object with "lanes"');
  if (doc.lanes === undefined) doc.lanes = [];
  if (!Array.isArray(doc.lanes)) throw new Error('"lanes" must be an array');
  return doc;
}

function select(name, options, value) {
  const s = h('select', { name }, options.map(o => h('option', { value: o }, o)));
  s.value = value;
  return s;
}

/** The form; `editor` is the textarea holding the document, `status` where to say what happened. */
export function laneForm(editor, status) {
  const pick = h('select', { name: 'lane-pick', 'data-test': 'lane-pick' });
  const name = h('input', { type: 'text', name: 'lane-name', placeholder: 'beta-users', size: 18 });
  const tag = h('input', { type: 'text', name: 'lane-tag', placeholder: 'gray', size: 12 });
  const enabled = h('input', { type: 'checkbox', name: 'lane-enabled', checked: true });
  const match = select('lane-match', ['all', 'any'], 'all');
  const percentage = h('input', { type: 'number', name: 'lane-percentage', min: 0, max: 100, step: '0.01', placeholder: 'none', style: 'width:90px' });
  const stickySource = select('lane-sticky-source', ['none', ...SOURCES], 'none');
  const stickyName = h('input', { type: 'text', name: 'lane-sticky-name', placeholder: 'x-user-id', size: 14 });
  const conditions = h('tbody', { 'data-test': 'lane-conditions' });

  function conditionRow(c = {}) {
    const source = SOURCES.find(s => c[s] !== undefined) || 'header';
    const operator = OPERATORS.find(o => c[o] !== undefined) || 'equals';
    const value = c[operator] === undefined ? '' : Array.isArray(c[operator]) ? c[operator].join(', ') : String(c[operator]);
    const row = h('tr', { 'data-test': 'lane-condition' },
      h('td', {}, select('condition-source', SOURCES, source)),
      h('td', {}, h('input', { type: 'text', name: 'condition-name', value: c[source] || '', size: 16 })),
      h('td', {}, select('condition-operator', OPERATORS, operator)),
      h('td', {}, h('input', { type: 'text', name: 'condition-value', value, size: 24, placeholder: 'oneOf: a, b' })),
      h('td', {}, h('button', { type: 'button', class: 'secondary', onclick: () => row.remove() }, 'remove')));
    conditions.append(row);
  }

  /** The lane the form describes, as the document holds it. */
  function lane() {
    const out = { name: name.value.trim(), tag: tag.value.trim() };
    if (!enabled.checked) out.enabled = false;
    const rows = [...conditions.querySelectorAll('tr')];
    if (rows.length) {
      out.match = match.value;
      out.conditions = rows.map(r => {
        const field = (n) => r.querySelector(`[name='${n}']`).value;
        const operator = field('condition-operator');
        const raw = field('condition-value');
        return { [field('condition-source')]: field('condition-name').trim(),
          [operator]: operator === 'oneOf' ? raw.split(',').map(v => v.trim()).filter(v => v) : raw };
      });
    }
    if (percentage.value !== '') out.percentage = Number(percentage.value);
    if (stickySource.value !== 'none') out.stickyOn = { [stickySource.value]: stickyName.value.trim() };
    return out;
  }

  function show(l = {}) {
    name.value = l.name || '';
    tag.value = l.tag || '';
    enabled.checked = l.enabled !== false;
    match.value = l.match === 'any' ? 'any' : 'all';
    percentage.value = l.percentage === undefined ? '' : l.percentage;
    const sticky = l.stickyOn && SOURCES.find(s => l.stickyOn[s] !== undefined);
    stickySource.value = sticky || 'none';
    stickyName.value = sticky ? l.stickyOn[sticky] : '';
    clear(conditions);
    for (const c of l.conditions || []) conditionRow(c);
  }

  /** Fills the lane menu from the editor's document; keeps the chosen lane if it is still there. */
  function refresh() {
    const chosen = pick.value;
    clear(pick).append(h('option', { value: '' }, 'a new lane'));
    let lanes = [];
    try { lanes = documentOf(editor).lanes; } catch (e) { /* the editor says so on save */ }
    for (const l of lanes) if (l && l.name) pick.append(h('option', { value: l.name }, l.name));
    pick.value = [...pick.options].some(o => o.value === chosen) ? chosen : '';
  }

  pick.addEventListener('change', () => {
    try {
      show(documentOf(editor).lanes.find(l => l && l.name === pick.value) || {});
    } catch (e) {
      message(status, 'Fix the JSON first: ' + e.message);
    }
  });

  function write(change) {
    let doc;
    try { doc = documentOf(editor); } catch (e) { message(status, 'Fix the JSON first: ' + e.message); return; }
    const previous = pick.value;
    const at = doc.lanes.findIndex(l => l && l.name === (previous || lane().name));
    change(doc.lanes, at);
    editor.value = JSON.stringify(doc, null, 2);
    refresh();
    message(status, 'The document below changed; Save checks it with the agents\' parser and stores it.', 'ok');
  }

  const put = h('button', { type: 'button', class: 'secondary', 'data-test': 'lane-put', onclick: () => write((lanes, at) => {
    const l = lane();
    if (at >= 0) lanes[at] = l; else lanes.push(l);
    setTimeout(() => { pick.value = l.name; });
  }) }, 'Put this lane into the document');
  const drop = h('button', { type: 'button', class: 'secondary', 'data-test': 'lane-remove', onclick: () => write((lanes, at) => {
    if (at >= 0) lanes.splice(at, 1);
    show({});
  }) }, 'Remove it from the document');

  editor.addEventListener('change', refresh);
  const box = h('fieldset', { class: 'lane-form', 'data-test': 'lane-form' },
    h('legend', {}, 'Lane'),
    h('div', { class: 'bar' }, 'Edit ', pick),
    h('div', { class: 'bar' }, h('label', {}, 'Name ', name), h('label', {}, 'Tag ', tag), h('label', {}, enabled, ' enabled')),
    h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Source'), h('th', {}, 'Name'), h('th', {}, 'Operator'), h('th', {}, 'Value'), h('th', {}, ''))),
      conditions),
    h('div', { class: 'bar' }, h('button', { type: 'button', class: 'secondary', 'data-test': 'lane-add-condition', onclick: () => conditionRow() }, 'Add a condition'),
      h('label', {}, ' conditions that must hold: ', match)),
    h('div', { class: 'bar' }, h('label', {}, 'Share of requests (%) ', percentage),
      h('label', {}, ' sticky on ', stickySource, ' ', stickyName)),
    h('div', { class: 'bar' }, put, drop));
  return { box, refresh };
}

/** Which reporting instances carry each lane tag, from the agents' traffic reports. */
export async function laneMembers(el) {
  const body = await api.get('/nacos/v1/sluice/traffic/apps');
  const byLane = new Map();
  for (const a of body.apps || []) {
    for (const i of a.instances || []) {
      const lane = i.lane || 'base';
      if (!byLane.has(lane)) byLane.set(lane, []);
      byLane.get(lane).push(a.app + ' ' + i.instance);
    }
  }
  clear(el).append(h('h3', {}, 'Instances in each lane'), missingNodes(body),
    byLane.size ? h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Lane'), h('th', {}, 'Instances (application, instance)'))),
      h('tbody', {}, [...byLane.entries()].sort().map(([lane, members]) => h('tr', { 'data-test': 'lane-members' },
        h('td', {}, h('span', { class: 'pill lane' }, lane)), h('td', {}, members.sort().join(' · '))))))
      : h('p', { class: 'muted' }, 'No agent reports traffic yet: instances join a lane with the agent setting sluice.lane.'));
}
