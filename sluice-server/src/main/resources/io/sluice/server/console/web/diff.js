// A line diff (longest common subsequence) of two texts, shown as kept, removed and added lines.
import { h } from './dom.js';

const MAX_CELLS = 4_000_000;

export function diffLines(before, after) {
  const a = (before || '').split('\n');
  const b = (after || '').split('\n');
  if (a.length * b.length > MAX_CELLS) return null;
  const n = a.length, m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out = [];
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) { out.push([' ', a[i]]); i++; j++; }
    else if (lcs[i + 1][j] >= lcs[i][j + 1]) { out.push(['-', a[i]]); i++; }
    else { out.push(['+', b[j]]); j++; }
  }
  while (i < n) out.push(['-', a[i++]]);
  while (j < m) out.push(['+', b[j++]]);
  return out;
}

export function renderDiff(before, after, beforeLabel, afterLabel) {
  const lines = diffLines(before, after);
  if (lines === null) return h('p', { class: 'muted' }, 'Too large to compare line by line.');
  const changed = lines.filter(l => l[0] !== ' ').length;
  return h('div', {},
    h('p', { class: 'muted' }, `- ${beforeLabel}   + ${afterLabel}   (${changed} line${changed === 1 ? '' : 's'} differ)`),
    h('div', { class: 'diff', 'data-test': 'diff' },
      lines.map(([op, text]) => h('div', { class: op === '+' ? 'add' : op === '-' ? 'del' : '' }, op + ' ' + text))));
}
