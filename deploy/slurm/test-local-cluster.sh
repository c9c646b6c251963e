#!/bin/bash
# Tests the sharded audit on a real Slurm: starts a single-node cluster on this machine
# (munged, slurmctld and slurmd from Debian's slurm-wlm and munge, with a generated
# slurm.conf for localhost), plans a decisive audit of the demo's SGLU subject (power 0.8
# against a 2× violation of its claim), runs it once on this machine, submits it with
# submit.sh as a 4-task job array followed by the dependent merge job, waits, and compares
# the merged report with the one-machine report byte for byte. It also checks that a merge
# with a part missing is refused naming the part.
#
#   deploy/slurm/test-local-cluster.sh             # from the repository's root
#
# Exit 0: passed. Exit 77: no cluster could be started here (packages or daemons missing);
# the reason is printed. Any other exit: a failure of the test. Settings: PARTS (4), DELTA
# (the claim's δ, 1e-3; the demo's own is 1e-6, which needs about 675 000 trials: with
# LOCKSTEP=32 about 16 minutes here), LOCKSTEP (--sglu-lockstep; unset, the method's default, 32), KEEP=1
# keeps the work folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
parts=${PARTS:-4}
delta=${DELTA:-1e-3}
params='{}'
[ -n "${LOCKSTEP:-}" ] && params="{\"sglu-lockstep\": $LOCKSTEP}"
skip() {
	echo "SLURM TEST SKIPPED: $*" >&2
	exit 77
}
for cmd in munged slurmctld slurmd sbatch squeue scontrol; do
	command -v "$cmd" >/dev/null || skip "$cmd not found (install Debian's slurm-wlm and munge)"
done

work=$(mktemp -d /tmp/unlearnaudit-slurm.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
	local status=$? daemons=() f p i
	set +e # the test's status is decided: cleaning up must not change it
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	# the daemons detach: stop them by their pid files, then wait until they are gone, since
	# slurmctld writes its state on the way out (removing the folder under it fails)
	for f in "$work"/slurmd.pid "$work"/slurmctld.pid "$work"/munge/munged.pid; do
		[ -f "$f" ] && daemons+=("$(cat "$f")")
	done
	for p in "${daemons[@]}"; do kill "$p" 2>/dev/null; done
	for i in $(seq 100); do
		alive=0
		for p in "${daemons[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ $alive = 0 ] && break
		sleep 0.1
	done
	if [ "${KEEP:-0}" = 1 ]; then
		echo "kept $work"
	else
		for i in 1 2 3 4 5; do rm -rf "$work" 2>/dev/null && break; sleep 1; done
		[ -e "$work" ] && echo "note: could not remove $work" >&2
	fi
	exit $status
}
trap cleanup EXIT

echo "--- build"
go build -o "$work/bin/audit" ./cmd/audit
export PATH="$work/bin:$PATH"

echo "--- start munged, slurmctld, slurmd"
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/run"
chmod 700 "$work/munge"
head -c 1024 /dev/urandom >"$work/munge/munge.key"
chmod 600 "$work/munge/munge.key"
munged --socket="$work/munge/munge.sock" --key-file="$work/munge/munge.key" --pid-file="$work/munge/munged.pid" \
	--log-file="$work/munge/munged.log" --seed-file="$work/munge/seed" --force ||
	skip "munged did not start: $(tail -3 "$work/munge/munged.log" 2>/dev/null)"
chmod 755 "$work/munge" # the socket's folder must be searchable by the daemons' user
host=$(hostname -s)
user=$(id -un)
port=$((20000 + RANDOM % 20000))
cat >"$work/slurm.conf" <<EOF
ClusterName=unlearnaudit
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.sock
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
slurmctld || skip "slurmctld did not start: $(tail -3 "$work/slurmctld.log" 2>/dev/null)"
slurmd || skip "slurmd did not start: $(tail -3 "$work/slurmd.log" 2>/dev/null)"
for _ in $(seq 1 30); do
	sinfo -h -o %t 2>/dev/null | grep -qx idle && break
	sleep 1
done
sinfo -h -o %t 2>/dev/null | grep -qx idle ||
	skip "the node did not come up: $(sinfo 2>&1 | tail -2); $(tail -3 "$work/slurmd.log" 2>/dev/null)"
echo "cluster up: $(sinfo -h -o '%P %D %t %C')"

echo "--- plan"
cd "$work"
cat >spec.json <<EOF
{"schema": "unlearnaudit/spec/v1",
 "method": {"name": "sglu", "params": $params},
 "claim": {"epsilon": 1, "delta": $delta},
 "power": {"against": 2},
 "trials": 100, "seed": 1}
