// Lowering, elementwise family: builtin patterns generated as arithmetic over the register
// fragment layouts (fill, cast, unary/binary/fma, softmax rescale, reductions).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Lowerer.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace cake::lower::detail {

using namespace ex;

namespace {

std::uint32_t floatBits(float f) {
  std::uint32_t b = 0;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

/// Round-to-nearest-even bf16 bits of a float.
std::uint32_t bf16Bits(float f) {
  std::uint32_t b = floatBits(f);
  if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu))
    return 0x7fc0;
  b += 0x7fffu + ((b >> 16) & 1u);
  return b >> 16;
}

} // namespace

// ---------------------------------------------------------------------------- elementwise

void Lowerer::opFill(const sema::OpInfo& op, const ir::Stmt& s) {
  auto v = view(s.operands[0], op.operands[0]);
  if (!v)
    return;
  double value = floatAttr(op, "value", 0.0);
  Ty ty = m_p.vars[v->var].ty;
  ExprRef c;
  std::int64_t regs = v->layout.registers;
  if (ty == Ty::F32)
    c = f32(static_cast<float>(value));
  else if (ty == Ty::I32)
    c = i32(static_cast<std::int64_t>(value));
  else if (v->dtype == ir::DType::BF16) {
    std::uint32_t h = bf16Bits(static_cast<float>(value));
    c = u32((h << 16) | h);
  } else if (v->dtype == ir::DType::F16) {
    unsupported("ew.fill of f16 tiles is not lowered yet");
    return;
  } else {
    c = u32(static_cast<std::int64_t>(value));
  }
  if (is16Bit(v->dtype))
    regs = v->elements / 2;
  ExprRef first = is16Bit(v->dtype) ? bin(Op::Shr, v->offset, i32(1)) : v->offset;
  repeat("i", regs, [&](ExprRef i) { assign(v->var, add(first, i), c); });
}

ExprRef Lowerer::combine(const std::string& fn, ExprRef a, ExprRef b, bool isFloat) {
  if (fn == "add" || fn == "sum")
    return bin(Op::Add, a, b);
  if (fn == "sub")
    return bin(Op::Sub, a, b);
  if (fn == "mul")
    return bin(Op::Mul, a, b);
  if (fn == "div")
    return bin(Op::Div, a, b);
  if (fn == "max")
    return isFloat ? call("fmax", {a, b}) : bin(Op::Max, a, b);
  if (fn == "min")
    return isFloat ? call("fmin", {a, b}) : bin(Op::Min, a, b);
  unsupported("combining function '" + fn + "' is not lowered");
  return a;
}

