#!/usr/bin/env python3
# A small concrete evaluator of one PTX entry for one (ctaid, tid): integer semantics for the
# address arithmetic, float math and cross-lane data opaque, waits satisfied; it records the
# thread's ordered trace of memory accesses and synchronisation (the back-end differential check,
# docs/lowering.md). Anything outside its vocabulary is an EvalError, never a silent pass.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Concrete single-thread PTX evaluator producing memory/synchronisation traces."""

import re

from ptx_ops import (GLOBAL_BASE, PARAM_BASE, PARAM_STRIDE, PARAM_WINDOW,  # noqa: F401
                     SHARED_WINDOW, SMEM_BASE, WINDOW_SIZE, _dests, _handler, _has_effect)
from ptx_parse import M64, OPAQUE, EvalError, Kernel, _mask, parse  # noqa: F401
from ptx_parse import _MISSING

# Value of every 32-bit (run-time scalar) kernel parameter in both back ends.
SCALAR_PARAM_VALUE = 300


class Thread:
    """Runs one thread of a parsed kernel and records its trace."""

    def __init__(self, kernel, ctaid, tid, nctaid, ntid, max_steps=2_000_000):
        self.k = kernel
        self.regs = {}
        self.mem = {}
        self.trace = []
        self.ctaid, self.tid, self.nctaid, self.ntid = ctaid, tid, nctaid, ntid
        self.max_steps = max_steps
        self.consts = {}
        for nm in ("%tid.x", "%ntid.x", "%ctaid.x", "%nctaid.x", "%laneid", "%tid.y", "%tid.z",
                   "%ntid.y", "%ntid.z", "%ctaid.y", "%ctaid.z", "%nctaid.y", "%nctaid.z"):
            self.consts[nm] = self.special(nm)
        self.symbols = {"cake_smem": SMEM_BASE}
        for i, (pname, kind) in enumerate(kernel.params):
            addr = PARAM_BASE + i * PARAM_STRIDE
            self.symbols[pname] = addr
            if kind in ("u64", "b64", "s64"):
                self._store_bytes("param", addr, GLOBAL_BASE * (i + 1), 8)
            elif kind in ("u32", "b32", "s32"):
                # A run-time scalar parameter (docs/ir.md): one value inside the launch
                # contract of the corpus kernels that have one (kv_len in [1, 32768]), with a
                # partial last block of 128 keys.
                self._store_bytes("param", addr, SCALAR_PARAM_VALUE, 4)

    # ---- values
    def special(self, nm):
        table = {
            "%tid.x": self.tid, "%tid.y": 0, "%tid.z": 0,
            "%ntid.x": self.ntid, "%ntid.y": 1, "%ntid.z": 1,
            "%ctaid.x": self.ctaid, "%ctaid.y": 0, "%ctaid.z": 0,
            "%nctaid.x": self.nctaid, "%nctaid.y": 1, "%nctaid.z": 1,
            "%laneid": self.tid % 32,
        }
        if nm not in table:
            raise EvalError(f"special register {nm} is not modelled")
        return table[nm]

    def value(self, a):
        """Value of an operand text (register, immediate, symbol, special register)."""
        v = self.regs.get(a, _MISSING)
        if v is not _MISSING:
            return v
        v = self.consts.get(a, _MISSING)
        if v is not _MISSING:
            return v
        v = self._slow_value(a)
        if not a.startswith("%") and "@" not in a:
            self.consts[a] = v  # immediates and symbols do not change
        return v

    def _slow_value(self, a):
        c = a[0]
        if c == "%":
            if a in self.regs:
                return self.regs[a]
            if a in self.k.registers:
                return OPAQUE  # never written: an undefined input (e.g. a '+f' accumulator)
            return self.special(a)
        if c.isdigit() or c == "-":
            if re.fullmatch(r"-?0[fF][0-9a-fA-F]{8}|-?0[dD][0-9a-fA-F]{16}", a):
                return OPAQUE  # float immediate
            try:
                return int(a, 0) & M64
            except ValueError:
                if re.fullmatch(r"-?\d+\.\d*(e-?\d+)?", a):
                    return OPAQUE
                raise EvalError(f"bad immediate '{a}'")
        if a in self.symbols:
            return self.symbols[a]
        if a in self.regs:  # registers declared inside an asm block (cake_p@3)
            return self.regs[a]
        if "@" in a:
            return OPAQUE
        raise EvalError(f"unknown operand '{a}'")

    def address(self, a):
        """Value of an address operand `[reg+imm]`, `[sym]`, `[imm]`."""
        if not (a.startswith("[") and a.endswith("]")):
            raise EvalError(f"expected an address operand, got '{a}'")
        inner = a[1:-1].replace(" ", "")
        m = re.fullmatch(r"([^+\-]+)(?:\+?(-?(?:0x)?[0-9a-fA-F]+))?", inner)
        if not m:
            raise EvalError(f"cannot parse address '{a}'")
        base = self.value(m.group(1))
        if base is OPAQUE:
            raise EvalError(f"address {a} depends on a value the evaluator does not compute")
        return (base + (int(m.group(2), 0) if m.group(2) else 0)) & M64

    def set(self, d, v, w=64):
        if d == "_":
            return
        if d.startswith("{"):
            raise EvalError(f"unexpected vector destination {d}")
        self.regs[d] = v if v is OPAQUE else _mask(v, w)

    # ---- memory
    def _store_bytes(self, space, addr, v, n):
        for b in range(n):
            self.mem[(space, addr + b)] = OPAQUE if v is OPAQUE else (v >> (8 * b)) & 0xFF

    def _load_bytes(self, space, addr, n):
        v = 0
        for b in range(n):
            byte = self.mem.get((space, addr + b))
            if byte is None:
                # Data nobody stored in this thread: a deterministic pseudo-value of the address,
                # the same for both back ends.
                a = addr + b
                byte = ((a * 2654435761) >> 11 ^ len(space)) & 0xFF
            if byte is OPAQUE:
                return OPAQUE
            v |= byte << (8 * b)
        return v

    def resolve_space(self, space, addr):
        if space not in ("", "generic"):
            return space, addr
        if SHARED_WINDOW <= addr < SHARED_WINDOW + WINDOW_SIZE:
            return "shared", addr - SHARED_WINDOW
        if PARAM_WINDOW <= addr < PARAM_WINDOW + WINDOW_SIZE:
            return "param", addr - PARAM_WINDOW
        return "global", addr

    def event(self, *ev):
        self.trace.append(ev)

    # ---- run
    def run(self):
        k = self.k
        pc = 0
        steps = 0
        n = len(k.instrs)
        while pc < n:
            steps += 1
            if steps > self.max_steps:
                raise EvalError(f"thread ran past {self.max_steps} instructions")
            ins = k.instrs[pc]
            pc += 1
            if ins.guard is not None:
                g = self.value(ins.guard)
                if g is OPAQUE:
                    if ins.parts[0] == "bra" or _has_effect(ins):
                        raise EvalError(
                            f"'{ins.text}' is guarded by a value the evaluator does not compute")
                    for d in _dests(ins):
                        self.regs[d] = OPAQUE
                    continue
                if bool(g) == ins.neg:
                    continue
            op = ins.parts[0]
            if op == "bra":
                tgt = ins.args[0]
                if tgt not in k.labels:
                    raise EvalError(f"unknown branch target {tgt}")
                pc = k.labels[tgt]
                continue
            if op in ("ret", "exit"):
                break
            try:
                h = ins.handler
                if h is None:
                    h = ins.handler = _handler(ins)
                h(self, ins)
            except EvalError as e:
                raise EvalError(f"{e} (in '{ins.text}')") from None
        return self.trace



