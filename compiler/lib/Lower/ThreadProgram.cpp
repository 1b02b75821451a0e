// Builders and constant folding for the thread-level program.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Lower/ThreadProgram.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <functional>
#include <unordered_set>

namespace cake::lower {

std::string_view toString(Ty ty) {
  switch (ty) {
  case Ty::Pred:
    return "pred";
  case Ty::I32:
    return "i32";
  case Ty::U32:
    return "u32";
  case Ty::I64:
    return "i64";
  case Ty::U64:
    return "u64";
  case Ty::F32:
    return "f32";
  }
  return "?";
}

bool isInteger(Ty ty) {
  return ty == Ty::I32 || ty == Ty::U32 || ty == Ty::I64 || ty == Ty::U64;
}

unsigned bitWidth(Ty ty) {
  switch (ty) {
  case Ty::Pred:
    return 1;
  case Ty::I64:
  case Ty::U64:
    return 64;
  default:
    return 32;
  }
}

std::string_view toString(Op op) {
  static constexpr std::string_view names[] = {
      "+",   "-",   "*",  "/",  "%", "<<", ">>", "&",  "|", "^",
      "min", "max", "==", "!=", "<", "<=", ">",  ">=", "-", "~"};
  return names[static_cast<int>(op)];
}

namespace ex {

namespace {

bool isSigned(Ty ty) {
  return ty == Ty::I32 || ty == Ty::I64;
}

/// Wraps a value to the width of `ty` (two's complement), as C would store it.
std::int64_t wrap(std::int64_t v, Ty ty) {
  switch (ty) {
  case Ty::I32:
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
  case Ty::U32:
    return static_cast<std::int64_t>(static_cast<std::uint32_t>(v));
  case Ty::Pred:
    return v != 0;
  default:
    return v;
  }
}

ExprRef makeConst(std::int64_t v, Ty ty) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Const;
  e->ty = ty;
  e->value = wrap(v, ty);
  return e;
}

bool plainConst(const ExprRef& e, std::int64_t& v) {
  if (e->kind == Expr::Kind::Const && e->name.empty()) {
    v = e->value;
    return true;
  }
  return false;
}

std::optional<std::int64_t> fold(Op op, std::int64_t a, std::int64_t b, Ty ty) {
  bool s = isSigned(ty);
  std::uint64_t ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
  if (ty == Ty::U32) {
    ua &= 0xffffffffu;
    ub &= 0xffffffffu;
  }
  switch (op) {
  case Op::Add:
    return static_cast<std::int64_t>(ua + ub);
  case Op::Sub:
    return static_cast<std::int64_t>(ua - ub);
  case Op::Mul:
    return static_cast<std::int64_t>(ua * ub);
  case Op::Div:
    if (b == 0)
      return std::nullopt;
    return s ? a / b : static_cast<std::int64_t>(ua / ub);
  case Op::Rem:
    if (b == 0)
      return std::nullopt;
    return s ? a % b : static_cast<std::int64_t>(ua % ub);
  case Op::Shl:
    if (b < 0 || b >= 64)
      return std::nullopt;
    return static_cast<std::int64_t>(ua << b);
  case Op::Shr:
    if (b < 0 || b >= 64)
      return std::nullopt;
    return s ? a >> b : static_cast<std::int64_t>(ua >> b);
  case Op::And:
    return a & b;
  case Op::Or:
    return a | b;
  case Op::Xor:
    return a ^ b;
  case Op::Min:
    return s ? std::min(a, b) : static_cast<std::int64_t>(std::min(ua, ub));
  case Op::Max:
    return s ? std::max(a, b) : static_cast<std::int64_t>(std::max(ua, ub));
  default:
    return std::nullopt;
  }
}

} // namespace

ExprRef i32(std::int64_t v) {
  return makeConst(v, Ty::I32);
}
ExprRef u32(std::int64_t v) {
  return makeConst(v, Ty::U32);
}
ExprRef u64(std::int64_t v) {
  return makeConst(v, Ty::U64);
}

ExprRef named(std::string name, std::int64_t v, Ty ty) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Const;
  e->ty = ty;
  e->value = wrap(v, ty);
  e->name = std::move(name);
  return e;
}