ExprRef Lowerer::unaryFn(const std::string& fn, ExprRef x) {
  constexpr float log2e = 1.4426950408889634f, ln2 = 0.6931471805599453f;
  if (fn == "neg")
    return un(Op::Neg, x);
  if (fn == "abs")
    return call("fabs", {x});
  if (fn == "exp")
    return call("ex2", {mul(x, f32(log2e))});
  if (fn == "exp2")
    return call("ex2", {x});
  if (fn == "log")
    return mul(call("lg2", {x}), f32(ln2));
  if (fn == "log2")
    return call("lg2", {x});
  if (fn == "sqrt")
    return call("sqrt", {x});
  if (fn == "rsqrt")
    return call("rsqrt", {x});
  if (fn == "rcp")
    return call("rcp", {x});
  if (fn == "tanh")
    return call("tanh", {x});
  if (fn == "relu")
    return call("fmax", {x, f32(0.0f)});
  if (fn == "sigmoid")
    return call("rcp", {add(f32(1.0f), call("ex2", {mul(x, f32(-log2e))}))});
  if (fn == "silu")
    return mul(x, call("rcp", {add(f32(1.0f), call("ex2", {mul(x, f32(-log2e))}))}));
  if (fn == "gelu_tanh") {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    ExprRef inner = mul(f32(0.7978845608028654f), add(x, mul(f32(0.044715f), mul(x, mul(x, x)))));
    return mul(mul(f32(0.5f), x), add(f32(1.0f), call("tanh", {inner})));
  }
  if (fn == "gelu") {
    // x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)); erf by Abramowitz-Stegun 7.1.26 (|error| <
    // 1.5e-7): erf(z) = 1 - (a1 t + a2 t^2 + a3 t^3 + a4 t^4 + a5 t^5) e^(-z^2), t = 1/(1+p z),
    // with the sign of z restored.
    int z = temp(Ty::F32, "z");
    assign(z, mul(x, f32(0.7071067811865476f)));
    ExprRef zv = var(m_p, z);
    int az = temp(Ty::F32, "az");
    assign(az, call("fabs", {zv}));
    ExprRef a = var(m_p, az);
    int t = temp(Ty::F32, "t");
    assign(t, call("rcp", {add(f32(1.0f), mul(f32(0.3275911f), a))}));
    ExprRef tv = var(m_p, t);
    ExprRef poly = f32(1.061405429f);
    for (float c : {-1.453152027f, 1.421413741f, -0.284496736f, 0.254829592f})
      poly = call("fma", {poly, tv, f32(c)});
    poly = mul(poly, tv);
    ExprRef e = call("ex2", {mul(mul(a, a), f32(-log2e))});
    int y = temp(Ty::F32, "erf");
    assign(y, bin(Op::Sub, f32(1.0f), mul(poly, e)));
    ExprRef erf = select(bin(Op::Lt, zv, f32(0.0f)), un(Op::Neg, var(m_p, y)), var(m_p, y));
    return mul(mul(f32(0.5f), x), add(f32(1.0f), erf));
  }
  unsupported("ew.unary fn=" + fn + " is not lowered");
  return x;
}

std::optional<ExprRef> Lowerer::rowOf(const TileView& v, ExprRef e) {
  switch (v.layout.kind) {
  case Layout::WgmmaAcc:
    return bin(Op::And, bin(Op::Shr, e, i32(1)), i32(1));
  case Layout::WgmmaRow:
  case Layout::Thread:
  case Layout::Replicated:
    if (v.layout.kind == Layout::Thread && v.layout.rows > 1 && v.layout.cols > 0 &&
        m_model.buffers[v.buffer].shape.size() == 2)
      return bin(Op::Div, e, i32(v.layout.cols));
    return e;
  case Layout::TmemRows:
    return i32(0);
  default:
    return std::nullopt;
  }
}

std::optional<ExprRef> Lowerer::broadcastIndex(const TileView& dst, const TileView& b,
                                               const std::string& mode, ExprRef e) {
  if (mode == "scalar") {
    if (b.elements != 1 ||
        (b.layout.kind != Layout::Thread && b.layout.kind != Layout::Replicated)) {
      unsupported("a scalar broadcast operand must be a single value held by every thread");
      return std::nullopt;
    }
    return i32(0);
  }
  if (mode == "row") {
    // A tcgen05.ld 32x32b fragment holds row `lane`; a [32] warp vector holds element `lane`.
    bool tmemRow = dst.layout.kind == Layout::TmemRows && b.layout.kind == Layout::WarpVector &&
                   b.elements == 1;
    bool ok = (dst.layout.kind == Layout::WgmmaAcc && b.layout.kind == Layout::WgmmaRow) ||
              (dst.layout.kind == Layout::Thread && b.layout.kind == Layout::Thread) || tmemRow;
    if (!ok) {
      unsupported("row broadcast lowering pairs wgmma accumulators and tcgen05.ld rows with row "
                  "vectors");
      return std::nullopt;
    }
    return rowOf(dst, e);
  }
  if (mode == "col") {
    if (dst.layout.kind == Layout::WgmmaAcc && b.layout.kind == Layout::WgmmaCol)
      return add(mul(bin(Op::Shr, e, i32(2)), i32(2)), bin(Op::And, e, i32(1)));
    if (dst.layout.kind == Layout::Thread && b.layout.kind == Layout::Thread)
      return bin(Op::Rem, e, i32(dst.layout.cols));
    unsupported("column broadcast lowering pairs wgmma accumulators with column vectors");
    return std::nullopt;
  }
  auto perThread = [](Layout k) { return k == Layout::Thread || k == Layout::Replicated; };
  bool sameKind =
      dst.layout.kind == b.layout.kind || (perThread(dst.layout.kind) && perThread(b.layout.kind));
  if (!sameKind || dst.elements != b.elements) {
    unsupported("elementwise operands must share the destination's fragment layout");
    return std::nullopt;
  }
  return e;
}