def describe(ev):
    """A readable form of one trace event (addresses relative to the known windows)."""
    def fmt(v):
        if isinstance(v, tuple):
            if v and v[0] == "addr":
                return "[" + fmt(v[1]) + "]"
            if v and v[0] == "tensor":
                return "[" + fmt(v[1]) + ", {" + ", ".join(fmt(x) for x in v[2]) + "}]"
            if v and v[0] == "regs":
                return "{%d regs}" % v[1]
            return str(v)
        if isinstance(v, int):
            if v >= GLOBAL_BASE and v < GLOBAL_BASE * 64 and v % GLOBAL_BASE < (1 << 36):
                return "param%d+0x%x" % (v // GLOBAL_BASE - 1, v % GLOBAL_BASE)
            if PARAM_WINDOW <= v < PARAM_WINDOW + WINDOW_SIZE:
                return "&param%d" % ((v - PARAM_WINDOW - PARAM_BASE) // PARAM_STRIDE)
            return hex(v) if v > 4096 else str(v)
        return str(v)
    if ev[0] in ("ld", "st"):
        base = ev[2]
        where = fmt(base) if ev[1] == "global" else "smem+0x%x" % (base - SMEM_BASE) \
            if ev[1] == "shared" else hex(base)
        return "%s.%s [%s] %d bytes" % (ev[0], ev[1], where, ev[3])
    return ev[0] + " " + ", ".join(fmt(v) for v in ev[1:])
