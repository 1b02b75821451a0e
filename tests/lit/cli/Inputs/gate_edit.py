#!/usr/bin/env python3
# Edits a `cake gate` report to make a baseline with known changes:
#   gate_edit.py IN OUT EDIT...
# EDIT is one of
#   verdict:ID            flip the observed verdict
#   codes:ID:CODE         replace the observed finding codes by [CODE]
#   ptx:ID                replace the PTX digest by zeros
#   prediction:ID:FACTOR  multiply the predicted time
#   drop:ID               remove the case (a new case for the run)
#   copy:ID:NEW           add a copy of the case as NEW (a missing case for the run)
# SPDX-License-Identifier: GPL-3.0-or-later
import json
import sys

report = json.load(open(sys.argv[1]))
cases = {c["id"]: c for c in report["cases"]}
for edit in sys.argv[3:]:
    op, case, *rest = edit.split(":")
    obs = cases[case]["observed"]
    if op == "verdict":
        obs["accepted"] = not obs["accepted"]
    elif op == "codes":
        obs["codes"] = [rest[0]]
    elif op == "ptx":
        obs["digests"]["ptx"] = "sha256:" + "0" * 64
    elif op == "prediction":
        obs["predicted_us"] *= float(rest[0])
    elif op == "drop":
        report["cases"] = [c for c in report["cases"] if c["id"] != case]
    elif op == "copy":
        extra = json.loads(json.dumps(cases[case]))
        extra["id"] = rest[0]
        report["cases"].append(extra)
    else:
        sys.exit("unknown edit " + edit)
json.dump(report, open(sys.argv[2], "w"), indent=2)
