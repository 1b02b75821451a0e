#!/usr/bin/env python3
# Instruction semantics of the PTX evaluator (ptx_eval.py): integer arithmetic, predicates and
# conversions computed; float math and cross-lane data opaque; memory accesses and
# synchronisation recorded as trace events with their concrete operands.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Per-instruction handlers of the PTX evaluator."""

from ptx_parse import (OPAQUE, EvalError, _TYPE_RE, _mask, _signed, _split_top,  # noqa: F401
                       _width)

# Address-space layout of the evaluated thread. Parameters: pointer `i` holds GLOBAL_BASE*(i+1);
# the parameter space symbol of parameter `i` is at PARAM_BASE + i*PARAM_STRIDE. Generic
# addresses of the shared and parameter windows are offsets into fixed windows.
GLOBAL_BASE = 1 << 40
PARAM_BASE = 0x1000
PARAM_STRIDE = 0x1000
SMEM_BASE = 0x400  # the dynamic shared-memory symbol (1 KiB aligned, not zero: masks matter)
SHARED_WINDOW = 0x7F00_0000_0000
PARAM_WINDOW = 0x7E00_0000_0000
WINDOW_SIZE = 1 << 32


def _has_effect(ins):
    op = ins.parts[0]
    return op not in _PURE


def _dests(ins):
    return ins.dests


def _itype(ins):
    """The instruction's last type suffix and its width."""
    if ins.ty is None:
        raise EvalError(f"no type suffix in '{ins.op}'")
    return ins.ty, ins.width


def _is_float(t):
    return t.startswith("f") or t.startswith("bf")


# ---- integer / predicate arithmetic --------------------------------------------------------
def _arith(th, ins):
    op = ins.parts[0]
    t, w = _itype(ins)
    vals = [th.value(a) for a in ins.args[1:]]
    d = ins.args[0]
    if _is_float(t) or any(v is OPAQUE for v in vals):
        th.set(d, OPAQUE)
        return
    if t == "pred":
        a = vals[0] & 1
        b = vals[1] & 1 if len(vals) > 1 else 0
        r = {"and": a & b, "or": a | b, "xor": a ^ b, "not": 1 - a, "mov": a}[op]
        th.set(d, r, 1)
        return
    s = t.startswith("s")
    mods = ins.parts[1:-1]
    a = vals[0]
    b = vals[1] if len(vals) > 1 else 0
    sa, sb = _signed(a, w), _signed(b, w)
    if op == "add":
        r = a + b
    elif op == "sub":
        r = a - b
    elif op == "mul" or op == "mad":
        if "wide" in mods:
            r = (sa * sb) if s else (_mask(a, w) * _mask(b, w))
            w2 = 2 * w
            if op == "mad":
                r += vals[2]
            th.set(d, r, w2)
            return
        if "hi" in mods:
            r = ((sa * sb) if s else (_mask(a, w) * _mask(b, w))) >> w
        else:
            r = a * b
        if op == "mad":
            r += vals[2]
    elif op in ("div", "rem"):
        if _mask(b, w) == 0:
            raise EvalError("integer division by zero")
        if s:
            q = abs(sa) // abs(sb) * (1 if (sa < 0) == (sb < 0) else -1)
            r = q if op == "div" else sa - q * sb
        else:
            r = _mask(a, w) // _mask(b, w) if op == "div" else _mask(a, w) % _mask(b, w)
    elif op == "and":
        r = a & b
    elif op == "or":
        r = a | b
    elif op == "xor":
        r = a ^ b
    elif op == "not":
        r = ~a
    elif op == "neg":
        r = -a
    elif op == "abs":
        r = abs(sa)
    elif op == "min":
        r = min(sa, sb) if s else min(_mask(a, w), _mask(b, w))
    elif op == "max":
        r = max(sa, sb) if s else max(_mask(a, w), _mask(b, w))
    elif op == "shl":
        sh = _mask(b, 32)
        r = 0 if sh >= w else a << sh
    elif op == "shr":
        sh = _mask(b, 32)
        if s:
            r = sa >> min(sh, w - 1)
        else:
            r = 0 if sh >= w else _mask(a, w) >> sh
    else:
        raise EvalError(f"integer operation {op} is not modelled")
    th.set(d, r, w)


