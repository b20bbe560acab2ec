// A small SVG line chart: one line per series over the last minute, the y axis from 0 to the
// highest value, redrawn whole on each refresh.
const NS = 'http://www.w3.org/2000/svg';
const W = 600, H = 180, PAD_L = 48, PAD_B = 20, PAD_T = 8;

function el(tag, attrs) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/**
 * series: [{name, color, values: [number|null per second]}], all the same length, oldest first.
 * Returns an <svg>.
 */
export function lineChart(series, unit) {
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', role: 'img' });
  const n = Math.max(2, ...series.map(s => s.values.length));
  let max = 0;
  for (const s of series) for (const v of s.values) if (v != null && v > max) max = v;
  max = max <= 0 ? 1 : niceCeil(max);
  const x = (i) => PAD_L + (i * (W - PAD_L - 4)) / (n - 1);
  const y = (v) => H - PAD_B - (v / max) * (H - PAD_B - PAD_T);
  for (const frac of [0, 0.5, 1]) {
    const v = max * frac;
    svg.append(el('line', { x1: PAD_L, x2: W - 4, y1: y(v), y2: y(v), stroke: '#e3e6ea' }));
    const label = el('text', { x: PAD_L - 4, y: y(v) + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#6b7785' });
    label.textContent = format(v) + (frac === 1 && unit ? ' ' + unit : '');
    svg.append(label);
  }
  const ago = el('text', { x: PAD_L, y: H - 4, 'font-size': 11, fill: '#6b7785' });
  ago.textContent = `-${n}s`;
  const now = el('text', { x: W - 4, y: H - 4, 'font-size': 11, fill: '#6b7785', 'text-anchor': 'end' });
  now.textContent = 'now';
  svg.append(ago, now);
  for (const s of series) {
    const pts = [];
    s.values.forEach((v, i) => { if (v != null) pts.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`); });
    if (pts.length) svg.append(el('polyline', { points: pts.join(' '), fill: 'none', stroke: s.color, 'stroke-width': 2, 'data-series': s.name }));
  }
  return svg;
}

function niceCeil(v) {
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

function format(v) {
  if (v >= 1e6) return (v / 1e6).toFixed(1) + 'M';
  if (v >= 1e3) return (v / 1e3).toFixed(1) + 'k';
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}
