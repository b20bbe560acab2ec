#!/usr/bin/env python3
"""Reads the output of an interleaved ChainOverheadDriver run made with the speed probe of branch
`probe-trial` (window lines with `probe N µs (walk .., [l3 ..,] mix ..[, spread ..]; samples)`) and
prints, per service and for the p50 per hop, the added figure unadjusted and adjusted by the probe
and by each of its parts: each window's figure minus slope x (its probe - the probe's median), the
slope fitted by least squares across the windows about each copy's own mean. Also the probe's own
agent-minus-other difference, which must be about 0 for the adjustment to be unbiased (it was not:
docs/performance.md, "Tried, not kept: taking the machine's swing out with a speed probe").
Intervals: the median's order-statistic interval at >= 95 % coverage, as the driver's.

usage: python3 probe-adjust.py OUTPUT...
"""
import math
import re
import statistics as st
import sys

LINE = re.compile(
    r"\s+cycle\s+(\d+) window (\d) (\w+)\s+load [\d.]+ probe ([\d.]+) µs \(walk ([\d.]+)(?:, l3 ([\d.]+))?, mix"
    r" ([\d.]+)(?:, spread ([\d.]+))?; \d+\) p50\s+([\d.]+) µs, \d+ done \|(.*)")
SERVICE = re.compile(r" (\S+) (\d+) \(\d+\) \|")


def interval(values, confidence=0.95):
    xs = sorted(values)
    n = len(xs)
    k, tail, term = 1, 0.5 ** n, 0.5 ** n
    coverage = 1 - 2 * tail
    for j in range(1, n // 2):
        term = term * (n - j + 1) / j
        if 1 - 2 * (tail + term) < confidence:
            break
        tail += term
        k = j + 1
        coverage = 1 - 2 * tail
    return st.median(xs), xs[k - 1], xs[n - k], coverage


def main(path):
    windows = []
    for line in open(path, encoding="utf-8"):
        m = LINE.match(line)
        if m:
            cycle, _, copy, probe, walk, l3, mix, spread, p50, rest = m.groups()
            figures = {name: float(v) for name, v in SERVICE.findall(rest)}
            figures["p50 per hop"] = float(p50) / 4
            parts = {"probe": float(probe), "walk": float(walk), "mix": float(mix)}
            if l3:
                parts["l3"] = float(l3)
            if spread:
                parts["spread"] = float(spread)
            windows.append((int(cycle), copy, parts, figures))
    print(f"{path}: {len(windows)} windows")
    cycles = sorted({w[0] for w in windows if sum(1 for x in windows if x[0] == w[0]) == 4})
    names = list(windows[0][3])
    for part in windows[0][2]:
        median = st.median(w[2][part] for w in windows)
        print(f"\nadjusted by the {part} (median {median:.1f} µs, windows"
              f" {min(w[2][part] for w in windows):.1f}..{max(w[2][part] for w in windows):.1f})")
        print("| figure | correlation | slope | added, unadjusted | added, adjusted |")
        print("|---|---|---|---|---|")
        for name in names:
            mean = {c: (st.mean(w[3][name] for w in windows if w[1] == c),
                        st.mean(w[2][part] for w in windows if w[1] == c)) for c in ("none", "agent")}
            dv = [w[3][name] - mean[w[1]][0] for w in windows]
            dp = [w[2][part] - mean[w[1]][1] for w in windows]
            sxy = sum(a * b for a, b in zip(dv, dp))
            slope = sxy / sum(b * b for b in dp)
            corr = sxy / math.sqrt(sum(a * a for a in dv) * sum(b * b for b in dp))

            def differences(adjust):
                out = []
                for c in cycles:
                    ws = [w for w in windows if w[0] == c]
                    val = lambda w: w[3][name] - adjust * (w[2][part] - median)
                    out.append(st.mean(val(w) for w in ws if w[1] == "agent")
                               - st.mean(val(w) for w in ws if w[1] == "none"))
                return out

            raw, adj = interval(differences(0)), interval(differences(slope))
            print(f"| {name} | {corr:.2f} | {slope:.2f} | {raw[0]:+.1f} [{raw[1]:+.1f}..{raw[2]:+.1f}]"
                  f" | {adj[0]:+.1f} [{adj[1]:+.1f}..{adj[2]:+.1f}; {100 * adj[3]:.1f} %] |")
        own = []
        for c in cycles:
            ws = [w for w in windows if w[0] == c]
            own.append(st.mean(w[2][part] for w in ws if w[1] == "agent")
                       - st.mean(w[2][part] for w in ws if w[1] == "none"))
        m, lo, hi, _ = interval(own)
        print(f"the {part} itself, agent windows minus the other's: {m:+.2f} [{lo:+.2f}..{hi:+.2f}] µs")


for p in sys.argv[1:]:
    main(p)
