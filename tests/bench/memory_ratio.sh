#!/bin/sh
# Peak memory of `cake check` and `cake cost` on a generated kernel, as a multiple of its size.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/bench/memory_ratio.sh CAKE CAKE_BENCH [OPS] [CHECK_MAX COST_MAX]
#
# Writes a generated kernel of about OPS operations (default 800,000: about 50 MB) with
# `cake-bench --dump-generated`, runs `cake check --format json` and `cake cost --format json` on
# it under GNU time (`/usr/bin/time -v`) and prints each command's peak resident set size and its
# ratio to the kernel's size. Given CHECK_MAX and COST_MAX (ratios, e.g. 25 40), exits 1 when a
# command is above its limit. A measurement, not a unit test: the ratio only means something for
# large kernels (small ones are dominated by the fixed part: registry, analysis bound). The
# targets are check <= 25x and cost <= 40x for a 50 MB kernel (docs/development.md).
set -eu

if [ $# -lt 2 ]; then
  echo "usage: $0 CAKE CAKE_BENCH [OPS] [CHECK_MAX COST_MAX]" >&2
  exit 2
fi
cake=$1
bench=$2
ops=${3:-800000}
check_max=${4:-}
cost_max=${5:-}
if [ ! -x /usr/bin/time ]; then
  echo "memory_ratio: GNU time (/usr/bin/time) is not installed; nothing measured" >&2
  exit 2
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/cake-memory-XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
kernel="$dir/generated.cake"
"$bench" --dump-generated "$kernel" "$ops" >/dev/null
bytes=$(wc -c <"$kernel" | tr -d ' ')
echo "kernel: $ops operations, $bytes bytes"

status=0
for command in check cost; do
  # cake exits 1 for a kernel it refuses; the generated kernel must be accepted.
  if ! /usr/bin/time -v -o "$dir/$command.time" "$cake" "$command" --format json "$kernel" \
    >/dev/null 2>"$dir/$command.err"; then
    echo "memory_ratio: 'cake $command' failed:" >&2
    cat "$dir/$command.err" >&2
    exit 2
  fi
  kb=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$dir/$command.time")
  wall=$(sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' \
    "$dir/$command.time")
  ratio=$(awk -v kb="$kb" -v b="$bytes" 'BEGIN { printf "%.1f", kb * 1024 / b }')
  limit=$check_max
  [ "$command" = cost ] && limit=$cost_max
  verdict=""
  if [ -n "$limit" ]; then
    if awk -v r="$ratio" -v l="$limit" 'BEGIN { exit !(r > l) }'; then
      verdict=" ABOVE the limit of ${limit}x"
      status=1
    else
      verdict=" (limit ${limit}x)"
    fi
  fi
  echo "cake $command: peak RSS $kb KiB, ${ratio}x the kernel, $wall wall$verdict"
done
exit $status
