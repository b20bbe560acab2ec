# Two async-profiler collapsed-stack files of the same service, one copy under the agent and one
# without, profiled over the same seconds: total samples, then the agent's own samples grouped by
# where they were entered (the caller's frame and the first agent frame), so a per-request figure
# is (samples x interval) / requests served in the window.
# Usage: python3 collapsed-compare.py PLAIN.collapsed AGENT.collapsed [--under FRAME [DEPTH]]
#   --under FRAME: the agent file's samples below the first frame containing FRAME, grouped by the
#   DEPTH (default 3) frames under it.
import collections, sys

def load(path):
    stacks = collections.Counter()
    for line in open(path):
        stack, _, n = line.rstrip().rpartition(' ')
        stacks[stack] += int(n)
    return stacks

def short(frame):
    return frame.split('/')[-1][:70]

plain, agent = load(sys.argv[1]), load(sys.argv[2])
if '--under' in sys.argv:
    i = sys.argv.index('--under')
    pattern = sys.argv[i + 1]
    depth = int(sys.argv[i + 2]) if len(sys.argv) > i + 2 else 3
    below = collections.Counter()
    for stack, n in agent.items():
        frames = stack.split(';')
        for j, frame in enumerate(frames):
            if pattern in frame:
                below[' > '.join(short(f) for f in frames[j + 1:j + 1 + depth]) or '(self)'] += n
                break
    for key, n in below.most_common(25):
        print('%6d  %s' % (n, key))
    sys.exit(0)
tp, ta = sum(plain.values()), sum(agent.values())
print('samples: plain %d, agent %d, agent - plain %+d (%+.1f %%)' % (tp, ta, ta - tp, 100.0 * (ta - tp) / tp))
entries = collections.Counter()
for stack, n in agent.items():
    frames = stack.split(';')
    for j, frame in enumerate(frames):
        if 'io/sluice/agent' in frame:
            entries[(short(frames[j - 1]) if j else '') + ' -> ' + short(frame)] += n
            break
print('agent frames: %d samples in all' % sum(entries.values()))
for key, n in entries.most_common(30):
    print('%6d  %s' % (n, key))
