#!/usr/bin/env bash
# Exact ERM speed: retrain.Minimize (Hessian-free trust-region Newton) against liblinear
# (scikit-learn's solver="liblinear", Debian's python3-sklearn) on the same problem —
# L2-logistic regression on Fashion-MNIST 7 vs 9, 12,000 × 784, λ = 1e-6·n — measured in
# one run on this machine. Needs dataset-fashion-mnist and python3-sklearn:
#   apt-get install dataset-fashion-mnist python3-sklearn
# Usage: bench/erm.sh [repeats]   (from the repository root or anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=${1:-5}

go_line=$(go test ./retrain -run '^$' -bench '^BenchmarkFashionMNISTERM$' -benchtime "${repeat}x" -count 1 |
  grep '^BenchmarkFashionMNISTERM')
py_line=$(/usr/bin/python3 bench/liblinear.py --repeat "$repeat")

echo "$go_line"
echo "$py_line"
go_s=$(awk '{for (i = 1; i < NF; i++) if ($(i+1) == "ns/op") printf "%.4f", $i / 1e9}' <<<"$go_line")
go_g=$(awk '{for (i = 1; i < NF; i++) if ($(i+1) == "grad/1e-10") printf "%.3g", $i * 1e-10}' <<<"$go_line")
lib_s=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' <<<"$py_line")
lib_g=$(sed -n 's/.*grad_norm=\([0-9.e+-]*\).*/\1/p' <<<"$py_line")
awk -v a="$go_s" -v ga="$go_g" -v b="$lib_s" -v gb="$lib_g" 'BEGIN {
  printf "retrain.Minimize: %.3f s to ‖∇f‖ = %s; liblinear: %.3f s to ‖∇f‖ = %s; ratio %.2f\n", a, ga, b, gb, a / b
}'