void Lowerer::opCast(const sema::OpInfo& op, const ir::Stmt& s) {
  auto dst = view(s.operands[0], op.operands[0]);
  auto src = view(s.operands[1], op.operands[1]);
  if (!dst || !src)
    return;
  if (dst->layout.kind != src->layout.kind || dst->elements != src->elements) {
    unsupported("cast needs source and destination fragments of one layout");
    return;
  }
  bool rz = enumAttr(op, "rounding") == "rz";
  std::int64_t group = is16Bit(dst->dtype) || is16Bit(src->dtype) ? 2 : 1;
  repeat("i", dst->elements / group, [&](ExprRef i) {
    std::vector<ExprRef> vals;
    for (std::int64_t h = 0; h < group; ++h) {
      ExprRef e = add(mul(i, i32(group)), i32(h));
      ExprRef x = readElem(*src, e, h);
      if (dst->dtype == ir::DType::I32 && x->ty == Ty::F32)
        x = call(rz ? "cvt_rzi_s32" : "cvt_rni_s32", {x});
      else if (dst->dtype == ir::DType::F32 && x->ty == Ty::I32)
        x = convert(x, Ty::F32);
      vals.push_back(x);
    }
    writeElems(*dst, mul(i, i32(group)), vals);
  });
}

void Lowerer::opElementwise(const sema::OpInfo& op, const ir::Stmt& s, int inputs) {
  const bool unary = inputs == 1, fma = inputs == 3;
  auto dst = view(s.operands[0], op.operands[0]);
  auto a = view(s.operands[1], op.operands[1]);
  if (!dst || !a)
    return;
  std::optional<TileView> b, c;
  if (!unary) {
    b = view(s.operands[2], op.operands[2]);
    if (!b)
      return;
  }
  if (fma) {
    c = view(s.operands[3], op.operands[3]);
    if (!c)
      return;
  }
  std::string mode = unary ? "none" : enumAttr(op, "broadcast");
  if (mode.empty())
    mode = "none";
  if (!broadcastIndex(*dst, *a, "none", i32(0)))
    return;
  if (c && !broadcastIndex(*dst, *c, "none", i32(0)))
    return;
  if (b && !broadcastIndex(*dst, *b, mode, i32(0)))
    return;
  if (b && mode != "none" && is16Bit(b->dtype)) {
    unsupported("broadcast operands must hold 32-bit elements");
    return;
  }
  bool isFloat = ir::info(dst->dtype).isFloat;
  std::int64_t group = is16Bit(dst->dtype) || is16Bit(a->dtype) ||
                               (b && mode == "none" && is16Bit(b->dtype)) ||
                               (c && is16Bit(c->dtype))
                           ? 2
                           : 1;
  std::string fn = fma ? "fma" : enumAttr(op, "fn");
  repeat("i", dst->elements / group, [&](ExprRef i) {
    std::vector<ExprRef> vals;
    for (std::int64_t h = 0; h < group; ++h) {
      ExprRef e = add(mul(i, i32(group)), i32(h));
      ExprRef x = readElem(*a, e, h);
      ExprRef r;
      if (unary) {
        r = isFloat ? unaryFn(fn, x) : (fn == "neg" ? un(Op::Neg, x) : x);
        if (!isFloat && fn != "neg" && fn != "abs" && fn != "relu")
          unsupported("integer ew.unary supports neg only");
      } else {
        ExprRef bi = *broadcastIndex(*dst, *b, mode, e);
        ExprRef y = readElem(*b, bi, mode == "none" ? h : 0);
        if (fma) {
          ExprRef z = readElem(*c, e, h);
          r = isFloat ? call("fma", {x, y, z}) : add(mul(x, y), z);
        } else {
          r = combine(fn, x, y, isFloat);
        }
      }
      vals.push_back(r);
    }
    writeElems(*dst, mul(i, i32(group)), vals);
  });
}

