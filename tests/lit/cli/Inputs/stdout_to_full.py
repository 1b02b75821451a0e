#!/usr/bin/env python3
# Runs COMMAND with its standard output on /dev/full (every write fails with ENOSPC, as on a
# full disk) and prints "exit=N" and the command's standard error, for FileCheck:
#   stdout_to_full.py COMMAND [ARGS...]
# SPDX-License-Identifier: GPL-3.0-or-later
import subprocess
import sys

with open("/dev/full", "w") as full:
    r = subprocess.run(sys.argv[1:], stdout=full, stderr=subprocess.PIPE, text=True)
print("exit=%d" % r.returncode)
sys.stdout.write(r.stderr)