def _mov(th, ins):
    d, a = ins.args[0], ins.args[1]
    t, w = _itype(ins)
    if d.startswith("{"):  # unpack
        parts = [x.strip() for x in d[1:-1].split(",")]
        v = th.value(a)
        pw = w // len(parts)
        for i, p in enumerate(parts):
            th.set(p, OPAQUE if v is OPAQUE else (v >> (pw * i)), pw)
        return
    if a.startswith("{"):  # pack
        parts = [x.strip() for x in a[1:-1].split(",")]
        pw = w // len(parts)
        r = 0
        for i, p in enumerate(parts):
            v = th.value(p)
            if v is OPAQUE:
                th.set(d, OPAQUE)
                return
            r |= _mask(v, pw) << (pw * i)
        th.set(d, r, w)
        return
    v = th.value(a)
    th.set(d, v, w)


def _setp(th, ins):
    cmp_ = ins.parts[1]
    t, w = _itype(ins)
    boolop = ins.parts[2] if len(ins.parts) > 3 and ins.parts[2] in ("and", "or", "xor") else None
    dests = ins.args[0].split("|")
    a, b = th.value(ins.args[1]), th.value(ins.args[2])
    c = None
    if boolop:
        cs = ins.args[3]
        c = th.value(cs.lstrip("!"))
        if c is not OPAQUE and cs.startswith("!"):
            c = 1 - (c & 1)
    if _is_float(t) or a is OPAQUE or b is OPAQUE or c is OPAQUE:
        for dd in dests:
            th.set(dd, OPAQUE)
        return
    s = t.startswith("s")
    if s:
        x, y = _signed(a, w), _signed(b, w)
    else:
        x, y = _mask(a, w), _mask(b, w)
    table = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y,
             "lo": x < y, "ls": x <= y, "hi": x > y, "hs": x >= y}
    if cmp_ not in table:
        raise EvalError(f"comparison {cmp_} is not modelled")
    r = int(table[cmp_])
    if boolop:
        r = {"and": r & c, "or": r | c, "xor": r ^ c}[boolop]
    th.set(dests[0], r, 1)
    if len(dests) > 1:
        th.set(dests[1], 1 - r, 1)


def _selp(th, ins):
    t, w = _itype(ins)
    a, b, c = (th.value(x) for x in ins.args[1:4])
    if c is OPAQUE:
        th.set(ins.args[0], a if a == b and a is not OPAQUE else OPAQUE)
        return
    th.set(ins.args[0], a if c & 1 else b, w)


def _cvt(th, ins):
    types = [p for p in ins.parts[1:] if _TYPE_RE.match(p)]
    if len(types) != 2:
        raise EvalError(f"cannot read the types of '{ins.op}'")
    dt, st = types
    v = th.value(ins.args[1])
    if _is_float(dt) or _is_float(st) or v is OPAQUE:
        th.set(ins.args[0], OPAQUE)
        return
    sw, dw = _width(st), _width(dt)
    v = _signed(v, sw) if st.startswith("s") else _mask(v, sw)
    th.set(ins.args[0], v, dw)


def _cvta(th, ins):
    to = "to" in ins.parts
    space = [p for p in ins.parts[1:] if p in ("shared", "param", "global", "local", "const")]
    if not space:
        raise EvalError(f"cvta without a state space: {ins.op}")
    space = space[0]
    v = th.value(ins.args[1])
    if v is OPAQUE:
        th.set(ins.args[0], OPAQUE)
        return
    t, w = _itype(ins)
    window = {"shared": SHARED_WINDOW, "param": PARAM_WINDOW}.get(space)
    if space in ("global",):
        th.set(ins.args[0], v, w)
    elif window is None:
        raise EvalError(f"cvta to/from .{space} is not modelled")
    elif to:
        th.set(ins.args[0], v - window, w)
    else:
        th.set(ins.args[0], v + window, w)


def _bfe(th, ins):
    t, w = _itype(ins)
    a, pos, ln = (th.value(x) for x in ins.args[1:4])
    if OPAQUE in (a, pos, ln):
        th.set(ins.args[0], OPAQUE)
        return
    pos, ln = pos & 0xFF, ln & 0xFF
    r = (_mask(a, w) >> pos) & ((1 << ln) - 1) if pos < w else 0
    if t.startswith("s") and ln:
        top = min(pos + ln - 1, w - 1)
        sign = (a >> top) & 1
        if sign:
            r |= ~((1 << ln) - 1)
    th.set(ins.args[0], r, w)


