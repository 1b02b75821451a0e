#!/usr/bin/env python3
# Validates `cake check --format sarif` output: the SARIF 2.1.0 schema (the subset authored from
# the specification in this directory; the official OASIS schema too when CAKE_SARIF_SCHEMA
# points at a copy) and the cross-references schemas cannot express (rule and artifact indices,
# regions inside the file, levels matching the rule defaults).
# SPDX-License-Identifier: GPL-3.0-or-later
import json
import os
import subprocess
import sys
import urllib.parse

import jsonschema


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    cake, schema_path, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    proc = subprocess.run([cake, "check", "--format", "sarif", *files], capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        fail("cake check exited %d: %s" % (proc.returncode, proc.stderr))
    log = json.loads(proc.stdout)
    schemas = [schema_path]
    official = os.environ.get("CAKE_SARIF_SCHEMA")
    if official:
        schemas.append(official)
    for path in schemas:
        with open(path) as f:
            schema = json.load(f)
        # The OASIS schema declares draft-04; the subset draft-07.
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
        validator = cls(schema, format_checker=cls.FORMAT_CHECKER if hasattr(cls, "FORMAT_CHECKER")
                        else jsonschema.FormatChecker())
        errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
        if errors:
            fail("%s: %s at %s" % (os.path.basename(path), errors[0].message, list(errors[0].path)))
    run = log["runs"][0]
    bases = run.get("originalUriBaseIds", {})

    def local_path(loc):
        """The file an artifactLocation names: file:// URIs, or relative to its uriBaseId."""
        uri = loc["uri"]
        if "uriBaseId" in loc:
            if loc["uriBaseId"] not in bases:
                fail("uriBaseId %s is not defined in originalUriBaseIds" % loc["uriBaseId"])
            uri = urllib.parse.urljoin(bases[loc["uriBaseId"]]["uri"], uri)
        parsed = urllib.parse.urlparse(uri)
        if parsed.scheme != "file":
            fail("%s is neither a file:// URI nor relative to a base" % loc["uri"])
        return urllib.parse.unquote(parsed.path)

    rules = run["tool"]["driver"]["rules"]
    artifacts = run["artifacts"]
    if not run["results"]:
        fail("no results: the inputs are expected to produce findings")
    levels = {"blocking": "error", "report": "warning", "hint": "note"}
    for r in run["results"]:
        rule = rules[r["ruleIndex"]]
        if rule["id"] != r["ruleId"]:
            fail("ruleIndex %d is %s, not %s" % (r["ruleIndex"], rule["id"], r["ruleId"]))
        if "help" not in rule or "text" not in rule["help"]:
            fail("rule %s has no help text" % rule["id"])
        cause = r.get("properties", {}).get("caused_by")
        if cause is not None:
            # A consequence: reported (warning) below its rule's default, naming its cause.
            if r["level"] != "warning" or not any(x["id"] == cause for x in rules):
                fail("%s: consequence of %s has level %s" % (r["ruleId"], cause, r["level"]))
        elif r["level"] != rule["defaultConfiguration"]["level"]:
            fail("%s: level %s differs from its rule's default" % (r["ruleId"], r["level"]))
        for loc in r["locations"] + r.get("relatedLocations", []):
            phys = loc.get("physicalLocation")
            if not phys:
                continue
            a = phys["artifactLocation"]
            if artifacts[a["index"]]["location"]["uri"] != a["uri"]:
                fail("artifact index %d does not match %s" % (a["index"], a["uri"]))
            reg = phys.get("region")
            if reg:
                with open(local_path(a), encoding="utf-8", errors="replace") as f:
                    lines = f.read().split("\n")
                if reg["startLine"] > len(lines) or reg["endLine"] > len(lines) or reg["endLine"] < reg["startLine"]:
                    fail("%s: region %s outside %s" % (r["ruleId"], reg, a["uri"]))
    print("ok: %d results, %d rules, %d artifacts validated against %s" %
          (len(run["results"]), len(rules), len(artifacts), ", ".join(os.path.basename(s) for s in schemas)))


if __name__ == "__main__":
    main()
