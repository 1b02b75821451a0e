# Prints `cake check --format json` as one line per finding with its severity, code, position
# and caused_by (when set), then one line per note, so FileCheck can pin causes and consequences.
# SPDX-License-Identifier: GPL-3.0-or-later
import json
import sys

doc = json.load(sys.stdin)
for f in doc["files"]:
    for d in f["findings"]:
        if d["code"].startswith("perf-"):
            continue
        r = d["range"]
        line = f"{d['severity']} {d['code']} {r['line']}:{r['column']}"
        cause = d.get("caused_by")
        if cause:
            line += f" caused_by {cause['code']} {cause['range']['line']}:{cause['range']['column']}"
        print(line)
        for n in d["notes"]:
            print(f"  note {n['range']['line']}:{n['range']['column']}: {n['message']}")
