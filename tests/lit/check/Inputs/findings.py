# Prints `cake check --format json` as one line per finding followed by one line per note, so
# FileCheck can pin each note (text and location) to its finding with CHECK-NEXT.
# SPDX-License-Identifier: GPL-3.0-or-later
import json
import os
import sys


def where(r):
    path = os.path.basename(r["path"]) + ":" if "path" in r else ""
    return f"{path}{r['line']}:{r['column']}"


doc = json.load(sys.stdin)
for f in doc["files"]:
    name = os.path.basename(f["path"])
    for d in f["findings"]:
        if d["severity"] != "blocking":
            continue
        print(f"{name}:{where(d['range'])}: {d['code']}: {d['message']}")
        for n in d["notes"]:
            print(f"  note {where(n['range'])}: {n['message']}")
