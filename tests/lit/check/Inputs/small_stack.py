#!/usr/bin/env python3
# Runs a command with a smaller stack (lit's internal shell has no `ulimit`):
#   small_stack.py KIB COMMAND [ARGS...]
# SPDX-License-Identifier: GPL-3.0-or-later
import os
import resource
import sys

kib = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_STACK, (kib * 1024, kib * 1024))
os.execv(sys.argv[2], sys.argv[2:])
