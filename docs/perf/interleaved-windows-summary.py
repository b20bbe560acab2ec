# The interleaved chain run's summary, recomputed from its window lines when the run was cut
# before printing it: per cycle the mean of the second copy's two windows minus the first's,
# then the median and its order-statistic 95 % interval, as ChainOverheadDriver.summarizeInterleaved.
# Usage: python3 interleaved-windows-summary.py RUN.txt
import re,sys,math
lines=[l for l in open(sys.argv[1]) if re.match(r'\s+cycle\s+\d+ window',l)]
rows=[]
for l in lines:
    m=re.match(r'\s+cycle\s+(\d+) window (\d) (\w+)\s+load [\d.]+ p50\s+([\d.]+) µs, (\d+) done \|(.*)',l)
    c,w,role,p50,done,rest=m.groups()
    svc={}
    for s in re.finditer(r'(\S+\[\w+\]) (\d+) \((\d+)\)',rest):
        svc[s.group(1)]=(int(s.group(2)),int(s.group(3)))
    rows.append((int(c),int(w),role,float(p50),int(done),svc))
cycles=sorted(set(r[0] for r in rows))
full=[c for c in cycles if sum(1 for r in rows if r[0]==c)==4]
def medint(v,conf=0.95):
    n=len(v); s=sorted(v); med=s[n//2] if n%2 else (s[n//2-1]+s[n//2])/2
    k=1; tail=0.5**n; term=tail; cov=1-2*tail
    for j in range(1,n//2):
        term=term*(n-j+1)/j; nt=tail+term
        if 1-2*nt<conf: break
        tail=nt; k=j+1; cov=1-2*tail
    return med,s[k-1],s[n-k],cov,n
def diffs(f):
    out=[]
    for c in full:
        ws=[r for r in rows if r[0]==c]
        a=sum(f(r) for r in ws if r[2]=='agent')/2; b=sum(f(r) for r in ws if r[2]=='none')/2
        out.append(a-b)
    return out
def med(v):
    s=sorted(v);n=len(s);return s[n//2] if n%2 else (s[n//2-1]+s[n//2])/2
print(f"cycles counted {len(full)} of 20 planned (run cut after cycle {max(cycles)} window {max(r[1] for r in rows if r[0]==max(cycles))})")
print("| service | none copy CPU µs/req (median of windows) | second plain copy | A/A difference | 95 % interval [coverage] | outside the JIT | interval |")
print("|---|---|---|---|---|---|---|")
inrows=[r for r in rows if r[0] in full]
for s in rows[0][5]:
    cpu=lambda r:r[5][s][0]; nj=lambda r:r[5][s][0]-r[5][s][1]
    d=medint(diffs(cpu)); e=medint(diffs(nj))
    print(f"| {s} | {med([cpu(r) for r in inrows if r[2]=='none']):.1f} | {med([cpu(r) for r in inrows if r[2]=='agent']):.1f} | {d[0]:+.1f} | [{d[1]:+.1f}, {d[2]:+.1f}] {d[3]*100:.1f} % | {e[0]:+.1f} | [{e[1]:+.1f}, {e[2]:+.1f}] |")
p=medint(diffs(lambda r:r[3]/4))
print(f"end to end p50 {med([r[3] for r in inrows if r[2]=='none']):.1f} -> {med([r[3] for r in inrows if r[2]=='agent']):.1f} µs; per hop (÷4) {p[0]:+.1f} [{p[1]:+.1f}, {p[2]:+.1f}] {p[3]*100:.1f} %")