ExprRef f32(float v) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::FConst;
  e->ty = Ty::F32;
  e->fvalue = v;
  return e;
}

ExprRef var(const Program& p, int v) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Var;
  e->ty = p.vars[v].ty;
  e->var = v;
  return e;
}

ExprRef elem(const Program& p, int v, ExprRef index) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Var;
  e->ty = p.vars[v].ty;
  e->var = v;
  e->args.push_back(std::move(index));
  return e;
}

ExprRef param(const Program& p, int index) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Param;
  // A scalar parameter is its i32 value; the others are addresses.
  e->ty = index >= 0 && std::size_t(index) < p.params.size() &&
                  p.params[std::size_t(index)].kind == Param::Kind::Scalar
              ? Ty::I32
              : Ty::U64;
  e->var = index;
  return e;
}

ExprRef special(Special s) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Special;
  e->ty = s == Special::SmemBase ? Ty::U32 : Ty::I32;
  e->special = s;
  return e;
}

ExprRef bin(Op op, ExprRef a, ExprRef b) {
  Ty ty = a->ty;
  std::int64_t x = 0, y = 0;
  bool ca = plainConst(a, x), cb = plainConst(b, y);
  bool cmp =
      op == Op::Eq || op == Op::Ne || op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge;
  if (ca && cb && isInteger(ty) && !cmp)
    if (auto v = fold(op, x, y, ty))
      return makeConst(*v, ty);
  if (ca && cb && isInteger(ty) && cmp) {
    bool s = isSigned(ty);
    auto lt = [&](std::int64_t p, std::int64_t q) {
      return s ? p < q : static_cast<std::uint64_t>(p) < static_cast<std::uint64_t>(q);
    };
    bool r = op == Op::Eq   ? x == y
             : op == Op::Ne ? x != y
             : op == Op::Lt ? lt(x, y)
             : op == Op::Le ? !lt(y, x)
             : op == Op::Gt ? lt(y, x)
                            : !lt(x, y);
    return makeConst(r ? 1 : 0, Ty::Pred);
  }
  if (isInteger(ty) && !cmp) {
    // Algebraic identities keep the printed code readable and the IR small.
    if (cb && y == 0 &&
        (op == Op::Add || op == Op::Sub || op == Op::Or || op == Op::Xor || op == Op::Shl ||
         op == Op::Shr))
      return a;
    if (ca && x == 0 && (op == Op::Add || op == Op::Or || op == Op::Xor))
      return b;
    if (cb && y == 1 && (op == Op::Mul || op == Op::Div))
      return a;
    if (ca && x == 1 && op == Op::Mul)
      return b;
    if ((ca && x == 0 && (op == Op::Mul || op == Op::And)) ||
        (cb && y == 0 && (op == Op::Mul || op == Op::And)))
      return makeConst(0, ty);
    if (cb && y == 1 && op == Op::Rem)
      return makeConst(0, ty);
  }
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Binary;
  e->ty = cmp ? Ty::Pred : ty;
  e->op = op;
  e->args = {std::move(a), std::move(b)};
  return e;
}

ExprRef udiv(ExprRef a, std::int64_t d) {
  if (d > 0 && (d & (d - 1)) == 0) {
    int shift = 0;
    while ((std::int64_t(1) << shift) < d)
      ++shift;
    Ty ty = a->ty;
    return bin(Op::Shr, std::move(a), makeConst(shift, ty));
  }
  Ty ty = a->ty;
  return bin(Op::Div, std::move(a), makeConst(d, ty));
}

ExprRef umod(ExprRef a, std::int64_t d) {
  Ty ty = a->ty;
  if (d > 0 && (d & (d - 1)) == 0)
    return bin(Op::And, std::move(a), makeConst(d - 1, ty));
  return bin(Op::Rem, std::move(a), makeConst(d, ty));
}

ExprRef un(Op op, ExprRef a) {
  std::int64_t x = 0;
  if (plainConst(a, x) && isInteger(a->ty))
    return makeConst(op == Op::Neg ? -x : ~x, a->ty);
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Unary;
  e->ty = a->ty;
  e->op = op;
  e->args = {std::move(a)};
  return e;
}

ExprRef select(ExprRef c, ExprRef a, ExprRef b) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Select;
  e->ty = a->ty;
  e->args = {std::move(c), std::move(a), std::move(b)};
  return e;
}

