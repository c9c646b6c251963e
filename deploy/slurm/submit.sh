#!/bin/bash
# Submits a sharded audit to Slurm: a job array of N tasks, each running one part of the
# trials, and a merge job that starts when all of them succeeded. Run it in the folder the
# spec's relative paths are relative to: the merge runs there too.
#
#   deploy/slurm/submit.sh audit.json 4            # SPEC PARTS [SHARDS-DIR [REPORT-DIR]]
#   AUDIT=/path/to/audit deploy/slurm/submit.sh audit.json 16 shards report
#   AUDIT_RUN_FLAGS=--controls=false deploy/slurm/submit.sh audit.json 16   # flags for each part's audit run
#
# Prints the array's and the merge's job IDs. Extra sbatch options (partition, account,
# time limit) go in SBATCH_* variables (SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
spec=${1:?usage: submit.sh SPEC PARTS [SHARDS-DIR [REPORT-DIR]]}
parts=${2:?usage: submit.sh SPEC PARTS [SHARDS-DIR [REPORT-DIR]]}
export SPEC=$spec SHARDS=${3:-shards} REPORT=${4:-report} AUDIT=${AUDIT:-audit}
mkdir -p "$SHARDS"
array=$(sbatch --parsable --array="0-$((parts - 1))" --output="$SHARDS/slurm-%A_%a.out" "$here/audit-array.sbatch")
array=${array%%;*} # "ID;cluster" on federated clusters
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes --output="$SHARDS/slurm-merge-%j.out" "$here/audit-merge.sbatch")
echo "array $array ($parts tasks), merge ${merge%%;*} (after all succeed): report in $REPORT"
