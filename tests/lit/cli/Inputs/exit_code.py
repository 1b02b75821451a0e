#!/usr/bin/env python3
# Runs COMMAND and prints its standard output, then "exit=N", then its standard error, so one
# FileCheck pins the exact exit code (lit's `not` accepts any failure):
#   exit_code.py COMMAND [ARGS...]
# SPDX-License-Identifier: GPL-3.0-or-later
import subprocess
import sys

r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
sys.stdout.write(r.stdout)
print("exit=%d" % r.returncode)
sys.stdout.write(r.stderr)
