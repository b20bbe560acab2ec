// The console's shell: routes #/... to a view, keeps the namespace, and shows the login when the
// server answers 401 (auth on).
import { h, clear } from './dom.js';
import * as api from './api.js';
import * as configs from './configs.js';
import * as services from './services.js';
import * as governance from './governance.js';
import * as cluster from './cluster.js';

const view = document.getElementById('view');
const namespaceSelect = document.getElementById('namespace');
let stopCurrent = null;
let needLogin = false;

const state = {
  namespace: sessionStorage.getItem('sluice.console.namespace') || '',
};

const routes = {
  configs: configs.list,
  config: configs.edit,
  history: configs.history,
  listeners: configs.listeners,
  services: services.list,
  service: services.detail,
  governance: governance.apps,
  app: governance.app,
  lanes: governance.lanes,
  cluster: cluster.nodes,
  login: renderLogin,
};

function parseHash() {
  const hash = location.hash.replace(/^#\/?/, '');
  const [name, query] = hash.split('?');
  return { name: name || 'configs', params: Object.fromEntries(new URLSearchParams(query || '')) };
}

let shown = 0; // the render whose page is in the view; an older one still loading shows nothing

async function render() {
  const mine = ++shown;
  if (stopCurrent) { try { stopCurrent(); } catch (e) { /* ignore */ } stopCurrent = null; }
  const { name, params } = parseHash();
  for (const a of document.querySelectorAll('header nav a')) {
    a.classList.toggle('active', a.dataset.nav === name || (a.dataset.nav === 'configs' && ['config', 'history', 'listeners'].includes(name))
      || (a.dataset.nav === 'services' && name === 'service') || (a.dataset.nav === 'governance' && ['app', 'lanes'].includes(name)));
  }
  const page = routes[name] || configs.list;
  // Each render fills a container of its own, so one superseded while it waited for the server
  // (a click, a namespace change) writes into a detached element instead of beside the new page.
  const container = h('div', { class: 'page' });
  clear(view).append(container);
  try {
    const stop = await page(container, params, state);
    if (typeof stop === 'function') {
      if (mine === shown) stopCurrent = stop;
      else try { stop(); } catch (e) { /* ignore */ }
    }
  } catch (e) {
    if (e.status === 401 || mine !== shown) return;
    container.append(h('p', { class: 'error', 'data-test': 'error' }, e.message));
  }
  document.getElementById('user').textContent = api.user() ? 'signed in as ' + api.user() : '';
}

function renderLogin(el, params) {
  const username = h('input', { type: 'text', name: 'username', value: 'nacos', autocomplete: 'username' });
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'current-password' });
  const error = h('p', { class: 'error' });
  const form = h('form', { class: 'login', 'data-test': 'login' },
    h('h1', {}, 'Sign in'),
    h('p', { class: 'muted' }, 'This server has auth on.'),
    h('label', {}, 'User ', username),
    h('label', {}, 'Password ', password),
    h('button', { type: 'submit' }, 'Sign in'),
    error);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      await api.login(username.value, password.value);
      needLogin = false;
      await loadNamespaces();
      location.hash = params.back || '#/configs';
    } catch (e) {
      error.textContent = e.status === 401 || e.status === 403 ? 'Wrong user or password.' : e.message;
    }
  });
  el.append(form);
}

/**
 * Fills the namespace menu. Runs beside the first page's own calls rather than before them; true
 * when the namespace the page was shown for no longer exists (it is then shown again for public).
 */
async function loadNamespaces() {
  const shownFor = state.namespace;
  clear(namespaceSelect);
  let list = [];
  try {
    const body = await api.get('/nacos/v1/console/namespaces');
    list = body.data || [];
  } catch (e) {
    if (e.status === 401) return;
    list = [{ namespace: '', namespaceShowName: 'public' }];
  }
  for (const ns of list) {
    namespaceSelect.append(h('option', { value: ns.namespace || '' },
      (ns.namespaceShowName || ns.namespace || 'public') + (ns.namespace ? ' (' + ns.namespace + ')' : '')));
  }
  if (![...namespaceSelect.options].some(o => o.value === state.namespace)) state.namespace = '';
  namespaceSelect.value = state.namespace;
  return state.namespace !== shownFor;
}

namespaceSelect.addEventListener('change', () => {
  state.namespace = namespaceSelect.value;
  sessionStorage.setItem('sluice.console.namespace', state.namespace);
  render();
});

api.whenUnauthorized(() => {
  if (needLogin) return;
  needLogin = true;
  api.logout();
  const back = location.hash.startsWith('#/login') ? '#/configs' : location.hash;
  location.hash = '#/login?back=' + encodeURIComponent(back);
});

window.addEventListener('hashchange', render);
render();
loadNamespaces().then(changed => { if (changed) render(); });
