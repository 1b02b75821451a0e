#!/usr/bin/env python3
# Costs one loop-bound kernel at several trip counts and prints the prediction ratios between
# consecutive ones (each 10x more trips), for cost-trip-scaling.test:
#   cost_scaling.py CAKE OUTDIR
# SPDX-License-Identifier: GPL-3.0-or-later
import json
import os
import subprocess
import sys

KERNEL = """kernel loopy target=sm_90a {{
  const K = {trips}
  param X : f32[1024] role=input
  param Y : f32[1024] role=output
  grid tiles=[1]
  role main warps=0..8
  reg v : f32[4] scope=thread
  on main {{
    for t in tiles {{
      for k in 0..K {{
        ld.global v, X[tid * 4 +: 4]
        st.global Y[tid * 4 +: 4], v
      }}
    }}
  }}
}}
"""

cake, out = sys.argv[1], sys.argv[2]
previous = None
for trips in (20000, 200000, 2000000, 20000000):
    path = os.path.join(out, "loop-%d.cake" % trips)
    with open(path, "w") as f:
        f.write(KERNEL.format(trips=trips))
    r = subprocess.run([cake, "cost", path, "--format", "json"], capture_output=True, text=True,
                       check=True)
    est = json.loads(r.stdout)
    lo, hi = est["bounds_us"]
    extrapolated = any("steady state extrapolated" in n for n in est["notes"])
    line = "trips=%d extrapolated=%s" % (trips, "yes" if extrapolated else "no")
    if previous:
        # Rounded to one decimal: a loop-bound kernel scales linearly once the pipeline is full.
        line += " ratio=%.1f" % (est["predicted_us"] / previous)
    print(line + " bounds=%s" % ("ordered" if lo <= est["predicted_us"] <= hi else "WRONG"))
    previous = est["predicted_us"]
