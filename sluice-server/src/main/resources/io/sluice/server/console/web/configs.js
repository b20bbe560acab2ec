// Configs: search (exact or with * wildcards), create and edit with a syntax check of the type,
// beta publishing to listed IPs, history with a diff between any two versions and rollback, and
// the clients listening to a config.
import { h, clear, formatTime, message, go, link, missingNodes } from './dom.js';
import * as api from './api.js';
import { renderDiff } from './diff.js';

const CONFIGS = '/nacos/v1/cs/configs';
const TYPES = ['text', 'json', 'yaml', 'properties', 'xml', 'html', 'toml'];
const PAGE_SIZE = 20;

export async function list(el, params, state) {
  const mode = params.mode === 'blur' ? 'blur' : 'accurate';
  const pageNo = Math.max(1, Number(params.page || 1));
  const dataId = h('input', { type: 'text', name: 'dataId', placeholder: 'data id', value: params.dataId || '' });
  const group = h('input', { type: 'text', name: 'group', placeholder: 'group', value: params.group || '' });
  const modeSelect = h('select', { name: 'mode' },
    h('option', { value: 'accurate' }, 'exact'), h('option', { value: 'blur' }, 'blur (* wildcards)'));
  modeSelect.value = mode;
  const form = h('form', { class: 'bar', 'data-test': 'config-search' },
    dataId, group, modeSelect, h('button', { type: 'submit' }, 'Search'),
    h('button', { type: 'button', class: 'secondary', 'data-test': 'new-config',
      onclick: () => go('config', { new: '1' }) }, 'New config'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    go('configs', { dataId: dataId.value, group: group.value, mode: modeSelect.value });
  });
  el.append(h('h1', {}, 'Configs'), form);
  const body = await api.get(CONFIGS, {
    search: mode, dataId: params.dataId || '', group: params.group || '',
    tenant: state.namespace, pageNo, pageSize: PAGE_SIZE,
  });
  const rows = (body.pageItems || []).map(c => h('tr', { 'data-test': 'config-row' },
    h('td', {}, h('a', { href: link('config', { dataId: c.dataId, group: c.group }) }, c.dataId)),
    h('td', {}, c.group),
    h('td', {}, c.type || ''),
    h('td', {}, c.appName || ''),
    h('td', {},
      h('a', { href: link('history', { dataId: c.dataId, group: c.group }) }, 'history'), ' · ',
      h('a', { href: link('listeners', { dataId: c.dataId, group: c.group }) }, 'listeners'))));
  el.append(h('table', {},
    h('thead', {}, h('tr', {}, h('th', {}, 'Data id'), h('th', {}, 'Group'), h('th', {}, 'Type'), h('th', {}, 'App'), h('th', {}, ''))),
    h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: 5, class: 'muted' }, 'No config matches.')))));
  const pages = Math.max(1, body.pagesAvailable || 1);
  el.append(h('p', { class: 'bar' },
    `${body.totalCount || 0} configs, page ${pageNo} of ${pages} `,
    pageNo > 1 ? h('a', { href: link('configs', { ...params, page: pageNo - 1 }) }, '‹ previous') : null, ' ',
    pageNo < pages ? h('a', { href: link('configs', { ...params, page: pageNo + 1 }) }, 'next ›') : null));
}

/** What is wrong with content of this type, or null; only types a browser can check alone. */
export function syntaxError(type, content) {
  if (type === 'json') {
    try { JSON.parse(content); return null; } catch (e) { return 'Not valid JSON: ' + e.message; }
  }
  if (type === 'xml' || type === 'html') {
    const doc = new DOMParser().parseFromString(content, type === 'xml' ? 'application/xml' : 'text/html');
    const error = type === 'xml' ? doc.querySelector('parsererror') : null;
    return error ? 'Not well-formed XML: ' + error.textContent.split('\n')[0] : null;
  }
  if (type === 'properties') {
    const bad = content.split('\n').findIndex(line => {
      const t = line.trim();
      return t && !t.startsWith('#') && !t.startsWith('!') && !/[=:\s]/.test(t) && !line.endsWith('\\');
    });
    return bad >= 0 ? `Line ${bad + 1} has no key=value separator` : null;
  }
  return null;
}

