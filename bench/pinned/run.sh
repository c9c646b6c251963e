#!/usr/bin/env bash
# bench/pinned/run.sh BIN OUT — write the pinned corpus of reports with the audit binary BIN
# into the fresh folder OUT and print one "sha256  path" line per report file, sorted.
#
# The corpus is issue 42's yardstick: every refactoring step must leave these reports byte
# for byte as they were. Compare with the committed sums:
#
#   go build -o /tmp/audit ./cmd/audit && bench/pinned/run.sh /tmp/audit /tmp/pinned > /tmp/sums
#   diff bench/pinned/SHA256SUMS /tmp/sums && echo identical
#
# Covered: the demo (every method), the one-run demo, run with controls (single and a
# sharded run merged), verify on every route (models, models by recipe, scores, U-LiRA
# references, holdout, one-run canaries, noisy release, utility, the claim-free measurement),
# a reproduction, and report re-rendering (HTML, PDF, Markdown, JSON). Dates are pinned by
# SOURCE_DATE_EPOCH; exit codes are part of the sums (a changed verdict changes them); inputs
# are copied into OUT, so the sums do not depend on where the checkout is.
set -euo pipefail
BIN=$(realpath "$1")
# The binary runs as "audit" from PATH: the commands it prints name it so, not by BIN's path.
BINDIR=$(mktemp -d)
trap 'rm -rf "$BINDIR"' EXIT
cp "$BIN" "$BINDIR/audit"
export PATH="$BINDIR:$PATH"
OUT=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ -e "$OUT" ] && { echo "run.sh: $OUT exists; give a fresh folder" >&2; exit 2; }
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
export SOURCE_DATE_EPOCH=1767225600 # 2026-01-01
cd "$OUT"
# Inputs are copied in and named by relative paths: reports record the paths they read,
# and the sums must not depend on where the checkout lives.
mkdir -p in
cp -R "$ROOT/cmd/audit/testdata/verify" "$ROOT/cmd/audit/testdata/noisy" "$ROOT/bench/pinned/refs.npz" \
	"$ROOT/datasets/sklearn/breast_cancer.csv" "$ROOT/examples/breast-cancer.json" in/
V=in/verify
N=in/noisy

# c NAME ARGS… runs one command, keeping its exit code and stdout (the summary table).
c() {
	local name=$1; shift
	set +e
	audit "$@" >"$name.stdout" 2>"$name.stderr"
	echo $? >"$name.exit"
	set -e
}

# Inputs, written deterministically.
cat >spec.json <<'J'
{"schema": "unlearnaudit/spec/v1",
 "method": {"name": "d2d", "variants": ["strongly-convex"], "params": {"iterations": 12}},
 "claim": {"epsilon": 1, "delta": 0.01}, "deletes": [5, 9], "trials": 10, "seed": 4}
J
echo '{"method": {"name": "d2d"}, "claim": {"epsilon": 1, "delta": 1e-3}}' >claim.json
echo '{"method": {"name": "d2d"}, "claim": {"epsilon": 0.5, "delta": 1e-3}}' >claim05.json
echo '{"method": {"name": "d2d", "variants": ["perfect"]}, "deletes": [830, 3, 4], "claim": {"epsilon": 1, "delta": 1e-3}}' >recipe.json
sed 's|"file": "[^"]*"|"file": "in/breast_cancer.csv"|' in/breast-cancer.json >bc.json
# lcg ROWS COLS SHIFT SEED: a CSV of scores from a fixed linear congruential generator.
lcg() { awk -v r="$1" -v k="$2" -v s="$3" -v x="$4" 'BEGIN{for(i=0;i<r;i++){l="";for(j=0;j<k;j++){x=(x*1103515245+12345)%2147483648;l=l (j?",":"") sprintf("%.6f",s+x/2147483648)}print l}}'; }
lcg 1 20 0.9 7 >one_u.csv
lcg 32 20 0.5 11 >refs_r.csv
lcg 1 20 0.2 13 >holdout.csv