def _bfi(th, ins):
    t, w = _itype(ins)
    f, b, pos, ln = (th.value(x) for x in ins.args[1:5])
    if OPAQUE in (f, b, pos, ln):
        th.set(ins.args[0], OPAQUE)
        return
    pos, ln = pos & 0xFF, ln & 0xFF
    m = ((1 << ln) - 1) << pos
    th.set(ins.args[0], (b & ~m) | ((f << pos) & m), w)


def _prmt(th, ins):
    a, b, c = (th.value(x) for x in ins.args[1:4])
    if OPAQUE in (a, b, c) or len(ins.parts) > 2:
        th.set(ins.args[0], OPAQUE if OPAQUE in (a, b, c) else _raise(ins))
        return
    src = _mask(a, 32) | (_mask(b, 32) << 32)
    r = 0
    for i in range(4):
        sel = (c >> (4 * i)) & 0xF
        byte = (src >> (8 * (sel & 7))) & 0xFF
        if sel & 8:
            byte = 0xFF if byte & 0x80 else 0
        r |= byte << (8 * i)
    th.set(ins.args[0], r, 32)


def _raise(ins):
    raise EvalError(f"'{ins.op}' is not modelled")


def _opaque_result(th, ins):
    regs = th.regs
    for d in ins.dests:
        regs[d] = OPAQUE


# ---- memory and synchronisation --------------------------------------------------------------
_SPACES = ("global", "shared", "local", "param", "const")


def _space_of(ins):
    for p in ins.parts[1:]:
        if p in _SPACES:
            return p
        if p.startswith("shared::"):
            return "shared"
    return ""


def _vec(ins):
    for p in ins.parts:
        if p in ("v2", "v4", "v8"):
            return int(p[1:])
    return 1


