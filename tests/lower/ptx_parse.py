#!/usr/bin/env python3
# PTX parsing for the back-end differential check (ptx_eval.py): the single `.entry` of a module
# as decoded instructions, with the names of nested `{ }` scopes (inline-asm registers and
# labels) made unique. What it cannot read is an EvalError.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Parser of one PTX entry into decoded instructions."""

import re


class EvalError(Exception):
    """The evaluator cannot model what the PTX does (fail loudly, never pass)."""


class _Opaque:
    __slots__ = ()

    def __repr__(self):
        return "?"


OPAQUE = _Opaque()  # a value the evaluator does not compute (float math, other lanes' data)
_MISSING = object()

M64 = (1 << 64) - 1

_TYPE_RE = re.compile(r"^(s|u|b|f|bf)(8|16|32|64|128)(x2)?$|^pred$")


def _width(t):
    if t == "pred":
        return 1
    m = re.match(r"^(?:s|u|b|f|bf)(\d+)(x2)?$", t)
    if not m:
        raise EvalError(f"unknown type .{t}")
    return int(m.group(1)) * (2 if m.group(2) else 1)


def _signed(v, w):
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def _mask(v, w):
    return v & ((1 << w) - 1)


def _split_top(text, sep=","):
    """Splits at `sep` outside brackets and braces."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    tail = "".join(cur).strip()
    if tail:
        out.append(tail)
    return out


class Instr:
    """One decoded instruction; operand lists, type and destinations are decoded once."""
    __slots__ = ("op", "parts", "args", "guard", "neg", "text", "line", "ty", "width", "lists",
                 "dests", "handler", "fn")

    def __init__(self, op, args, guard, neg, text, line):
        self.op = op
        self.parts = op.split(".")
        self.args = args
        self.guard = guard
        self.neg = neg
        self.text = text
        self.line = line
        self.handler = self.fn = None
        self.ty, self.width = None, 0
        for p in reversed(self.parts[1:]):
            if _TYPE_RE.match(p):
                self.ty, self.width = p, _width(p)
                break
        # Register lists {a, b, ...} per operand (None: not a list).
        self.lists = [[x.strip() for x in _split_top(a[1:-1])] if a.startswith("{") else None
                      for a in args]
        if not args:
            self.dests = []
        elif self.lists[0] is not None:
            self.dests = self.lists[0]
        else:
            self.dests = [x for x in args[0].split("|") if x != "_"]


class Kernel:
    """One parsed `.entry`: parameters, instructions and labels (scoped names made unique)."""

    def __init__(self, name, params, instrs, labels, maxntid, registers=()):
        self.registers = set(registers)  # declared register names ('%r<20>' as '%r0'..'%r19')
        self.name = name
        self.params = params  # [(name, kind)], kind 'u64' or 'bytes'
        self.instrs = instrs
        self.labels = labels
        self.maxntid = maxntid


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    # Debug-line directives end at the end of the line, not at ';'.
    return re.sub(r"^[ \t]*\.(loc|file)\b[^\n]*", "", text, flags=re.M)


_NAME_RE = re.compile(r"%?[A-Za-z_$][\w$]*")
_LABEL_RE = re.compile(r"^\s*([A-Za-z_$][\w$]*)\s*:(?!:)")


def parse(text):
    """Parses the single `.visible .entry` of a PTX module."""
    text = _strip_comments(text)
    entries = list(re.finditer(r"\.entry\s+([\w$]+)\s*\(", text))
    if len(entries) != 1:
        raise EvalError(f"expected exactly one .entry, found {len(entries)}")
    if re.search(r"^\s*(\.visible\s+|\.extern\s+)?\.func\b", text, re.M):
        raise EvalError("the module defines or declares a .func: calls are not modelled")
    m = entries[0]
    name = m.group(1)
    close = text.index(")", m.end())
    params = []
    for p in _split_top(text[m.end():close]):
        pm = re.match(r"\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+(?:\.ptr\s+)?"
                      r"(?:\.(?:global|shared|const|local)\s+)?(?:\.align\s+\d+\s+)?"
                      r"([\w$]+)(\[\d+\])?", p)
        if not pm:
            raise EvalError(f"cannot parse parameter '{p}'")
        params.append((pm.group(2), "bytes" if pm.group(3) else pm.group(1)))
    body_start = text.index("{", close)
    header = text[close:body_start]
    nt = re.search(r"\.(?:maxntid|reqntid)\s+(\d+)", header)
    maxntid = int(nt.group(1)) if nt else 0
    # Items: '{', '}', labels and statements, each with its scope.
    items = []
    depth = 0
    i = body_start
    scope_stack = []
    next_scope = 0
    parents = {}
    cur = []
    n = len(text)
    stmt_braces = 0  # vector operands {a, b} inside a statement
    while i < n:
        ch = text[i]
        if ch == "{" and (stmt_braces or "".join(cur).strip()):
            stmt_braces += 1
            cur.append(ch)
            i += 1
            continue
        if ch == "}" and stmt_braces:
            stmt_braces -= 1
            cur.append(ch)
            i += 1
            continue
        if ch == "{":
            next_scope += 1
            parents[next_scope] = scope_stack[-1] if scope_stack else None
            scope_stack.append(next_scope)
            depth += 1
            i += 1
            continue
        if ch == "}":
            if "".join(cur).strip():
                raise EvalError(f"statement without ';' before '}}': {''.join(cur).strip()}")
            scope_stack.pop()
            depth -= 1
            i += 1
            if depth == 0:
                break
            continue
        if ch == ";":
            stmt = "".join(cur).strip()
            cur = []
            i += 1
            while True:
                lm = _LABEL_RE.match(stmt)
                if not lm:
                    break
                items.append(("label", lm.group(1), scope_stack[-1]))
                stmt = stmt[lm.end():].strip()
            if stmt:
                items.append(("stmt", stmt, scope_stack[-1]))
            continue
        if ch == ":" and not (i + 1 < n and text[i + 1] == ":") and not (
                i > 0 and text[i - 1] == ":"):
            # a label ends at ':' (not '::'); statements never contain a lone ':'
            lab = "".join(cur).strip()
            if re.fullmatch(r"[A-Za-z_$][\w$]*", lab):
                items.append(("label", lab, scope_stack[-1]))
                cur = []
                i += 1
                continue
        cur.append(ch)
        i += 1
    # Declarations per scope (registers and labels inside nested braces shadow outer names).
    decls = {}
    registers = set()
    for kind, s, sc in items:
        if kind == "label":
            decls.setdefault(sc, set()).add(s)
        elif s.startswith(".reg"):
            for nm in _split_top(re.sub(r"^\.reg\s+(\.v\d+\s+)?\.\w+\s+", "", s)):
                arr = re.fullmatch(r"(.*)<(\d+)>", nm.strip())
                if arr:
                    registers.update(f"{arr.group(1)}{i}" for i in range(int(arr.group(2))))
                nm = arr.group(1) if arr else nm.strip()
                registers.add(nm if sc == 1 else f"{nm}@{sc}")
                decls.setdefault(sc, set()).add(nm)
    root = 1

    def resolve(nm, sc):
        while sc is not None and sc != root:
            if nm in decls.get(sc, ()):
                return f"{nm}@{sc}"
            sc = parents[sc]
        return nm

    def rename(s, sc):
        if sc == root:
            return s
        return _NAME_RE.sub(lambda mm: resolve(mm.group(0), sc), s)

    instrs, labels = [], {}
    for kind, s, sc in items:
        if kind == "label":
            labels[resolve(s, sc)] = len(instrs)
            continue
        if s.startswith("."):
            if re.match(r"\.(reg|loc|file|pragma)\b", s):
                continue
            raise EvalError(f"unsupported directive in the body: {s}")
        s = rename(s, sc)
        guard, neg = None, False
        gm = re.match(r"^@(!?)(\S+)\s+", s)
        if gm:
            neg = gm.group(1) == "!"
            guard = gm.group(2)
            s = s[gm.end():]
        parts = s.split(None, 1)
        op = parts[0]
        args = _split_top(parts[1]) if len(parts) > 1 else []
        instrs.append(Instr(op, args, guard, neg, s, len(instrs)))
    return Kernel(name, params, instrs, labels, maxntid, registers)