ExprRef convert(ExprRef a, Ty to) {
  if (a->ty == to)
    return a;
  std::int64_t x = 0;
  if (plainConst(a, x) && (isInteger(a->ty) || a->ty == Ty::Pred) && isInteger(to))
    return makeConst(x, to);
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Convert;
  e->ty = to;
  e->args = {std::move(a)};
  return e;
}

ExprRef bitcast(ExprRef a, Ty to) {
  if (a->ty == to)
    return a;
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Bitcast;
  e->ty = to;
  e->args = {std::move(a)};
  return e;
}

std::optional<std::int64_t> constantValue(const Expr& e) {
  return constantValue(e, nullptr);
}

std::optional<std::int64_t> constantValue(const Expr& e, const BoundValues& bound) {
  switch (e.kind) {
  case Expr::Kind::Const:
    return e.value;
  case Expr::Kind::Var:
    if (bound && e.args.empty())
      return bound(e.var);
    return std::nullopt;
  case Expr::Kind::Binary: {
    auto a = constantValue(*e.args[0], bound);
    auto b = constantValue(*e.args[1], bound);
    if (!a || !b)
      return std::nullopt;
    return fold(e.op, *a, *b, e.args[0]->ty);
  }
  case Expr::Kind::Unary: {
    auto a = constantValue(*e.args[0], bound);
    if (!a)
      return std::nullopt;
    return wrap(e.op == Op::Neg ? -*a : ~*a, e.ty);
  }
  case Expr::Kind::Convert: {
    auto a = constantValue(*e.args[0], bound);
    if (!a || !isInteger(e.ty) || !isInteger(e.args[0]->ty))
      return std::nullopt;
    return wrap(*a, e.ty);
  }
  default:
    return std::nullopt;
  }
}

} // namespace ex

} // namespace cake::lower

