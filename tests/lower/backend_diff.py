#!/usr/bin/env python3
# Back-end differential check (docs/lowering.md): for every sm_80/sm_90a kernel, the CUDA export
# compiled by `nvcc -ptx` and the LLVM PTX of `cake lower --emit ptx` must make the same memory
# accesses and synchronisation, in the same order, for chosen (ctaid, tid) values. sm_100a
# kernels (CUDA path only) get a sanity run: every thread of one CTA is evaluated and no global
# byte may be stored twice. Exit 0: all agree; 1: a difference or something not modelled;
# 77: nvcc is absent (CTest skips).
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compares the per-thread memory/synchronisation traces of the two back ends' PTX."""

import argparse
import glob
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptx_eval  # noqa: E402

SKIP = 77
# Accepted corpus kernels that lowering refuses with a located hw-lowering-unsupported (the gate
# records it); listed by name so that a kernel which stops lowering is not skipped silently.
NOT_LOWERED: dict[str, str] = {}


def gencode(target):
    num = target[3:]
    return ["-gencode", f"arch=compute_{num},code=sm_{num}"]


def run(cmd, what):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {p.returncode}): {' '.join(cmd)}\n{p.stdout}")
    return p.stdout


def launch_shape(md):
    """Grid size and the CTAs to evaluate: the first and the last, two tiles each when the
    schedule is persistent (the tile loop runs twice), one tile each otherwise."""
    grid = md["grid"]
    tiles = int(grid["tile_count"])
    if grid.get("schedule") == "persistent":
        nctaid = max(1, (tiles + 1) // 2)
    else:
        nctaid = tiles
    ctas = sorted({0, nctaid - 1})
    return nctaid, ctas


def chosen_threads(ntid):
    """Two lanes of every warp: lane 0 and one odd lane that differs from warp to warp."""
    out = []
    for w in range((ntid + 31) // 32):
        for lane in (0, (5 + 7 * w) % 32 | 1):
            if 32 * w + lane < ntid:
                out.append(32 * w + lane)
    return out


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b)) if len(a) != len(b) else None


def show(trace, i, width=3):
    lines = []
    for j in range(max(0, i - width), min(len(trace), i + 1)):
        lines.append(f"      {'>' if j == i else ' '} {j}: {ptx_eval.describe(trace[j])}")
    if i >= len(trace):
        lines.append(f"      > {i}: (trace ends)")
    return "\n".join(lines)


def check_kernel(job):
    """Returns (ok, message) for one kernel."""
    path, cake, nvcc, workdir = job
    label = os.path.relpath(path)
    base = os.path.join(workdir, re.sub(r"[^\w.-]", "_", label))
    t0 = time.time()
    try:
        md = json.loads(run([cake, "lower", path, "--emit", "metadata"], "cake lower"))["metadata"]
        target = md["target"]
        cu = base + ".cu"
        run([cake, "lower", path, "--emit", "cuda", "-o", cu], "cake lower --emit cuda")
        nvcc_ptx = base + ".nvcc.ptx"
        run([nvcc, "-ptx", "-std=c++17", *gencode(target), cu, "-o", nvcc_ptx], "nvcc -ptx")
        cuda_k = ptx_eval.parse(open(nvcc_ptx).read())
        ntid = int(md["threads"])
        nctaid, ctas = launch_shape(md)
        if target in ("sm_80", "sm_90a"):
            llvm_ptx = base + ".llvm.ptx"
            run([cake, "lower", path, "--emit", "ptx", "-o", llvm_ptx], "cake lower --emit ptx")
            llvm_k = ptx_eval.parse(open(llvm_ptx).read())
            events = 0
            threads = 0
            for cta in ctas:
                for tid in chosen_threads(ntid):
                    ta = ptx_eval.Thread(cuda_k, cta, tid, nctaid, ntid).run()
                    tb = ptx_eval.Thread(llvm_k, cta, tid, nctaid, ntid).run()
                    threads += 1
                    events += len(ta)
                    i = first_difference(ta, tb)
                    if i is not None:
                        return False, (
                            f"FAIL {label} ({target}): the back ends disagree for ctaid {cta}, "
                            f"tid {tid} (grid {nctaid} x {ntid}) at event {i}\n"
                            f"    CUDA export (nvcc -ptx):\n{show(ta, i)}\n"
                            f"    LLVM PTX (cake lower --emit ptx):\n{show(tb, i)}\n"
                            f"    files: {cu} {nvcc_ptx} {llvm_ptx}")
            if events == 0:
                return False, f"FAIL {label} ({target}): no memory access or barrier was traced"
            return True, (f"ok   {label} ({target}): {threads} threads x 2 back ends agree on "
                          f"{events} events each ({time.time() - t0:.1f} s)")
        # CUDA is the only path: every thread of CTA 0 runs; no global byte is stored twice, and
        # no TMA box (tensor map, coordinates) is stored twice (a TMA-store epilogue).
        written = {}
        boxes = {}
        events = 0
        for tid in range(ntid):
            tr = ptx_eval.Thread(cuda_k, 0, tid, nctaid, ntid).run()
            events += len(tr)
            for ev in tr:
                if (ev[0].startswith("cp.async.bulk.tensor.") and ".global.shared::" in ev[0]
                        and len(ev) > 1 and ev[1][0] == "tensor"):
                    box = ev[1][1:]
                    if box in boxes:
                        return False, (f"FAIL {label} ({target}): TMA box {box} is stored by tid "
                                       f"{boxes[box]} and again by tid {tid} (ctaid 0)")
                    boxes[box] = tid
                if ev[0] == "st" and ev[1] == "global":
                    for b in range(ev[2], ev[2] + ev[3]):
                        if b in written:
                            return False, (
                                f"FAIL {label} ({target}): global byte "
                                f"{ptx_eval.describe(('st', 'global', b, 1))} is stored by tid "
                                f"{written[b]} and again by tid {tid} (ctaid 0, grid {nctaid})")
                        written[b] = tid
        if not written and not boxes:
            return False, f"FAIL {label} ({target}): CTA 0 stores nothing to global memory"
        tma = f", {len(boxes)} TMA store boxes each stored once" if boxes else ""
        return True, (f"ok   {label} ({target}, CUDA path only): {ntid} threads of CTA 0, "
                      f"{events} events, {len(written)} global bytes each stored once{tma} "
                      f"({time.time() - t0:.1f} s)")
    except ptx_eval.EvalError as e:
        return False, f"FAIL {label}: the evaluator cannot model this kernel: {e}"
    except (RuntimeError, OSError, KeyError, ValueError) as e:
        return False, f"FAIL {label}: {e}"