def _ld(th, ins):
    space = _space_of(ins)
    t, w = _itype(ins)
    addr = th.address(ins.args[1])
    space, addr = th.resolve_space(space, addr)
    n = _vec(ins)
    nb = max(1, w // 8)
    if space != "param":
        th.event("ld", space, addr, n * nb)
    dests = _dests(ins)
    if len(dests) != n:
        raise EvalError("vector width and destinations disagree")
    for i, d in enumerate(dests):
        v = th._load_bytes(space, addr + i * nb, nb)
        th.set(d, v, w)


def _st(th, ins):
    space = _space_of(ins)
    t, w = _itype(ins)
    addr = th.address(ins.args[0])
    space, addr = th.resolve_space(space, addr)
    n = _vec(ins)
    nb = max(1, w // 8)
    th.event("st", space, addr, n * nb)
    src = ins.args[1]
    srcs = [x.strip() for x in src[1:-1].split(",")] if src.startswith("{") else [src]
    if len(srcs) != n:
        raise EvalError("vector width and sources disagree")
    for i, s in enumerate(srcs):
        th._store_bytes(space, addr + i * nb, th.value(s), nb)


def _operand_values(th, args):
    """Values of non-register-list operands, addresses resolved (for sync/async events)."""
    out = []
    for a in args:
        if a.startswith("["):
            inner = a[1:-1]
            if "," in inner:  # tensor operand [tmap, {c0, c1}]
                parts = _split_top(inner)
                base = th.value(parts[0])
                coords = [th.value(x) for x in _split_top(parts[1][1:-1])]
                if base is OPAQUE or OPAQUE in coords:
                    raise EvalError(f"tensor operand {a} depends on uncomputed values")
                out.append(("tensor", base, tuple(coords)))
            else:
                out.append(("addr", th.address(a)))
        elif a.startswith("{"):
            out.append(("regs", len(_split_top(a[1:-1]))))
        elif a == "_":
            out.append("_")
        else:
            v = th.value(a)
            if v is OPAQUE:
                raise EvalError(f"operand {a} depends on a value the evaluator does not compute")
            # A small negative immediate (`-1` from LLVM, `0xffffffff` in inline PTX) is the same
            # 32-bit operand: compare the low 32 bits.
            if v >= (1 << 64) - (1 << 31):
                v &= 0xFFFFFFFF
            out.append(v)
    return tuple(out)


def _sync(th, ins):
    """An instruction recorded with all its operand values (none may be opaque)."""
    th.event(_canonical(ins.op), *_operand_values(th, ins.args))


def _canonical(op):
    # `bar.sync` is `barrier.sync.aligned`; LLVM's named-barrier intrinsic prints the non-aligned
    # `barrier.sync`, which every thread of our kernels reaches convergently: the same barrier.
    parts = op.split(".")
    if parts[0] == "barrier" and len(parts) > 1 and parts[1] in ("sync", "arrive"):
        return ".".join(["bar"] + [p for p in parts[1:] if p != "aligned"])
    return op


def _mbarrier(th, ins):
    sub = ins.parts[1]
    if sub in ("try_wait", "test_wait"):
        # Waits are satisfied: the predicate says "phase complete".
        dest = ins.args[0]
        th.event(ins.op, *_operand_values(th, ins.args[1:]))
        th.set(dest, 1, 1)
        return
    if sub == "arrive" or sub == "arrive_drop":
        th.event(ins.op, *_operand_values(th, ins.args[1:]))
        th.set(ins.args[0], OPAQUE)
        return
    th.event(ins.op, *_operand_values(th, ins.args))


def _cluster_rank(th, ins):
    """getctarank of a shared address: the evaluated threads belong to CTA rank 0 of their
    cluster (the CTA the verifier's one-CTA analyses model)."""
    th.event(ins.op, *_operand_values(th, ins.args[1:]))
    th.set(ins.args[0], 0, 32)


def _mapa(th, ins):
    """mapa of a shared address to cluster rank r: the address tagged with r above the 24 bits a
    CTA's shared memory spans, so remote accesses stay distinct and deterministic."""
    addr, rank = th.value(ins.args[1]), th.value(ins.args[2])
    if addr is OPAQUE or rank is OPAQUE:
        raise EvalError(f"mapa of an unknown address or rank in '{ins.op}'")
    th.event(ins.op, addr, rank)
    th.set(ins.args[0], (addr & 0xFFFFFF) | ((rank & 0xFF) << 24), 32)


def _bits(th, ins):
    """brev and bfind(.shiftamt) on 32-bit values."""
    a = th.value(ins.args[1])
    if a is OPAQUE:
        th.regs[ins.args[0]] = OPAQUE
        return
    a &= 0xFFFFFFFF
    if ins.parts[0] == "brev":
        th.set(ins.args[0], int(f"{a:032b}"[::-1], 2), 32)
        return
    msb = a.bit_length() - 1
    if msb < 0:
        th.set(ins.args[0], 0xFFFFFFFF, 32)
    else:
        th.set(ins.args[0], 31 - msb if "shiftamt" in ins.parts else msb, 32)


def _elect(th, ins):
    # elect.sync with a full mask elects the lowest active lane: lane 0 of a converged warp.
    d = ins.args[0].split("|")
    lane0 = int(th.tid % 32 == 0)
    if d[0] != "_":
        th.set(d[0], 0, 32)  # the elected lane's index
    if len(d) > 1:
        th.set(d[1], lane0, 1)
    th.event("elect.sync", th.value(ins.args[1]))


def _reg_in_out(th, ins, outs):
    """Records the operation with its non-register operands; its register outputs are opaque."""
    vals = []
    for i, a in enumerate(ins.args):
        if i < outs:
            continue
        if a.startswith("{"):
            vals.append(("regs", len(_split_top(a[1:-1]))))
            continue
        if a.startswith("["):
            vals.append(_operand_values(th, [a])[0])
            continue
        v = th.value(a)
        vals.append(v if v is not OPAQUE else "?")
    th.event(ins.op, *vals)
    for i in range(outs):
        lst = ins.lists[i]
        for d in (lst if lst is not None else [ins.args[i]]):
            if d != "_":
                th.regs[d] = OPAQUE


def _ldmatrix(th, ins):
    _reg_in_out(th, ins, 1)


def _wgmma(th, ins):
    sub = ins.parts[1]
    if sub == "mma_async":
        # {d...}, descA|{a...}, descB, scale-d, imm-scale-a, imm-scale-b[, tnspA, tnspB]
        vals = [("regs", len(ins.lists[0]))]
        for a, lst in zip(ins.args[1:], ins.lists[1:]):
            if lst is not None:
                vals.append(("regs", len(lst)))
            else:
                v = th.value(a)
                if v is OPAQUE:
                    raise EvalError(f"wgmma operand {a} is not computed")
                vals.append(v)
        th.event(ins.op, *vals)
        regs = th.regs
        for d in ins.dests:
            regs[d] = OPAQUE
        return
    _sync(th, ins)


def _tcgen05(th, ins):
    sub = ins.parts[1]
    if sub == "ld":
        _reg_in_out(th, ins, 1)
        return
    _sync(th, ins)


def _shl(a, b, w):
    b &= 0xFFFFFFFF
    return 0 if b >= w else a << b


def _shr_u(a, b, w):
    b &= 0xFFFFFFFF
    return 0 if b >= w else _mask(a, w) >> b


_FAST = {
    "add": lambda a, b, w: a + b,
    "sub": lambda a, b, w: a - b,
    "and": lambda a, b, w: a & b,
    "or": lambda a, b, w: a | b,
    "xor": lambda a, b, w: a ^ b,
    "shl": _shl,
}


def _fast_binary(th, ins):
    """Two-operand integer operations without signedness (the bulk of address arithmetic)."""
    a = th.value(ins.args[1])
    b = th.value(ins.args[2])
    if a is OPAQUE or b is OPAQUE:
        th.regs[ins.args[0]] = OPAQUE
    else:
        w = ins.width
        th.regs[ins.args[0]] = ins.fn(a, b, w) & ((1 << w) - 1)


def _handler(ins):
    """Picks the handler of an instruction once (a fast path for plain integer arithmetic)."""
    op = ins.parts[0]
    t = ins.ty
    if (len(ins.args) == 3 and t is not None and t != "pred" and not _is_float(t)
            and ins.lists[0] is None and "|" not in ins.args[0]):
        if op in _FAST and len(ins.parts) == 2:
            ins.fn = _FAST[op]
            return _fast_binary
        if op == "mul" and ins.parts[1] == "lo":
            ins.fn = lambda a, b, w: a * b
            return _fast_binary
        if op == "shr" and not t.startswith("s"):
            ins.fn = _shr_u
            return _fast_binary
    h = _HANDLERS.get(op)
    if h is None:
        raise EvalError(f"instruction '{ins.op}' is not modelled")
    return h


_HANDLERS = {
    "add": _arith, "sub": _arith, "mul": _arith, "mad": _arith, "div": _arith, "rem": _arith,
    "and": _arith, "or": _arith, "xor": _arith, "not": _arith, "neg": _arith, "abs": _arith,
    "min": _arith, "max": _arith, "shl": _arith, "shr": _arith,
    "mov": _mov, "setp": _setp, "selp": _selp, "cvt": _cvt, "cvta": _cvta, "bfe": _bfe,
    "bfi": _bfi, "prmt": _prmt,
    # float math and cross-lane data: opaque results
    "fma": _opaque_result, "ex2": _opaque_result, "lg2": _opaque_result, "rcp": _opaque_result,
    "rsqrt": _opaque_result, "sqrt": _opaque_result, "tanh": _opaque_result,
    "sin": _opaque_result, "cos": _opaque_result, "mma": _opaque_result,
    "shfl": _opaque_result, "testp": _opaque_result, "copysign": _opaque_result,
    "ld": _ld, "st": _st,
    "cp": _sync, "bar": _sync, "barrier": _sync, "fence": _sync, "membar": _sync,
    "setmaxnreg": _sync, "griddepcontrol": _sync,
    "mbarrier": _mbarrier, "elect": _elect, "ldmatrix": _ldmatrix, "stmatrix": _sync,
    "wgmma": _wgmma, "tcgen05": _tcgen05,
    "getctarank": _cluster_rank, "mapa": _mapa, "brev": _bits, "bfind": _bits,
}

_PURE = {"add", "sub", "mul", "mad", "div", "rem", "and", "or", "xor", "not", "neg", "abs", "min",
         "max", "shl", "shr", "mov", "setp", "selp", "cvt", "cvta", "bfe", "bfi", "prmt", "fma",
         "ex2", "lg2", "rcp", "rsqrt", "sqrt", "tanh", "sin", "cos", "mma", "testp", "copysign"}

