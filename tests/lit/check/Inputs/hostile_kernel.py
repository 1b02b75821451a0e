#!/usr/bin/env python3
# Writes hostile-but-short kernels for long-chains.test: one expression of a given shape inside
# a small valid sm_80 kernel (a copy loop), so every command reaches its later passes.
# SPDX-License-Identifier: GPL-3.0-or-later
import sys

KERNEL = """kernel chain target=sm_80 {{
  const A = {expr}
  param X : f32[1024] role=input
  param Y : f32[1024] role=output
  grid tiles=[4]
  role main warps=0..8
  reg v : f32[1] scope=thread
  on main {{
    for t in tiles {{
      ld.global v, X[{index}t.x * 256 + tid +: 1]
      st.global Y[t.x * 256 + tid +: 1], v
    }}
  }}
}}
"""


def shape(kind, n):
    """The expression of `kind` with `n` repetitions."""
    if kind == "sum":  # 1+1+...+1: n terms, built by a loop in the parser
        return "+".join(["1"] * n)
    if kind == "mixed":  # a chain of every binary operator
        ops = ["+", "*", "-", "<<", ">>", "&", "|", "^", "/", "%"]
        return "1" + "".join(ops[k % len(ops)] + "1" for k in range(n - 1))
    if kind == "neg":  # ----1
        return "-" * n + "1"
    if kind == "parens":  # (1+(1+(...)))
        return "(1+" * n + "1" + ")" * n
    if kind == "list":  # [[[1]]]
        return "[" * n + "1" + "]" * n
    if kind == "member":  # A.x.x.x
        return "A" + ".x" * n
    raise SystemExit("unknown shape " + kind)


def main():
    kind, n = sys.argv[1], int(sys.argv[2])
    # "index": the chain goes into an address expression that lowering and cost walk too;
    # otherwise into a constant.
    if len(sys.argv) > 3 and sys.argv[3] == "index":
        sys.stdout.write(KERNEL.format(expr="1", index=shape(kind, n).replace("1", "0") + " + "))
    else:
        sys.stdout.write(KERNEL.format(expr=shape(kind, n), index=""))


main()
