#!/usr/bin/env python3
# Copies a primitive definition with its first constraint's "check" expression made hostile:
#   hostile_constraint.py IN.json OUT.json sum|list|neg N
# sum: `1+1+…+1 > 0 && (check)`, list: `[[[…1…]]] == [1] && (check)`, neg: `!!!!…(check)`.
# SPDX-License-Identifier: GPL-3.0-or-later
import json
import sys

src, dst, kind, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
doc = json.load(open(src))
check = doc["constraints"][0]["check"]
if kind == "sum":
    doc["constraints"][0]["check"] = "+".join(["1"] * n) + " > 0 && (" + check + ")"
elif kind == "list":
    doc["constraints"][0]["check"] = "[" * n + "1" + "]" * n + " == [1] && (" + check + ")"
elif kind == "neg":
    doc["constraints"][0]["check"] = "!" * n + "(" + check + ")"
else:
    raise SystemExit("unknown kind " + kind)
json.dump(doc, open(dst, "w"), indent=1)
