#!/usr/bin/env python3
# Kill -9 during `cake proposal approve`, in a loop: every run leaves the old revision or the new
# one, never a half-installed one (docs/proposals.md, "Review").
# SPDX-License-Identifier: GPL-3.0-or-later
"""For each iteration: a fresh copy of a workspace in which frag-xor is evaluated (clean, at the
head), an approval started with the CAKE_TEST_SLOW_ACT_MS hook (the act sleeps after each of its
writes, inside its transaction) and SIGKILLed after a delay spread over the measured duration of
such a run. Then:

- `cake audit verify` passes;
- the head is revision 1 (old) or 2 (new); revision 2 exists iff the proposal's state is
  approved (`cake proposal status`), and then its overlay is exactly the proposal's file with
  its content's SHA-256, and the audit log has the approve vote and state entries;
- the workspace still works: when the kill left it unapproved, a plain approval now succeeds.

Prints the act's duration without the hook, the kill delays, and how many kills landed inside the
act (after at least one write, before the commit). Exit 0 when every check held, 1 otherwise."""
import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HOOK_MS = 60  # the act sleeps this long after each write (revision, vote, state)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cake", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--iterations", type=int, default=24)
    args = ap.parse_args()
    cake = args.cake
    failures = []

    def fail(msg):
        failures.append(msg)
        print("FAIL: " + msg)

    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "frag-xor")
        shutil.copytree(os.path.join(args.corpus, "proposals", "frag-xor"), folder)
        template = os.path.join(tmp, "template")
        r = run([cake, "workspace", "init", template])
        assert r.returncode == 0, r.stderr
        r = run([cake, "proposal", "evaluate", folder, "--workspace", template, "--corpus",
                 args.corpus, "--actor", "E"])
        assert r.returncode == 0, r.stdout + r.stderr
        definition = os.path.join(folder, "primitives", "elementwise", "frag.xor.json")
        with open(definition, "rb") as f:
            want_sha = hashlib.sha256(f.read()).hexdigest()
        approve = [cake, "proposal", "approve", folder, "--reviewer", "bob", "--comment",
                   "kill test"]

        def fresh(name):
            ws = os.path.join(tmp, name)
            shutil.rmtree(ws, ignore_errors=True)
            shutil.copytree(template, ws)
            return ws

        # The act's duration: the whole process, without and with the hook (best of three).
        def timed(env):
            best = None
            for i in range(3):
                ws = fresh("timing")
                t0 = time.monotonic()
                r = run(approve + ["--workspace", ws], env=env)
                dt = time.monotonic() - t0
                assert r.returncode == 0, r.stdout + r.stderr
                best = dt if best is None else min(best, dt)
            return best

        plain_env = {k: v for k, v in os.environ.items() if k != "CAKE_TEST_SLOW_ACT_MS"}
        slow_env = dict(plain_env, CAKE_TEST_SLOW_ACT_MS=str(HOOK_MS))
        plain = timed(plain_env)
        slow = timed(slow_env)

        # The act itself (first write to last write), from the hook's markers without sleeping.
        def act_span():
            best = None
            for i in range(3):
                ws = fresh("timing")
                p = subprocess.Popen(approve + ["--workspace", ws],
                                     env=dict(plain_env, CAKE_TEST_SLOW_ACT_MS="0"),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                stamps = []
                for line in p.stderr:
                    if line.startswith("CAKE_TEST_SLOW_ACT_MS: after "):
                        stamps.append(time.monotonic())
                p.wait()
                end = time.monotonic()
                assert p.returncode == 0 and len(stamps) >= 3, stamps
                span = (stamps[-1] - stamps[0], end - stamps[-1])
                best = span if best is None else min(best, span)
            return best

        span, tail = act_span()
        print("approve: %.1f ms per process; the act's writes span %.0f us (first to last), "
              "commit and exit %.1f ms; with %d ms slept after each write: %.1f ms"
              % (plain * 1000, span * 1e6, tail * 1000, HOOK_MS, slow * 1000))

        n = args.iterations
        mid_act = completed = before = after_commit = 0
        for i in range(n):
            ws = fresh("ws%d" % i)
            # Delays from just after start to just past the end of a hooked run.
            delay = slow * (0.05 + 1.0 * i / (n - 1))
            p = subprocess.Popen(approve + ["--workspace", ws], env=slow_env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(delay)
            try:
                p.send_signal(signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, err = p.communicate()
            killed = p.returncode == -signal.SIGKILL
            steps = err.count("CAKE_TEST_SLOW_ACT_MS: after ")

            v = run([cake, "audit", "verify", "--workspace", ws])
            if v.returncode != 0:
                fail("iteration %d: audit verify: %s" % (i, v.stdout + v.stderr))
            revs = run([cake, "revisions", "--workspace", ws, "--format", "json"])
            if revs.returncode != 0:
                fail("iteration %d: revisions: %s" % (i, revs.stderr))
                continue
            doc = json.loads(revs.stdout)
            head = doc["head"]
            ids = [rev["id"] for rev in doc["revisions"]]
            st = run([cake, "proposal", "status", folder, "--workspace", ws, "--format", "json"])
            if st.returncode != 0:
                fail("iteration %d: status: %s" % (i, st.stderr))
                continue
            status = json.loads(st.stdout)
            approved = status["state"] == "approved"
            if not killed:
                completed += 1
                where = "completed"
            elif approved:
                after_commit += 1
                where = "after the commit"
            elif steps > 0:
                mid_act += 1
                where = "inside the act (after %d write%s)" % (steps, "" if steps == 1 else "s")
            else:
                before += 1
                where = "before the first write"
            if head not in (1, 2):
                fail("iteration %d: head %s" % (i, head))
            if (2 in ids) != approved or (head == 2) != approved:
                fail("iteration %d: revisions %s, head %d, state %s" %
                     (i, ids, head, status["state"]))
            if approved:
                rev2 = [rev for rev in doc["revisions"] if rev["id"] == 2][0]
                files = [(c["kind"], c["path"], c["change"], c["new_sha256"])
                         for c in rev2["changes"]]
                if files != [("primitive", "elementwise/frag.xor.json", "added", want_sha)]:
                    fail("iteration %d: revision 2 files %s" % (i, files))
                if status["installed_revision"] != 2 or len(status["votes"]) != 1:
                    fail("iteration %d: status %s" % (i, st.stdout))
                if killed and not err.count("after state"):
                    fail("iteration %d: approved although killed before the last write" % i)
            else:
                if status["votes"]:
                    fail("iteration %d: a vote without the approval: %s" % (i, st.stdout))
                again = run(approve + ["--workspace", ws], env=plain_env)
                if again.returncode != 0:
                    fail("iteration %d: approval after the kill: %s" % (i, again.stderr))
            shutil.rmtree(ws, ignore_errors=True)
            print("iteration %2d: kill after %5.1f ms: %s, head %d, state %s" %
                  (i, delay * 1000, where, head, status["state"]))

        print("%d iterations: %d kills inside the act, %d before its first write, %d after its "
              "commit, %d runs completed; %d failures"
              % (n, mid_act, before, after_commit, completed, len(failures)))
        if mid_act < n // 4:
            fail("only %d of %d kills landed inside the act" % (mid_act, n))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
