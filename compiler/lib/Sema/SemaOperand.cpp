// Type checker, operands: kinds, spaces and dtypes of operands, buffer and barrier subscripts
// against their extents, attribute values and the primitive's constraints.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "SemaContext.h"

#include "cake/IR/Printer.h"

#include <numeric>

namespace cake::sema::detail {

namespace {
std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string typeText(const reg::OperandFacts& f) {
  return std::string(toString(f.space)) + " " + std::string(toString(f.dtype)) + shapeText(f.shape);
}
/// A byte count every possible start of a subscript of the innermost dimension is a multiple of
/// (reg::OperandFacts::rowOffset): the exact offset when constant, 1 when nothing is known or a
/// start can fall inside a byte. The start is already within the extent (at most 2^48).
std::int64_t rowOffsetBytes(const std::optional<Interval>& start, std::int64_t bits) {
  if (!start)
    return 1;
  std::int64_t g = std::gcd(start->lo * bits, start->exact() ? 0 : start->stride * bits);
  if (g % 8 != 0)
    return 1;
  return g / 8;
}

} // namespace

bool Checker::checkOperand(const Operand& o, const reg::OperandDef& def, OperandInfo& info,
                           const StmtCtx& ctx) {
  const Symbol* sym = lookup(o.name.name);
  if (!sym) {
    std::vector<std::string> candidates;
    for (const auto& [n, s] : m_symbols)
      candidates.push_back(n);
    undefined(o.name.id, o.name.name, "operand", candidates);
    return false;
  }
  auto wrongKind = [&](std::string_view found) {
    Diagnostic* d =
        report(DiagId::SemOperandKind, o.name.id,
               "operand '" + def.name + "' must be a " + std::string(reg::toString(def.kind)) +
                   ", but '" + o.name.name + "' is a " + std::string(found));
    noteDecl(d, sym->decl, "declared here");
    return false;
  };
  if (const ScalarInfo* sc = m_model.scalar(o.name.name)) {
    Diagnostic* d = report(DiagId::SemScalarParam, o.name.id,
                           "operand '" + def.name + "' must be a " +
                               std::string(reg::toString(def.kind)) + ", but '" + sc->name +
                               "' is a run-time scalar parameter (a value passed by value, not "
                               "memory): use it in an expression (a loop bound, a subscript, an "
                               "attribute)");
    noteDecl(d, sc->decl, "declared here");
    return false;
  }
  switch (def.kind) {
  case reg::OperandKind::Buffer: {
    const BufferInfo* b = m_model.buffer(o.name.name);
    if (!b) {
      bool isBufferKind = sym->kind == DeclKind::Param || sym->kind == DeclKind::Smem ||
                          sym->kind == DeclKind::Tmem || sym->kind == DeclKind::Reg;
      if (isBufferKind)
        return false; // its declaration already failed
      return wrongKind(std::string(keyword(sym->kind)) + " declaration");
    }
    info.entity = EntityKind::Buffer;
    info.entityIndex = static_cast<std::size_t>(b - m_model.buffers.data());
    if (!def.spaces.empty() &&
        std::find(def.spaces.begin(), def.spaces.end(), b->space) == def.spaces.end()) {
      std::vector<std::string> names;
      for (Space sp : def.spaces)
        names.emplace_back(toString(sp));
      Diagnostic* d =
          report(DiagId::SemOperandSpace, o.name.id,
                 "operand '" + def.name + "' must be in " + join(names, " or ") + ", but '" +
                     b->name + "' is in " + std::string(toString(b->space)));
      noteDecl(d, b->decl, "declared here");
      return false;
    }
    info.facts.isBuffer = true;
    info.facts.space = b->space;
    info.facts.dtype = b->dtype;
    info.facts.stages = b->stages;
    info.facts.swizzle = reg::swizzleName(b->swizzle);
    if (b->space == Space::Smem) {
      info.facts.baseOffset = b->offset;
      info.facts.stageBytes = b->stageBytes();
    }
    if (!b->shape.empty())
      info.facts.bufferRowBytes = (b->shape.back() * ir::info(b->dtype).bits + 7) / 8;
    if (b->kind == DeclKind::Param)
      info.facts.baseAlign = b->align;
    if (!subscriptBuffer(o, *b, info, ctx))
      return false;
    break;
  }
  case reg::OperandKind::TensorMap: {
    if (sym->kind != DeclKind::TensorMap)
      return wrongKind(std::string(keyword(sym->kind)) + " declaration");
    const TensorMapInfo* t = nullptr;
    for (const TensorMapInfo& tm : m_model.tensorMaps)
      if (tm.name == o.name.name)
        t = &tm;
    if (!t)
      return false;
    info.entity = EntityKind::TensorMap;
    info.entityIndex = static_cast<std::size_t>(t - m_model.tensorMaps.data());
    info.facts.isTensorMap = true;
    info.facts.space = Space::Global;
    info.facts.dtype = t->dtype;
    info.facts.shape = t->box;
    info.facts.swizzle = reg::swizzleName(t->swizzle);
    if (const BufferInfo* src = m_model.buffer(t->source))
      info.facts.baseAlign = src->align;
    if (!o.subscripted || o.indices.size() != t->box.size()) {
      Diagnostic* d = report(DiagId::SemIndexCount, o.id,
                             "tensor map '" + t->name + "' needs " + std::to_string(t->box.size()) +
                                 " box coordinates, e.g. " + t->name + "[row, col]");
      noteDecl(d, t->decl, "declared here");
      return false;
    }
    info.indexRanges.reserve(o.indices.size()); // exact: kept per operand
    for (const Index& idx : o.indices) {
      if (idx.kind != Index::Kind::Point) {
        report(DiagId::SemIndexCount, idx.id,
               "tensor map coordinates are element offsets, not slices");
        return false;
      }
      IntResult r = intExpr(*idx.start, &ctx, false);
      if (!r.ok)
        return false;
      info.indexRanges.push_back(r.range.value_or(Interval{kMin, kMax}));
    }
    break;
  }
  case reg::OperandKind::MBarrier:
  case reg::OperandKind::NBarrier: {
    bool wantNamed = def.kind == reg::OperandKind::NBarrier;
    const BarrierInfo* b = m_model.barrier(o.name.name);
    if (!b || b->named != wantNamed) {
      if ((sym->kind == DeclKind::MBarrier || sym->kind == DeclKind::NBarrier) && !b)
        return false;
      return wrongKind(std::string(keyword(sym->kind)) + " declaration");
    }
    info.entity = wantNamed ? EntityKind::NBarrier : EntityKind::MBarrier;
    info.entityIndex = static_cast<std::size_t>(b - m_model.barriers.data());
    if (wantNamed) {
      if (o.subscripted) {
        report(DiagId::SemIndexCount, o.id, "named barriers take no index");
        return false;
      }
      break;
    }
    if (def.wholeArray) {
      if (o.subscripted) {
        Diagnostic* d = report(DiagId::SemIndexCount, o.id,
                               "operand '" + def.name + "' takes the whole barrier array; write '" +
                                   b->name + "' without an index");
        noteDecl(d, b->decl, "declared here");
        return false;
      }
      break;
    }
    if (b->size > 1 &&
        (!o.subscripted || o.indices.size() != 1 || o.indices[0].kind != Index::Kind::Point)) {
      Diagnostic* d = report(DiagId::SemIndexCount, o.id,
                             "mbarrier '" + b->name + "' is an array of " +
                                 std::to_string(b->size) + "; index it, e.g. " + b->name +
                                 (b->pipeline.empty() ? "[0]" : "[" + b->pipeline + ".slot]"));
      noteDecl(d, b->decl, "declared here");
      return false;
    }
    if (b->size == 1 && o.subscripted &&
        (o.indices.size() != 1 || o.indices[0].kind != Index::Kind::Point)) {
      report(DiagId::SemIndexCount, o.id, "mbarrier '" + b->name + "' takes at most one index");
      return false;
    }
    if (o.subscripted) {
      IntResult r = intExpr(*o.indices[0].start, &ctx, false);
      if (!r.ok)
        return false;
      if (auto out = r.range ? checkInBounds(*r.range, 1, b->size) : std::nullopt) {
        Diagnostic* d = report(DiagId::DcSliceOutOfBounds, o.indices[0].id,
                               "index into '" + b->name + "' can be " + std::to_string(out->index) +
                                   ", outside 0.." + std::to_string(b->size));
        noteDecl(d, b->decl, "declared here");
        return false;
      }
      info.indexRanges.push_back(r.range.value_or(Interval{kMin, kMax}));
    }
    break;
  }
  }
  if (def.rank && info.facts.isBuffer && static_cast<int>(info.facts.shape.size()) != *def.rank) {
    report(DiagId::DcShapeMismatch, o.id,
           "operand '" + def.name + "' must have rank " + std::to_string(*def.rank) + ", '" +
               o.name.name + "' here is " + typeText(info.facts));
    return false;
  }
  if (!def.dtypes.empty() &&
      std::find(def.dtypes.begin(), def.dtypes.end(), info.facts.dtype) == def.dtypes.end()) {
    std::vector<std::string> names;
    for (DType dt : def.dtypes)
      names.emplace_back(toString(dt));
    const Decl* decl = sym->decl;
    Diagnostic* d = report(DiagId::DcDtypeMismatch, o.name.id,
                           "operand '" + def.name + "' must be " + join(names, " or ") + ", but '" +
                               o.name.name + "' is " + std::string(toString(info.facts.dtype)));
    noteDecl(d, decl, "declared here");
    return false;
  }
  info.facts.present = true;
  return true;
}

bool Checker::subscriptBuffer(const Operand& o, const BufferInfo& b, OperandInfo& info,
                              const StmtCtx& ctx) {
  std::size_t first = 0;
  std::size_t rank = b.shape.size();
  if (b.stages > 1) {
    if (!o.subscripted || o.indices.empty() || o.indices[0].kind != Index::Kind::Point) {
      Diagnostic* d = report(DiagId::SemIndexCount, o.id,
                             "'" + b.name + "' has " + std::to_string(b.stages) +
                                 " stages; select one first, e.g. " + b.name +
                                 (b.pipeline.empty() ? "[s]" : "[" + b.pipeline + ".slot]"));
      noteDecl(d, b.decl, "declared here");
      return false;
    }
    IntResult r = intExpr(*o.indices[0].start, &ctx, false);
    if (!r.ok)
      return false;
    if (auto out = r.range ? checkInBounds(*r.range, 1, b.stages) : std::nullopt) {
      Diagnostic* d =
          report(DiagId::DcSliceOutOfBounds, o.indices[0].id,
                 "stage index of '" + b.name + "' can be " + std::to_string(out->index) +
                     ", outside 0.." + std::to_string(b.stages));
      noteDecl(d, b.decl, "declared here");
      return false;
    }
    info.stageIndexed = true;
    info.indexRanges.push_back(r.range.value_or(Interval{kMin, kMax}));
    first = 1;
  }
  std::size_t given = o.subscripted ? o.indices.size() - first : 0;
  if (given == 0) {
    if (o.subscripted && first == 0) {
      report(DiagId::SemIndexCount, o.id, "empty subscript; write the name alone");
      return false;
    }
    info.facts.shape = b.shape;
    return true;
  }
  if (given != rank) {
    Diagnostic* d = report(DiagId::SemIndexCount, o.id,
                           "'" + b.name + "' has rank " + std::to_string(rank) + "; give " +
                               std::to_string(rank) + " indices (':' keeps a whole dimension)" +
                               (first ? " after the stage index" : ""));
    noteDecl(d, b.decl, "declared here");
    return false;
  }
  // Kept per operand of every operation: sized exactly, without growth slack.
  info.indexRanges.reserve(first + rank);
  info.facts.shape.reserve(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const Index& idx = o.indices[first + i];
    std::int64_t dim = b.shape[i];
    if (idx.kind == Index::Kind::Full) {
      info.facts.shape.push_back(dim);
      info.indexRanges.push_back({0, 0});
      continue;
    }
    IntResult start = intExpr(*idx.start, &ctx, false);
    if (!start.ok)
      return false;
    std::int64_t size = 1;
    if (idx.kind == Index::Kind::Slice) {
      auto s = constInt(*idx.size, "a slice size", &ctx);
      if (!s)
        return false;
      if (*s <= 0) {
        report(DiagId::SemInvalidShape, idx.size->id, "slice size must be positive");
        return false;
      }
      size = *s;
      info.facts.shape.push_back(size);
    }
    if (auto out = start.range ? checkInBounds(*start.range, size, dim) : std::nullopt) {
      std::string reach = out->below ? "starts at " + std::to_string(out->index)
                                     : "can reach index " + std::to_string(out->index);
      Diagnostic* d = report(DiagId::DcSliceOutOfBounds, idx.id,
                             "dimension " + std::to_string(i) + " of '" + b.name + "' " + reach +
                                 ", but its extent is " + std::to_string(dim));
      noteDecl(d, b.decl, "declared here");
      return false;
    }
    if (i + 1 == rank)
      info.facts.rowOffset = rowOffsetBytes(start.range, ir::info(b.dtype).bits);
    info.indexRanges.push_back(start.range.value_or(Interval{kMin, kMax}));
  }
  return true;
}

std::optional<reg::DefValue> Checker::attrValue(const Attribute& a, const reg::AttrDef& def,
                                                const StmtCtx& ctx) {
  const Expr& v = *a.value;
  auto wrong = [&](std::string expected) -> std::optional<reg::DefValue> {
    report(DiagId::SemAttributeType, v.id,
           "'" + def.name + "' takes " + expected + ", found '" + print(v) + "'");
    return std::nullopt;
  };
  switch (def.type) {
  case reg::AttrType::Int: {
    auto x = constInt(v, "'" + def.name + "'", &ctx);
    if (!x)
      return std::nullopt;
    if ((def.min && *x < *def.min) || (def.max && *x > *def.max)) {
      report(DiagId::SemAttributeType, v.id,
             "'" + def.name + "' is " + std::to_string(*x) + "; allowed range is [" +
                 (def.min ? std::to_string(*def.min) : "-inf") + ", " +
                 (def.max ? std::to_string(*def.max) : "inf") + "]");
      return std::nullopt;
    }
    return reg::DefValue::integer(*x);
  }
  case reg::AttrType::Float: {
    reg::DefValue out;
    out.kind = reg::DefValue::Kind::Float;
    if (v.kind == ExprKind::Float) {
      out.f = v.floatValue;
      return out;
    }
    auto x = constInt(v, "'" + def.name + "'", &ctx);
    if (!x)
      return std::nullopt;
    out.f = static_cast<double>(*x);
    return out;
  }
  case reg::AttrType::Bool:
    if (v.kind == ExprKind::Name && (v.text() == "true" || v.text() == "false"))
      return reg::DefValue::boolean(v.text() == "true");
    return wrong("true or false");
  case reg::AttrType::Enum: {
    if ((v.kind == ExprKind::Name || v.kind == ExprKind::Tag) &&
        std::find(def.values.begin(), def.values.end(), v.text()) != def.values.end())
      return reg::DefValue::symbol(std::string(v.text()));
    Diagnostic* d = report(DiagId::SemAttributeType, v.id,
                           "'" + def.name + "' is '" + print(v) +
                               "'; expected one of: " + join(def.values, ", "));
    if (auto guess = closestMatch(print(v), def.values))
      setFix(d, "did you mean '" + *guess + "'?", R(v.id), *guess);
    return std::nullopt;
  }
  case reg::AttrType::DType:
    if (v.kind == ExprKind::Name && parseDType(v.text()))
      return reg::DefValue::symbol(std::string(v.text()));
    return wrong("a data type such as bf16");
  case reg::AttrType::IntList: {
    if (v.kind != ExprKind::List)
      return wrong("a list of integers such as [1, 2]");
    reg::DefValue out;
    out.kind = reg::DefValue::Kind::List;
    for (const ExprPtr& c : v.children) {
      auto x = constInt(*c, "list element", &ctx);
      if (!x)
        return std::nullopt;
      out.list.push_back(reg::DefValue::integer(*x));
    }
    return out;
  }
  case reg::AttrType::Expr: {
    IntResult r = intExpr(v, &ctx, false);
    if (!r.ok)
      return std::nullopt;
    if (r.range && r.range->exact())
      return reg::DefValue::integer(r.range->lo);
    return reg::DefValue{};
  }
  case reg::AttrType::String:
    if (v.kind == ExprKind::String)
      return reg::DefValue::symbol(std::string(v.text()));
    return wrong("a string");
  }
  return std::nullopt;
}

reg::DefValue Checker::fromJson(const json::Value& v) {
  switch (v.kind) {
  case json::Kind::Bool:
    return reg::DefValue::boolean(v.boolean);
  case json::Kind::Number:
    if (v.integer)
      return reg::DefValue::integer(*v.integer);
    else {
      reg::DefValue d;
      d.kind = reg::DefValue::Kind::Float;
      d.f = v.number;
      return d;
    }
  case json::Kind::String:
    return reg::DefValue::symbol(v.string);
  case json::Kind::Array: {
    reg::DefValue d;
    d.kind = reg::DefValue::Kind::List;
    for (const json::Value& e : v.elements)
      d.list.push_back(fromJson(e));
    return d;
  }
  default:
    return {};
  }
}

bool Checker::checkOpAttributes(const Stmt& s, const reg::Primitive& prim, OpInfo& op,
                                const StmtCtx& ctx) {
  bool ok = true;
  op.attributes.assign(prim.attributes.size(), reg::DefValue{});
  for (std::size_t i = 0; i < prim.attributes.size(); ++i)
    if (prim.attributes[i].defaultValue)
      op.attributes[i] = fromJson(*prim.attributes[i].defaultValue);
  for (const Attribute& a : s.attributes) {
    auto idx = prim.attributeIndex(a.key.name);
    if (!idx) {
      std::vector<std::string> names;
      for (const reg::AttrDef& d : prim.attributes)
        names.push_back(d.name);
      Diagnostic* d = report(DiagId::SemUnknownAttribute, a.key.id,
                             "'" + prim.name + "' has no attribute '" + a.key.name + "'" +
                                 (names.empty() ? std::string(" (it takes none)")
                                                : " (known: " + join(names, ", ") + ")"));
      if (auto guess = closestMatch(a.key.name, names))
        setFix(d, "did you mean '" + *guess + "'?", R(a.key.id), *guess);
      ok = false;
      continue;
    }
    auto value = attrValue(a, prim.attributes[*idx], ctx);
    if (!value) {
      ok = false;
      continue;
    }
    op.attributes[*idx] = *value;
  }
  for (const reg::AttrDef& def : prim.attributes) {
    if (def.required && !s.attribute(def.name)) {
      Diagnostic* d =
          report(DiagId::SemMissingAttribute, s.opName.id,
                 "'" + prim.name + "' needs the attribute '" + def.name + "=' (" + def.doc + ")");
      addNote(d, def.range, "attribute defined here");
      ok = false;
    }
  }
  return ok;
}

void Checker::checkConstraints(const Stmt& s, const reg::Primitive& prim, const OpInfo& op) {
  OpDefContext ctx(op);
  for (const reg::ConstraintDef& c : prim.constraints) {
    reg::DefValue v = reg::evaluate(c.check, ctx);
    if (v.kind != reg::DefValue::Kind::Bool || v.b)
      continue;
    Diagnostic diag;
    diag.code = c.code;
    diag.family = c.family;
    diag.severity = Severity::Blocking;
    if (const DiagCodeInfo* info = findDiagCode(c.code))
      diag.severity = info->severity;
    diag.range = R(s.id);
    // The values the constraint failed on, not its text (the note points at the text).
    diag.message = c.message + " [" + prim.name + ": " + reg::explainFalse(c.check, ctx) + "]";
    // Point at each operand the constraint mentions, with its resolved type.
    std::vector<std::size_t> mentioned;
    collectOperands(c.check, mentioned);
    for (std::size_t i : mentioned) {
      if (i >= s.operands.size())
        continue;
      std::string what = reg::describe(op.operands[i].facts);
      if (!what.empty())
        diag.notes.push_back({R(s.operands[i].id), "'" + prim.operands[i].name + "' is " + what});
    }
    diag.notes.push_back({c.range, "constraint of '" + prim.name + "' defined here"});
    m_diags.report(std::move(diag));
  }
}

void Checker::collectOperands(const reg::DefExpr& e, std::vector<std::size_t>& out) {
  if (e.kind == reg::DefExpr::Kind::OperandRef &&
      std::find(out.begin(), out.end(), e.index) == out.end())
    out.push_back(e.index);
  for (const reg::DefExpr& a : e.args)
    collectOperands(a, out);
}

} // namespace cake::sema::detail
