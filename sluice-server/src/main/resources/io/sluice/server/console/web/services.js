// Services: the list with instance counts and health, and each service's instances with health,
// weight, enabled, metadata and lane (weight and enabled can be changed) and its subscribers.
import { h, clear, message, go, link, missingNodes } from './dom.js';
import * as api from './api.js';

const PAGE_SIZE = 20;
/** Rows per page of a service's instances and of its subscribers; `size` in the link overrides it. */
const DETAIL_PAGE = 100;
const MAX_DETAIL_PAGE = 500;
const LANE_KEYS = ['sluice.lane', 'alicloud.service.tag', 'traffic.opensergo.io/lane'];

export function laneOf(metadata) {
  for (const k of LANE_KEYS) if (metadata && metadata[k]) return metadata[k];
  return '';
}

/** One page of a service's instances, enabled or not (the clients' query leaves disabled ones out). */
async function instances(state, service, group, pageNo, pageSize) {
  const body = await api.get('/nacos/v1/ns/catalog/instances', {
    serviceName: service, groupName: group, namespaceId: state.namespace, pageNo, pageSize,
  });
  return { hosts: body.list || [], count: body.count || 0 };
}

function pageOf(value) {
  return Math.max(1, Math.floor(Number(value)) || 1);
}

/** "N things, page p of P" with previous/next links that change only `param` in the link. */
function pager(test, what, count, pageNo, pageSize, params, param) {
  const pages = Math.max(1, Math.ceil(count / pageSize));
  const to = (n) => link('service', { ...params, [param]: n });
  return h('p', { class: 'bar', 'data-test': test }, `${count} ${what}, page ${Math.min(pageNo, pages)} of ${pages} `,
    pageNo > 1 ? h('a', { href: to(Math.min(pageNo, pages) - 1), 'data-test': test + '-previous' }, '‹ previous') : null, ' ',
    pageNo < pages ? h('a', { href: to(pageNo + 1), 'data-test': test + '-next' }, 'next ›') : null);
}

export async function list(el, params, state) {
  const pageNo = Math.max(1, Number(params.page || 1));
  const groupInput = h('input', { type: 'text', name: 'group', value: params.group || 'DEFAULT_GROUP' });
  const form = h('form', { class: 'bar' }, h('label', {}, 'Group ', groupInput), h('button', { type: 'submit' }, 'List'));
  form.addEventListener('submit', (e) => { e.preventDefault(); go('services', { group: groupInput.value }); });
  el.append(h('h1', {}, 'Services'), form);
  const group = params.group || 'DEFAULT_GROUP';
  const body = await api.get('/nacos/v1/ns/catalog/services', {
    pageNo, pageSize: PAGE_SIZE, namespaceId: state.namespace, groupName: group,
  });
  const services = body.serviceList || [];
  const tbody = h('tbody', {});
  el.append(h('table', {},
    h('thead', {}, h('tr', {}, h('th', {}, 'Service'), h('th', {}, 'Group'), h('th', { class: 'num' }, 'Instances'),
      h('th', { class: 'num' }, 'Healthy'), h('th', {}, 'Lanes'))), tbody));
  if (!services.length) tbody.append(h('tr', {}, h('td', { colspan: 5, class: 'muted' }, 'No service in this group.')));
  for (const x of services) {
    tbody.append(h('tr', { 'data-test': 'service-row' },
      h('td', {}, h('a', { href: link('service', { name: x.name, group }) }, x.name)), h('td', {}, group),
      h('td', { class: 'num' }, x.ipCount),
      h('td', { class: 'num ' + (x.healthyInstanceCount < x.ipCount ? 'unhealthy' : 'healthy') }, x.healthyInstanceCount),
      h('td', {}, (x.lanes || []).map(l => h('span', { class: 'pill lane' }, l)))));
  }
  const pages = Math.max(1, Math.ceil((body.count || 0) / PAGE_SIZE));
  el.append(h('p', { class: 'bar', 'data-test': 'service-pages' }, `${body.count || 0} services, page ${pageNo} of ${pages} `,
    pageNo > 1 ? h('a', { href: link('services', { group, page: pageNo - 1 }) }, '‹ previous') : null, ' ',
    pageNo < pages ? h('a', { href: link('services', { group, page: pageNo + 1 }), 'data-test': 'next-page' }, 'next ›') : null));
}