def lit_kernels(test_dir, scratch):
    """Kernels embedded in lit tests (`#--- name.cake` sections) of the lowering tests."""
    out = []
    for t in sorted(glob.glob(os.path.join(test_dir, "*.test"))):
        text = open(t).read()
        parts = re.split(r"^#--- (\S+)\n", text, flags=re.M)
        for name, body in zip(parts[1::2], parts[2::2]):
            if name.endswith(".cake"):
                dst = os.path.join(scratch, os.path.basename(t) + "." + name)
                with open(dst, "w") as f:
                    f.write(body)
                out.append(dst)
    return out


def lowers(cake, path):
    p = subprocess.run([cake, "lower", path, "--emit", "metadata"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return p.returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cake", required=True)
    ap.add_argument("--source-dir", required=True, help="repository root")
    ap.add_argument("--nvcc", default=os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                                                   "bin", "nvcc"))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--keep", help="keep the generated files in this directory")
    ap.add_argument("kernels", nargs="*", help="only these kernels (default: corpus + tests)")
    args = ap.parse_args()
    if not (os.path.isfile(args.nvcc) and os.access(args.nvcc, os.X_OK)):
        print(f"SKIPPED: the back-end differential check needs nvcc; {args.nvcc} is absent "
              "(set CUDA_HOME)")
        return SKIP
    workdir = args.keep or tempfile.mkdtemp(prefix="cake-backend-diff-")
    os.makedirs(workdir, exist_ok=True)
    src = args.source_dir
    if args.kernels:
        kernels = [os.path.abspath(k) for k in args.kernels]
    else:
        manifest = json.load(open(os.path.join(src, "corpus", "manifest.json")))
        kernels = [os.path.join(src, "corpus", c["path"]) for c in manifest["cases"]
                   if c["expect"]["accepted"] and c["path"] not in NOT_LOWERED]
        for path, why in sorted(NOT_LOWERED.items()):
            print(f"skip corpus/{path}: not lowered yet ({why})")
        inputs = sorted(glob.glob(os.path.join(src, "tests", "lit", "lower", "Inputs", "*.cake")))
        kernels += inputs
        # Kernels inside the lowering lit tests: those that lower (the rest test errors).
        embedded = lit_kernels(os.path.join(src, "tests", "lit", "lower"), workdir)
        kept = [k for k in embedded if lowers(args.cake, k)]
        print(f"lit-embedded lowering kernels: {len(kept)} of {len(embedded)} lower "
              "(the others are error tests)")
        kernels += kept
    jobs = [(k, args.cake, args.nvcc, workdir) for k in kernels]
    t0 = time.time()
    with multiprocessing.Pool(max(1, args.jobs)) as pool:
        results = pool.map(check_kernel, jobs)
    failed = 0
    for ok, msg in results:
        print(msg)
        failed += 0 if ok else 1
    print(f"{len(results) - failed} of {len(results)} kernels agree ({time.time() - t0:.1f} s)")
    if failed:
        print(f"generated files kept in {workdir}")
    elif not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