namespace cake::lower {

const std::vector<PureFunction>& pureFunctions() {
  // PTX per the ISA; approximate SFU forms as the primitive files document (hardware.note).
  static const std::vector<PureFunction> fns = {
      {"ex2", "ex2.approx.ftz.f32 %0, %1;", Ty::F32, {Ty::F32}, ""},
      {"lg2", "lg2.approx.ftz.f32 %0, %1;", Ty::F32, {Ty::F32}, ""},
      {"rsqrt", "rsqrt.approx.ftz.f32 %0, %1;", Ty::F32, {Ty::F32}, ""},
      {"rcp", "rcp.approx.ftz.f32 %0, %1;", Ty::F32, {Ty::F32}, ""},
      {"sqrt", "sqrt.approx.ftz.f32 %0, %1;", Ty::F32, {Ty::F32}, ""},
      {"tanh", "tanh.approx.f32 %0, %1;", Ty::F32, {Ty::F32}, ""},
      {"fma", "fma.rn.f32 %0, %1, %2, %3;", Ty::F32, {Ty::F32, Ty::F32, Ty::F32}, "llvm.fma.f32"},
      {"fmax", "max.f32 %0, %1, %2;", Ty::F32, {Ty::F32, Ty::F32}, "llvm.maxnum.f32"},
      {"fmin", "min.f32 %0, %1, %2;", Ty::F32, {Ty::F32, Ty::F32}, "llvm.minnum.f32"},
      {"fabs", "abs.f32 %0, %1;", Ty::F32, {Ty::F32}, "llvm.fabs.f32"},
      // cvt.rn.bf16x2.f32 d, a, b puts a in the upper and b in the lower half.
      {"pack_bf16x2", "cvt.rn.bf16x2.f32 %0, %1, %2;", Ty::U32, {Ty::F32, Ty::F32}, ""},
      {"pack_f16x2", "cvt.rn.f16x2.f32 %0, %1, %2;", Ty::U32, {Ty::F32, Ty::F32}, ""},
      {"f16lo",
       "{\n.reg .b16 cake_l, cake_h;\nmov.b32 {cake_l, cake_h}, %1;\ncvt.f32.f16 %0, cake_l;\n}",
       Ty::F32,
       {Ty::U32},
       ""},
      {"f16hi",
       "{\n.reg .b16 cake_l, cake_h;\nmov.b32 {cake_l, cake_h}, %1;\ncvt.f32.f16 %0, cake_h;\n}",
       Ty::F32,
       {Ty::U32},
       ""},
      {"cvt_rni_s32", "cvt.rni.s32.f32 %0, %1;", Ty::I32, {Ty::F32}, ""},
      {"cvt_rzi_s32", "cvt.rzi.s32.f32 %0, %1;", Ty::I32, {Ty::F32}, ""},
      {"shfl_bfly_f32",
       "shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;",
       Ty::F32,
       {Ty::F32, Ty::I32},
       "llvm.nvvm.shfl.sync.bfly.f32"},
      {"shfl_bfly_i32",
       "shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;",
       Ty::I32,
       {Ty::I32, Ty::I32},
       "llvm.nvvm.shfl.sync.bfly.i32"},
  };
  return fns;
}

const PureFunction* findPureFunction(std::string_view name) {
  for (const PureFunction& f : pureFunctions())
    if (f.name == name)
      return &f;
  return nullptr;
}

ExprRef swizzledSmemOffset(const SmemLayout& l, const ExprRef& stage,
                           const std::vector<ExprRef>& coord) {
  using namespace ex;
  std::size_t dims = l.shape.size();
  std::vector<std::int64_t> strides(dims);
  std::int64_t stride = l.elemBytes;
  for (std::size_t d = dims; d-- > 0;) {
    strides[d] = stride;
    stride *= l.shape[d];
  }
  ExprRef base = l.offsetExpr ? l.offsetExpr : named(l.name, l.offset);
  if (stage)
    base = add(base, mul(stage, l.stageBytesExpr ? l.stageBytesExpr
                                                 : named(l.name + "_STAGE_BYTES", l.stageBytes)));
  auto whole = [&] {
    ExprRef off = base;
    for (std::size_t d = 0; d < dims; ++d)
      off = add(off, mul(coord[d], i32(strides[d])));
    return convert(off, Ty::U32);
  };
  std::int64_t mask = l.swizzleMask;
  if (!mask)
    return whole();
  // Swizzle<B, 4, 3> XORs the chunk bits 4..(4 + B) with bits 7.. of the offset.
  auto swizzle = [&](ExprRef off) {
    ExprRef bits = bin(Op::And, bin(Op::Shr, off, u32(7)), u32(mask));
    return bin(Op::Xor, off, bin(Op::Shl, bits, u32(4)));
  };
  // With rows of at most one span (128 / 64 / 32 bytes) on span boundaries, the offset is
  // rowPart + col, col < span, so swizzle(rowPart + col) = rowPart + (col ^ bits(rowPart)):
  // the XOR only touches bits below the span, and no carry reaches bit 7.
  std::int64_t span = (mask + 1) * 16, atom = (mask + 1) * 128;
  std::size_t last = dims - 1;
  bool spans = dims > 0 && l.shape[last] * l.elemBytes <= span && l.offset % span == 0 &&
               (!stage || l.stageBytes % span == 0);
  for (std::size_t d = 0; spans && d < last; ++d)
    spans = strides[d] % span == 0;
  if (!spans)
    return swizzle(whole());
  ExprRef rows, rowUnits; // sum of coord * stride, and of coord * stride / 128
  bool units = true;
  for (std::size_t d = 0; d < last; ++d) {
    ExprRef term = mul(coord[d], i32(strides[d]));
    rows = rows ? add(rows, term) : term;
    units = units && strides[d] % 128 == 0;
    if (units) {
      ExprRef u = mul(coord[d], i32(strides[d] / 128));
      rowUnits = rowUnits ? add(rowUnits, u) : u;
    }
  }
  ExprRef rowPart = rows ? add(base, rows) : base;
  // Buffer and stage offsets that are multiples of the atom (8 spans) do not change the bits.
  bool atomAligned = l.offset % atom == 0 && (!stage || l.stageBytes % atom == 0);
  ExprRef bits;
  if (!atomAligned)
    bits = bin(Op::And, bin(Op::Shr, convert(rowPart, Ty::U32), u32(7)), u32(mask));
  else if (rows && units)
    bits = bin(Op::And, convert(rowUnits, Ty::U32), u32(mask));
  else if (rows)
    bits = bin(Op::And, bin(Op::Shr, convert(rows, Ty::U32), u32(7)), u32(mask));
  ExprRef col = convert(mul(coord[last], i32(l.elemBytes)), Ty::U32);
  if (bits)
    col = bin(Op::Xor, col, bin(Op::Shl, bits, u32(4)));
  return add(convert(rowPart, Ty::U32), col);
}

namespace {

void appendNumber(std::string& out, std::int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  out.append(buf, end);
}

void appendKey(const Expr& e, const BoundValues& bound, std::string& out) {
  switch (e.kind) {
  case Expr::Kind::Const:
    out += '#';
    appendNumber(out, e.value);
    return;
  case Expr::Kind::FConst: {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &e.fvalue, sizeof bits);
    out += 'f';
    appendNumber(out, bits);
    return;
  }
  case Expr::Kind::Var:
    if (e.args.empty())
      if (std::optional<std::int64_t> v = bound ? bound(e.var) : std::nullopt) {
        out += '#';
        appendNumber(out, *v);
        return;
      }
    out += 'v';
    appendNumber(out, e.var);
    break;
  case Expr::Kind::Param:
    out += 'p';
    appendNumber(out, e.var);
    return;
  case Expr::Kind::Special:
    out += 's';
    appendNumber(out, static_cast<int>(e.special));
    return;
  case Expr::Kind::Call:
    out += '@';
    out += e.name;
    break;
  default:
    out += 'k';
    appendNumber(out, static_cast<int>(e.kind) * 10000 + static_cast<int>(e.op) * 100 +
                          static_cast<int>(e.ty));
    break;
  }
  out += '(';
  for (const ExprRef& a : e.args) {
    appendKey(*a, bound, out);
    out += ',';
  }
  out += ')';
}

} // namespace

