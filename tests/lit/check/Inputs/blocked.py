# Prints the `blocked` list of `cake trace --format json`: where each role stopped on a deadlock.
# SPDX-License-Identifier: GPL-3.0-or-later
import json
import sys

doc = json.load(sys.stdin)
a = doc["analysis"]
print("deadlock" if a["deadlock"] else "no deadlock")
for b in a["blocked"]:
    where = b.get("barrier", "")
    if "slot" in b:
        where += f"[{b['slot']}]"
    parity = f" parity {b['parity']} phase {b['phase']}" if "parity" in b else ""
    print(f"{b['role']} blocked at {b['op']} line {b['line']} {where}{parity} ({b['context']})")