void Lowerer::opSoftmaxRescale(const sema::OpInfo& op, const ir::Stmt& s) {
  auto acc = view(s.operands[0], op.operands[0]);
  auto mOld = view(s.operands[1], op.operands[1]);
  auto mNew = view(s.operands[2], op.operands[2]);
  if (!acc || !mOld || !mNew)
    return;
  if (mOld->elements != mNew->elements || is16Bit(acc->dtype)) {
    unsupported("softmax.rescale lowering needs f32 accumulators and matching row vectors");
    return;
  }
  double scale = floatAttr(op, "scale", 1.0);
  // One factor per row held by the thread: ex2((m_old - m_new) * scale).
  int f = newVar("cake_factor" + std::to_string(m_role.temps++), Ty::F32,
                 static_cast<int>(mOld->elements));
  repeat("r", mOld->elements, [&](ExprRef r) {
    ExprRef d = bin(Op::Sub, readElem(*mOld, r), readElem(*mNew, r));
    if (scale != 1.0)
      d = mul(d, f32(static_cast<float>(scale)));
    assign(f, r, call("ex2", {d}));
  });
  repeat("i", acc->elements, [&](ExprRef i) {
    auto row = rowOf(*acc, i);
    if (!row) {
      unsupported("softmax.rescale lowering supports wgmma accumulators and row vectors");
      return;
    }
    if (acc->layout.kind == Layout::WgmmaAcc && mOld->layout.kind != Layout::WgmmaRow) {
      unsupported("softmax.rescale of a wgmma accumulator needs wgmma row vectors");
      return;
    }
    writeElems(*acc, i, {mul(readElem(*acc, i), elem(m_p, f, *row))});
  });
}

// ---------------------------------------------------------------------------- reductions

void Lowerer::opReduceWarp(const sema::OpInfo& op, const ir::Stmt& s) {
  auto dst = view(s.operands[0], op.operands[0]);
  auto src = view(s.operands[1], op.operands[1]);
  if (!dst || !src)
    return;
  std::string fn = enumAttr(op, "op");
  bool isFloat = ir::info(src->dtype).isFloat;
  if (is16Bit(src->dtype) || is16Bit(dst->dtype)) {
    unsupported("reduce.warp lowering reduces 32-bit fragments");
    return;
  }
  std::vector<int> masks;
  std::int64_t perRow = 0, rows = dst->elements;
  std::function<ExprRef(ExprRef row, ExprRef k)> elemOf;
  switch (src->layout.kind) {
  case Layout::WgmmaAcc:
    // Row half h of the thread: elements 4j + 2h + {0, 1}; the quad (lanes xor 1, 2) shares it.
    if (dst->layout.kind != Layout::WgmmaRow) {
      unsupported("reducing a wgmma accumulator yields a wgmma row vector");
      return;
    }
    perRow = src->elements / 2;
    elemOf = [](ExprRef h, ExprRef k) {
      return add(add(mul(bin(Op::Shr, k, i32(1)), i32(4)), mul(h, i32(2))),
                 bin(Op::And, k, i32(1)));
    };
    masks = {1, 2};
    break;
  case Layout::Thread:
    perRow = src->elements / std::max<std::int64_t>(1, rows);
    elemOf = [perRow](ExprRef r, ExprRef k) { return add(mul(r, i32(perRow)), k); };
    break;
  case Layout::WarpVector:
    if (rows != 1) {
      unsupported("a warp vector reduces to one value");
      return;
    }
    perRow = src->elements;
    elemOf = [](ExprRef, ExprRef k) { return k; };
    masks = {16, 8, 4, 2, 1};
    break;
  case Layout::TmemRows:
    perRow = src->elements;
    elemOf = [](ExprRef, ExprRef k) { return k; };
    break;
  default:
    unsupported("reduce.warp lowering supports wgmma accumulators, thread and warp vectors");
    return;
  }
  int acc = temp(isFloat ? Ty::F32 : Ty::I32, "red");
  repeat("r", rows, [&](ExprRef r) {
    assign(acc, readElem(*src, elemOf(r, i32(0))));
    repeat("k", perRow - 1, [&](ExprRef k) {
      assign(acc, combine(fn, var(m_p, acc), readElem(*src, elemOf(r, add(k, i32(1)))), isFloat));
    });
    for (int mask : masks)
      assign(acc,
             combine(fn, var(m_p, acc),
                     call(isFloat ? "shfl_bfly_f32" : "shfl_bfly_i32", {var(m_p, acc), i32(mask)}),
                     isFloat));
    writeElems(*dst, r, {var(m_p, acc)});
  });
}