std::string exprKey(const Expr& e, const BoundValues& bound) {
  std::string k;
  appendKey(e, bound, k);
  return k;
}

namespace {

struct AffineBuilder {
  const BoundValues& bound;
  AffineForm form;

  static bool fits(std::int64_t v) {
    return v > -(std::int64_t(1) << 40) && v < (std::int64_t(1) << 40);
  }

  bool atom(const Expr& e, std::int64_t scale, bool sext) {
    std::string key = exprKey(e, bound) + (sext ? "/s" : "");
    for (AffineTerm& t : form.terms)
      if (t.key == key) {
        t.coeff += scale;
        return fits(t.coeff);
      }
    form.terms.push_back({key, &e, scale, sext});
    return true;
  }

  bool constant(std::int64_t v, std::int64_t scale) {
    form.constant += scale * v;
    return fits(form.constant);
  }

  /// Adds scale * e.
  bool add(const Expr& e, std::int64_t scale, bool sext, int depth) {
    if (!fits(scale) || depth > 32)
      return false;
    switch (e.kind) {
    case Expr::Kind::Const:
      return constant(e.value, scale);
    case Expr::Kind::Var:
      if (e.args.empty())
        if (std::optional<std::int64_t> v = bound ? bound(e.var) : std::nullopt)
          return constant(*v, scale);
      return atom(e, scale, sext);
    case Expr::Kind::Convert: {
      Ty from = e.args[0]->ty, to = e.ty;
      if (isInteger(from) && isInteger(to) && bitWidth(from) == bitWidth(to))
        return add(*e.args[0], scale, sext, depth + 1);
      if (from == Ty::I32 && bitWidth(to) == 64 && !sext)
        return add(*e.args[0], scale, true, depth + 1);
      return atom(e, scale, sext);
    }
    case Expr::Kind::Unary:
      if (e.op == Op::Neg && isInteger(e.ty))
        return add(*e.args[0], -scale, sext, depth + 1);
      return atom(e, scale, sext);
    case Expr::Kind::Binary: {
      const Expr& a = *e.args[0];
      const Expr& b = *e.args[1];
      if (!isInteger(a.ty) || !isInteger(b.ty) || bitWidth(a.ty) != bitWidth(b.ty))
        return atom(e, scale, sext);
      if (e.op == Op::Add)
        return add(a, scale, sext, depth + 1) && add(b, scale, sext, depth + 1);
      if (e.op == Op::Sub)
        return add(a, scale, sext, depth + 1) && add(b, -scale, sext, depth + 1);
      if (e.op == Op::Mul || e.op == Op::Shl) {
        AffineBuilder k{bound, {}};
        if (!k.add(b, 1, false, depth + 1))
          return false;
        if (!k.form.terms.empty())
          return atom(e, scale, sext);
        std::int64_t factor = k.form.constant;
        if (e.op == Op::Shl) {
          if (factor < 0 || factor > 40)
            return atom(e, scale, sext);
          factor = std::int64_t(1) << factor;
        }
        if (!fits(scale * factor))
          return false;
        return add(a, scale * factor, sext, depth + 1);
      }
      return atom(e, scale, sext);
    }
    default:
      return atom(e, scale, sext);
    }
  }
};

} // namespace

