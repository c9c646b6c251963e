#!/usr/bin/env bash
# Runs the hostile corpus against an audit binary, one case at a time, and checks issue 41's
# "done when" for each (see bench/hostile/README.md):
#   go build -o /tmp/audit ./cmd/audit
#   go run ./bench/hostile/gen -out /tmp/hostile-corpus
#   bench/hostile/run.sh /tmp/audit /tmp/hostile-corpus [-case REGEXP] [-keep]
# Exits 1 when any case is not clean. Needs GNU time (/usr/bin/time) and cp -a.
set -euo pipefail
bin=$(realpath "$1")
corpus=$(realpath "$2")
shift 2
cd "$(dirname "$0")/../.."
go build -o "${TMPDIR:-/tmp}/hostile-runner" ./bench/hostile/run
exec "${TMPDIR:-/tmp}/hostile-runner" "$bin" "$corpus" "$@"