void Lowerer::opReduceCta(const sema::OpInfo& op, const ir::Stmt& s) {
  auto dst = view(s.operands[0], op.operands[0]);
  auto src = view(s.operands[1], op.operands[1]);
  if (!dst || !src)
    return;
  Slice scratch = slice(s.operands[2], op.operands[2]);
  const sema::BufferInfo& sb = m_model.buffers[scratch.buffer];
  std::string fn = enumAttr(op, "op");
  bool isFloat = ir::info(src->dtype).isFloat;
  if (dst->elements != 1 || elemBytes(sb.dtype) != 4 || is16Bit(src->dtype)) {
    unsupported("reduce.cta lowering reduces to one 32-bit value");
    return;
  }
  const sema::BufferInfo& srcBuf = m_model.buffers[src->buffer];
  bool warpUniform = srcBuf.scope == "warp" && src->layout.kind == Layout::Replicated;
  int acc = temp(isFloat ? Ty::F32 : Ty::I32, "red");
  // 1. This thread's elements, then the warp (unless the value is already one per warp).
  assign(acc, readElem(*src, i32(0)));
  repeat("k", src->elements - 1, [&](ExprRef k) {
    assign(acc, combine(fn, var(m_p, acc), readElem(*src, add(k, i32(1))), isFloat));
  });
  if (!warpUniform)
    for (int mask : {16, 8, 4, 2, 1})
      assign(acc,
             combine(fn, var(m_p, acc),
                     call(isFloat ? "shfl_bfly_f32" : "shfl_bfly_i32", {var(m_p, acc), i32(mask)}),
                     isFloat));
  // 2. Lane 0 of each warp publishes its partial; 3. a barrier of the role's threads.
  const char* type = isFloat ? "f32" : "s32";
  char cons = isFloat ? 'f' : 'r';
  ifThen(bin(Op::Eq, var(m_p, m_role.lane), i32(0)), [&] {
    AsmOperand addr, value;
    addr.value = smemAddress(
        add(smemOffset(scratch, {i32(0)}), convert(mul(var(m_p, m_role.warp), i32(4)), Ty::U32)));
    value.constraint = cons;
    value.value = var(m_p, acc);
    asmStmt(std::string("st.shared.") + type + " [%0], %1;", {}, {addr, value});
  });
  auto barrier = [&] { roleBarrier(); };
  barrier();
  // 4. Every thread combines the partials in warp order (a fixed, deterministic order).
  int part = temp(isFloat ? Ty::F32 : Ty::I32, "part");
  std::int64_t warps = m_role.role->warps();
  repeat("w", warps, [&](ExprRef w) {
    AsmOperand out, addr;
    out.constraint = cons;
    out.var = part;
    addr.value = smemAddress(add(smemOffset(scratch, {i32(0)}), convert(mul(w, i32(4)), Ty::U32)));
    asmStmt(std::string("ld.shared.") + type + " %0, [%1];", {out}, {addr});
    if (auto cv = constantValue(*w); cv && *cv == 0)
      assign(acc, var(m_p, part));
    else
      assign(acc, select(bin(Op::Eq, w, i32(0)), var(m_p, part),
                         combine(fn, var(m_p, acc), var(m_p, part), isFloat)));
  });
  // 5. A second barrier: a later reduce.cta may overwrite the partials.
  barrier();
  writeElems(*dst, i32(0), {var(m_p, acc)});
}