std::optional<AffineForm> affineForm(const Expr& e, const BoundValues& bound) {
  AffineBuilder b{bound, {}};
  if (!b.add(e, 1, false, 0))
    return std::nullopt;
  // Terms that cancelled out are dropped.
  std::erase_if(b.form.terms, [](const AffineTerm& t) { return t.coeff == 0; });
  return std::move(b.form);
}

namespace ex {
ExprRef call(std::string_view fn, std::vector<ExprRef> args) {
  const PureFunction* f = findPureFunction(fn);
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Call;
  e->ty = f ? f->result : Ty::F32;
  e->name = std::string(fn);
  e->args = std::move(args);
  return e;
}
} // namespace ex

} // namespace cake::lower

namespace cake::lower {

namespace {

void readsOf(const Expr& e, std::vector<char>& reads) {
  if (e.kind == Expr::Kind::Var && e.var >= 0)
    reads[static_cast<std::size_t>(e.var)] = 1;
  for (const ExprRef& a : e.args)
    readsOf(*a, reads);
}

void scan(const Block& b, std::vector<char>& reads, std::vector<char>& writes) {
  for (const Stmt& s : b) {
    for (const ExprRef* e : {&s.index, &s.value, &s.begin, &s.end, &s.step, &s.cond})
      if (*e)
        readsOf(**e, reads);
    if (s.kind == Stmt::Kind::Assign)
      writes[static_cast<std::size_t>(s.var)] = 1;
    for (const AsmOperand& o : s.outputs) {
      writes[static_cast<std::size_t>(o.var)] = 1;
      if (o.mode == '+')
        reads[static_cast<std::size_t>(o.var)] = 1;
      if (o.index)
        readsOf(*o.index, reads);
    }
    for (const AsmOperand& i : s.inputs)
      if (i.value)
        readsOf(*i.value, reads);
    if (s.loopVar >= 0)
      writes[static_cast<std::size_t>(s.loopVar)] = reads[static_cast<std::size_t>(s.loopVar)] = 1;
    scan(s.body, reads, writes);
    scan(s.elseBody, reads, writes);
  }
}

void pruneDecls(Block& b, const std::vector<char>& reads, const std::vector<char>& writes) {
  for (Stmt& s : b) {
    if (s.kind == Stmt::Kind::Scope)
      s.decls.erase(std::remove_if(s.decls.begin(), s.decls.end(),
                                   [&](int v) {
                                     return !reads[static_cast<std::size_t>(v)] &&
                                            !writes[static_cast<std::size_t>(v)];
                                   }),
                    s.decls.end());
    pruneDecls(s.body, reads, writes);
    pruneDecls(s.elseBody, reads, writes);
  }
}

} // namespace

namespace {

/// Calls `fn(var)` once per read of a variable by the statement itself (not its nested blocks),
/// with the multiplicity `scan` counts.
template <typename Fn> void forEachRead(const Stmt& s, Fn&& fn) {
  std::vector<const Expr*> stack;
  auto expr = [&](const Expr* root) {
    stack.push_back(root);
    while (!stack.empty()) {
      const Expr* e = stack.back();
      stack.pop_back();
      if (e->kind == Expr::Kind::Var && e->var >= 0)
        fn(e->var);
      for (const ExprRef& a : e->args)
        stack.push_back(a.get());
    }
  };
  for (const ExprRef* e : {&s.index, &s.value, &s.begin, &s.end, &s.step, &s.cond})
    if (*e)
      expr(e->get());
  for (const AsmOperand& o : s.outputs) {
    if (o.mode == '+')
      fn(o.var);
    if (o.index)
      expr(o.index.get());
  }
  for (const AsmOperand& i : s.inputs)
    if (i.value)
      expr(i.value.get());
  if (s.loopVar >= 0)
    fn(s.loopVar);
}

/// Reference-counting dead-code removal: an assignment goes when nothing left reads its
/// variable, an `if` when nothing is left in its branches; each removal releases the reads of
/// what it removed. Every statement is removed at most once, so the work is linear in the
/// program size (the earlier fixpoint of whole-program scans was quadratic in chain length).
/// It removes exactly what the fixpoint removed: removals only lower read counts, so every
/// order reaches the same result.
class DeadCode {
public:
  explicit DeadCode(Program& p) : m_reads(p.vars.size(), 0), m_assigns(p.vars.size()) {
    number(p.body, -1);
  }

