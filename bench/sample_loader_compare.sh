#!/usr/bin/env bash
# Runs cuzarr's sample loader benchmark and the tensorstore + cupy one on the same Zarr array and
# prints both and the ratio (cuzarr / tensorstore) per order.
#
#   bench/sample_loader_compare.sh [BENCH_BINARY] [-- arguments for the C++ benchmark]
#
# BENCH_BINARY defaults to build/bench/cuzarr_sample_loader_throughput (configure with
# -DCUZARR_BUILD_BENCHMARKS=ON). The array path comes from --path (default: a directory in $TMPDIR
# or /tmp); the C++ benchmark creates it when missing.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
binary="${1:-$here/../build/bench/cuzarr_sample_loader_throughput}"
[[ $# -gt 0 ]] && shift
[[ "${1:-}" == "--" ]] && shift
path="${TMPDIR:-/tmp}/cuzarr_sample_loader_bench.zarr"
batch=256
args=("$@")
for ((i = 0; i < ${#args[@]}; ++i)); do
  case "${args[i]}" in
    --path) path="${args[i + 1]}" ;;
    --batch) batch="${args[i + 1]}" ;;
  esac
done

if [[ ! -x "$binary" ]]; then
  echo "no benchmark binary at $binary (build cuzarr_sample_loader_throughput)" >&2
  exit 1
fi

echo "== cuzarr"
cuzarr_out="$("$binary" --path "$path" "$@")"
echo "$cuzarr_out"
echo "== tensorstore + cupy"
ts_out="$(python3 "$here/sample_loader_tensorstore.py" "$path" --batch "$batch")"
echo "$ts_out"

echo "== ratio (cuzarr / tensorstore, samples/s)"
for order in sequential shuffled; do
  c="$(awk -v o="$order" '$1 == "RESULT" && $2 == o {print $3}' <<<"$cuzarr_out")"
  t="$(awk -v o="$order" '$1 == "RESULT" && $2 == o {print $3}' <<<"$ts_out")"
  if [[ -z "$c" || -z "$t" ]]; then
    echo "$order: no comparison (a side was skipped)"
  else
    awk -v o="$order" -v c="$c" -v t="$t" \
      'BEGIN {printf "%s: cuzarr %.0f samples/s, tensorstore %.0f samples/s, ratio %.2f\n", o, c, t, c / t}'
  fi
done
