# Counts the candidates of `cake campaign show --format json` by arm and outcome (accepted,
# refused by the verifier, lowering-failed with its code), one sorted line per group.
# SPDX-License-Identifier: GPL-3.0-or-later
import collections
import json
import sys

show = json.load(open(sys.argv[1]))
groups = collections.Counter()
for c in show["candidates"]:
    if not c["accepted"]:
        outcome = "refused"
    elif c["lowered_ok"]:
        outcome = "accepted"
    else:
        outcome = "lowering-failed " + c["lowering_digest"]
    groups[(c.get("arm") or "-", outcome)] += 1
for (arm, outcome), n in sorted(groups.items()):
    key = outcome.split(" ", 1)
    print(arm, key[0], n, *key[1:])
