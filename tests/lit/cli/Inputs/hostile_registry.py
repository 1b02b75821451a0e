#!/usr/bin/env python3
# Copies a primitive registry and replaces one text in one of its files: a hostile definition
# that differs from a shipped one in exactly the injected part (tests of registry injection).
#   hostile_registry.py SRC_DIR DEST_DIR RELATIVE_FILE OLD NEW
# SPDX-License-Identifier: GPL-3.0-or-later
import shutil
import sys

src, dest, rel, old, new = sys.argv[1:6]
shutil.rmtree(dest, ignore_errors=True)
shutil.copytree(src, dest)
path = f"{dest}/{rel}"
with open(path, encoding="utf-8") as f:
    text = f.read()
if old not in text:
    sys.exit(f"hostile_registry.py: '{old}' not in {rel}")
with open(path, "w", encoding="utf-8") as f:
    f.write(text.replace(old, new, 1))