export async function detail(el, params, state) {
  const group = params.group || 'DEFAULT_GROUP';
  el.append(h('h1', {}, 'Service ' + params.name + ' (' + group + ')'));
  const status = h('p', { 'data-test': 'status' });
  const table = h('tbody', {});
  const size = Math.min(MAX_DETAIL_PAGE, pageOf(params.size || DETAIL_PAGE));
  const instancePage = pageOf(params.ipage);
  const subscriberPage = pageOf(params.spage);
  // The two tables load together; each shows one page asked of the server.
  const [{ hosts, count }, subscribed] = await Promise.all([
    instances(state, params.name, group, instancePage, size),
    api.get('/nacos/v1/ns/service/subscribers', {
      serviceName: params.name, groupName: group, namespaceId: state.namespace, pageNo: subscriberPage, pageSize: size,
    }),
  ]);
  el.append(status, h('table', {}, h('thead', {}, h('tr', {},
    h('th', {}, 'Instance'), h('th', {}, 'Cluster'), h('th', {}, 'Health'), h('th', { class: 'num' }, 'Weight'),
    h('th', {}, 'Enabled'), h('th', {}, 'Kind'), h('th', {}, 'Lane'), h('th', {}, 'Metadata'), h('th', {}, ''))), table),
    pager('instance-pages', count === 1 ? 'instance' : 'instances', count, instancePage, size, params, 'ipage'));
  if (!hosts.length) table.append(h('tr', {}, h('td', { colspan: 9, class: 'muted' }, 'No instance.')));
  for (const x of hosts) {
    const weight = h('input', { type: 'number', name: 'weight', min: 0, max: 10000, step: '0.1', value: x.weight, style: 'width:80px' });
    const enabled = h('input', { type: 'checkbox', name: 'enabled', checked: x.enabled !== false });
    const save = h('button', { type: 'button', class: 'secondary', 'data-test': 'save-instance', onclick: async () => {
      save.disabled = true;
      try {
        await api.call('PATCH', '/nacos/v1/ns/instance', {
          serviceName: params.name, groupName: group, namespaceId: state.namespace, ip: x.ip, port: x.port,
          clusterName: x.clusterName || 'DEFAULT', weight: weight.value, enabled: enabled.checked, ephemeral: x.ephemeral !== false,
        });
        message(status, `Saved ${x.ip}:${x.port}: weight ${weight.value}, ${enabled.checked ? 'enabled' : 'disabled'}.`, 'ok');
      } catch (e) {
        message(status, 'Not saved: ' + e.message);
      } finally {
        save.disabled = false;
      }
    } }, 'Save');
    const lane = laneOf(x.metadata);
    table.append(h('tr', { 'data-test': 'instance-row' },
      h('td', {}, x.ip + ':' + x.port), h('td', {}, x.clusterName || 'DEFAULT'),
      h('td', { class: x.healthy ? 'healthy' : 'unhealthy' }, x.healthy ? 'healthy' : 'unhealthy'),
      h('td', { class: 'num' }, weight), h('td', {}, enabled), h('td', {}, x.ephemeral === false ? 'persistent' : 'ephemeral'),
      h('td', {}, lane ? h('span', { class: 'pill lane' }, lane) : h('span', { class: 'muted' }, 'base')),
      h('td', {}, h('code', {}, JSON.stringify(x.metadata || {}))), h('td', {}, save)));
  }
  subscribers(el, subscribed, subscriberPage, size, params);
}

/**
 * One page of the clients subscribed to the service. A client subscribes through the node it is
 * connected to; in a cluster the server asks every node and says which node each client uses.
 */
function subscribers(el, body, pageNo, size, params) {
  const list = body.subscribers || [];
  const count = body.count || 0;
  const clustered = list.some(x => x.node);
  el.append(h('h2', {}, 'Subscribers'),
    h('p', { class: 'muted', 'data-test': 'subscriber-count' }, `${count} client${count === 1 ? '' : 's'} subscribed`
      + (clustered ? ' through the cluster\'s nodes.' : '.')),
    missingNodes(body),
    h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Address'), h('th', {}, 'Application'), h('th', {}, 'Client'),
      h('th', {}, 'Clusters'), clustered ? h('th', {}, 'Through node') : null)),
    h('tbody', {}, list.length ? list.map(x => h('tr', { 'data-test': 'subscriber-row' },
      h('td', {}, x.addrStr), h('td', {}, x.app), h('td', {}, x.agent), h('td', {}, x.cluster || 'all'),
      clustered ? h('td', { 'data-test': 'node' }, x.node || '') : null))
      : h('tr', {}, h('td', { colspan: clustered ? 5 : 4, class: 'muted' }, 'No subscriber.')))),
    pager('subscriber-pages', count === 1 ? 'subscriber' : 'subscribers', count, pageNo, size, params, 'spage'));
}
