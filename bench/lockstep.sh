#!/usr/bin/env bash
# Full SGLU trial-epochs (gradients, noise, step, projection) at the paper's MNIST scale:
# the Go lockstep ensembles (reference/sglu's BenchmarkFullEpoch) against PyTorch vectorised
# across trials (bench/torch_lockstep.py) and PyTorch one trial at a time
# (bench/torch_epoch.py, on one thread), run back to back, repeats times, on this machine,
# and Markdown tables of the medians and spreads, at full batch and b = 512, 128, 32 (the
# SGLU paper's Fig. 3d), float64 and float32, k = 8, 32, 128, and one model against the
# loop. Needs Debian's python3-torch, and OpenBLAS for a fair peer (python3-torch otherwise gets the reference BLAS):
#   apt-get install python3-torch libopenblas0-pthread
# Usage: bench/lockstep.sh [repeats] [raw-output-file]   (from anywhere)
# With 0 repeats it runs nothing and prints the tables of the raw output file of an earlier
# run again (bench/lockstep.sh 0 raw.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=${1:-3}
raw=${2:-$(mktemp)}
if [ "$repeat" = 0 ]; then
  [ -s "$raw" ] || { echo "lockstep.sh: 0 repeats reprints a raw output file; $raw is empty or missing" >&2; exit 2; }
else
  bin=$(mktemp -d)/sglu.test
  go test -c -o "$bin" ./reference/sglu
  : >"$raw"
fi
for i in $(seq "$repeat"); do
  echo "# repeat $i: load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$raw"
  (cd reference/sglu && "$bin" -test.run '^$' -test.bench '^BenchmarkFullEpoch$' -test.benchtime 1s) |
    grep -E '^BenchmarkFullEpoch|FLOP limit' | tee -a "$raw"
  /usr/bin/python3 bench/torch_lockstep.py 1 2 | tee -a "$raw"
  OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/torch_epoch.py | grep threads=1 | sort -u | tee -a "$raw"
done
/usr/bin/python3 - "$raw" <<'PY'
# Medians and (min–max) over the repeats; PyTorch ÷ Go is taken within each repeat (the two
# ran back to back, under the same load), then its median and spread.
import re, statistics as st, sys
go, torch, loop, rep = {}, {}, {}, -1
for line in open(sys.argv[1]):
    if line.startswith("# repeat"):
        rep += 1
    m = re.match(r"BenchmarkFullEpoch/(\S+?)-\d+\s", line)
    if m:
        v = dict((u, float(x)) for x, u in re.findall(r"([0-9.e+-]+) (ns/trial-epoch|x-peak|x-stream|share)", line))
        go.setdefault(m[1], {})[rep] = v
    m = re.search(r"threads=(\d+) precision=(\w+) batch=(\d+) k=(\d+) ms_per_trial_epoch=([0-9.]+)", line)
    if m:
        torch.setdefault((int(m[1]), m[2], int(m[3]), int(m[4])), {})[rep] = float(m[5])
    m = re.search(r"threads=1 batch=(\d+) seconds_per_trial_epoch=([0-9.]+)", line)
    if m:
        loop.setdefault(int(m[1]), {})[rep] = 1e3 * float(m[2])
def spread(xs, f="{:.3g}"):
    xs = list(xs)
    return f"{f.format(st.median(xs))} ({f.format(min(xs))}–{f.format(max(xs))})" if xs else "–"
def ms(name):
    return {r: v["ns/trial-epoch"] / 1e6 for r, v in go.get(name, {}).items()}
def key(name, k):
    return [v[k] for v in go.get(name, {}).values()]
def ratio(t, g):
    return spread(t[r] / g[r] for r in g if r in t)
lim = [v["ns/trial-epoch"] / v["x-peak"] / 1e6 for v in go["full/lockstep-k=32"].values()]
rd = [v["ns/trial-epoch"] / v["x-stream"] / 1e6 for v in go["full/lockstep-k=32"].values()]
print(f"{rep + 1} repeats; FLOP limit of a float64 trial-epoch on one core {spread(lim)} ms (float32's is half), one read of the data {spread(rd)} ms")
print()
print("| trial-epoch | k | Go lockstep, 1 core: ms | × FLOP limit | PyTorch vectorised, 1 thread: ms | PyTorch ÷ Go |")
print("|---|---|---|---|---|---|")
batches = ((11264, "full", "full batch"), (512, "b=512", "b = 512"), (128, "b=128", "b = 128"), (32, "b=32", "b = 32"))
rows2 = []
for batch, bn, label0 in batches:
    for prec, sfx in (("float64", ""), ("float32", "32")):
        label = f"{label0}, {prec}"
        for k in (8, 32, 128):
            name = f"{bn}/lockstep{sfx}-k={k}"
            g, t = ms(name), torch.get((1, prec, batch, k), {})
            print(f"| {label} | {k} | {spread(g.values())} | {spread(key(name, 'x-peak'), '{:.2f}')} | {spread(t.values())} | {ratio(t, g)} |")
        g2, t2 = ms(f"{bn}/lockstep{sfx}-k=32-2workers"), torch.get((2, prec, batch, 32), {})
        if g2:
            rows2.append(f"| {label} | 32 | {spread(g2.values())} | {spread(key(bn + '/lockstep' + sfx + '-k=32-2workers', 'x-peak'), '{:.2f}')} | {spread(t2.values())} | {ratio(t2, g2)} |")
for batch, bn, label0 in batches:
    t = loop.get(batch, {})
    if t:
        g = ms(bn + "/single")
        print(f"| {label0}, one model (no lockstep), float64 | 1 | {spread(g.values())} | {spread(key(bn + '/single', 'x-peak'), '{:.2f}')} | {spread(t.values())} (loop) | {ratio(t, g)} |")
print()
print("| trial-epoch, two cores | k | Go, 2 workers × lockstep: ms | × FLOP limit of 2 cores | PyTorch vectorised, 2 threads: ms | PyTorch ÷ Go |")
print("|---|---|---|---|---|---|")
print("\n".join(rows2))
print()
# The noise's share of the float32 epoch is taken within each repeat, as PyTorch ÷ Go is: the
# benchmark's own share is of the float64 epoch, which costs twice as much.
print("| k = 32 | gradients alone, float64: ms | × FLOP limit | gradients alone, float32: ms | × FLOP limit | noise alone: ms | noise's share of the float64 epoch | of the float32 epoch |")
print("|---|---|---|---|---|---|---|---|")
for batch, bn, label0 in batches:
    noise, e32 = ms(bn + '/noise-k=32'), ms(bn + '/lockstep32-k=32')
    print(f"| {label0} | {spread(ms(bn + '/grad-k=32').values())} | {spread(key(bn + '/grad-k=32', 'x-peak'), '{:.2f}')} | "
          f"{spread(ms(bn + '/grad32-k=32').values())} | {spread(key(bn + '/grad32-k=32', 'x-peak'), '{:.2f}')} | "
          f"{spread(noise.values(), '{:.2g}')} | {spread(key(bn + '/noise-k=32', 'share'), '{:.2g}')} | "
          f"{spread((noise[r] / e32[r] for r in noise if r in e32), '{:.2g}')} |")
PY
echo "raw output: $raw"
