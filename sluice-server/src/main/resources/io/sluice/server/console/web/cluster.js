// The cluster: every node with its role in the Raft group, the term, and its state as this node
// sees it. A standalone server is a cluster of one.
import { h } from './dom.js';
import * as api from './api.js';

export async function nodes(el) {
  el.append(h('h1', {}, 'Cluster'));
  const body = await api.get('/nacos/v1/core/cluster/nodes');
  const members = body.data || [];
  const group = (m) => ((m.extendInfo && m.extendInfo.raftMetaData && m.extendInfo.raftMetaData.metaDataMap) || {}).sluice || {};
  const raftAddress = (m) => m.ip + ':' + (m.extendInfo ? m.extendInfo.raftPort : '');
  const first = members.length ? group(members[0]) : {};
  const leader = members.find(m => first.leader && raftAddress(m) === first.leader);
  el.append(h('p', { 'data-test': 'cluster-summary' }, members.length === 1
    ? `Standalone: one node (a Raft group of one), term ${first.term}.`
    : `${members.length} nodes; leader ${leader ? leader.address : 'none now'}, term ${first.term}.`));
  el.append(h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Node'), h('th', {}, 'Raft port'), h('th', {}, 'Role'),
    h('th', {}, 'Health'), h('th', { class: 'num' }, 'Term'), h('th', {}, 'Version'), h('th', {}, ''))),
  h('tbody', {}, members.map(m => {
    const g = group(m);
    const role = g.leader === raftAddress(m) ? 'leader' : (g.leader ? 'follower' : 'no leader');
    return h('tr', { 'data-test': 'node-row' }, h('td', {}, m.address), h('td', {}, m.extendInfo ? m.extendInfo.raftPort : ''),
      h('td', { 'data-test': 'role' }, role),
      h('td', { class: m.state === 'UP' ? 'healthy' : 'unhealthy', 'data-test': 'state' }, m.state),
      h('td', { class: 'num' }, g.term), h('td', {}, m.extendInfo ? m.extendInfo.version : ''),
      h('td', { class: 'muted' }, m.extendInfo && m.extendInfo.self ? 'this node' : ''));
  }))));
  el.append(h('p', { class: 'muted' }, 'Health as this node sees it: UP, DOWN (the leader has not heard from it lately) '
    + 'or UNKNOWN (a follower does not hear from the other followers).'));
}
