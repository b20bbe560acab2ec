// Builds DOM nodes from data without ever parsing it as HTML, so names and contents typed by
// users (config contents, service metadata, resource names) are always shown as text.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'value') el.value = v;
    else if (k === 'checked') el.checked = !!v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c == null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function formatTime(millis) {
  if (!millis) return '';
  const d = new Date(typeof millis === 'string' && /^\d+$/.test(millis) ? Number(millis) : millis);
  return isNaN(d) ? String(millis) : d.toLocaleString();
}

export function message(el, text, kind = 'error') {
  clear(el);
  if (text) el.append(h('span', { class: kind, 'data-test': kind === 'error' ? 'error' : 'ok' }, text));
}

/** Moves to another view: #/name?params. */
export function go(name, params = {}) {
  location.hash = link(name, params);
}

export function link(name, params = {}) {
  const q = new URLSearchParams(
    Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== ''));
  return '#/' + name + (q.toString() ? '?' + q : '');
}

/**
 * In a cluster, what each node holds alone (agents' traffic, clients' subscriptions and listeners)
 * is asked of every node; a node that did not answer is named here rather than silently left out.
 * Nothing (an empty fragment, which any append takes) when every node answered.
 */
export function missingNodes(body) {
  const missing = (body && body.missing) || [];
  if (!missing.length) return document.createDocumentFragment();
  return h('p', { class: 'error', 'data-test': 'missing-nodes' }, 'Incomplete: '
    + missing.map(m => `node ${m.address} did not answer (${m.reason})`).join('; ')
    + ', so what reaches the cluster through ' + (missing.length === 1 ? 'it' : 'them') + ' is not shown.');
}
