#!/usr/bin/env python3
# Test fixture for the workspace store, written from docs/workspace.md alone (not from the C++):
# installs a revision the way the store does, or tampers with a workspace. That `cake audit
# verify` accepts what this writes checks the documented hash formats independently.
# SPDX-License-Identifier: GPL-3.0-or-later
import datetime
import hashlib
import json
import sqlite3
import sys

GENESIS = "0" * 64


def field(text):
    data = text.encode("utf-8")
    return str(len(data)).encode() + b":" + data + b"\n"


def audit_hash(prev, seq, time, actor, act, subject, payload, created):
    h = hashlib.sha256(b"cake-audit/1\n")
    for f in (prev, str(seq), time, actor, act, subject, payload,
              "" if created is None else str(created)):
        h.update(field(f))
    return h.hexdigest()


def overlay_hash(files):  # files: sorted [(kind, path, sha256)]
    h = hashlib.sha256(b"cake-overlay/1\n")
    for kind, path, sha in files:
        h.update(f"{kind}\n{path}\n{sha}\n".encode())
    return h.hexdigest()


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def install(ws, actor, reason, specs):
    """specs: kind:path=file ... — the complete overlay of the new revision."""
    db = sqlite3.connect(ws + "/workspace.db", isolation_level=None)
    db.execute("BEGIN IMMEDIATE")
    files = []
    for spec in specs:
        kind_path, source = spec.split("=", 1)
        kind, path = kind_path.split(":", 1)
        content = open(source, encoding="utf-8").read()
        files.append((kind, path, content, hashlib.sha256(content.encode()).hexdigest()))
    files.sort(key=lambda f: (f[0], f[1]))
    chash = overlay_hash([(k, p, s) for k, p, _, s in files])
    parent = db.execute("SELECT revision FROM head WHERE id = 1").fetchone()[0]
    cur = db.execute("INSERT INTO revisions(parent, created_at, actor, reason, content_hash) "
                     "VALUES (?, ?, ?, ?, ?)", (parent, now(), actor, reason, chash))
    rev = cur.lastrowid
    for kind, path, content, sha in files:
        db.execute("INSERT OR IGNORE INTO blobs(sha256, content) VALUES (?, ?)", (sha, content))
        db.execute("INSERT INTO revision_files(revision, kind, path, sha256) VALUES (?, ?, ?, ?)",
                   (rev, kind, path, sha))
    db.execute("UPDATE head SET revision = ? WHERE id = 1", (rev,))
    last = db.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
    seq, prev = (last[0] + 1, last[1]) if last else (1, GENESIS)
    payload = json.dumps({"revision": rev, "parent": parent, "content_hash": chash,
                          "files": [{"kind": k, "path": p, "sha256": s} for k, p, _, s in files],
                          "details": {"fixture": True}}, separators=(",", ":"))
    time = now()
    h = audit_hash(prev, seq, time, actor, "revision.install", f"rev{rev}", payload, rev)
    db.execute("INSERT INTO audit(seq, time, actor, act, subject, payload, created_revision, "
               "prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
               (seq, time, actor, "revision.install", f"rev{rev}", payload, rev, prev, h))
    db.execute("INSERT INTO meta(key, value) VALUES ('audit_head', ?) ON CONFLICT(key) "
               "DO UPDATE SET value = excluded.value", (f"{seq}:{h}",))
    db.execute("COMMIT")
    print(f"installed rev{rev}")


def tamper(ws, seq):
    db = sqlite3.connect(ws + "/workspace.db", isolation_level=None)
    db.execute("DROP TRIGGER audit_no_update")
    db.execute("UPDATE audit SET payload = '{\"tampered\":true}' WHERE seq = ?", (int(seq),))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "install":
        install(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif cmd == "tamper":
        tamper(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: wsfixture.py install WS ACTOR REASON KIND:PATH=FILE... | tamper WS SEQ")