void Lowerer::opArgReduce(const sema::OpInfo& op, const ir::Stmt& s, bool isMin) {
  auto val = view(s.operands[0], op.operands[0]);
  auto idx = view(s.operands[1], op.operands[1]);
  auto src = view(s.operands[2], op.operands[2]);
  if (!val || !idx || !src)
    return;
  if (src->layout.kind != Layout::WgmmaAcc || val->layout.kind != Layout::WgmmaRow ||
      idx->layout.kind != Layout::WgmmaRow || src->dtype != ir::DType::F32) {
    unsupported("arg-reductions are lowered for f32 wgmma accumulators into row vectors");
    return;
  }
  ExprRef base = i32(0);
  if (const ir::Attribute* a = s.attribute("index_base"))
    base = lowerExpr(*a->value);
  bool accumulate = boolAttr(op, "accumulate", false);
  Op better = isMin ? Op::Lt : Op::Gt;
  ExprRef q = umod(var(m_p, m_role.lane), 4);
  int bv = temp(Ty::F32, "best"), bi = temp(Ty::I32, "besti");
  int ov = temp(Ty::F32, "other"), oi = temp(Ty::I32, "otheri");
  float init =
      isMin ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
  auto take = [&](ExprRef v, ExprRef i) {
    // Strictly better, or equal with a smaller index: the first occurrence wins; NaN never does.
    ExprRef c = bin(Op::Or, convert(bin(better, v, var(m_p, bv)), Ty::I32),
                    convert(bin(Op::And, convert(bin(Op::Eq, v, var(m_p, bv)), Ty::I32),
                                convert(bin(Op::Lt, i, var(m_p, bi)), Ty::I32)),
                            Ty::I32));
    ExprRef cond = bin(Op::Ne, c, i32(0));
    int cv = temp(Ty::I32, "take");
    assign(cv, convert(cond, Ty::I32));
    assign(bv, select(bin(Op::Ne, var(m_p, cv), i32(0)), v, var(m_p, bv)));
    assign(bi, select(bin(Op::Ne, var(m_p, cv), i32(0)), i, var(m_p, bi)));
  };
  repeat("h", 2, [&](ExprRef h) {
    assign(bv, f32(init));
    assign(bi, i32(std::numeric_limits<std::int32_t>::max()));
    repeat("k", src->elements / 2, [&](ExprRef k) {
      // Element 4j + 2h + b is column 8j + 2q + b.
      ExprRef j = bin(Op::Shr, k, i32(1)), b = bin(Op::And, k, i32(1));
      ExprRef e = add(add(mul(j, i32(4)), mul(h, i32(2))), b);
      ExprRef col = add(add(add(mul(j, i32(8)), mul(q, i32(2))), b), base);
      take(readElem(*src, e), col);
    });
    for (int mask : {1, 2}) {
      assign(ov, call("shfl_bfly_f32", {var(m_p, bv), i32(mask)}));
      assign(oi, call("shfl_bfly_i32", {var(m_p, bi), i32(mask)}));
      take(var(m_p, ov), var(m_p, oi));
    }
    if (accumulate) {
      assign(ov, readElem(*val, h));
      assign(oi, readElem(*idx, h));
      take(var(m_p, ov), var(m_p, oi));
    }
    writeElems(*val, h, {var(m_p, bv)});
    writeElems(*idx, h, {var(m_p, bi)});
  });
}

} // namespace cake::lower::detail
