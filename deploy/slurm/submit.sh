#!/bin/bash
# Submits a sharded audit to Slurm: a job array of N tasks, each running one part of the
# trials, and a merge job that starts when all of them succeeded. Run it in the folder the
# spec's relative paths are relative to: the merge runs there too.
#
#   deploy/slurm/submit.sh audit.json 4            # SPEC PARTS [SHARDS-DIR [REPORT-DIR]]
#   AUDIT=/path/to/audit deploy/slurm/submit.sh audit.json 16 shards report
#   AUDIT_RUN_FLAGS=--controls=false deploy/slurm/submit.sh audit.json 16   # flags for each part's audit run
#   UNLEARNAUDIT_EVIDENCE_KEY_FILE=~/keys/evidence.key deploy/slurm/submit.sh audit.json 4
#
# UNLEARNAUDIT_EVIDENCE_KEY_FILE names the evidence key (audit keygen, or openssl rand -hex 32;
# mode 600) that every task and the merge use: trials forged or edited by anyone without it
# are refused. It is made absolute and exported to the jobs; without it the report says the
# trials are unauthenticated.
#
# Prints the array's and the merge's job IDs. Extra sbatch options (partition, account,
# time limit) go in SBATCH_* variables (SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
spec=${1:?usage: submit.sh SPEC PARTS [SHARDS-DIR [REPORT-DIR]]}
parts=${2:?usage: submit.sh SPEC PARTS [SHARDS-DIR [REPORT-DIR]]}
export SPEC=$spec SHARDS=${3:-shards} REPORT=${4:-report} AUDIT=${AUDIT:-audit}
if [ -n "${UNLEARNAUDIT_EVIDENCE_KEY_FILE:-}" ]; then
	[ -r "$UNLEARNAUDIT_EVIDENCE_KEY_FILE" ] || {
		echo "submit.sh: UNLEARNAUDIT_EVIDENCE_KEY_FILE=$UNLEARNAUDIT_EVIDENCE_KEY_FILE is not a readable file" >&2
		exit 2
	}
	UNLEARNAUDIT_EVIDENCE_KEY_FILE=$(cd "$(dirname "$UNLEARNAUDIT_EVIDENCE_KEY_FILE")" && pwd)/$(basename "$UNLEARNAUDIT_EVIDENCE_KEY_FILE")
	export UNLEARNAUDIT_EVIDENCE_KEY_FILE
else
	echo "submit.sh: no UNLEARNAUDIT_EVIDENCE_KEY_FILE: the trials will be unauthenticated (audit keygen makes a key)" >&2
fi
mkdir -p "$SHARDS"
array=$(sbatch --parsable --array="0-$((parts - 1))" --output="$SHARDS/slurm-%A_%a.out" "$here/audit-array.sbatch")
array=${array%%;*} # "ID;cluster" on federated clusters
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes --output="$SHARDS/slurm-merge-%j.out" "$here/audit-merge.sbatch")
echo "array $array ($parts tasks), merge ${merge%%;*} (after all succeed): report in $REPORT"