c demo demo --out demo --formats html,pdf --quiet
c onerun-demo demo --one-run --variants perfect,passive,hf,safe,sglu --out onerun-demo --quiet
c run run --spec spec.json --out run --quiet --formats html,pdf
JOB_COMPLETIONS=2 JOB_COMPLETION_INDEX=0 c shard0 run --spec spec.json --out shards --quiet
JOB_COMPLETIONS=2 JOB_COMPLETION_INDEX=1 c shard1 run --spec spec.json --out shards --quiet
c merge merge shards --out merged --quiet
c verify-good verify --spec claim.json --unlearned "$V/good" --retrained "$V/retrained" --out verify-good
c verify-broken verify --spec bc.json --unlearned "$V/broken" --retrained "$V/retrained" --out verify-broken --formats html,pdf
lcg 1 20 -0.1 5 >model20.csv
c verify-recipe verify --spec recipe.json --unlearned model20.csv --out verify-recipe
c verify-scores verify --spec claim05.json --scores --unlearned "$V/scores_broken.npz" --retrained "$V/scores_retrained.npz" --out verify-scores
c verify-references verify --spec claim.json --scores --unlearned one_u.csv --retrained refs_r.csv --references in/refs.npz --out verify-references
c verify-holdout verify --spec claim.json --scores --unlearned one_u.csv --retrained refs_r.csv --holdout holdout.csv --out verify-holdout
c canaries canaries --seed 3 --canaries 200 --out canaries.json
lcg 200 1 0.3 17 >canary_scores.csv
c verify-onerun verify --spec claim.json --one-run canaries.json --unlearned canary_scores.csv --out verify-onerun
for h in half honest; do
	c "verify-noisy-$h" verify --spec "$N/spec.json" --unlearned "$N/$h/unlearned" --retrained "$N/$h/retrained" --prenoise-unlearned "$N/$h/prenoise_unlearned.npy" --prenoise-retrained "$N/$h/prenoise_retrained.npy" --out "verify-noisy-$h"
done
c verify-utility verify --spec "$N/spec.json" --unlearned "$N/honest/unlearned" --retrained "$N/honest/retrained" --prenoise-unlearned "$N/honest/prenoise_unlearned.npy" --prenoise-retrained "$N/honest/prenoise_retrained.npy" --utility "$N/honest/utility.npz" --out verify-utility
c verify-utility-data verify --spec bc.json --unlearned "$V/broken" --retrained "$V/retrained" --utility-from-data --out verify-utility-data
c measure verify --scores --unlearned "$V/scores_broken.npz" --retrained "$V/scores_retrained.npz" --out measure
c measure-models verify --unlearned "$V/good" --retrained "$V/retrained" --out measure-models
c reproduce-olu reproduce olu-contraction --out reproduce-olu
c reproduce-sglu reproduce sglu-table3 --out reproduce-sglu
c report-html report --in run/report.json --format html --out rerendered.html
c report-pdf report --in run/report.json --format pdf --out rerendered.pdf
c report-md report --in run/report.json --format md
c report-json report --in verify-broken/report.json --format json
c bounds bounds d2d --variant strongly-convex --lipschitz 1 --smoothness 4 --strong-convexity 1 --iterations 10 --n 100 --epsilon 1 --delta 1e-5
c plan plan --epsilon 1 --delta 1e-3 --table 8,16,32,64

# Elapsed times in a summary line, "(5s)", are not the report's: masked.
sed -i -E 's/\(([0-9]+h)?([0-9]+m)?[0-9.]+m?s\)/(TIME)/g' ./*.stdout

# Every report file and every command's stdout and exit code; stderr holds progress and
# timings, so it is left out. Checkpoints and shard files are the engine's, not reports.
find . -path ./in -prune -o -type f \( -name 'report.*' -o -name 'rerendered.*' -o -name '*.stdout' -o -name '*.exit' -o -name 'canaries.json' -o -path './reproduce-*' \) \
	! -name '*.ckpt' ! -path '*/trials/*' -print0 | sort -z | xargs -0 sha256sum
