// Lowering infrastructure: role dispatch, loops and pipeline counters, index expressions,
// operand addressing and register-fragment layouts.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Lowerer.h"

#include "cake/Registry/InlinePtx.h"

#include <algorithm>
#include <set>

namespace cake::lower {

namespace {
struct LowerCodeInfo {
  std::string_view code;
  Family family;
  Severity severity;
};
constexpr LowerCodeInfo kLowerCodes[] = {
#define CAKE_LOWER_CODE(id, code, family, severity, title)                                         \
  {code, Family::family, Severity::severity},
#include "cake/Support/LowerCodes.def"
#undef CAKE_LOWER_CODE
};
} // namespace

std::string_view code(LowerId id) {
  return kLowerCodes[static_cast<std::size_t>(id)].code;
}

Diagnostic makeFinding(LowerId id, SourceRange range, std::string message) {
  const LowerCodeInfo& info = kLowerCodes[static_cast<std::size_t>(id)];
  Diagnostic d;
  d.code = std::string(info.code);
  d.family = info.family;
  d.severity = info.severity;
  d.range = range;
  d.message = std::move(message);
  return d;
}

LoweredKernel lowerKernel(const ir::Module& module, const sema::KernelModel& model,
                          const reg::Registry& registry, const SourceManager& sources,
                          const std::string& sourcePath) {
  detail::Lowerer l(module, model, registry, sources, sourcePath);
  return l.run();
}

namespace detail {

using namespace ex;

std::string_view toString(Layout layout) {
  switch (layout) {
  case Layout::Thread:
    return "thread";
  case Layout::Replicated:
    return "replicated";
  case Layout::WarpVector:
    return "warp_vector";
  case Layout::MmaAcc:
    return "mma_acc";
  case Layout::MmaA:
    return "mma_a";
  case Layout::MmaB:
    return "mma_b";
  case Layout::WgmmaAcc:
    return "wgmma_acc";
  case Layout::WgmmaRow:
    return "wgmma_row";
  case Layout::WgmmaCol:
    return "wgmma_col";
  case Layout::TmemRows:
    return "tmem_rows";
  case Layout::Unknown:
    break;
  }
  return "unknown";
}

std::string ptxType(ir::DType t) {
  switch (t) {
  case ir::DType::F8E4M3:
    return "e4m3";
  case ir::DType::F8E5M2:
    return "e5m2";
  case ir::DType::I32:
    return "s32";
  case ir::DType::I64:
    return "s64";
  case ir::DType::I16:
    return "s16";
  case ir::DType::I8:
    return "s8";
  default:
    return std::string(ir::toString(t));
  }
}

std::int64_t elemBytes(ir::DType t) {
  return std::max<std::int64_t>(1, ir::info(t).bits / 8);
}
bool is16Bit(ir::DType t) {
  return ir::info(t).bits == 16;
}

std::vector<std::int64_t> Slice::shape() const {
  std::vector<std::int64_t> out;
  for (std::size_t d = 0; d < extent.size(); ++d)
    if (kept[d])
      out.push_back(extent[d]);
  return out;
}

namespace {

/// C++ keywords and names the emitted code defines itself: kernel constants with these names
/// are folded to numbers instead of being emitted as named constants.
bool reservedConstantName(const std::string& n) {
  static const std::set<std::string> words = {"auto",
                                              "bool",
                                              "break",
                                              "case",
                                              "char",
                                              "class",
                                              "const",
                                              "continue",
                                              "default",
                                              "delete",
                                              "do",
                                              "double",
                                              "else",
                                              "enum",
                                              "extern",
                                              "float",
                                              "for",
                                              "goto",
                                              "if",
                                              "int",
                                              "long",
                                              "new",
                                              "return",
                                              "short",
                                              "signed",
                                              "sizeof",
                                              "static",
                                              "struct",
                                              "switch",
                                              "this",
                                              "typedef",
                                              "union",
                                              "unsigned",
                                              "void",
                                              "volatile",
                                              "while",
                                              "THREADS",
                                              "SMEM_TOTAL",
                                              "TILE_COUNT",
                                              "GRID_CTAS",
                                              "LAUNCH_REGISTERS"};
  return words.count(n) || n.rfind("SMEM_", 0) == 0 || n.rfind("BAR_", 0) == 0 ||
         n.rfind("DESC_", 0) == 0 || n.rfind("IDESC_", 0) == 0 || n.rfind("STAGES_", 0) == 0 ||
         n.rfind("TMEM_", 0) == 0 || n.rfind("cake", 0) == 0;
}

std::string upper(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

} // namespace

Lowerer::Lowerer(const ir::Module& module, const sema::KernelModel& model,
                 const reg::Registry& registry, const SourceManager& sources,
                 std::string sourcePath)
    : m_module(module), m_model(model), m_registry(registry), m_sources(sources),
      m_sourcePath(std::move(sourcePath)) {}

SourceRange Lowerer::range(ir::NodeId id) const {
  return m_module.sourceMap.range(id);
}

void Lowerer::unsupported(const std::string& message) {
  SourceRange r = m_stmt ? range(m_stmt->id) : range(m_module.kernel->id);
  for (const Diagnostic& d : m_findings)
    if (d.range == r && d.message == message)
      return;
  m_findings.push_back(makeFinding(LowerId::LoweringUnsupported, r, message));
}

int Lowerer::newVar(const std::string& name, Ty ty, int count) {
  Var v;
  v.name = name;
  v.ty = ty;
  v.count = count;
  m_p.vars.push_back(v);
  int id = static_cast<int>(m_p.vars.size() - 1);
  if (m_scopeDecls)
    m_scopeDecls->push_back(id);
  return id;
}

int Lowerer::temp(Ty ty, const std::string& hint) {
  return newVar("cake_" + hint + std::to_string(m_role.temps++), ty);
}

void Lowerer::append(Stmt s) {
  if (!s.line) {
    s.line = m_line;
    s.column = m_column;
  }
  m_cur->push_back(std::move(s));
}

void Lowerer::assign(int var, ExprRef index, ExprRef value) {
  Stmt s;
  s.kind = Stmt::Kind::Assign;
  s.var = var;
  s.index = std::move(index);
  s.value = std::move(value);
  append(std::move(s));
}

void Lowerer::comment(std::string text) {
  Stmt s;
  s.kind = Stmt::Kind::Comment;
  s.comment = std::move(text);
  append(std::move(s));
}

void Lowerer::asmStmt(std::string text, std::vector<AsmOperand> outputs,
                      std::vector<AsmOperand> inputs, bool memory, std::string intrinsic) {
  // Defence in depth behind the registry's template checks: whatever lowering composed (a
  // template, a prefix, a rewrite, derived code) must stay one statement with operand
  // references in range, or both back ends would emit something other than this instruction.
  auto issues = reg::checkInlinePtx(text, outputs.size() + inputs.size(), 1);
  if (!issues.empty()) {
    const reg::InlinePtxIssue& is = issues.front();
    std::size_t from = is.begin > 20 ? is.begin - 20 : 0;
    std::string near = text.substr(from, std::min<std::size_t>(is.end + 20, text.size()) - from);
    for (char& c : near)
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
        c = ' ';
    unsupported("lowering produced inline PTX that is not one instruction statement: " +
                is.message + " (near \"" + near + "\")");
    return;
  }
  Stmt s;
  s.kind = intrinsic.empty() ? Stmt::Kind::Asm : Stmt::Kind::Intrin;
  s.text = std::move(text);
  s.outputs = std::move(outputs);
  s.inputs = std::move(inputs);
  s.memory = memory;
  s.intrinsic = std::move(intrinsic);
  append(std::move(s));
}

Stmt& Lowerer::nest(Stmt s, const std::function<void()>& body) {
  append(std::move(s));
  Stmt& added = m_cur->back();
  Block* saved = m_cur;
  m_cur = &added.body;
  body();
  m_cur = saved;
  return saved->back();
}

void Lowerer::ifThen(ExprRef cond, const std::function<void()>& body) {
  Stmt s;
  s.kind = Stmt::Kind::If;
  s.cond = std::move(cond);
  nest(std::move(s), body);
}

void Lowerer::repeat(const std::string& name, std::int64_t count,
                     const std::function<void(ExprRef)>& fn) {
  if (count <= 0)
    return;
  if (count == 1) {
    fn(i32(0));
    return;
  }
  Stmt s;
  s.kind = Stmt::Kind::Repeat;
  s.count = static_cast<int>(count);
  Var v;
  v.name = name;
  v.ty = Ty::I32;
  v.loopVar = true;
  m_p.vars.push_back(v);
  s.loopVar = static_cast<int>(m_p.vars.size() - 1);
  ExprRef iv = var(m_p, s.loopVar);
  nest(std::move(s), [&] { fn(iv); });
}

ExprRef Lowerer::named(const std::string& name, std::int64_t value, Ty ty) {
  auto [it, inserted] = m_namedConsts.emplace(name, value);
  if (inserted)
    m_p.constants.emplace_back(name, value);
  else if (it->second != value)
    return ty == Ty::U32 ? u32(value) : ty == Ty::U64 ? u64(value) : i32(value);
  return ex::named(name, value, ty);
}

// ------------------------------------------------------------------------------ expressions

std::optional<std::int64_t> Lowerer::staticValue(const ir::Expr& e) const {
  switch (e.kind) {
  case ir::ExprKind::Int:
    return e.intValue;
  case ir::ExprKind::Name:
    for (const sema::ConstInfo& c : m_model.consts)
      if (c.name == e.text())
        return c.value;
    return std::nullopt;
  case ir::ExprKind::Unary: {
    auto a = staticValue(*e.children[0]);
    return a ? ir::fold(e.unaryOp, *a) : std::nullopt;
  }
  case ir::ExprKind::Binary: {
    auto a = staticValue(*e.children[0]);
    auto b = a ? staticValue(*e.children[1]) : std::nullopt;
    return b ? ir::fold(e.binaryOp, *a, *b) : std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

std::int64_t Lowerer::knownMultiple(const ir::Expr& e) const {
  constexpr std::int64_t cap = std::int64_t(1) << 20;
  auto pow2Of = [&](std::int64_t v) -> std::int64_t {
    if (v == 0)
      return cap;
    v = v < 0 ? -v : v;
    std::int64_t p = 1;
    while (v % (p * 2) == 0 && p < cap)
      p *= 2;
    return p;
  };
  if (auto v = staticValue(e))
    return pow2Of(*v);
  if (e.kind == ir::ExprKind::Binary) {
    std::int64_t a = knownMultiple(*e.children[0]);
    std::int64_t b = knownMultiple(*e.children[1]);
    switch (e.binaryOp) {
    case ir::BinaryOp::Add:
    case ir::BinaryOp::Sub:
      return std::min(a, b);
    case ir::BinaryOp::Mul:
      return std::min(cap, a * b);
    case ir::BinaryOp::Shl:
      if (auto s = staticValue(*e.children[1]); s && *s >= 0)
        return *s >= 21 ? cap : std::min(cap, a << *s); // a <= cap = 2^20
      return a;
    default:
      return 1;
    }
  }
  return 1;
}

bool Lowerer::nonNegative(const ir::Expr& e) const {
  if (auto v = staticValue(e))
    return *v >= 0;
  switch (e.kind) {
  case ir::ExprKind::Name:
    if (const sema::ScalarInfo* sc = m_model.scalar(e.text()))
      return sc->lo >= 0;
    return e.text() == "tid" || e.text() == "lane" || e.text() == "warp" || e.text() == "wg";
  case ir::ExprKind::Member:
    return e.children[0]->kind == ir::ExprKind::Name; // tile coordinates, P.slot, P.phase
  case ir::ExprKind::Binary:
    switch (e.binaryOp) {
    case ir::BinaryOp::Add:
    case ir::BinaryOp::Mul:
    case ir::BinaryOp::Div:
    case ir::BinaryOp::CeilDiv:
    case ir::BinaryOp::Min:
    case ir::BinaryOp::Max:
    case ir::BinaryOp::Shr:
    case ir::BinaryOp::BitAnd:
      return nonNegative(*e.children[0]) && nonNegative(*e.children[1]);
    default:
      return false;
    }
  default:
    return false;
  }
}

ExprRef Lowerer::lowerExpr(const ir::Expr& e) {
  switch (e.kind) {
  case ir::ExprKind::Int:
    return i32(e.intValue);
  case ir::ExprKind::Name: {
    for (const sema::ConstInfo& c : m_model.consts)
      if (c.name == e.text())
        return reservedConstantName(c.name) ? i32(c.value) : named(c.name, c.value);
    if (auto it = m_role.loopExprs.find(std::string(e.text())); it != m_role.loopExprs.end())
      return it->second;
    if (m_model.scalar(e.text()))
      if (auto it = m_paramIndex.find(std::string(e.text())); it != m_paramIndex.end())
        return param(m_p, it->second);
    if (e.text() == "tid")
      return var(m_p, m_role.tid);
    if (e.text() == "lane")
      return var(m_p, m_role.lane);
    if (e.text() == "warp")
      return var(m_p, m_role.warp);
    if (e.text() == "wg")
      return var(m_p, m_role.wg);
    unsupported("index expression uses '" + std::string(e.text()) +
                "', which has no run-time value here");
    return i32(0);
  }
  case ir::ExprKind::Member: {
    const ir::Expr& base = *e.children[0];
    if (auto it = m_role.tiles.find(std::string(base.text())); it != m_role.tiles.end()) {
      std::size_t d = e.text() == "x" ? 0 : e.text() == "y" ? 1 : 2;
      if (d < it->second.coords.size())
        return var(m_p, it->second.coords[d]);
      return i32(0);
    }
    for (std::size_t p = 0; p < m_model.pipelines.size(); ++p)
      if (m_model.pipelines[p].name == base.text() && p < m_role.slot.size() && m_role.slot[p] >= 0)
        return var(m_p, e.text() == "slot" ? m_role.slot[p] : m_role.phase[p]);
    unsupported("member '" + std::string(base.text()) + "." + std::string(e.text()) +
                "' has no run-time value here");
    return i32(0);
  }
  case ir::ExprKind::Unary: {
    ExprRef a = lowerExpr(*e.children[0]);
    return un(e.unaryOp == ir::UnaryOp::Neg ? Op::Neg : Op::Not, a);
  }
  case ir::ExprKind::Binary: {
    ExprRef a = lowerExpr(*e.children[0]);
    ExprRef b = lowerExpr(*e.children[1]);
    if (e.binaryOp == ir::BinaryOp::CeilDiv) {
      // A non-negative numerator over a positive constant: one division, (a + b - 1) / b
      // (the general form below repeats both operands, and nested cdivs multiply them).
      if (auto d = staticValue(*e.children[1]); d && *d > 0 && nonNegative(*e.children[0]))
        return bin(Op::Div, bin(Op::Add, a, i32(*d - 1)), b);
      // Rounded toward +infinity: q + (r != 0 && (r ^ b) >= 0), as ir::fold defines it.
      ExprRef q = bin(Op::Div, a, b);
      ExprRef r = bin(Op::Rem, a, b);
      ExprRef q1 = bin(Op::Add, q, i32(1));
      return select(bin(Op::Ne, r, i32(0)), select(bin(Op::Ge, bin(Op::Xor, r, b), i32(0)), q1, q),
                    q);
    }
    static constexpr Op map[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Rem, Op::Shl,
                                 Op::Shr, Op::And, Op::Or,  Op::Xor, Op::Min, Op::Max};
    return bin(map[static_cast<int>(e.binaryOp)], a, b);
  }
  default:
    unsupported("expression form not supported in an index");
    return i32(0);
  }
}

// ------------------------------------------------------------------------------ operands

Slice Lowerer::slice(const ir::Operand& o, const sema::OperandInfo& info) {
  const sema::BufferInfo& b = m_model.buffers[info.entityIndex];
  Slice s;
  s.buffer = info.entityIndex;
  std::size_t rank = b.shape.size();
  s.start.assign(rank, i32(0));
  s.extent = b.shape;
  s.kept.assign(rank, true);
  if (!o.subscripted)
    return s;
  std::size_t i = 0;
  if (info.stageIndexed && !o.indices.empty()) {
    s.stage = lowerExpr(*o.indices[0].start);
    i = 1;
  }
  for (std::size_t d = 0; i < o.indices.size() && d < rank; ++i, ++d) {
    const ir::Index& idx = o.indices[i];
    if (idx.kind == ir::Index::Kind::Full)
      continue;
    s.start[d] = lowerExpr(*idx.start);
    if (idx.kind == ir::Index::Kind::Point) {
      s.extent[d] = 1;
      s.kept[d] = false;
    } else {
      s.extent[d] = staticValue(*idx.size).value_or(1);
    }
  }
  return s;
}

ExprRef Lowerer::smemOffset(const Slice& s, const std::vector<ExprRef>& rel) {
  const sema::BufferInfo& b = m_model.buffers[s.buffer];
  std::string base = "SMEM_" + upper(b.name);
  ExprRef off = named(base, b.offset);
  if (s.stage)
    off = add(off, mul(s.stage, named(base + "_STAGE_BYTES", b.stageBytes())));
  std::int64_t stride = elemBytes(b.dtype);
  std::vector<std::int64_t> strides(b.shape.size());
  for (std::size_t d = b.shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= b.shape[d];
  }
  std::size_t k = 0;
  for (std::size_t d = 0; d < b.shape.size(); ++d) {
    ExprRef coord = s.start[d];
    if (s.kept[d] && k < rel.size())
      coord = add(coord, rel[k++]);
    off = add(off, mul(coord, i32(strides[d])));
  }
  return convert(off, Ty::U32);
}

ExprRef Lowerer::swizzledOffset(const Slice& s, const std::vector<ExprRef>& rel) {
  const sema::BufferInfo& b = m_model.buffers[s.buffer];
  SmemLayout l;
  l.name = "SMEM_" + upper(b.name);
  l.offset = b.offset;
  l.stageBytes = b.stageBytes();
  l.elemBytes = elemBytes(b.dtype);
  l.shape = b.shape;
  l.swizzleMask = b.swizzle == "128B" ? 7 : b.swizzle == "64B" ? 3 : b.swizzle == "32B" ? 1 : 0;
  l.offsetExpr = named(l.name, l.offset);
  if (s.stage)
    l.stageBytesExpr = named(l.name + "_STAGE_BYTES", l.stageBytes);
  std::vector<ExprRef> coord(b.shape.size());
  std::size_t k = 0;
  for (std::size_t d = 0; d < b.shape.size(); ++d) {
    coord[d] = s.start[d];
    if (s.kept[d] && k < rel.size())
      coord[d] = add(coord[d], rel[k++]);
  }
  return swizzledSmemOffset(l, s.stage, coord);
}

ExprRef Lowerer::smemAddress(ExprRef offset) {
  return add(var(m_p, m_smemVar), std::move(offset));
}

ExprRef Lowerer::globalAddress(const Slice& s, const std::vector<ExprRef>& rel) {
  const sema::BufferInfo& b = m_model.buffers[s.buffer];
  std::vector<std::int64_t> strides(b.shape.size());
  std::int64_t stride = 1;
  for (std::size_t d = b.shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= b.shape[d];
  }
  ExprRef linear = convert(i32(0), Ty::I64);
  std::size_t k = 0;
  for (std::size_t d = 0; d < b.shape.size(); ++d) {
    ExprRef coord = s.start[d];
    if (s.kept[d] && k < rel.size())
      coord = add(coord, rel[k++]);
    ExprRef c64 = convert(coord, Ty::I64);
    linear = add(linear, strides[d] == 1 ? c64 : mul(c64, convert(i32(strides[d]), Ty::I64)));
  }
  ExprRef bytes = mul(convert(linear, Ty::U64), u64(elemBytes(b.dtype)));
  return add(param(m_p, m_paramIndex.at(b.name)), bytes);
}

ExprRef Lowerer::barrierAddress(const ir::Operand& o, const sema::OperandInfo& info,
                                ExprRef element) {
  const sema::BarrierInfo& b = m_model.barriers[info.entityIndex];
  std::int64_t offset = 0;
  for (const BarrierGroup& g : m_md.barriers)
    if (g.name == b.name)
      offset = g.offset;
  ExprRef off = named("BAR_" + upper(b.name), offset);
  if (!element && o.subscripted && !o.indices.empty() && o.indices[0].start)
    element = lowerExpr(*o.indices[0].start);
  if (element)
    off = add(off, mul(element, i32(8)));
  return smemAddress(convert(off, Ty::U32));
}

ExprRef Lowerer::tensorMapAddress(const sema::OperandInfo& info) {
  return param(m_p, m_paramIndex.at(m_model.tensorMaps[info.entityIndex].name));
}

ExprRef Lowerer::tmemBase(std::size_t buffer) {
  // tcgen05.alloc wrote the base address to the slot; the CTA barrier after it made it
  // visible, so every reader loads it from shared memory.
  std::size_t slot = 0;
  for (std::size_t i = 0; i < m_md.tmem.size(); ++i)
    if (m_md.tmem[i].name == m_model.buffers[buffer].name)
      slot = i;
  int v = temp(Ty::U32, "taddr");
  AsmOperand out;
  out.constraint = 'r';
  out.var = v;
  AsmOperand in;
  in.value = smemAddress(convert(named("SMEM_TMEM_BASE", m_md.tmemBaseOffset), Ty::U32));
  if (slot)
    in.value = add(in.value, u32(4 * slot));
  asmStmt("ld.shared.b32 %0, [%1];", {out}, {in});
  return var(m_p, v);
}

std::optional<TileView> Lowerer::view(const ir::Operand& o, const sema::OperandInfo& info) {
  std::size_t b = info.entityIndex;
  const sema::BufferInfo& buf = m_model.buffers[b];
  const TileLayout& L = m_layouts[b];
  if (L.kind == Layout::Unknown) {
    unsupported("lowering has no register fragment layout for '" + buf.name + "' (scope=" +
                buf.scope + ", shape of rank " + std::to_string(buf.shape.size()) + ")");
    return std::nullopt;
  }
  auto it = m_role.regVars.find(b);
  int v;
  if (it == m_role.regVars.end()) {
    std::vector<int>* saved = m_scopeDecls;
    m_scopeDecls = m_roleDecls;
    Ty ty = buf.dtype == ir::DType::F32 || buf.dtype == ir::DType::TF32 ? Ty::F32
            : buf.dtype == ir::DType::I32                               ? Ty::I32
                                                                        : Ty::U32;
    v = newVar(buf.name, ty, static_cast<int>(std::max<std::int64_t>(1, L.registers)));
    m_scopeDecls = saved;
    m_role.regVars[b] = v;
  } else {
    v = it->second;
  }
  TileView tv;
  tv.buffer = b;
  tv.var = v;
  tv.layout = L;
  tv.offset = i32(0);
  tv.dtype = buf.dtype;
  tv.elements = L.elements;
  if (!o.subscripted)
    return tv;
  // Static column slices of fragments that keep every row: a contiguous element range.
  Slice s = slice(o, info);
  bool rowsWhole = buf.shape.size() == 2 && s.kept[0] && s.extent[0] == buf.shape[0];
  if (buf.shape.size() == 2 && rowsWhole &&
      (L.kind == Layout::WgmmaAcc || L.kind == Layout::TmemRows)) {
    std::int64_t w = s.extent[1];
    if (L.kind == Layout::WgmmaAcc) {
      if (w % 8 != 0 || ir::info(buf.dtype).bits > 32) {
        unsupported("a column slice of the wgmma fragment '" + buf.name +
                    "' must cover whole groups of 8 columns");
        return std::nullopt;
      }
      tv.offset = mul(udiv(s.start[1], 8), i32(4));
      tv.elements = w / 2;
    } else {
      tv.offset = s.start[1];
      tv.elements = w;
    }
    tv.layout.cols = w;
    tv.layout.elements = tv.elements;
    tv.layout.registers = is16Bit(buf.dtype) ? tv.elements / 2 : tv.elements;
    return tv;
  }
  if ((L.kind == Layout::Thread || L.kind == Layout::Replicated) && buf.shape.size() == 1) {
    tv.offset = s.start[0];
    tv.elements = s.extent[0];
    tv.layout.elements = tv.elements;
    tv.layout.registers = is16Bit(buf.dtype) ? (tv.elements + 1) / 2 : tv.elements;
    return tv;
  }
  unsupported("lowering supports slices of register tiles only as whole-row column ranges of "
              "accumulator fragments or ranges of thread vectors ('" +
              buf.name + "')");
  return std::nullopt;
}

ExprRef Lowerer::regIndex(const TileView& v, ExprRef e) {
  ExprRef full = add(v.offset, std::move(e));
  if (is16Bit(v.dtype))
    return bin(Op::Shr, full, i32(1));
  return full;
}

ExprRef Lowerer::readElem(const TileView& v, ExprRef e, std::int64_t half) {
  ExprRef reg = elem(m_p, v.var, regIndex(v, e));
  if (!is16Bit(v.dtype))
    return reg;
  if (v.dtype == ir::DType::BF16) {
    ExprRef bits = half == 0 ? bin(Op::Shl, reg, u32(16)) : bin(Op::And, reg, u32(0xFFFF0000u));
    return bitcast(bits, Ty::F32);
  }
  if (v.dtype == ir::DType::F16)
    return call(half == 0 ? "f16lo" : "f16hi", {reg});
  unsupported("elementwise access to " + std::string(ir::toString(v.dtype)) +
              " register elements is not supported");
  return f32(0);
}

void Lowerer::writeElems(const TileView& v, ExprRef first, const std::vector<ExprRef>& values) {
  if (is16Bit(v.dtype)) {
    ExprRef hi = values.size() > 1 ? values[1] : f32(0);
    const char* fn = v.dtype == ir::DType::F16 ? "pack_f16x2" : "pack_bf16x2";
    if (v.dtype != ir::DType::F16 && v.dtype != ir::DType::BF16)
      unsupported("writing " + std::string(ir::toString(v.dtype)) + " register elements");
    assign(v.var, regIndex(v, first), call(fn, {hi, values[0]}));
    return;
  }
  for (std::size_t k = 0; k < values.size(); ++k) {
    ExprRef value = values[k];
    Ty want = m_p.vars[v.var].ty;
    if (value->ty != want)
      value = convert(value, want);
    assign(v.var, regIndex(v, add(first, i32(static_cast<std::int64_t>(k)))), value);
  }
}

AsmOperand Lowerer::regOperand(const TileView& v, ExprRef reg, char mode) const {
  AsmOperand op;
  op.constraint = m_p.vars[v.var].ty == Ty::F32 ? 'f' : 'r';
  op.mode = mode;
  op.var = v.var;
  op.index = std::move(reg);
  if (mode == 0) {
    op.value = elem(m_p, v.var, op.index);
    op.var = -1;
    op.index = nullptr;
  }
  return op;
}

AsmOperand Lowerer::viewReg(const TileView& v, ExprRef r, char mode) const {
  ExprRef first = is16Bit(v.dtype) ? bin(Op::Shr, v.offset, i32(1)) : v.offset;
  return regOperand(v, add(first, std::move(r)), mode);
}

Binding Lowerer::viewRegs(const TileView& v, ExprRef first, std::int64_t count, char mode) const {
  Binding b;
  b.output = mode != 0;
  for (std::int64_t r = 0; r < count; ++r)
    b.operands.push_back(viewReg(v, add(first, i32(r)), mode));
  return b;
}

Binding Lowerer::single(ExprRef value, char constraint) {
  Binding b;
  AsmOperand a;
  a.constraint = constraint;
  a.value = std::move(value);
  b.operands.push_back(a);
  return b;
}

// ------------------------------------------------------------------------------ layouts

void Lowerer::assignLayouts() {
  m_layouts.assign(m_model.buffers.size(), TileLayout{});
  // Usage facts.
  std::vector<std::set<std::string>> uses(m_model.buffers.size());
  std::vector<std::pair<std::size_t, std::size_t>> links; // cast / ew between same-shape tiles
  for (const sema::OpInfo& op : m_model.ops) {
    const std::string& name = op.primitive->name;
    for (std::size_t i = 0; i < op.operands.size(); ++i) {
      const sema::OperandInfo& oi = op.operands[i];
      if (!oi.facts.present || oi.entity != sema::EntityKind::Buffer)
        continue;
      std::string role = name + ":" + op.primitive->operands[i].name;
      uses[oi.entityIndex].insert(role);
    }
    bool bcastNone = true;
    if (auto bi = op.primitive->attributeIndex("broadcast"); bi && *bi < op.attributes.size())
      bcastNone = op.attributes[*bi].sym == "none" || op.attributes[*bi].sym.empty();
    if (auto bi = op.primitive->attributeIndex("broadcast");
        bi && *bi < op.attributes.size() && op.attributes[*bi].sym == "col")
      if (op.operands.size() > 2)
        uses[op.operands[2].entityIndex].insert("broadcast:col");
    if (name == "cast" || name == "ew.unary" || name == "ew.binary" || name == "ew.fma") {
      std::size_t last = name == "ew.binary" ? 3 : name == "ew.fma" ? 4 : 2;
      for (std::size_t i = 1; i < last && i < op.operands.size(); ++i) {
        if ((name == "ew.binary" && i == 2 && !bcastNone) ||
            (name == "ew.fma" && i == 2 && !bcastNone))
          continue;
        links.emplace_back(op.operands[0].entityIndex, op.operands[i].entityIndex);
      }
    }
  }
  for (std::size_t b = 0; b < m_model.buffers.size(); ++b) {
    const sema::BufferInfo& buf = m_model.buffers[b];
    if (buf.space != ir::Space::Reg)
      continue;
    TileLayout L;
    std::int64_t elems = buf.elements();
    L.rows = buf.shape.size() == 2 ? buf.shape[0] : 1;
    L.cols = buf.shape.empty() ? 1 : buf.shape.back();
    const auto& u = uses[b];
    auto has = [&](const char* k) { return u.count(k) != 0; };
    if (buf.scope == "thread") {
      L.kind = Layout::Thread;
      L.elements = elems;
    } else if (buf.scope == "role") {
      L.kind = Layout::Replicated;
      L.elements = elems;
    } else if (buf.scope == "warp") {
      if (buf.shape.size() == 1) {
        if (elems >= 32 && elems % 32 == 0) {
          L.kind = Layout::WarpVector;
          L.elements = elems / 32;
          L.run = L.elements % 8 == 0 ? 8 : L.elements;
        } else if (elems < 32) {
          L.kind = Layout::Replicated;
          L.elements = elems;
        }
      } else if (buf.shape.size() == 2) {
        if (has("mma.sync:d") && buf.shape[0] % 16 == 0 && buf.shape[1] % 8 == 0) {
          L.kind = Layout::MmaAcc;
          L.elements = elems / 32;
        } else if (has("mma.sync:a") && buf.shape[0] % 16 == 0 && buf.shape[1] % 16 == 0) {
          L.kind = Layout::MmaA;
          L.elements = elems / 32;
        } else if (has("mma.sync:b") && buf.shape[0] % 16 == 0 && buf.shape[1] % 16 == 0) {
          L.kind = Layout::MmaB;
          L.elements = elems / 32;
        } else if ((has("tcgen05.ld:dst") || has("tcgen05.st:src")) && buf.shape[0] == 32) {
          L.kind = Layout::TmemRows;
          L.elements = buf.shape[1];
        }
      }
    } else if (buf.scope == "warpgroup") {
      if (buf.shape.size() == 2 && buf.shape[0] == 64 && buf.shape[1] % 8 == 0) {
        L.kind = Layout::WgmmaAcc;
        L.elements = buf.shape[1] / 2;
      } else if (buf.shape.size() == 1) {
        if (has("broadcast:col") && elems % 8 == 0) {
          L.kind = Layout::WgmmaCol;
          L.elements = elems / 4;
        } else if (elems == 64) {
          L.kind = Layout::WgmmaRow;
          L.elements = 2;
        }
      }
    }
    m_layouts[b] = L;
  }
  // Fragments linked by elementwise operations share the producer's layout.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto [x, y] : links) {
      for (auto [from, to] : {std::pair{x, y}, std::pair{y, x}}) {
        const sema::BufferInfo& a = m_model.buffers[from];
        const sema::BufferInfo& b = m_model.buffers[to];
        if (m_layouts[from].kind != Layout::Unknown && m_layouts[to].kind == Layout::Unknown &&
            a.scope == b.scope && a.shape == b.shape) {
          m_layouts[to] = m_layouts[from];
          changed = true;
        }
      }
    }
  }
  for (std::size_t b = 0; b < m_model.buffers.size(); ++b) {
    const sema::BufferInfo& buf = m_model.buffers[b];
    if (buf.space != ir::Space::Reg)
      continue;
    TileLayout& L = m_layouts[b];
    std::int64_t bits = ir::info(buf.dtype).bits;
    L.registers = (L.elements * bits + 31) / 32;
  }
}

void Lowerer::recordFragment(std::size_t b) {
  const sema::BufferInfo& buf = m_model.buffers[b];
  for (const FragmentInfo& f : m_md.fragments)
    if (f.name == buf.name)
      return;
  FragmentInfo f;
  f.name = buf.name;
  f.scope = buf.scope;
  f.layout = std::string(toString(m_layouts[b].kind));
  f.elementsPerThread = m_layouts[b].elements;
  f.registersPerThread = m_layouts[b].registers;
  m_md.fragments.push_back(f);
}

// ------------------------------------------------------------------------------ structure

bool Lowerer::smallLoop(const ir::Stmt& loop, const sema::LoopInfo& info) const {
  // A loop of a few iterations over a few operations (the two epilogue halves of a tile) is
  // unrolled as O3's full unroller would: no loop for the middle end to canonicalise, and
  // ptxas sees straight-line code. (The middle end's own unrollers do not run: lowering
  // decides what is unrolled.)
  std::int64_t trip = info.end - info.begin;
  if (info.runtime || trip < 1 || trip > 4)
    return false; // a run-time range is a loop whatever its bounds
  std::int64_t ops = 0;
  for (const ir::StmtPtr& st : loop.body) {
    if (st->kind == ir::StmtKind::For)
      return false;
    ops += st->kind == ir::StmtKind::Op;
  }
  return ops * trip <= 4;
}

bool Lowerer::loopNeedsUnroll(const ir::Stmt& loop) const {
  // A loop variable that selects registers must be a compile-time value: registers cannot be
  // indexed at run time without spilling the fragment to local memory.
  const std::string& v = loop.block().loopVar.name;
  std::function<bool(const ir::Expr&)> mentions = [&](const ir::Expr& e) {
    if (e.kind == ir::ExprKind::Name && e.text() == v)
      return true;
    for (const auto& c : e.children)
      if (mentions(*c))
        return true;
    return false;
  };
  std::function<bool(const std::vector<ir::StmtPtr>&)> scan = [&](const auto& body) {
    for (const ir::StmtPtr& s : body) {
      if (s->kind == ir::StmtKind::For && scan(s->body))
        return true;
      if (s->kind != ir::StmtKind::Op)
        continue;
      for (const ir::Operand& o : s->operands) {
        const sema::BufferInfo* b = m_model.buffer(o.name.name);
        if (!b || b->space != ir::Space::Reg)
          continue;
        for (const ir::Index& i : o.indices)
          if ((i.start && mentions(*i.start)) || (i.size && mentions(*i.size)))
            return true;
      }
    }
    return false;
  };
  return scan(loop.body);
}

void Lowerer::advancePipeline(const std::string& name) {
  for (std::size_t p = 0; p < m_model.pipelines.size(); ++p) {
    if (m_model.pipelines[p].name != name || p >= m_role.slot.size() || m_role.slot[p] < 0)
      continue;
    std::int64_t stages = m_model.pipelines[p].stages;
    int slot = m_role.slot[p], phase = m_role.phase[p];
    m_line = 0;
    if (stages == 1) {
      assign(phase, bin(Op::Xor, var(m_p, phase), i32(1)));
      return;
    }
    // Branch-free: slot + 1 wraps to 0 and flips the phase when it reaches the stage count.
    ExprRef wrap = bin(Op::Eq, var(m_p, slot), named("STAGES_" + upper(name), stages));
    assign(slot, add(var(m_p, slot), i32(1)));
    assign(phase, bin(Op::Xor, var(m_p, phase), convert(wrap, Ty::I32)));
    assign(slot, select(wrap, i32(0), var(m_p, slot)));
  }
}

void Lowerer::advancePipelineBy(const std::string& name, std::int64_t n) {
  if (n <= 0)
    return;
  for (std::size_t p = 0; p < m_model.pipelines.size(); ++p) {
    if (m_model.pipelines[p].name != name || p >= m_role.slot.size() || m_role.slot[p] < 0)
      continue;
    std::int64_t stages = m_model.pipelines[p].stages;
    int slot = m_role.slot[p], phase = m_role.phase[p];
    m_line = 0;
    // slot + n passes the end of the ring (slot + n) / stages times; each pass flips the phase.
    ExprRef total = add(var(m_p, slot), i32(n));
    assign(phase, bin(Op::Xor, var(m_p, phase), bin(Op::And, udiv(total, stages), i32(1))));
    assign(slot, umod(add(var(m_p, slot), i32(n)), stages));
  }
}

void Lowerer::skipTiles(const std::vector<ir::StmtPtr>& body, std::int64_t tiles) {
  for (const ir::StmtPtr& c : body) {
    if (c->kind != ir::StmtKind::For)
      continue;
    auto found = m_loopOf.find(c.get());
    if (found == m_loopOf.end())
      continue;
    const sema::LoopInfo& li = *found->second;
    if (li.skip > 0)
      advancePipelineBy(li.pipeline, li.skip * tiles);
    skipTiles(c->body, li.runtime ? tiles : tiles * std::max<std::int64_t>(1, li.trip()));
  }
}

void Lowerer::assignTileCoords(const RoleState::Tile& tile, ExprRef lin) {
  const sema::GridInfo& g = *m_model.grid;
  const std::size_t dims = tile.coords.size();
  // sema::tileCoords (RuntimeBound.cpp) in thread-program form: the same bijection, over the
  // tile counts `tiles` (the grid's, or its cluster blocks' for a clustered ordered grid).
  auto ordered = [&](ExprRef l, const std::vector<std::int64_t>& tiles) {
    std::vector<ExprRef> c(dims);
    if (dims < 2 || (!g.rasterN && g.swizzle <= 1)) {
      std::int64_t below = 1;
      for (std::size_t d = 0; d < dims; ++d) {
        c[d] = below == 1 ? l : udiv(l, below);
        if (d + 1 < dims)
          c[d] = umod(c[d], tiles[d]);
        below *= tiles[d];
      }
      return c;
    }
    std::int64_t ex = std::max<std::int64_t>(1, tiles[0]), ey = std::max<std::int64_t>(1, tiles[1]);
    std::int64_t plane = ex * ey;
    std::int64_t below = plane;
    for (std::size_t d = 2; d < dims; ++d) {
      c[d] = udiv(l, below);
      if (d + 1 < dims)
        c[d] = umod(c[d], tiles[d]);
      below *= tiles[d];
    }
    std::size_t major = g.rasterN ? 1 : 0, minor = 1 - major;
    std::int64_t majorExtent = major == 0 ? ex : ey, minorExtent = major == 0 ? ey : ex;
    std::int64_t group = std::max<std::int64_t>(1, g.swizzle);
    std::int64_t band = group * majorExtent;
    ExprRef rest = dims > 2 ? umod(l, plane) : l;
    ExprRef first = mul(udiv(rest, band), i32(group));
    ExprRef r = umod(rest, band);
    if (minorExtent % group == 0) {
      // Every band is full: constant divisors (shifts and masks for a power-of-two group).
      c[minor] = add(first, umod(r, group));
      c[major] = udiv(r, group);
      return c;
    }
    // The last band is narrower: width = min(group, minorExtent - first), a run-time divisor.
    ExprRef width = bin(Op::Min, i32(group), bin(Op::Sub, i32(minorExtent), first));
    c[minor] = add(first, bin(Op::Rem, r, width));
    c[major] = bin(Op::Div, r, width);
    return c;
  };
  std::int64_t clusterSize = 1;
  for (std::int64_t v : g.cluster)
    clusterSize *= std::max<std::int64_t>(1, v);
  std::vector<ExprRef> c;
  if (dims >= 2 && (g.rasterN || g.swizzle > 1) && clusterSize > 1) {
    // A clustered grid orders whole clusters; the CTA's rank in its cluster (consecutive linear
    // indices, x fastest) is its offset inside the cluster's block of tiles.
    std::vector<std::int64_t> blocks(dims), shape(dims);
    for (std::size_t d = 0; d < dims; ++d) {
      shape[d] = d < g.cluster.size() ? std::max<std::int64_t>(1, g.cluster[d]) : 1;
      blocks[d] = std::max<std::int64_t>(1, g.tiles[d] / shape[d]);
    }
    c = ordered(udiv(lin, clusterSize), blocks);
    std::int64_t below = 1;
    for (std::size_t d = 0; d < dims; ++d) {
      if (shape[d] > 1) {
        ExprRef rank = umod(lin, clusterSize);
        ExprRef off = umod(below == 1 ? rank : udiv(rank, below), shape[d]);
        c[d] = add(mul(c[d], i32(shape[d])), off);
      }
      below *= shape[d];
    }
  } else {
    c = ordered(lin, g.tiles);
  }
  for (std::size_t d = 0; d < dims; ++d)
    assign(tile.coords[d], c[d]);
}

void Lowerer::lowerLoop(const ir::Stmt& s) {
  auto found = m_loopOf.find(&s);
  if (found == m_loopOf.end())
    return;
  const sema::LoopInfo* info = found->second;
  LineColumn lc = m_sources.lineColumn(range(s.id).file, range(s.id).begin);
  m_line = lc.line;
  m_column = lc.column;
  if (info->overTiles) {
    const sema::GridInfo& g = *m_model.grid;
    RoleState::Tile tile;
    tile.linear = newVar(info->var + "_tile", Ty::I32);
    static const char* axes[] = {"_x", "_y", "_z"};
    for (std::size_t d = 0; d < g.tiles.size() && d < 3; ++d)
      tile.coords.push_back(newVar(info->var + axes[d], Ty::I32));
    m_role.tiles[info->var] = tile;
    auto body = [&] {
      assignTileCoords(tile, var(m_p, tile.linear));
      walk(s.body);
      advancePipeline(info->pipeline);
      // Ping-pong: past the tiles the other roles own before this role's next one.
      skipTiles(s.body, info->tileStride - 1);
    };
    comment(std::string(g.persistent ? "persistent tile loop: tiles blockIdx.x, "
                                       "blockIdx.x + gridDim.x, ..."
                                     : "this CTA's tile") +
            " (" + info->var + ")");
    if (g.persistent) {
      // A strided role (ping-pong) starts `offset` tiles into the CTA's sequence, past the
      // stages of the tiles before it, and steps over the other roles' tiles.
      skipTiles(s.body, info->tileOffset);
      Stmt f;
      f.kind = Stmt::Kind::For;
      f.loopVar = tile.linear;
      m_p.vars[tile.linear].loopVar = true;
      f.begin = info->tileOffset > 0 ? add(special(Special::BlockIdx),
                                           mul(special(Special::GridDim), i32(info->tileOffset)))
                                     : special(Special::BlockIdx);
      f.end = named("TILE_COUNT", g.tileCount());
      f.step = info->tileStride > 1 ? mul(special(Special::GridDim), i32(info->tileStride))
                                    : special(Special::GridDim);
      nest(std::move(f), body);
    } else {
      assign(tile.linear, special(Special::BlockIdx));
      Stmt sc;
      sc.kind = Stmt::Kind::Scope;
      nest(std::move(sc), body);
    }
    m_role.tiles.erase(info->var);
    return;
  }
  const ir::Expr& rangeExpr = *s.block().loopRange;
  ExprRef begin = rangeExpr.children.size() == 2 ? lowerExpr(*rangeExpr.children[0]) : i32(0);
  ExprRef end = rangeExpr.children.size() == 2 ? lowerExpr(*rangeExpr.children[1]) : i32(0);
  if (info->runtime && loopNeedsUnroll(s)) {
    unsupported("loop '" + info->var +
                "' has a run-time range (docs/ir.md) and its variable "
                "selects registers: registers cannot be indexed by a trip count known only at "
                "run time");
    return;
  }
  if (loopNeedsUnroll(s) || smallLoop(s, *info)) {
    repeat(info->var, info->end - info->begin, [&](ExprRef i) {
      m_role.loopExprs[info->var] = add(i32(info->begin), i);
      walk(s.body);
      advancePipeline(info->pipeline);
    });
  } else {
    Stmt f;
    f.kind = Stmt::Kind::For;
    Var v;
    v.name = info->var;
    v.ty = Ty::I32;
    v.loopVar = true;
    m_p.vars.push_back(v);
    f.loopVar = static_cast<int>(m_p.vars.size() - 1);
    f.begin = begin;
    f.end = end;
    f.step = i32(1);
    m_role.loopExprs[info->var] = var(m_p, f.loopVar);
    nest(std::move(f), [&] {
      walk(s.body);
      advancePipeline(info->pipeline);
    });
  }
  m_role.loopExprs.erase(info->var);
}

void Lowerer::walk(const std::vector<ir::StmtPtr>& body) {
  for (const ir::StmtPtr& s : body) {
    if (s->kind == ir::StmtKind::Op)
      lowerOp(*s);
    else if (s->kind == ir::StmtKind::For)
      lowerLoop(*s);
  }
}

void Lowerer::lowerRole(std::size_t r) {
  const sema::RoleInfo& role = m_model.roles[r];
  const RoleDispatch& rd = m_md.roles[r];
  m_role = RoleState{};
  m_role.role = &role;
  m_role.index = r;
  m_line = 0;
  ExprRef inRole =
      bin(Op::And,
          bin(Op::Ge, var(m_p, m_warpVar), named("WARP_BEGIN_" + upper(role.name), role.warpBegin)),
          bin(Op::Lt, var(m_p, m_warpVar), named("WARP_END_" + upper(role.name), role.warpEnd)));
  if (m_model.roles.size() == 1)
    inRole = nullptr;
  auto body = [&] {
    Stmt scope;
    scope.kind = Stmt::Kind::Scope;
    append(std::move(scope));
    Stmt& sc = m_cur->back();
    Block* saved = m_cur;
    m_cur = &sc.body;
    std::vector<int>* savedDecls = m_scopeDecls;
    m_scopeDecls = &sc.decls;
    m_roleDecls = &sc.decls;

    comment("role " + role.name + ": warps " + std::to_string(role.warpBegin) + ".." +
            std::to_string(role.warpEnd) + " (threads " + std::to_string(rd.threadBegin) + ".." +
            std::to_string(rd.threadEnd) + ")" +
            (rd.registers ? ", register budget " + std::to_string(rd.registers) : ""));
    if (!rd.setmaxnreg.empty()) {
      if (const reg::Primitive* p = m_registry.find("setmaxnreg")) {
        sema::OpInfo fake;
        fake.primitive = p;
        CompactVector<reg::DefValue> attrs;
        attrs.assign(p->attributes.size(), reg::DefValue{});
        for (std::size_t i = 0; i < p->attributes.size(); ++i) {
          if (p->attributes[i].name == "regs")
            attrs[i] = reg::DefValue::integer(rd.registers);
          else if (p->attributes[i].name == "action")
            attrs[i] = reg::DefValue::symbol(rd.setmaxnreg);
        }
        fake.attributes = attrs;
        std::string intrinsic = "llvm.nvvm.setmaxnreg." + rd.setmaxnreg + ".sync.aligned.u32";
        AsmOperand imm;
        imm.constraint = 'n';
        imm.value = i32(rd.registers);
        emitTemplate(fake,
                     [&](const reg::TemplateSlot& slot) { return defaultBinding(fake, slot); }, {},
                     {}, {}, {}, intrinsic, {imm});
      } else {
        unsupported("the registry has no 'setmaxnreg' primitive to lower register budgets");
      }
    }
    m_role.tid = newVar("tid", Ty::I32);
    m_role.warp = newVar("warp", Ty::I32);
    m_role.wg = newVar("wg", Ty::I32);
    m_role.lane = m_laneVar;
    assign(m_role.tid, bin(Op::Sub, special(Special::ThreadIdx), i32(rd.threadBegin)));
    assign(m_role.warp, bin(Op::Sub, var(m_p, m_warpVar), i32(role.warpBegin)));
    assign(m_role.wg, udiv(var(m_p, m_role.warp), 4));
    // The elected thread: lane 0 of the role's first warp, chosen with elect.sync where the
    // target has it (the leader of a full warp is its lowest lane).
    bool needsElected = false;
    for (const sema::OpInfo& op : m_model.ops) {
      if (std::find(op.roles.begin(), op.roles.end(), role.name) == op.roles.end())
        continue;
      needsElected |= op.primitive->issue == reg::IssueScope::Elected;
      if (op.primitive->issueAttribute && *op.primitive->issueAttribute < op.attributes.size())
        needsElected |= op.attributes[*op.primitive->issueAttribute].sym == "elected";
    }
    m_role.elected = newVar("elected", Ty::U32);
    if (!needsElected) {
      // No operation of this role is issued by one thread.
    } else if (rd.elected == "elect.sync") {
      assign(m_role.elected, u32(0));
      ifThen(bin(Op::Eq, var(m_p, m_role.warp), i32(0)), [&] {
        AsmOperand out;
        out.var = m_role.elected;
        asmStmt("{\n.reg .pred cake_e;\nelect.sync _|cake_e, 0xffffffff;\nselp.u32 %0, 1, 0, "
                "cake_e;\n}",
                {out}, {}, false);
      });
    } else {
      assign(m_role.elected, convert(bin(Op::Eq, var(m_p, m_role.tid), i32(0)), Ty::U32));
    }
    m_role.slot.assign(m_model.pipelines.size(), -1);
    m_role.phase.assign(m_model.pipelines.size(), -1);
    // Pipelines with a loop that encloses an operation of this role (one pass over the ops).
    std::set<std::string> usedPipelines;
    for (const sema::OpInfo& op : m_model.ops)
      if (std::find(op.roles.begin(), op.roles.end(), role.name) != op.roles.end())
        for (std::size_t l : op.loops)
          if (l < m_model.loops.size() && !m_model.loops[l].pipeline.empty())
            usedPipelines.insert(m_model.loops[l].pipeline);
    for (std::size_t p = 0; p < m_model.pipelines.size(); ++p) {
      if (!usedPipelines.count(m_model.pipelines[p].name))
        continue;
      m_role.slot[p] = newVar(m_model.pipelines[p].name + "_slot", Ty::I32);
      m_role.phase[p] = newVar(m_model.pipelines[p].name + "_phase", Ty::I32);
      assign(m_role.slot[p], i32(0));
      assign(m_role.phase[p], i32(0));
    }
    for (const ir::StmtPtr& s : m_module.kernel->body) {
      if (s->kind != ir::StmtKind::On)
        continue;
      bool names = false;
      for (const ir::Ident& id : s->block().roles)
        names |= id.name == role.name || id.name == "all";
      if (!names)
        continue;
      const ir::Attribute* cta = s->attribute("cta");
      if (!cta) {
        walk(s->body);
        continue;
      }
      // `on … cta=leader`: the leader (even-ranked) CTA of each CTA pair only, CUTLASS's
      // is_mma_leader_cta; the peer skips the block.
      int rank = newVar("cluster_rank", Ty::I32);
      AsmOperand out, base;
      out.var = rank;
      base.value = special(Special::SmemBase);
      asmStmt("getctarank.shared::cluster.u32 %0, %1;", {out}, {base}, false);
      ifThen(bin(Op::Eq, bin(Op::And, var(m_p, rank), i32(1)), i32(0)), [&] { walk(s->body); });
    }
    m_cur = saved;
    m_scopeDecls = savedDecls;
  };
  if (inRole) {
    Stmt s;
    s.kind = Stmt::Kind::If;
    s.cond = inRole;
    s.comment = "role " + role.name;
    nest(std::move(s), body);
  } else {
    body();
  }
}

LoweredKernel Lowerer::run() {
  LoweredKernel out;
  m_md = derive(m_module, m_model);
  m_p.name = m_model.name;
  m_p.target = m_model.targetName;
  m_p.sourcePath = m_sourcePath;
  m_p.threads = m_md.threads;
  m_p.smemBytes = m_md.smemTotal;
  m_p.launchRegisters = m_md.launchRegisters;
  if (m_model.grid)
    for (std::size_t i = 0; i < 3 && i < m_model.grid->cluster.size(); ++i)
      m_p.cluster[i] = std::max<std::int64_t>(1, m_model.grid->cluster[i]);
  auto addParam = [&](const std::string& name, Param::Kind kind, ir::DType dtype, bool readOnly) {
    Param p;
    p.name = name;
    p.kind = kind;
    p.dtype = dtype;
    p.readOnly = readOnly;
    m_paramIndex[name] = static_cast<int>(m_p.params.size());
    m_p.params.push_back(p);
  };
  for (const sema::BufferInfo& b : m_model.buffers)
    if (b.space == ir::Space::Global)
      addParam(b.name, Param::Kind::GlobalPtr, b.dtype, b.paramRole == "input");
  for (const sema::TensorMapInfo& t : m_model.tensorMaps)
    addParam(t.name, Param::Kind::TensorMap, t.dtype, true);
  // Run-time scalar parameters: i32 kernel arguments passed by value (docs/ir.md).
  for (const sema::ScalarInfo& sc : m_model.scalars)
    addParam(sc.name, Param::Kind::Scalar, sc.dtype, true);
  m_barrierPlan = verify::planBarriers(m_module, m_model);
  m_opOf.reserve(m_model.ops.size());
  for (const sema::OpInfo& o : m_model.ops)
    m_opOf.emplace(o.stmt, &o);
  m_loopOf.reserve(m_model.loops.size());
  for (const sema::LoopInfo& l : m_model.loops)
    m_loopOf.emplace(l.stmt, &l);

  assignLayouts();

  m_cur = &m_p.body;
  Stmt top;
  top.kind = Stmt::Kind::Scope;
  append(std::move(top));
  Stmt& sc = m_cur->back();
  m_cur = &sc.body;
  m_scopeDecls = &sc.decls;
  m_warpVar = newVar("warp_id", Ty::I32);
  m_laneVar = newVar("lane", Ty::I32);
  m_smemVar = newVar("smem", Ty::U32);
  named("THREADS", m_md.threads);
  named("SMEM_TOTAL", m_md.smemTotal);
  assign(m_warpVar, udiv(special(Special::ThreadIdx), 32));
  assign(m_laneVar, umod(special(Special::ThreadIdx), 32));
  assign(m_smemVar, special(Special::SmemBase));
  for (std::size_t r = 0; r < m_model.roles.size(); ++r)
    lowerRole(r);

  removeDeadCode(m_p);
  mergeGuards(m_p.body);
  for (std::size_t b = 0; b < m_model.buffers.size(); ++b)
    if (m_model.buffers[b].space == ir::Space::Reg && m_layouts[b].kind != Layout::Unknown)
      recordFragment(b);
  out.metadata = std::move(m_md);
  out.program = std::move(m_p);
  out.findings = std::move(m_findings);
  out.ok = std::none_of(out.findings.begin(), out.findings.end(),
                        [](const Diagnostic& d) { return d.severity == Severity::Blocking; });
  return out;
}

} // namespace detail

} // namespace cake::lower