  void run(Program& p) {
    std::vector<int> work;
    for (std::size_t v = 0; v < m_reads.size(); ++v)
      if (m_reads[v] == 0 && !m_assigns[v].empty())
        work.push_back(static_cast<int>(v));
    for (std::size_t n = 0; n < m_nodes.size(); ++n)
      if (m_nodes[n]->kind == Stmt::Kind::If && m_live[n] == 0)
        removeNode(static_cast<int>(n), work);
    while (!work.empty()) {
      int v = work.back();
      work.pop_back();
      for (int n : m_assigns[static_cast<std::size_t>(v)])
        if (!m_dead[static_cast<std::size_t>(n)])
          removeNode(n, work);
    }
    std::unordered_set<const Stmt*> dead;
    for (std::size_t n = 0; n < m_nodes.size(); ++n)
      if (m_dead[n])
        dead.insert(m_nodes[n]);
    compact(p.body, dead);
  }

private:
  std::vector<std::int64_t> m_reads;          ///< per variable, by statements still present
  std::vector<std::vector<int>> m_assigns;    ///< per variable: its Assign statements
  std::vector<const Stmt*> m_nodes;           ///< every statement, pre-order
  std::vector<int> m_parent;                  ///< enclosing statement or -1
  std::vector<std::int64_t> m_live;           ///< If: statements left in its branches
  std::vector<char> m_dead;

  void number(const Block& b, int parent) {
    for (const Stmt& s : b) {
      const int n = static_cast<int>(m_nodes.size());
      m_nodes.push_back(&s);
      m_parent.push_back(parent);
      m_live.push_back(static_cast<std::int64_t>(s.body.size() + s.elseBody.size()));
      m_dead.push_back(0);
      forEachRead(s, [&](int v) { ++m_reads[static_cast<std::size_t>(v)]; });
      if (s.kind == Stmt::Kind::Assign)
        m_assigns[static_cast<std::size_t>(s.var)].push_back(n);
      number(s.body, n);
      number(s.elseBody, n);
    }
  }

  void removeNode(int n, std::vector<int>& work) {
    // Removing an `if` may empty its parent `if` in turn: walk up iteratively.
    while (n >= 0 && !m_dead[static_cast<std::size_t>(n)]) {
      m_dead[static_cast<std::size_t>(n)] = 1;
      forEachRead(*m_nodes[static_cast<std::size_t>(n)], [&](int v) {
        if (--m_reads[static_cast<std::size_t>(v)] == 0 &&
            !m_assigns[static_cast<std::size_t>(v)].empty())
          work.push_back(v);
      });
      const int parent = m_parent[static_cast<std::size_t>(n)];
      if (parent < 0 || --m_live[static_cast<std::size_t>(parent)] != 0 ||
          m_nodes[static_cast<std::size_t>(parent)]->kind != Stmt::Kind::If)
        return;
      n = parent;
    }
  }

  static void compact(Block& b, const std::unordered_set<const Stmt*>& dead) {
    std::size_t out = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
      if (dead.count(&b[i]))
        continue;
      compact(b[i].body, dead);
      compact(b[i].elseBody, dead);
      if (out != i)
        b[out] = std::move(b[i]);
      ++out;
    }
    b.erase(b.begin() + static_cast<std::ptrdiff_t>(out), b.end());
  }
};

} // namespace

