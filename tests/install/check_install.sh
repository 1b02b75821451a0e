#!/usr/bin/env bash
# Installs the build into a temporary prefix and runs the installed `cake` and `cake-workbench`
# from it: they must find their data (primitives, targets, rules, calibrations, corpus) under
# PREFIX/share/cake, not in the source tree, and the desktop files must be where a desktop
# looks. With --package, also builds the Debian package with CPack and checks its contents.
# SPDX-License-Identifier: GPL-3.0-or-later
# Usage: check_install.sh BUILD_DIR [--package]
set -euo pipefail
build=$(cd "$1" && pwd)
package=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check_install: $*" >&2; exit 1; }

prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" --strip >/dev/null || fail "cmake --install failed"

for f in bin/cake bin/cake-workbench bin/cake-run share/cake/primitives share/cake/targets/sm_90a.json \
         share/cake/rules share/cake/calibration share/cake/corpus/manifest.json share/cake/docs/workbench.md \
         share/applications/cake-workbench.desktop share/mime/packages/cake-ir.xml \
         share/metainfo/io.github.cake_workbench.CakeWorkbench.metainfo.xml \
         share/icons/hicolor/scalable/apps/cake-workbench.svg \
         share/icons/hicolor/48x48/apps/cake-workbench.png; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done

# No run path into the build tree: the installed binaries stand alone.
for b in cake cake-workbench cake-run; do
  if readelf -d "$prefix/bin/$b" | grep -E 'R(UN)?PATH' | grep -q "$build"; then
    fail "bin/$b has a run path into the build tree"
  fi
done

# The installed CLI reads its data from the prefix.
cd "$tmp"  # not the source tree
ver=$("$prefix/bin/cake" version --format json)
python3 - "$prefix" "$ver" <<'PY' || exit 1
import json, sys
prefix, v = sys.argv[1], json.loads(sys.argv[2])
for key in ("primitive_dir", "target_dir", "corpus_dir"):
    if not v[key].startswith(prefix + "/share/cake/"):
        sys.exit(f"check_install: {key} is {v[key]}, not under {prefix}/share/cake")
if v["primitives"] < 1:
    sys.exit("check_install: no primitives loaded from the prefix")
PY
# Found through PATH (argv[0] without a directory), it still reads the prefix's data.
ver=$(PATH="$prefix/bin:$PATH" cake version --format json)
python3 - "$prefix" "$ver" <<'PY' || exit 1
import json, sys
prefix, v = sys.argv[1], json.loads(sys.argv[2])
if not v["primitive_dir"].startswith(prefix + "/share/cake/"):
    sys.exit(f"check_install: cake found through PATH reads {v['primitive_dir']}")
PY
kernel=$prefix/share/cake/corpus/hopper_gemm/gemm_ws.cake
"$prefix/bin/cake" check "$kernel" >/dev/null || fail "installed cake check refused the Hopper GEMM"
"$prefix/bin/cake" lower "$kernel" --emit ptx -o "$tmp/gemm.ptx" >/dev/null \
  || fail "installed cake lower failed"
grep -q '^.target sm_90a' "$tmp/gemm.ptx" || fail "installed cake lower wrote no sm_90a PTX"
"$prefix/bin/cake" corpus --format json >"$tmp/corpus.json" || fail "installed cake corpus failed"
# The CPU interpreter in process, and the installed runner's CPU device on a CPU bundle.
"$prefix/bin/cake" run --device cpu "$kernel" --format json >"$tmp/cpu.json" \
  || fail "installed cake run --device cpu failed"
"$prefix/bin/cake" run --device cpu "$kernel" --bundle "$tmp/cpu-bundle" --bundle-only >/dev/null \
  || fail "installed cake run could not build a CPU bundle"
"$prefix/bin/cake-run" "$tmp/cpu-bundle" --format json >"$tmp/cpu-record.json" \
  || fail "installed cake-run did not run the CPU bundle correctly: $(cat "$tmp/cpu-record.json")"
grep -q '"correct": true' "$tmp/cpu-record.json" || fail "the CPU record is not correct"

# The installed workbench renders a view from the prefix.
QT_QPA_PLATFORM=offscreen "$prefix/bin/cake-workbench" --screenshot "$tmp/shot.png" \
  --view findings --size 800x500 "$kernel" >/dev/null 2>&1 || fail "installed workbench failed"
[ -s "$tmp/shot.png" ] || fail "installed workbench wrote no screenshot"

if [ "$package" = "--package" ]; then
  (cd "$build" && cpack --config CPackConfig.cmake -B "$tmp/pkg" >/dev/null) || fail "cpack failed"
  deb=$(ls "$tmp"/pkg/*.deb 2>/dev/null | head -1)
  [ -n "$deb" ] || fail "cpack wrote no .deb"
  contents=$(dpkg-deb -c "$deb")
  for f in ./usr/bin/cake ./usr/bin/cake-workbench ./usr/share/cake/corpus/manifest.json \
           ./usr/share/applications/cake-workbench.desktop \
           ./usr/share/metainfo/io.github.cake_workbench.CakeWorkbench.metainfo.xml; do
    grep -q " $f\$" <<<"$contents" || fail "package lacks $f"
  done
  depends=$(dpkg-deb -f "$deb" Depends)
  for lib in libqt6widgets6 libsqlite3; do
    grep -q "$lib" <<<"$depends" || fail "package Depends lacks $lib: $depends"
  done
  echo "check_install: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB), Depends: $depends"
fi
echo "check_install: installed binaries run from $prefix"