export async function edit(el, params, state) {
  const creating = params.new === '1';
  let detail = null;
  if (!creating) {
    detail = await api.get(CONFIGS, { show: 'all', dataId: params.dataId, group: params.group, tenant: state.namespace })
      .catch(e => { if (e.status === 404) return null; throw e; });
    if (!detail || typeof detail !== 'object') detail = null; // an empty answer: no such config
  }
  const dataId = h('input', { type: 'text', name: 'dataId', value: detail ? detail.dataId : params.dataId || '', disabled: !creating });
  const group = h('input', { type: 'text', name: 'group', value: detail ? detail.group : params.group || 'DEFAULT_GROUP', disabled: !creating });
  const type = h('select', { name: 'type' }, TYPES.map(t => h('option', { value: t }, t)));
  type.value = detail && TYPES.includes(detail.type) ? detail.type : 'text';
  const content = h('textarea', { name: 'content', spellcheck: 'false' });
  content.value = detail ? detail.content || '' : '';
  const desc = h('input', { type: 'text', name: 'desc', value: detail ? detail.desc || '' : '', size: 60 });
  const betaIps = h('input', { type: 'text', name: 'betaIps', placeholder: 'optional: 10.0.0.1,10.0.0.2', size: 40 });
  const syntax = h('p', { class: 'error', 'data-test': 'syntax' });
  const status = h('p', { 'data-test': 'status' });
  const check = () => { syntax.textContent = syntaxError(type.value, content.value) || ''; };
  content.addEventListener('input', check);
  type.addEventListener('change', check);
  const save = h('button', { type: 'submit', 'data-test': 'publish' }, 'Publish');
  const form = h('form', {},
    h('div', { class: 'bar' }, h('label', {}, 'Data id ', dataId), h('label', {}, 'Group ', group), h('label', {}, 'Type ', type)),
    content, syntax,
    h('div', { class: 'bar' }, h('label', {}, 'Description ', desc)),
    h('div', { class: 'bar' }, h('label', {}, 'Beta to IPs ', betaIps),
      h('span', { class: 'muted' }, 'only these clients get it until the beta is stopped or the config is published without IPs')),
    h('div', { class: 'bar' }, save,
      !creating ? h('a', { href: link('history', { dataId: params.dataId, group: params.group }) }, 'history') : null,
      !creating && detail ? h('button', { type: 'button', class: 'danger', 'data-test': 'delete', onclick: async () => {
        if (!confirm(`Delete ${params.dataId} (${params.group})? Clients reading it get nothing; its history stays.`)) return;
        try {
          await api.call('DELETE', CONFIGS, { dataId: params.dataId, group: params.group, tenant: state.namespace });
          go('configs', { dataId: params.dataId, group: params.group });
        } catch (err) {
          message(status, 'Not deleted: ' + err.message);
        }
      } }, 'Delete') : null),
    status);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const problem = syntaxError(type.value, content.value);
    if (problem && !confirm(problem + '\n\nPublish anyway?')) return;
    if (!dataId.value.trim() || !group.value.trim()) { message(status, 'Data id and group are required.'); return; }
    save.disabled = true;
    try {
      await api.post(CONFIGS, {
        dataId: dataId.value.trim(), group: group.value.trim(), tenant: state.namespace,
        content: content.value, type: type.value, desc: desc.value,
      }, { headers: betaIps.value.trim() ? { betaIps: betaIps.value.trim() } : {} });
      const what = (betaIps.value.trim() ? 'Published as beta to ' + betaIps.value.trim() : 'Published')
        + ' at ' + new Date().toLocaleTimeString();
      if (creating) {
        go('config', { dataId: dataId.value.trim(), group: group.value.trim(), published: what });
      } else {
        message(status, what, 'ok');
      }
    } catch (err) {
      message(status, 'Not published: ' + err.message);
    } finally {
      save.disabled = false;
    }
  });
  el.append(h('h1', {}, creating ? 'New config' : 'Config ' + params.dataId), form);
  if (params.published) message(status, params.published, 'ok');
  else if (!creating && !detail) message(status, 'This config does not exist (yet): publishing creates it.', 'muted');
  check();
}