void removeDeadCode(Program& p) {
  DeadCode(p).run(p);
  std::vector<char> reads(p.vars.size(), 0), writes(p.vars.size(), 0);
  scan(p.body, reads, writes);
  pruneDecls(p.body, reads, writes);
}

} // namespace cake::lower

namespace cake::lower {

namespace {
void dropSetmaxnreg(Block& b) {
  b.erase(std::remove_if(
              b.begin(), b.end(),
              [](const Stmt& s) { return s.intrinsic.rfind("llvm.nvvm.setmaxnreg", 0) == 0; }),
          b.end());
  for (Stmt& s : b)
    dropSetmaxnreg(s.body);
}
} // namespace

Program isolateRole(const Program& program, const std::string& role, std::int64_t threads) {
  Program p = program;
  p.launchRegisters = 0;
  p.threads = threads;
  for (Stmt& top : p.body) {
    if (top.kind != Stmt::Kind::Scope)
      continue;
    top.body.erase(std::remove_if(top.body.begin(), top.body.end(),
                                  [&](const Stmt& s) {
                                    return s.kind == Stmt::Kind::If &&
                                           s.comment.rfind("role ", 0) == 0 &&
                                           s.comment != "role " + role;
                                  }),
                   top.body.end());
  }
  dropSetmaxnreg(p.body);
  return p;
}

} // namespace cake::lower

namespace cake::lower {

bool sameExpr(const Expr& a, const Expr& b) {
  if (&a == &b)
    return true;
  if (a.kind != b.kind || a.ty != b.ty || a.value != b.value || a.fvalue != b.fvalue ||
      a.name != b.name || a.var != b.var || a.special != b.special || a.op != b.op ||
      a.args.size() != b.args.size())
    return false;
  for (std::size_t i = 0; i < a.args.size(); ++i)
    if (!sameExpr(*a.args[i], *b.args[i]))
      return false;
  return true;
}

namespace {
bool writesAnyVarOf(const Block& b, const Expr& cond) {
  std::vector<char> reads(1, 0);
  std::function<void(const Expr&, std::vector<int>&)> vars = [&](const Expr& e,
                                                                 std::vector<int>& out) {
    if (e.kind == Expr::Kind::Var)
      out.push_back(e.var);
    for (const ExprRef& x : e.args)
      vars(*x, out);
  };
  std::vector<int> used;
  vars(cond, used);
  std::function<bool(const Block&)> scan = [&](const Block& blk) {
    for (const Stmt& s : blk) {
      if (s.kind == Stmt::Kind::Assign && std::find(used.begin(), used.end(), s.var) != used.end())
        return true;
      for (const AsmOperand& o : s.outputs)
        if (std::find(used.begin(), used.end(), o.var) != used.end())
          return true;
      if (scan(s.body) || scan(s.elseBody))
        return true;
    }
    return false;
  };
  return scan(b);
}
} // namespace

void mergeGuards(Block& b) {
  for (Stmt& s : b) {
    mergeGuards(s.body);
    mergeGuards(s.elseBody);
  }
  // if (c) {A} [comments] if (c) {B}  ->  if (c) {A comments B}, when A does not change c.
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (b[i].kind != Stmt::Kind::If || !b[i].elseBody.empty() || !b[i].comment.empty())
      continue;
    std::size_t j = i + 1;
    while (j < b.size() && b[j].kind == Stmt::Kind::Comment)
      ++j;
    if (j >= b.size() || b[j].kind != Stmt::Kind::If || !b[j].elseBody.empty() ||
        !b[j].comment.empty() || !sameExpr(*b[i].cond, *b[j].cond) ||
        writesAnyVarOf(b[i].body, *b[i].cond))
      continue;
    for (std::size_t k = i + 1; k < j; ++k)
      b[i].body.push_back(std::move(b[k]));
    for (Stmt& x : b[j].body)
      b[i].body.push_back(std::move(x));
    b.erase(b.begin() + static_cast<std::ptrdiff_t>(i + 1),
            b.begin() + static_cast<std::ptrdiff_t>(j + 1));
    --i; // try to merge the next one into the grown block
  }
}

} // namespace cake::lower