EOF
# The sharding is under test, not the method's negative controls (cmd/audit's tests shard
# and merge with them): without them the run is a fifth as long.
export AUDIT_RUN_FLAGS=--controls=false
audit plan --spec spec.json --calibrate 10s --shards "$parts" --controls=false --json >plan.json
audit plan --spec spec.json --calibrate 10s --shards "$parts" --controls=false # for the log
trials=$(grep -o '"trials_needed":[0-9]*' plan.json | head -n1 | cut -d: -f2) # the game's (other_games' follow)
sed -i "s/\"trials\": 100/\"trials\": $trials/" spec.json
audit plan --spec spec.json --calibrate 10s --shards "$parts" --controls=false --json >plan.json
predicted=$(sed 's/.*"one_machine_seconds":\([0-9.e+-]*\).*/\1/' plan.json)
per_part=$(sed 's/.*"per_shard_seconds":\([0-9.e+-]*\).*/\1/' plan.json)
merge_s=$(sed 's/.*"merge_seconds":\([0-9.e+-]*\).*/\1/' plan.json)
# on this one node, tasks of 2 CPUs run nproc/2 at a time
at_once=$(($(nproc) / 2 > 0 ? $(nproc) / 2 : 1))
predicted_here=$(awk "BEGIN{print int(($parts + $at_once - 1) / $at_once) * $per_part + $merge_s}")

# every run, part and merge under one evidence key (submit.sh passes it to the jobs)
audit keygen --out keys >/dev/null
export UNLEARNAUDIT_EVIDENCE_KEY_FILE=$work/keys/evidence.key

echo "--- one machine: $trials trials"
t0=$(date +%s.%N)
audit run --spec spec.json --out single --quiet --controls=false
t1=$(date +%s.%N)
single=$(awk "BEGIN{print $t1 - $t0}")

echo "--- Slurm: $parts-task array, then the merge"
t0=$(date +%s.%N)
ids=$("$repo/deploy/slurm/submit.sh" spec.json "$parts" shards report)
echo "$ids"
array=$(echo "$ids" | sed -n 's/^array \([0-9]*\).*/\1/p')
merge=$(echo "$ids" | sed -n 's/.*merge \([0-9]*\).*/\1/p')
deadline=$((SECONDS + 1800))
while squeue -h -j "$array,$merge" 2>/dev/null | grep -q .; do
	[ $SECONDS -lt $deadline ] || {
		echo "FAIL: jobs still queued after 30 min"
		squeue
		exit 1
	}
	sleep 1
done
t1=$(date +%s.%N)
sharded=$(awk "BEGIN{print $t1 - $t0}")
state=$(scontrol show job "$merge" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
if [ "$state" != COMPLETED ]; then
	echo "FAIL: merge job $merge ended $state"
	cat shards/slurm-*.out || true
	exit 1
fi
for t in $(seq 0 $((parts - 1))); do
	grep -q "^part $t/$parts (from SLURM_ARRAY_TASK_ID)" shards/slurm-"${array}_$t".out || {
		echo "FAIL: task $t did not run part $t/$parts from the array's variables:"
		cat shards/slurm-"${array}_$t".out
		exit 1
	}
done

echo "--- compare"
for f in report.json report.md; do
	cmp "single/$f" "report/$f" || {
		echo "FAIL: the merged $f differs from the one-machine run's"
		exit 1
	}
done
grep -q '"trial_evidence": "authenticated"' report/report.json || {
	echo "FAIL: the merged report does not say its trials were authenticated"
	exit 1
}
grep -q '"verdict": "PASS"' report/report.json || {
	echo "FAIL: the audit did not pass"
	exit 1
}
power=$(grep -o '"power": [0-9][0-9.]*' report/report.json | head -1 | cut -d' ' -f2)
echo "merged report byte-identical to the one-machine run's ($trials trials; the game's power against 2×: $power)"

echo "--- a merge with a part missing is refused"
cp -r shards broken
rm -rf "broken/shard-$((parts - 1))-of-$parts"
if audit merge broken --out broken-report --quiet 2>merge.err; then
	echo "FAIL: a merge without part $((parts - 1))/$parts passed"
	exit 1
fi
grep -q "part $((parts - 1))/$parts is missing trials" merge.err || {
	echo "FAIL: the refusal does not name the part:"
	cat merge.err
	exit 1
}
[ ! -e broken-report/report.json ] || {
	echo "FAIL: a refused merge wrote a report"
	exit 1
}

printf 'timings: one machine %.1f s (plan predicted %.1f s, %+.0f %%); Slurm array of %d + merge %.1f s from submission (plan: %.1f s with %d task(s) at a time on this node, without queueing)\n' \
	"$single" "$predicted" "$(awk "BEGIN{print 100 * ($predicted - $single) / $single}")" "$parts" "$sharded" "$predicted_here" "$at_once"
echo "SLURM TEST PASSED"
