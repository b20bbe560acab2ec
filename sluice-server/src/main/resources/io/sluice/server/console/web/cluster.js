// The cluster: every node with its role in the Raft group, the term, its state as this node sees
// it, and the clients connected to it (asked of each node). A standalone server is a cluster of one.
import { h } from './dom.js';
import * as api from './api.js';

export async function nodes(el) {
  el.append(h('h1', {}, 'Cluster'));
  const [body, load] = await Promise.all([api.get('/nacos/v1/core/cluster/nodes'),
    api.get('/nacos/v2/core/loader/cluster').catch(e => ({ error: e.message }))]);
  const loads = new Map(((load && load.detail) || []).map(n => [n.address, n]));
  const clients = (address) => {
    const n = loads.get(address);
    if (!n) return h('td', { class: 'muted', 'data-test': 'clients' }, load && load.error ? 'unknown' : '');
    return n.error ? h('td', { class: 'unhealthy', 'data-test': 'clients' }, 'did not answer (' + n.error + ')')
      : h('td', { class: 'num', 'data-test': 'clients' }, n.sdkConCount);
  };
  const members = body.data || [];
  const group = (m) => ((m.extendInfo && m.extendInfo.raftMetaData && m.extendInfo.raftMetaData.metaDataMap) || {}).sluice || {};
  const raftAddress = (m) => m.ip + ':' + (m.extendInfo ? m.extendInfo.raftPort : '');
  const first = members.length ? group(members[0]) : {};
  const leader = members.find(m => first.leader && raftAddress(m) === first.leader);
  el.append(h('p', { 'data-test': 'cluster-summary' }, members.length === 1
    ? `Standalone: one node (a Raft group of one), term ${first.term}.`
    : `${members.length} nodes; leader ${leader ? leader.address : 'none now'}, term ${first.term}.`));
  el.append(h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Node'), h('th', {}, 'Raft port'), h('th', {}, 'Role'),
    h('th', {}, 'Health'), h('th', { class: 'num' }, 'gRPC clients'), h('th', { class: 'num' }, 'Term'), h('th', {}, 'Version'), h('th', {}, ''))),
  h('tbody', {}, members.map(m => {
    const g = group(m);
    const role = g.leader === raftAddress(m) ? 'leader' : (g.leader ? 'follower' : 'no leader');
    return h('tr', { 'data-test': 'node-row' }, h('td', {}, m.address), h('td', {}, m.extendInfo ? m.extendInfo.raftPort : ''),
      h('td', { 'data-test': 'role' }, role),
      h('td', { class: m.state === 'UP' ? 'healthy' : 'unhealthy', 'data-test': 'state' }, m.state),
      clients(m.address),
      h('td', { class: 'num' }, g.term), h('td', {}, m.extendInfo ? m.extendInfo.version : ''),
      h('td', { class: 'muted' }, m.extendInfo && m.extendInfo.self ? 'this node' : ''));
  }))));
  el.append(h('p', { class: 'muted' }, 'Health as this node sees it: UP, DOWN (the leader has not heard from it lately) '
    + 'or UNKNOWN (a follower does not hear from the other followers). gRPC clients: the connections each node holds, as it answers.'));
}