export async function history(el, params, state) {
  el.append(h('h1', {}, 'History of ' + params.dataId + ' (' + params.group + ')'),
    h('p', {}, h('a', { href: link('config', { dataId: params.dataId, group: params.group }) }, 'edit the current version')));
  const page = await api.get('/nacos/v1/cs/history', {
    search: 'accurate', dataId: params.dataId, group: params.group, tenant: state.namespace, pageNo: 1, pageSize: 100,
  });
  const entries = page.pageItems || [];
  if (!entries.length) { el.append(h('p', { class: 'muted' }, 'No history kept for this config.')); return; }
  const contentOf = new Map();
  const load = async (nid) => {
    if (!contentOf.has(nid)) {
      const entry = await api.get('/nacos/v1/cs/history', { nid, dataId: params.dataId, group: params.group, tenant: state.namespace });
      contentOf.set(nid, entry);
    }
    return contentOf.get(nid);
  };
  const status = h('p', { 'data-test': 'status' });
  const compare = h('div', {});
  let left = entries.length > 1 ? entries[1].id : entries[0].id;
  let right = entries[0].id;
  const showDiff = async () => {
    clear(compare);
    const [a, b] = await Promise.all([load(left), load(right)]);
    compare.append(renderDiff(a.content, b.content, 'version ' + left, 'version ' + right));
  };
  const op = (t) => ({ I: 'created', U: 'updated', D: 'deleted' }[t] || t);
  const rows = entries.map(e => {
    const leftRadio = h('input', { type: 'radio', name: 'left', value: e.id, checked: String(e.id) === String(left), onchange: () => { left = e.id; showDiff(); } });
    const rightRadio = h('input', { type: 'radio', name: 'right', value: e.id, checked: String(e.id) === String(right), onchange: () => { right = e.id; showDiff(); } });
    const rollback = h('button', { type: 'button', class: 'secondary', 'data-test': 'rollback', 'data-id': e.id,
      onclick: async () => {
        const entry = await load(e.id);
        if (!confirm(`Publish version ${e.id} (${op(e.opType)} ${formatTime(e.lastModifiedTime || e.createdTime)}) as the current content?`)) return;
        try {
          await api.post(CONFIGS, { dataId: params.dataId, group: params.group, tenant: state.namespace,
            content: entry.content, type: entry.type || 'text', appName: entry.appName || '' });
          message(status, 'Rolled back to version ' + e.id + '.', 'ok');
        } catch (err) {
          message(status, 'Rollback failed: ' + err.message);
        }
      } }, 'Roll back to this');
    return h('tr', { 'data-test': 'history-row' },
      h('td', {}, leftRadio, ' ', rightRadio), h('td', {}, e.id), h('td', {}, op(e.opType)),
      h('td', {}, formatTime(e.lastModifiedTime || e.createdTime)), h('td', {}, e.srcUser || ''), h('td', {}, e.srcIp || ''),
      h('td', {}, e.opType === 'D' ? h('span', { class: 'muted' }, 'deleted') : rollback));
  });
  el.append(status,
    h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'compare (− / +)'), h('th', {}, 'Version'), h('th', {}, 'Change'),
      h('th', {}, 'When'), h('th', {}, 'User'), h('th', {}, 'From'), h('th', {}, ''))), h('tbody', {}, rows)),
    h('h2', {}, 'Difference'), compare);
  await showDiff();
}

export async function listeners(el, params, state) {
  el.append(h('h1', {}, 'Clients listening to ' + params.dataId + ' (' + params.group + ')'));
  const body = await api.get(CONFIGS + '/listener', { dataId: params.dataId, group: params.group, tenant: state.namespace });
  // In a cluster each node holds its own clients' listeners: the server asks every node and lists
  // each client with the node it listens through (clients on one host count once per node).
  const status = body.lisentersGroupkeyStatus || body.listenersGroupkeyStatus || {};
  const list = body.listeners || Object.entries(status).map(([ip, md5]) => ({ ip, md5 }));
  const clustered = list.some(l => l.node);
  const rows = list.map(l => h('tr', { 'data-test': 'listener-row' }, h('td', {}, l.ip), h('td', {}, l.md5 || '(none)'),
    clustered ? h('td', { 'data-test': 'node' }, l.node) : null));
  el.append(missingNodes(body), h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Client IP'), h('th', {}, 'md5 it holds'),
    clustered ? h('th', {}, 'Through node') : null)),
    h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: clustered ? 3 : 2, class: 'muted' }, 'No client listens to it now.')))));
}
