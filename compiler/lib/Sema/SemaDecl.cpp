// Type checker, declarations: the attribute schema of every declaration kind, types and shapes,
// and the kernel's shape (grid, roles tiling the warps, thread limit).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "SemaContext.h"

#include "cake/IR/Printer.h"

namespace cake::sema::detail {

namespace {
constexpr std::string_view kSwizzles[] = {"none", "32B", "64B", "128B"};

const std::vector<DeclAttrSpec>& declSchema(DeclKind kind) {
  static const std::map<DeclKind, std::vector<DeclAttrSpec>> schema = {
      {DeclKind::Const, {}},
      {DeclKind::Param,
       {{"role", DAttr::Enum, true, {"input", "output", "state", "scalar"}},
        {"align", DAttr::Int, false, {}},
        {"range", DAttr::IntList, false, {}}}},
      {DeclKind::TensorMap,
       {{"source", DAttr::Name, true, {}},
        {"swizzle", DAttr::Enum, false, {kSwizzles[0], kSwizzles[1], kSwizzles[2], kSwizzles[3]}}}},
      {DeclKind::Grid,
       {{"tiles", DAttr::IntList, true, {}},
        {"schedule", DAttr::Enum, false, {"static", "persistent"}},
        {"cluster", DAttr::IntList, false, {}},
        {"pdl", DAttr::Enum, false, {"on", "off"}},
        {"raster", DAttr::Enum, false, {"m", "n"}},
        {"swizzle", DAttr::Int, false, {}}}},
      {DeclKind::Role, {{"warps", DAttr::Range, true, {}}, {"regs", DAttr::Int, false, {}}}},
      {DeclKind::Pipeline, {{"stages", DAttr::Int, true, {}}}},
      {DeclKind::Pool, {{"offset", DAttr::Int, false, {}}, {"bytes", DAttr::Int, true, {}}}},
      {DeclKind::Smem,
       {{"offset", DAttr::Int, true, {}},
        {"stages", DAttr::Int, false, {}},
        {"swizzle", DAttr::Enum, false, {kSwizzles[0], kSwizzles[1], kSwizzles[2], kSwizzles[3]}},
        {"pool", DAttr::Name, false, {}},
        {"pipeline", DAttr::Name, false, {}}}},
      {DeclKind::Tmem, {{"cols", DAttr::Range, true, {}}}},
      {DeclKind::Reg, {{"scope", DAttr::Enum, false, {"thread", "warp", "warpgroup", "role"}}}},
      {DeclKind::MBarrier,
       {{"count", DAttr::Int, true, {}},
        {"producers", DAttr::NameList, true, {}},
        {"consumers", DAttr::NameList, true, {}},
        {"pipeline", DAttr::Name, false, {}},
        {"size", DAttr::Int, false, {}}}},
      {DeclKind::NBarrier, {{"roles", DAttr::NameList, true, {}}}},
  };
  return schema.at(kind);
}

bool declNeedsType(DeclKind kind) {
  switch (kind) {
  case DeclKind::Param:
  case DeclKind::TensorMap:
  case DeclKind::Smem:
  case DeclKind::Tmem:
  case DeclKind::Reg:
    return true;
  default:
    return false;
  }
}

} // namespace

void Checker::checkConst(const Decl& d) {
  checkDeclAttributes(d);
  if (d.type)
    report(DiagId::SemAttributeType, d.type->id, "constants are integers and take no type");
  if (!d.value)
    return;
  if (auto v = constInt(*d.value, "constant '" + d.name.name + "'")) {
    if (m_symbols.count(d.name.name) && m_symbols.at(d.name.name).decl == &d)
      m_consts[d.name.name] = *v;
    m_model.consts.push_back({d.name.name, *v, &d});
  } else {
    m_failedConsts.insert(d.name.name);
  }
}

const DeclAttrSpec* Checker::findSpec(const Decl& d, std::string_view name) {
  for (const DeclAttrSpec& s : declSchema(d.kind))
    if (s.name == name)
      return &s;
  return nullptr;
}

void Checker::checkDeclAttributes(const Decl& d) {
  const auto& schema = declSchema(d.kind);
  for (const Attribute& a : d.attributes) {
    if (findSpec(d, a.key.name))
      continue;
    std::vector<std::string> names;
    for (const DeclAttrSpec& s : schema)
      names.emplace_back(s.name);
    Diagnostic* diag =
        report(DiagId::SemUnknownAttribute, a.key.id,
               "'" + std::string(keyword(d.kind)) +
                   "' declarations have no "
                   "attribute '" +
                   a.key.name + "'" +
                   (names.empty() ? std::string() : " (known: " + join(names, ", ") + ")"));
    if (auto guess = closestMatch(a.key.name, names))
      setFix(diag, "did you mean '" + *guess + "'?", R(a.key.id), *guess);
  }
  for (const DeclAttrSpec& s : schema) {
    if (s.required && !d.attribute(s.name)) {
      Diagnostic* diag = report(DiagId::SemMissingAttribute, d.id,
                                "'" + std::string(keyword(d.kind)) + " " + d.name.name +
                                    "' needs the attribute '" + std::string(s.name) + "='");
      (void)diag;
    }
  }
}

std::optional<std::int64_t> Checker::declInt(const Decl& d, std::string_view key, std::int64_t min,
                                             std::int64_t max) {
  const Attribute* a = d.attribute(key);
  if (!a)
    return std::nullopt;
  auto v = constInt(*a->value, "'" + std::string(key) + "'");
  if (!v)
    return std::nullopt;
  if (*v < min || *v > max) {
    report(DiagId::SemAttributeType, a->value->id,
           "'" + std::string(key) + "' is " + std::to_string(*v) + "; it must be in [" +
               std::to_string(min) + ", " + std::to_string(max) + "]");
    return std::nullopt;
  }
  return v;
}

std::optional<std::vector<std::int64_t>> Checker::declIntList(const Decl& d, std::string_view key) {
  const Attribute* a = d.attribute(key);
  if (!a)
    return std::nullopt;
  if (a->value->kind != ExprKind::List || a->value->children.empty()) {
    report(DiagId::SemAttributeType, a->value->id,
           "'" + std::string(key) + "' must be a non-empty list such as [32, 16]");
    return std::nullopt;
  }
  std::vector<std::int64_t> out;
  for (const ExprPtr& c : a->value->children) {
    auto v = constInt(*c, "list element");
    if (!v)
      return std::nullopt;
    if (*v <= 0) {
      report(DiagId::SemAttributeType, c->id, "list elements must be positive");
      return std::nullopt;
    }
    out.push_back(*v);
  }
  return out;
}

std::optional<std::pair<std::int64_t, std::int64_t>> Checker::declRange(const Decl& d,
                                                                        std::string_view key) {
  const Attribute* a = d.attribute(key);
  if (!a)
    return std::nullopt;
  if (a->value->kind != ExprKind::Range) {
    report(DiagId::SemAttributeType, a->value->id,
           "'" + std::string(key) + "' must be a half-open range such as 0..4");
    return std::nullopt;
  }
  auto lo = constInt(*a->value->children[0], "range start");
  auto hi = constInt(*a->value->children[1], "range end");
  if (!lo || !hi)
    return std::nullopt;
  if (*lo < 0 || *hi <= *lo) {
    report(DiagId::SemAttributeType, a->value->id,
           "range " + std::to_string(*lo) + ".." + std::to_string(*hi) + " is empty or negative");
    return std::nullopt;
  }
  return std::make_pair(*lo, *hi);
}

std::optional<std::string> Checker::declEnum(const Decl& d, std::string_view key) {
  const Attribute* a = d.attribute(key);
  const DeclAttrSpec* spec = findSpec(d, key);
  if (!a || !spec)
    return std::nullopt;
  if (a->value->kind == ExprKind::Name || a->value->kind == ExprKind::Tag) {
    if (std::find(spec->values.begin(), spec->values.end(), a->value->text()) != spec->values.end())
      return std::string(a->value->text());
  }
  std::vector<std::string> values(spec->values.begin(), spec->values.end());
  Diagnostic* diag = report(DiagId::SemAttributeType, a->value->id,
                            "'" + std::string(key) + "' is '" + print(*a->value) +
                                "'; expected one of: " + join(values, ", "));
  if (auto guess = closestMatch(print(*a->value), values))
    setFix(diag, "did you mean '" + *guess + "'?", R(a->value->id), *guess);
  return std::nullopt;
}

const Decl* Checker::declRef(const Expr& e, std::initializer_list<DeclKind> kinds,
                             std::string_view what) {
  if (e.kind != ExprKind::Name) {
    report(DiagId::SemAttributeType, e.id, "expected the name of a " + std::string(what));
    return nullptr;
  }
  const Symbol* s = lookup(e.text());
  if (!s) {
    std::vector<std::string> candidates;
    for (const auto& [n, sym] : m_symbols)
      if (std::find(kinds.begin(), kinds.end(), sym.kind) != kinds.end())
        candidates.push_back(n);
    undefined(e.id, std::string(e.text()), what, candidates);
    return nullptr;
  }
  if (std::find(kinds.begin(), kinds.end(), s->kind) == kinds.end()) {
    Diagnostic* d = report(DiagId::SemUnknownDeclaration, e.id,
                           "'" + std::string(e.text()) + "' is a " + std::string(keyword(s->kind)) +
                               " declaration, not a " + std::string(what));
    noteDecl(d, s->decl, "declared here");
    return nullptr;
  }
  return s->decl;
}

std::vector<std::string> Checker::declRoleList(const Decl& d, std::string_view key) {
  std::vector<std::string> out;
  const Attribute* a = d.attribute(key);
  if (!a)
    return out;
  if (a->value->kind != ExprKind::List || a->value->children.empty()) {
    report(DiagId::SemAttributeType, a->value->id,
           "'" + std::string(key) + "' must be a non-empty list of roles such as [producer]");
    return out;
  }
  for (const ExprPtr& c : a->value->children) {
    if (c->kind == ExprKind::Name && c->text() == "all") {
      out.push_back("all");
      continue;
    }
    if (const Decl* r = declRef(*c, {DeclKind::Role}, "role")) {
      if (std::find(out.begin(), out.end(), r->name.name) != out.end())
        report(DiagId::SemDuplicateName, c->id, "role '" + std::string(c->text()) + "' is listed twice");
      else
        out.push_back(r->name.name);
    }
  }
  return out;
}

bool Checker::declType(const Decl& d, DType& dtype, std::vector<std::int64_t>& shape) {
  if (!d.type) {
    report(DiagId::SemMissingDeclaration, d.id,
           "'" + std::string(keyword(d.kind)) + " " + d.name.name +
               "' needs a type such as ': bf16[128, 64]'");
    return false;
  }
  auto dt = parseDType(d.type->dtype.name);
  if (!dt) {
    std::vector<std::string> names;
    for (const DTypeInfo& i : allDTypes())
      names.emplace_back(i.name);
    Diagnostic* diag = report(DiagId::SemUnknownType, d.type->dtype.id,
                              "'" + d.type->dtype.name + "' is not a Cake IR data type");
    if (auto guess = closestMatch(d.type->dtype.name, names))
      setFix(diag, "did you mean '" + *guess + "'?", R(d.type->dtype.id), *guess);
    return false;
  }
  dtype = *dt;
  if (m_model.target && !m_model.target->hasDType(dtype)) {
    report(DiagId::HwDtypeNotOnTarget, d.type->dtype.id,
           "data type " + d.type->dtype.name + " is not supported on " + m_model.targetName);
  }
  bool ok = true;
  I128 elems = 1;
  for (const ExprPtr& dim : d.type->shape) {
    auto v = constInt(*dim, "a shape dimension");
    if (!v) {
      ok = false;
      continue;
    }
    if (*v <= 0) {
      report(DiagId::SemInvalidShape, dim->id,
             "shape dimensions must be positive, found " + std::to_string(*v));
      ok = false;
      continue;
    }
    elems *= *v;
    if (elems > (I128(1) << 48)) {
      report(DiagId::SemInvalidShape, dim->id, "tensor has more than 2^48 elements");
      return false;
    }
    shape.push_back(*v);
  }
  return ok;
}

void Checker::checkDecl(const Decl& d) {
  checkDeclAttributes(d);
  if (d.type && !declNeedsType(d.kind))
    report(DiagId::SemAttributeType, d.type->id,
           "'" + std::string(keyword(d.kind)) + "' declarations take no type");
  bool registered = !declHasName(d.kind) ||
                    (m_symbols.count(d.name.name) && m_symbols.at(d.name.name).decl == &d);
  switch (d.kind) {
  case DeclKind::Const:
    return;
  case DeclKind::Grid: {
    if (m_model.grid)
      return;
    GridInfo g;
    g.decl = &d;
    if (auto tiles = declIntList(d, "tiles")) {
      if (tiles->size() > 3)
        report(DiagId::SemAttributeType, d.attribute("tiles")->value->id,
               "a grid has at most 3 tile dimensions");
      g.tiles = *tiles;
    }
    g.persistent = declEnum(d, "schedule").value_or("static") == "persistent";
    // Tile order (docs/ir.md, "Tile schedulers"): CUTLASS accepts swizzle sizes 1, 2, 4, 8
    // (log2 stored); 16 is allowed for Triton-style wide groups.
    g.rasterN = declEnum(d, "raster").value_or("m") == "n";
    if (auto sw = declInt(d, "swizzle", 1, 16)) {
      if ((*sw & (*sw - 1)) != 0)
        report(DiagId::SemAttributeType, d.attribute("swizzle")->value->id,
               "'swizzle' is " + std::to_string(*sw) + "; it must be a power of two (1, 2, 4, 8, 16)");
      else
        g.swizzle = *sw;
    }
    for (const char* key : {"raster", "swizzle"})
      if (const Attribute* a = d.attribute(key); a && g.tiles.size() < 2)
        report(DiagId::SemAttributeType, a->value->id,
               std::string("'") + key + "' orders the tiles of a 2-D grid; this grid has " +
                   std::to_string(g.tiles.size()) + " tile dimension(s)");
    g.pdl = declEnum(d, "pdl").value_or("off") == "on";
    if (g.pdl && m_model.target && !m_model.target->hasFeature("griddepcontrol"))
      report(DiagId::HwSpaceNotOnTarget, d.attribute("pdl")->value->id,
             "programmatic dependent launch (griddepcontrol) does not exist on " +
                 m_model.targetName);
    if (auto c = declIntList(d, "cluster")) {
      g.cluster = *c;
      std::int64_t ctas = 1;
      for (std::int64_t v : *c)
        ctas *= v;
      if (ctas > 1 && m_model.target && !m_model.target->hasFeature("clusters"))
        report(DiagId::HwSpaceNotOnTarget, d.attribute("cluster")->value->id,
               "thread-block clusters do not exist on " + m_model.targetName);
      else if (m_model.target && ctas > m_model.target->limit("cluster_max_ctas_nonportable") &&
               m_model.target->hasFeature("clusters"))
        report(DiagId::HwResourceLimit, d.attribute("cluster")->value->id,
               "cluster of " + std::to_string(ctas) + " CTAs exceeds the limit of " +
                   std::to_string(m_model.target->limit("cluster_max_ctas_nonportable")) + " on " +
                   m_model.targetName);
    }
    m_model.grid = std::move(g);
    return;
  }
  case DeclKind::Role: {
    RoleInfo r;
    r.name = d.name.name;
    r.decl = &d;
    if (auto w = declRange(d, "warps")) {
      r.warpBegin = w->first;
      r.warpEnd = w->second;
    }
    if (auto regs = declInt(d, "regs", 24, 256)) {
      r.registers = *regs;
      if (m_model.target && !m_model.target->hasFeature("setmaxnreg"))
        report(DiagId::HwSpaceNotOnTarget, d.attribute("regs")->value->id,
               "per-role register budgets need setmaxnreg, which " + m_model.targetName + " lacks");
    }
    if (registered && r.warpEnd > 0)
      m_model.roles.push_back(std::move(r));
    return;
  }
  case DeclKind::Pipeline: {
    PipelineInfo p;
    p.name = d.name.name;
    p.decl = &d;
    p.stages = declInt(d, "stages", 1, 64).value_or(1);
    if (registered)
      m_model.pipelines.push_back(std::move(p));
    return;
  }
  case DeclKind::Pool: {
    PoolInfo p;
    p.name = d.name.name;
    p.decl = &d;
    p.offset = declInt(d, "offset", 0, std::int64_t(1) << 32).value_or(0);
    p.bytes = declInt(d, "bytes", 1, std::int64_t(1) << 32).value_or(0);
    if (registered)
      m_model.pools.push_back(std::move(p));
    return;
  }
  case DeclKind::TensorMap: {
    TensorMapInfo t;
    t.name = d.name.name;
    t.decl = &d;
    std::vector<std::int64_t> box;
    bool typed = declType(d, t.dtype, box);
    t.box = box;
    t.swizzle = declEnum(d, "swizzle").value_or("none");
    if (m_model.target && !m_model.target->hasFeature("tma"))
      report(DiagId::HwSpaceNotOnTarget, d.id,
             "TMA tensor maps do not exist on " + m_model.targetName);
    if (const Attribute* src = d.attribute("source")) {
      if (const Decl* p = declRef(*src->value, {DeclKind::Param}, "param")) {
        t.source = p->name.name;
        if (const ScalarInfo* sc = m_model.scalar(t.source)) {
          Diagnostic* diag = report(DiagId::SemScalarParam, src->value->id,
                                    "a tensor map's source is a tensor in global memory; '" +
                                        sc->name + "' is a run-time scalar parameter");
          noteDecl(diag, p, "declared here");
          typed = false;
        }
        const BufferInfo* param = m_model.buffer(t.source);
        if (param && typed) {
          if (param->dtype != t.dtype) {
            Diagnostic* diag =
                report(DiagId::DcDtypeMismatch, d.type->dtype.id,
                       "tensor map box is " + std::string(toString(t.dtype)) + " but its source '" +
                           t.source + "' is " + std::string(toString(param->dtype)));
            noteDecl(diag, p, "source declared here");
          }
          if (param->shape.size() != t.box.size()) {
            Diagnostic* diag =
                report(DiagId::DcShapeMismatch, d.type->id,
                       "tensor map box has rank " + std::to_string(t.box.size()) + " but '" +
                           t.source + "' has rank " + std::to_string(param->shape.size()));
            noteDecl(diag, p, "source declared here");
          }
        }
      }
    }
    if (registered && typed)
      m_model.tensorMaps.push_back(std::move(t));
    return;
  }
  case DeclKind::Param:
    if (const Attribute* role = d.attribute("role");
        role && role->value->kind == ExprKind::Name && role->value->text() == "scalar") {
      checkScalar(d, registered);
      return;
    }
    if (const Attribute* range = d.attribute("range"))
      report(DiagId::SemScalarParam, range->key.id,
             "range= is the launch contract of a run-time scalar parameter (role=scalar); '" +
                 d.name.name + "' is a tensor");
    checkBuffer(d, registered);
    return;
  case DeclKind::Smem:
  case DeclKind::Tmem:
  case DeclKind::Reg:
    checkBuffer(d, registered);
    return;
  case DeclKind::MBarrier:
  case DeclKind::NBarrier:
    checkBarrier(d, registered);
    return;
  }
}

void Checker::checkBuffer(const Decl& d, bool registered) {
  BufferInfo b;
  b.name = d.name.name;
  b.kind = d.kind;
  b.decl = &d;
  bool typed = declType(d, b.dtype, b.shape);
  switch (d.kind) {
  case DeclKind::Param:
    b.space = Space::Global;
    b.paramRole = declEnum(d, "role").value_or("input");
    b.align = declInt(d, "align", 1, 4096).value_or(0);
    if (b.align & (b.align - 1))
      report(DiagId::SemAttributeType, d.attribute("align")->value->id,
             "align= is a power of two (bytes), found " + std::to_string(b.align));
    if (typed && b.shape.empty())
      report(DiagId::SemInvalidShape, d.type->id, "parameters are tensors; give a shape");
    break;
  case DeclKind::Smem: {
    b.space = Space::Smem;
    b.stages = declInt(d, "stages", 1, 64).value_or(1);
    b.swizzle = declEnum(d, "swizzle").value_or("none");
    std::int64_t offset = declInt(d, "offset", 0, std::int64_t(1) << 32).value_or(0);
    b.offset = offset;
    if (const Attribute* p = d.attribute("pool")) {
      if (const Decl* pool = declRef(*p->value, {DeclKind::Pool}, "pool")) {
        b.pool = pool->name.name;
        for (const PoolInfo& info : m_model.pools)
          if (info.name == b.pool) {
            b.offset = info.offset + offset;
            if (typed && offset + b.totalBytes() > info.bytes) {
              Diagnostic* diag =
                  report(DiagId::HwResourceLimit, d.id,
                         "'" + b.name + "' ends at byte " +
                             std::to_string(offset + b.totalBytes()) + " of pool '" + b.pool +
                             "', which has " + std::to_string(info.bytes) + " bytes");
              noteDecl(diag, pool, "pool declared here");
            }
          }
      }
    }
    if (const Attribute* p = d.attribute("pipeline")) {
      if (const Decl* pipe = declRef(*p->value, {DeclKind::Pipeline}, "pipeline")) {
        b.pipeline = pipe->name.name;
        const PipelineInfo* info = m_model.pipeline(b.pipeline);
        if (info && d.attribute("stages") && info->stages != b.stages) {
          Diagnostic* diag =
              report(DiagId::DcShapeMismatch, d.attribute("stages")->value->id,
                     "'" + b.name + "' has " + std::to_string(b.stages) + " stages but pipeline '" +
                         b.pipeline + "' has " + std::to_string(info->stages));
          noteDecl(diag, pipe, "pipeline declared here");
        } else if (info) {
          b.stages = info->stages;
        }
      }
    }
    break;
  }
  case DeclKind::Tmem: {
    b.space = Space::Tmem;
    if (m_model.target && !m_model.target->hasSpace(Space::Tmem))
      report(DiagId::HwSpaceNotOnTarget, d.id,
             "tensor memory does not exist on " + m_model.targetName);
    if (auto cols = declRange(d, "cols")) {
      b.colBegin = cols->first;
      b.colEnd = cols->second;
      if (typed && b.shape.size() == 2) {
        std::int64_t need = (b.shape[1] * info(b.dtype).bits + 31) / 32;
        if (need != b.colEnd - b.colBegin)
          report(DiagId::DcShapeMismatch, d.attribute("cols")->value->id,
                 "'" + b.name + "' holds " + std::to_string(b.shape[1]) + " " +
                     std::string(toString(b.dtype)) + " columns = " + std::to_string(need) +
                     " 32-bit TMEM columns, but cols spans " +
                     std::to_string(b.colEnd - b.colBegin));
      }
    }
    if (typed && b.shape.size() != 2)
      report(DiagId::SemInvalidShape, d.type->id, "tensor memory tiles are [lanes, columns]");
    break;
  }
  case DeclKind::Reg:
    b.space = Space::Reg;
    b.scope = declEnum(d, "scope").value_or("thread");
    break;
  default:
    break;
  }
  if (registered && typed)
    m_model.buffers.push_back(std::move(b));
}

void Checker::checkBarrier(const Decl& d, bool registered) {
  BarrierInfo b;
  b.name = d.name.name;
  b.decl = &d;
  b.named = d.kind == DeclKind::NBarrier;
  if (b.named) {
    b.roles = declRoleList(d, "roles");
  } else {
    if (m_model.target && !m_model.target->hasFeature("mbarrier"))
      report(DiagId::HwSpaceNotOnTarget, d.id, "mbarriers do not exist on " + m_model.targetName);
    b.count = declInt(d, "count", 1, (std::int64_t(1) << 20) - 1).value_or(1);
    b.producers = declRoleList(d, "producers");
    b.consumers = declRoleList(d, "consumers");
    const Attribute* pipe = d.attribute("pipeline");
    const Attribute* size = d.attribute("size");
    if (pipe && size) {
      Diagnostic* diag = report(DiagId::SemAttributeType, size->key.id,
                                "give either pipeline= (one barrier per stage) or size=, not "
                                "both");
      addNote(diag, R(pipe->id), "pipeline given here");
    }
    if (pipe) {
      if (const Decl* p = declRef(*pipe->value, {DeclKind::Pipeline}, "pipeline")) {
        b.pipeline = p->name.name;
        if (const PipelineInfo* info = m_model.pipeline(b.pipeline))
          b.size = info->stages;
      }
    } else if (size) {
      b.size = declInt(d, "size", 1, 64).value_or(1);
    }
  }
  if (registered)
    m_model.barriers.push_back(std::move(b));
}

void Checker::checkKernelShape(const Kernel& k) {
  // A declaration may be missing only because its line did not parse.
  if (m_module.syntaxErrors)
    return;
  if (!m_model.grid) {
    Diagnostic* d = report(DiagId::SemMissingDeclaration, k.name.id,
                           "kernel '" + k.name.name + "' declares no grid");
    setFix(d, "add 'grid tiles=[N]' (and schedule=persistent for a persistent kernel)");
  }
  bool anyRoleDecl = std::any_of(k.decls.begin(), k.decls.end(),
                                 [](const Decl& d) { return d.kind == DeclKind::Role; });
  if (!anyRoleDecl) {
    Diagnostic* d = report(DiagId::SemMissingDeclaration, k.name.id,
                           "kernel '" + k.name.name + "' declares no warp role");
    setFix(d, "add 'role main warps=0..4' (warps are numbered from 0)");
    return;
  }
  // Roles must tile warps [0, W) exactly.
  std::vector<const RoleInfo*> sorted;
  for (const RoleInfo& r : m_model.roles)
    sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(),
            [](const RoleInfo* a, const RoleInfo* b) { return a->warpBegin < b->warpBegin; });
  std::int64_t next = 0;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const RoleInfo* r = sorted[i];
    if (r->warpBegin < next && i > 0) {
      Diagnostic* d =
          report(DiagId::SemRoleLayout, r->decl->attribute("warps")->value->id,
                 "role '" + r->name + "' (warps " + std::to_string(r->warpBegin) + ".." +
                     std::to_string(r->warpEnd) + ") overlaps role '" + sorted[i - 1]->name + "'");
      noteDecl(d, sorted[i - 1]->decl, "role '" + sorted[i - 1]->name + "' declared here");
    } else if (r->warpBegin > next) {
      report(DiagId::SemRoleLayout, r->decl->attribute("warps")->value->id,
             "warps " + std::to_string(next) + ".." + std::to_string(r->warpBegin) +
                 " belong to no role; roles must cover warps 0..N without gaps");
    }
    next = std::max(next, r->warpEnd);
  }
  if (m_model.target) {
    std::int64_t threads = next * 32;
    std::int64_t limit = m_model.target->limit("threads_per_cta");
    if (threads > limit)
      report(DiagId::HwResourceLimit, k.name.id,
             "roles use " + std::to_string(next) + " warps = " + std::to_string(threads) +
                 " threads; " + m_model.targetName + " allows " + std::to_string(limit) +
                 " per CTA");
  }
}

} // namespace cake::sema::detail
