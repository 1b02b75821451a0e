// Type checker: resolves names, evaluates constants, checks declarations and binds every
// operation to its primitive definition (operands, subscripts, attributes, constraints, target).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Sema/Sema.h"

#include "cake/IR/Printer.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace cake::sema {

using namespace ir;

namespace {

constexpr std::string_view kBuiltins[] = {"tid", "lane", "warp", "wg"};
constexpr std::string_view kReserved[] = {
    "tid",  "lane",  "warp",  "wg",     "tiles", "all",    "kernel", "on",       "for",
    "in",   "const", "param", "tensormap", "grid", "role", "pipeline", "pool", "smem",
    "tmem", "reg",   "mbarrier", "nbarrier", "true", "false"};
constexpr std::string_view kSwizzles[] = {"none", "32B", "64B", "128B"};

__extension__ typedef __int128 I128;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string typeText(const reg::OperandFacts& f) {
  return std::string(toString(f.space)) + " " + std::string(toString(f.dtype)) +
         shapeText(f.shape);
}

/// Result of checking an integer expression: ok=false when a finding was reported; `range`
/// empty when the value is not statically bounded.
struct IntResult {
  bool ok = true;
  std::optional<Interval> range;
};

/// What an identifier of a kernel names.
struct Symbol {
  DeclKind kind;
  const Decl* decl;
};

/// Schema of built-in declaration attributes.
enum class DAttr : std::uint8_t { Int, IntList, Range, Enum, Name, NameList };
struct DeclAttrSpec {
  std::string_view name;
  DAttr type;
  bool required;
  std::vector<std::string_view> values;
};

const std::vector<DeclAttrSpec>& declSchema(DeclKind kind) {
  static const std::map<DeclKind, std::vector<DeclAttrSpec>> schema = {
      {DeclKind::Const, {}},
      {DeclKind::Param,
       {{"role", DAttr::Enum, true, {"input", "output", "state"}}, {"align", DAttr::Int, false, {}}}},
      {DeclKind::TensorMap,
       {{"source", DAttr::Name, true, {}},
        {"swizzle", DAttr::Enum, false, {kSwizzles[0], kSwizzles[1], kSwizzles[2], kSwizzles[3]}}}},
      {DeclKind::Grid,
       {{"tiles", DAttr::IntList, true, {}},
        {"schedule", DAttr::Enum, false, {"static", "persistent"}},
        {"cluster", DAttr::IntList, false, {}}}},
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

class Checker {
public:
  Checker(const Module& module, const reg::Registry& registry, const target::TargetSet& targets,
          DiagnosticEngine& diags)
      : m_module(module), m_registry(registry), m_targets(targets), m_diags(diags),
        m_map(module.sourceMap) {}

  KernelModel run() {
    if (!m_module.kernel)
      return std::move(m_model);
    const Kernel& k = *m_module.kernel;
    m_model.name = k.name.name;
    checkKernelHeader(k);
    collectNames(k);
    // Constants first, in source order (a constant sees only earlier constants).
    for (const Decl& d : k.decls)
      if (d.kind == DeclKind::Const)
        checkConst(d);
    for (DeclKind kind : {DeclKind::Grid, DeclKind::Role, DeclKind::Pipeline, DeclKind::Pool,
                          DeclKind::Param, DeclKind::TensorMap, DeclKind::Smem, DeclKind::Tmem,
                          DeclKind::Reg, DeclKind::MBarrier, DeclKind::NBarrier})
      for (const Decl& d : k.decls)
        if (d.kind == kind)
          checkDecl(d);
    checkKernelShape(k);
    for (const StmtPtr& s : k.body)
      checkTopLevel(*s);
    return std::move(m_model);
  }

private:
  // ------------------------------------------------------------------ helpers
  SourceRange R(NodeId id) const { return m_map.range(id); }
  Diagnostic* report(DiagId id, NodeId at, std::string message) {
    return m_diags.report(id, R(at), std::move(message));
  }
  Diagnostic* report(DiagId id, SourceRange at, std::string message) {
    return m_diags.report(id, at, std::move(message));
  }

  void noteDecl(Diagnostic* d, const Decl* decl, const std::string& what) {
    if (decl)
      addNote(d, R(decl->name.id ? decl->name.id : decl->id), what);
  }

  const Symbol* lookup(std::string_view name) const {
    auto it = m_symbols.find(std::string(name));
    return it == m_symbols.end() ? nullptr : &it->second;
  }

  std::vector<std::string> allNames() const {
    std::vector<std::string> out;
    for (const auto& [n, s] : m_symbols)
      out.push_back(n);
    return out;
  }

  void undefined(NodeId at, const std::string& name, std::string_view what,
                 const std::vector<std::string>& candidates) {
    const auto& poisoned = m_module.poisonedNames;
    if (std::find(poisoned.begin(), poisoned.end(), name) != poisoned.end())
      return; // its declaration has a syntax error already reported
    Diagnostic* d = report(DiagId::SemUndefinedName, at,
                           std::string(what) + " '" + name + "' is not declared");
    if (auto guess = closestMatch(name, candidates))
      setFix(d, "did you mean '" + *guess + "'?", R(at), *guess);
  }

  // ------------------------------------------------------------------ kernel header
  void checkKernelHeader(const Kernel& k) {
    for (const Attribute& a : k.attributes) {
      if (a.key.name != "target") {
        Diagnostic* d = report(DiagId::SemUnknownAttribute, a.key.id,
                               "kernel has no attribute '" + a.key.name + "' (only target=)");
        std::vector<std::string> known{"target"};
        if (auto guess = closestMatch(a.key.name, known))
          setFix(d, "did you mean 'target'?", R(a.key.id), "target");
      }
    }
    const Attribute* t = k.attribute("target");
    if (!t && !m_module.syntaxErrors) {
      Diagnostic* d = report(DiagId::SemMissingAttribute, k.name.id,
                             "kernel '" + k.name.name + "' does not name its exact target");
      setFix(d, "add target=sm_90a (or another known target) to the kernel line");
      return;
    }
    if (!t)
      return;
    if (t->value->kind != ExprKind::Name && t->value->kind != ExprKind::String) {
      report(DiagId::SemAttributeType, t->value->id, "target must be a target name like sm_90a");
      return;
    }
    m_model.targetName = t->value->text;
    m_model.target = m_targets.find(m_model.targetName);
    if (!m_model.target) {
      auto names = m_targets.names();
      Diagnostic* d = report(DiagId::HwUnknownTarget, t->value->id,
                             "target '" + m_model.targetName +
                                 "' is not a target this compiler knows exactly (known: " +
                                 join(names, ", ") + "); there is no fallback");
      if (auto guess = closestMatch(m_model.targetName, names))
        setFix(d, "did you mean '" + *guess + "'?", R(t->value->id), *guess);
    }
  }

  // ------------------------------------------------------------------ names
  void collectNames(const Kernel& k) {
    for (const Decl& d : k.decls) {
      if (!declHasName(d.kind))
        continue;
      const std::string& n = d.name.name;
      if (isReservedName(n) || parseDType(n)) {
        report(DiagId::SemReservedName, d.name.id,
               "'" + n + "' is reserved and cannot name a declaration");
        continue;
      }
      if (const Symbol* prev = lookup(n)) {
        Diagnostic* diag = report(DiagId::SemDuplicateName, d.name.id,
                                  "'" + n + "' is already declared");
        noteDecl(diag, prev->decl, "previous declaration of '" + n + "'");
        continue;
      }
      m_symbols.emplace(n, Symbol{d.kind, &d});
    }
    std::size_t grids = 0;
    for (const Decl& d : k.decls) {
      if (d.kind != DeclKind::Grid)
        continue;
      if (++grids > 1) {
        Diagnostic* diag = report(DiagId::SemDuplicateName, d.id, "kernel declares 'grid' twice");
        for (const Decl& first : k.decls)
          if (first.kind == DeclKind::Grid) {
            addNote(diag, R(first.id), "first grid declaration");
            break;
          }
      }
    }
  }

  // ------------------------------------------------------------------ constants
  struct StmtCtx {
    std::vector<const RoleInfo*> roles;
    std::vector<std::size_t> loops; ///< indices into m_model.loops
  };

  /// Evaluates a constant integer expression (constants and literals only).
  /// `ctx` lets loop variables and builtins be recognised (and refused as not constant).
  std::optional<std::int64_t> constInt(const Expr& e, std::string_view what,
                                       const StmtCtx* ctx = nullptr) {
    IntResult r = intExpr(e, ctx, true);
    if (!r.ok)
      return std::nullopt;
    if (!r.range || !r.range->exact()) {
      report(DiagId::SemNotConstant, e.id, std::string(what) + " must be a constant integer");
      return std::nullopt;
    }
    return r.range->lo;
  }

  void checkConst(const Decl& d) {
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

  // ------------------------------------------------------------------ integer expressions

  const LoopInfo* loopFor(const StmtCtx* ctx, std::string_view var) const {
    if (!ctx)
      return nullptr;
    for (auto it = ctx->loops.rbegin(); it != ctx->loops.rend(); ++it)
      if (m_model.loops[*it].var == var)
        return &m_model.loops[*it];
    return nullptr;
  }

  bool pipelineBound(const StmtCtx* ctx, std::string_view pipeline) const {
    if (!ctx)
      return false;
    for (std::size_t l : ctx->loops)
      if (m_model.loops[l].pipeline == pipeline)
        return true;
    return false;
  }

  std::int64_t maxRoleWarps(const StmtCtx* ctx) const {
    std::int64_t w = 1;
    if (ctx)
      for (const RoleInfo* r : ctx->roles)
        w = std::max(w, r->warps());
    return w;
  }

  static IntResult exact(std::int64_t v) { return {true, Interval{v, v}}; }
  static IntResult unbounded() { return {true, std::nullopt}; }

  /// Checks an integer expression. With `constOnly`, anything but constants is an error.
  IntResult intExpr(const Expr& e, const StmtCtx* ctx, bool constOnly) {
    switch (e.kind) {
    case ExprKind::Int:
      return exact(e.intValue);
    case ExprKind::Name:
      return nameValue(e, ctx, constOnly);
    case ExprKind::Member:
      return memberValue(e, ctx, constOnly);
    case ExprKind::Unary: {
      IntResult a = intExpr(*e.children[0], ctx, constOnly);
      if (!a.ok || !a.range)
        return a;
      auto r = applyUnary(e.unaryOp, *a.range);
      if (!r && a.range->exact()) {
        report(DiagId::SemArithmetic, e.id, "'" + print(e) + "' overflows 64-bit integers");
        return {false, std::nullopt};
      }
      return {true, r};
    }
    case ExprKind::Binary:
      return binaryValue(e, ctx, constOnly);
    default:
      report(DiagId::SemInvalidExpression, e.id,
             "expected an integer expression, found '" + print(e) + "'");
      return {false, std::nullopt};
    }
  }

  IntResult nameValue(const Expr& e, const StmtCtx* ctx, bool constOnly) {
    const std::string& n = e.text;
    if (auto it = m_consts.find(n); it != m_consts.end())
      return exact(it->second);
    if (const LoopInfo* loop = loopFor(ctx, n)) {
      if (loop->overTiles) {
        report(DiagId::SemInvalidExpression, e.id,
               "'" + n + "' iterates over tiles; use " + n + ".x, " + n + ".y or " + n + ".z");
        return {false, std::nullopt};
      }
      if (constOnly)
        return notConstant(e);
      return {true, Interval{loop->begin, loop->end - 1}};
    }
    if (std::find(std::begin(kBuiltins), std::end(kBuiltins), n) != std::end(kBuiltins)) {
      if (constOnly)
        return notConstant(e);
      if (!ctx || ctx->roles.empty()) {
        report(DiagId::SemInvalidExpression, e.id,
               "'" + n + "' is only defined inside an 'on ROLE' block");
        return {false, std::nullopt};
      }
      std::int64_t warps = maxRoleWarps(ctx);
      if (n == "tid")
        return {true, Interval{0, warps * 32 - 1}};
      if (n == "lane")
        return {true, Interval{0, 31}};
      if (n == "warp")
        return {true, Interval{0, warps - 1}};
      return {true, Interval{0, (warps + 3) / 4 - 1}};
    }
    if (const Symbol* s = lookup(n)) {
      if (s->kind == DeclKind::Const) {
        if (m_failedConsts.count(n))
          return {false, std::nullopt}; // its own finding was reported
        // Declared later (or this very constant): constants see only earlier constants.
        Diagnostic* d = report(DiagId::SemInvalidExpression, e.id,
                               "constant '" + n + "' is used before its declaration is complete; "
                               "a constant may only use constants declared above it");
        noteDecl(d, s->decl, "'" + n + "' declared here");
        return {false, std::nullopt};
      }
      Diagnostic* d = report(DiagId::SemInvalidExpression, e.id,
                             "'" + n + "' is a " + std::string(keyword(s->kind)) +
                                 " declaration, not an integer");
      noteDecl(d, s->decl, "declared here");
      return {false, std::nullopt};
    }
    std::vector<std::string> candidates;
    for (const auto& [name, v] : m_consts)
      candidates.push_back(name);
    if (ctx)
      for (std::size_t l : ctx->loops)
        candidates.push_back(m_model.loops[l].var);
    for (std::string_view b : kBuiltins)
      candidates.emplace_back(b);
    undefined(e.id, n, "name", candidates);
    return {false, std::nullopt};
  }

  IntResult notConstant(const Expr& e) {
    report(DiagId::SemNotConstant, e.id,
           "'" + print(e) + "' changes at run time; a constant is needed here");
    return {false, std::nullopt};
  }

  IntResult memberValue(const Expr& e, const StmtCtx* ctx, bool constOnly) {
    const Expr& base = *e.children[0];
    if (base.kind != ExprKind::Name) {
      report(DiagId::SemInvalidExpression, e.id, "'" + print(e) + "' is not an integer");
      return {false, std::nullopt};
    }
    const std::string& b = base.text;
    if (const LoopInfo* loop = loopFor(ctx, b); loop && loop->overTiles) {
      if (constOnly)
        return notConstant(e);
      static constexpr std::string_view dims[] = {"x", "y", "z"};
      const auto& tiles = m_model.grid ? m_model.grid->tiles : std::vector<std::int64_t>{};
      for (std::size_t i = 0; i < tiles.size() && i < 3; ++i)
        if (e.text == dims[i])
          return {true, Interval{0, tiles[i] - 1}};
      report(DiagId::SemInvalidExpression, e.id,
             "tile '" + b + "' has no member '" + e.text + "' (the grid has " +
                 std::to_string(tiles.size()) + " tile dimension(s): x, y, z in order)");
      return {false, std::nullopt};
    }
    if (const Symbol* s = lookup(b); s && s->kind == DeclKind::Pipeline) {
      if (e.text != "slot" && e.text != "phase") {
        report(DiagId::SemInvalidExpression, e.id,
               "pipeline '" + b + "' has members 'slot' and 'phase', not '" + e.text + "'");
        return {false, std::nullopt};
      }
      if (constOnly)
        return notConstant(e);
      if (!pipelineBound(ctx, b)) {
        Diagnostic* d = report(DiagId::SemPipelineIndexOutsideLoop, e.id,
                               "'" + print(e) + "' is only defined inside a loop with pipeline=" +
                                   b);
        setFix(d, "add pipeline=" + b + " to the enclosing 'for' loop");
        return {false, std::nullopt};
      }
      const PipelineInfo* p = m_model.pipeline(b);
      std::int64_t stages = p ? p->stages : 1;
      if (e.text == "slot")
        return {true, Interval{0, stages - 1}};
      return {true, Interval{0, 1}};
    }
    if (!lookup(b) && !loopFor(ctx, b)) {
      undefined(base.id, b, "name", allNames());
      return {false, std::nullopt};
    }
    report(DiagId::SemInvalidExpression, e.id, "'" + print(e) + "' is not an integer");
    return {false, std::nullopt};
  }

  IntResult binaryValue(const Expr& e, const StmtCtx* ctx, bool constOnly) {
    IntResult a = intExpr(*e.children[0], ctx, constOnly);
    IntResult b = intExpr(*e.children[1], ctx, constOnly);
    if (!a.ok || !b.ok)
      return {false, std::nullopt};
    if (!a.range || !b.range)
      return unbounded();
    IntervalResult r = applyBinary(e.binaryOp, *a.range, *b.range);
    switch (r.error) {
    case IntervalError::None:
      return {true, r.value};
    case IntervalError::Unbounded:
      return unbounded();
    case IntervalError::DivideByZero:
      report(DiagId::SemArithmetic, e.children[1]->id, "'" + print(e) + "' divides by zero");
      return {false, std::nullopt};
    case IntervalError::Overflow:
      report(DiagId::SemArithmetic, e.id, "'" + print(e) + "' overflows 64-bit integers");
      return {false, std::nullopt};
    }
    return unbounded();
  }

  // ------------------------------------------------------------------ declarations
  const DeclAttrSpec* findSpec(const Decl& d, std::string_view name) {
    for (const DeclAttrSpec& s : declSchema(d.kind))
      if (s.name == name)
        return &s;
    return nullptr;
  }

  /// Checks that attribute keys exist in the schema and required ones are present.
  void checkDeclAttributes(const Decl& d) {
    const auto& schema = declSchema(d.kind);
    for (const Attribute& a : d.attributes) {
      if (findSpec(d, a.key.name))
        continue;
      std::vector<std::string> names;
      for (const DeclAttrSpec& s : schema)
        names.emplace_back(s.name);
      Diagnostic* diag = report(DiagId::SemUnknownAttribute, a.key.id,
                                "'" + std::string(keyword(d.kind)) + "' declarations have no "
                                "attribute '" + a.key.name + "'" +
                                    (names.empty() ? std::string()
                                                   : " (known: " + join(names, ", ") + ")"));
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

  std::optional<std::int64_t> declInt(const Decl& d, std::string_view key, std::int64_t min,
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

  std::optional<std::vector<std::int64_t>> declIntList(const Decl& d, std::string_view key) {
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

  std::optional<std::pair<std::int64_t, std::int64_t>> declRange(const Decl& d,
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
             "range " + std::to_string(*lo) + ".." + std::to_string(*hi) +
                 " is empty or negative");
      return std::nullopt;
    }
    return std::make_pair(*lo, *hi);
  }

  std::optional<std::string> declEnum(const Decl& d, std::string_view key) {
    const Attribute* a = d.attribute(key);
    const DeclAttrSpec* spec = findSpec(d, key);
    if (!a || !spec)
      return std::nullopt;
    if (a->value->kind == ExprKind::Name || a->value->kind == ExprKind::Tag) {
      if (std::find(spec->values.begin(), spec->values.end(), a->value->text) !=
          spec->values.end())
        return a->value->text;
    }
    std::vector<std::string> values(spec->values.begin(), spec->values.end());
    Diagnostic* diag = report(DiagId::SemAttributeType, a->value->id,
                              "'" + std::string(key) + "' is '" + print(*a->value) +
                                  "'; expected one of: " + join(values, ", "));
    if (auto guess = closestMatch(print(*a->value), values))
      setFix(diag, "did you mean '" + *guess + "'?", R(a->value->id), *guess);
    return std::nullopt;
  }

  /// A reference by name to another declaration of the expected kind(s).
  const Decl* declRef(const Expr& e, std::initializer_list<DeclKind> kinds, std::string_view what) {
    if (e.kind != ExprKind::Name) {
      report(DiagId::SemAttributeType, e.id, "expected the name of a " + std::string(what));
      return nullptr;
    }
    const Symbol* s = lookup(e.text);
    if (!s) {
      std::vector<std::string> candidates;
      for (const auto& [n, sym] : m_symbols)
        if (std::find(kinds.begin(), kinds.end(), sym.kind) != kinds.end())
          candidates.push_back(n);
      undefined(e.id, e.text, what, candidates);
      return nullptr;
    }
    if (std::find(kinds.begin(), kinds.end(), s->kind) == kinds.end()) {
      Diagnostic* d = report(DiagId::SemUnknownDeclaration, e.id,
                             "'" + e.text + "' is a " + std::string(keyword(s->kind)) +
                                 " declaration, not a " + std::string(what));
      noteDecl(d, s->decl, "declared here");
      return nullptr;
    }
    return s->decl;
  }

  std::vector<std::string> declRoleList(const Decl& d, std::string_view key) {
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
      if (c->kind == ExprKind::Name && c->text == "all") {
        out.push_back("all");
        continue;
      }
      if (const Decl* r = declRef(*c, {DeclKind::Role}, "role")) {
        if (std::find(out.begin(), out.end(), r->name.name) != out.end())
          report(DiagId::SemDuplicateName, c->id, "role '" + c->text + "' is listed twice");
        else
          out.push_back(r->name.name);
      }
    }
    return out;
  }

  /// Element type and constant shape of a declaration's type.
  bool declType(const Decl& d, DType& dtype, std::vector<std::int64_t>& shape) {
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

  void checkDecl(const Decl& d) {
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
      if (auto c = declIntList(d, "cluster")) {
        g.cluster = *c;
        std::int64_t ctas = 1;
        for (std::int64_t v : *c)
          ctas *= v;
        if (ctas > 1 && m_model.target && !m_model.target->hasFeature("clusters"))
          report(DiagId::HwSpaceNotOnTarget, d.attribute("cluster")->value->id,
                 "thread-block clusters do not exist on " + m_model.targetName);
        else if (m_model.target &&
                 ctas > m_model.target->limit("cluster_max_ctas_nonportable") &&
                 m_model.target->hasFeature("clusters"))
          report(DiagId::HwResourceLimit, d.attribute("cluster")->value->id,
                 "cluster of " + std::to_string(ctas) + " CTAs exceeds the limit of " +
                     std::to_string(m_model.target->limit("cluster_max_ctas_nonportable")) +
                     " on " + m_model.targetName);
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
                 "per-role register budgets need setmaxnreg, which " + m_model.targetName +
                     " lacks");
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
          const BufferInfo* param = m_model.buffer(t.source);
          if (param && typed) {
            if (param->dtype != t.dtype) {
              Diagnostic* diag = report(DiagId::DcDtypeMismatch, d.type->dtype.id,
                                        "tensor map box is " + std::string(toString(t.dtype)) +
                                            " but its source '" + t.source + "' is " +
                                            std::string(toString(param->dtype)));
              noteDecl(diag, p, "source declared here");
            }
            if (param->shape.size() != t.box.size()) {
              Diagnostic* diag = report(DiagId::DcShapeMismatch, d.type->id,
                                        "tensor map box has rank " +
                                            std::to_string(t.box.size()) + " but '" + t.source +
                                            "' has rank " + std::to_string(param->shape.size()));
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

  void checkBuffer(const Decl& d, bool registered) {
    BufferInfo b;
    b.name = d.name.name;
    b.kind = d.kind;
    b.decl = &d;
    bool typed = declType(d, b.dtype, b.shape);
    switch (d.kind) {
    case DeclKind::Param:
      b.space = Space::Global;
      b.paramRole = declEnum(d, "role").value_or("input");
      declInt(d, "align", 1, 4096);
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
                Diagnostic* diag = report(DiagId::HwResourceLimit, d.id,
                                          "'" + b.name + "' ends at byte " +
                                              std::to_string(offset + b.totalBytes()) +
                                              " of pool '" + b.pool + "', which has " +
                                              std::to_string(info.bytes) + " bytes");
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
            Diagnostic* diag = report(DiagId::DcShapeMismatch, d.attribute("stages")->value->id,
                                      "'" + b.name + "' has " + std::to_string(b.stages) +
                                          " stages but pipeline '" + b.pipeline + "' has " +
                                          std::to_string(info->stages));
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

  void checkBarrier(const Decl& d, bool registered) {
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

  void checkKernelShape(const Kernel& k) {
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
        Diagnostic* d = report(DiagId::SemRoleLayout, r->decl->attribute("warps")->value->id,
                               "role '" + r->name + "' (warps " + std::to_string(r->warpBegin) +
                                   ".." + std::to_string(r->warpEnd) + ") overlaps role '" +
                                   sorted[i - 1]->name + "'");
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

  // ------------------------------------------------------------------ statements
  void checkTopLevel(const Stmt& s) {
    if (s.kind == StmtKind::On) {
      checkOn(s);
      return;
    }
    Diagnostic* d = report(DiagId::SemOpOutsideRole, s.kind == StmtKind::Op ? s.id : s.id,
                           s.kind == StmtKind::Op
                               ? "operation '" + s.opName.name + "' is not inside an 'on ROLE' block"
                               : "loops run inside an 'on ROLE' block, not at kernel level");
    setFix(d, "wrap it in 'on ROLE { ... }' to say which warps execute it");
  }

  void checkOn(const Stmt& s) {
    StmtCtx ctx;
    std::set<std::string> seen;
    for (const Ident& r : s.roles) {
      if (!seen.insert(r.name).second) {
        report(DiagId::SemDuplicateName, r.id, "role '" + r.name + "' is listed twice");
        continue;
      }
      if (r.name == "all") {
        for (const RoleInfo& info : m_model.roles)
          ctx.roles.push_back(&info);
        continue;
      }
      const RoleInfo* info = m_model.role(r.name);
      if (!info) {
        const Symbol* sym = lookup(r.name);
        if (sym && sym->kind != DeclKind::Role) {
          Diagnostic* d = report(DiagId::SemUnknownDeclaration, r.id,
                                 "'" + r.name + "' is a " + std::string(keyword(sym->kind)) +
                                     " declaration, not a role");
          noteDecl(d, sym->decl, "declared here");
        } else if (!sym) {
          std::vector<std::string> names;
          for (const RoleInfo& ri : m_model.roles)
            names.push_back(ri.name);
          names.emplace_back("all");
          undefined(r.id, r.name, "role", names);
        }
        continue;
      }
      ctx.roles.push_back(info);
    }
    for (const StmtPtr& child : s.body)
      checkStmt(*child, ctx);
  }

  void checkStmt(const Stmt& s, StmtCtx& ctx) {
    switch (s.kind) {
    case StmtKind::On: {
      Diagnostic* d = report(DiagId::SemNestedRoleBlock, s.id,
                             "'on' blocks appear only at kernel level");
      setFix(d, "close the enclosing 'on' block first; roles do not nest");
      return;
    }
    case StmtKind::For:
      checkFor(s, ctx);
      return;
    case StmtKind::Op:
      checkOp(s, ctx);
      return;
    }
  }

  void checkFor(const Stmt& s, StmtCtx& ctx) {
    LoopInfo loop;
    loop.stmt = &s;
    loop.var = s.loopVar.name;
    bool ok = true;
    if (isReservedName(loop.var) || parseDType(loop.var)) {
      report(DiagId::SemReservedName, s.loopVar.id, "'" + loop.var + "' is reserved");
      ok = false;
    } else if (const Symbol* sym = lookup(loop.var)) {
      Diagnostic* d = report(DiagId::SemShadowedName, s.loopVar.id,
                             "loop variable '" + loop.var + "' hides a declaration");
      noteDecl(d, sym->decl, "declared here");
      ok = false;
    } else if (loopFor(&ctx, loop.var)) {
      report(DiagId::SemShadowedName, s.loopVar.id,
             "loop variable '" + loop.var + "' hides an enclosing loop variable");
      ok = false;
    }
    const Expr& range = *s.loopRange;
    if (range.kind == ExprKind::Name && range.text == "tiles") {
      loop.overTiles = true;
      if (!m_model.grid) {
        report(DiagId::SemMissingDeclaration, range.id, "'tiles' needs a grid declaration");
        ok = false;
      } else {
        loop.begin = 0;
        loop.end = m_model.grid->tileCount();
      }
      for (std::size_t l : ctx.loops)
        if (m_model.loops[l].overTiles) {
          report(DiagId::SemLoopBounds, range.id, "loops over tiles do not nest");
          ok = false;
        }
    } else if (range.kind == ExprKind::Range) {
      auto lo = constInt(*range.children[0], "loop start", &ctx);
      auto hi = constInt(*range.children[1], "loop end", &ctx);
      if (!lo || !hi) {
        ok = false;
      } else if (*hi <= *lo) {
        report(DiagId::SemLoopBounds, range.id,
               "loop range " + std::to_string(*lo) + ".." + std::to_string(*hi) +
                   " runs no iteration");
        ok = false;
      } else {
        loop.begin = *lo;
        loop.end = *hi;
      }
    } else {
      report(DiagId::SemLoopBounds, range.id,
             "a loop runs over 'tiles' or a constant range 'lo..hi'");
      ok = false;
    }
    for (const Attribute& a : s.attributes) {
      if (a.key.name == "pipeline") {
        if (const Decl* p = declRef(*a.value, {DeclKind::Pipeline}, "pipeline")) {
          loop.pipeline = p->name.name;
          if (pipelineBound(&ctx, loop.pipeline)) {
            report(DiagId::SemAttributeType, a.value->id,
                   "pipeline '" + loop.pipeline + "' already advances in an enclosing loop");
          }
        }
      } else if (a.key.name == "unroll") {
        if (auto v = constInt(*a.value, "'unroll'", &ctx); v && *v < 1)
          report(DiagId::SemAttributeType, a.value->id, "'unroll' must be at least 1");
      } else {
        std::vector<std::string> names{"pipeline", "unroll"};
        Diagnostic* d = report(DiagId::SemUnknownAttribute, a.key.id,
                               "loops have no attribute '" + a.key.name +
                                   "' (known: pipeline, unroll)");
        if (auto guess = closestMatch(a.key.name, names))
          setFix(d, "did you mean '" + *guess + "'?", R(a.key.id), *guess);
      }
    }
    (void)ok;
    m_model.loops.push_back(loop);
    ctx.loops.push_back(m_model.loops.size() - 1);
    for (const StmtPtr& child : s.body)
      checkStmt(*child, ctx);
    ctx.loops.pop_back();
  }

  // ------------------------------------------------------------------ operations
  void checkOp(const Stmt& s, const StmtCtx& ctx) {
    const reg::Primitive* prim = m_registry.find(s.opName.name);
    if (!prim) {
      Diagnostic* d = report(DiagId::SemUnknownPrimitive, s.opName.id,
                             "'" + s.opName.name + "' is not a primitive of the registry");
      if (auto guess = m_registry.suggest(s.opName.name))
        setFix(d, "did you mean '" + *guess + "'?", R(s.opName.id), *guess);
      else
        setFix(d, "run 'cake primitives' for the list; a new primitive is added as a data file");
      // Names used by an unknown op are still checked so that typos elsewhere surface.
      for (const Operand& o : s.operands)
        if (!lookup(o.name.name))
          undefined(o.name.id, o.name.name, "name", allNames());
      return;
    }
    if (prim->implicit) {
      Diagnostic* d = report(DiagId::SemImplicitPrimitive, s.opName.id,
                             "'" + prim->name + "' is derived by lowering and is not written "
                             "in Cake IR");
      setFix(d, prim->implicitHint);
      return;
    }
    if (m_model.target && !prim->availableOn(m_model.targetName)) {
      Diagnostic* d = report(DiagId::HwPrimitiveNotOnTarget, s.opName.id,
                             "'" + prim->name + "' does not exist on " + m_model.targetName +
                                 " (available on: " + join(prim->targets, ", ") + ")");
      addNote(d, prim->nameRange, "primitive defined here");
    }
    OpInfo op;
    op.stmt = &s;
    op.primitive = prim;
    op.loops = ctx.loops;
    for (const RoleInfo* r : ctx.roles)
      op.roles.push_back(r->name);
    bool ok = true;
    // Operand count.
    std::size_t minCount = prim->requiredOperandCount(), maxCount = prim->operands.size();
    if (s.operands.size() < minCount || s.operands.size() > maxCount) {
      std::string expected = minCount == maxCount
                                 ? std::to_string(minCount)
                                 : std::to_string(minCount) + " to " + std::to_string(maxCount);
      std::vector<std::string> names;
      for (const reg::OperandDef& o : prim->operands)
        names.push_back(o.optional ? "[" + o.name + "]" : o.name);
      Diagnostic* d = report(DiagId::SemOperandCount,
                             s.operands.size() > maxCount ? s.operands[maxCount].id : s.opName.id,
                             "'" + prim->name + "' takes " + expected + " operand(s) (" +
                                 join(names, ", ") + "), found " +
                                 std::to_string(s.operands.size()));
      addNote(d, prim->nameRange, "primitive defined here");
      ok = false;
    }
    op.operands.reserve(prim->operands.size()); // exact: no growth slack per op
    for (std::size_t i = 0; i < prim->operands.size(); ++i) {
      OperandInfo info;
      if (i < s.operands.size() && i < maxCount)
        ok &= checkOperand(s.operands[i], prim->operands[i], info, ctx);
      op.operands.push_back(std::move(info));
    }
    ok &= checkOpAttributes(s, *prim, op, ctx);
    if (ok)
      checkConstraints(s, *prim, op);
    m_model.ops.push_back(std::move(op));
  }

  bool checkOperand(const Operand& o, const reg::OperandDef& def, OperandInfo& info,
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
      Diagnostic* d = report(DiagId::SemOperandKind, o.name.id,
                             "operand '" + def.name + "' must be a " +
                                 std::string(reg::toString(def.kind)) + ", but '" + o.name.name +
                                 "' is a " + std::string(found));
      noteDecl(d, sym->decl, "declared here");
      return false;
    };
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
        Diagnostic* d = report(DiagId::SemOperandSpace, o.name.id,
                               "operand '" + def.name + "' must be in " + join(names, " or ") +
                                   ", but '" + b->name + "' is in " +
                                   std::string(toString(b->space)));
        noteDecl(d, b->decl, "declared here");
        return false;
      }
      info.facts.isBuffer = true;
      info.facts.space = b->space;
      info.facts.dtype = b->dtype;
      info.facts.stages = b->stages;
      info.facts.swizzle = b->swizzle;
      if (b->space == Space::Smem) {
        info.facts.baseOffset = b->offset;
        info.facts.stageBytes = b->stageBytes();
      }
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
      info.facts.swizzle = t->swizzle;
      if (!o.subscripted || o.indices.size() != t->box.size()) {
        Diagnostic* d = report(DiagId::SemIndexCount, o.id,
                               "tensor map '" + t->name + "' needs " +
                                   std::to_string(t->box.size()) +
                                   " box coordinates, e.g. " + t->name + "[row, col]");
        noteDecl(d, t->decl, "declared here");
        return false;
      }
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
      if (b->size > 1 && (!o.subscripted || o.indices.size() != 1 ||
                          o.indices[0].kind != Index::Kind::Point)) {
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
        if (r.range && (r.range->lo < 0 || r.range->hi >= b->size)) {
          Diagnostic* d = report(DiagId::DcSliceOutOfBounds, o.indices[0].id,
                                 "index into '" + b->name + "' can be " +
                                     std::to_string(r.range->lo < 0 ? r.range->lo : r.range->hi) +
                                     ", outside 0.." + std::to_string(b->size));
          noteDecl(d, b->decl, "declared here");
          return false;
        }
        info.indexRanges.push_back(r.range.value_or(Interval{kMin, kMax}));
      }
      break;
    }
    }
    if (def.rank && info.facts.isBuffer &&
        static_cast<int>(info.facts.shape.size()) != *def.rank) {
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
                             "operand '" + def.name + "' must be " + join(names, " or ") +
                                 ", but '" + o.name.name + "' is " +
                                 std::string(toString(info.facts.dtype)));
      noteDecl(d, decl, "declared here");
      return false;
    }
    info.facts.present = true;
    return true;
  }

  /// Applies subscripts to a buffer: optional stage index, then one index per dimension.
  bool subscriptBuffer(const Operand& o, const BufferInfo& b, OperandInfo& info,
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
      if (r.range && (r.range->lo < 0 || r.range->hi >= b.stages)) {
        Diagnostic* d = report(DiagId::DcSliceOutOfBounds, o.indices[0].id,
                               "stage index of '" + b.name + "' can be " +
                                   std::to_string(r.range->lo < 0 ? r.range->lo : r.range->hi) +
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
      if (start.range && (start.range->lo < 0 || I128(start.range->hi) + size > dim)) {
        bool low = start.range->lo < 0;
        std::string reach = low ? "starts at " + std::to_string(start.range->lo)
                                : "can reach index " +
                                      std::to_string(static_cast<std::int64_t>(
                                          std::min<I128>(I128(start.range->hi) + size - 1, kMax)));
        Diagnostic* d = report(DiagId::DcSliceOutOfBounds, idx.id,
                               "dimension " + std::to_string(i) + " of '" + b.name + "' " +
                                   reach + ", but its extent is " + std::to_string(dim));
        noteDecl(d, b.decl, "declared here");
        return false;
      }
      info.indexRanges.push_back(start.range.value_or(Interval{kMin, kMax}));
    }
    return true;
  }

  /// Checks an attribute value against its registry type; returns its static value.
  std::optional<reg::DefValue> attrValue(const Attribute& a, const reg::AttrDef& def,
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
      if (v.kind == ExprKind::Name && (v.text == "true" || v.text == "false"))
        return reg::DefValue::boolean(v.text == "true");
      return wrong("true or false");
    case reg::AttrType::Enum: {
      if ((v.kind == ExprKind::Name || v.kind == ExprKind::Tag) &&
          std::find(def.values.begin(), def.values.end(), v.text) != def.values.end())
        return reg::DefValue::symbol(v.text);
      Diagnostic* d = report(DiagId::SemAttributeType, v.id,
                             "'" + def.name + "' is '" + print(v) + "'; expected one of: " +
                                 join(def.values, ", "));
      if (auto guess = closestMatch(print(v), def.values))
        setFix(d, "did you mean '" + *guess + "'?", R(v.id), *guess);
      return std::nullopt;
    }
    case reg::AttrType::DType:
      if (v.kind == ExprKind::Name && parseDType(v.text))
        return reg::DefValue::symbol(v.text);
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
        return reg::DefValue::symbol(v.text);
      return wrong("a string");
    }
    return std::nullopt;
  }

  static reg::DefValue fromJson(const json::Value& v) {
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

  bool checkOpAttributes(const Stmt& s, const reg::Primitive& prim, OpInfo& op,
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
        Diagnostic* d = report(DiagId::SemMissingAttribute, s.opName.id,
                               "'" + prim.name + "' needs the attribute '" + def.name + "=' (" +
                                   def.doc + ")");
        addNote(d, def.range, "attribute defined here");
        ok = false;
      }
    }
    return ok;
  }

  void checkConstraints(const Stmt& s, const reg::Primitive& prim, const OpInfo& op) {
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
      diag.message = c.message + " [" + prim.name + ": " + c.text + "]";
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

  static void collectOperands(const reg::DefExpr& e, std::vector<std::size_t>& out) {
    if (e.kind == reg::DefExpr::Kind::OperandRef &&
        std::find(out.begin(), out.end(), e.index) == out.end())
      out.push_back(e.index);
    for (const reg::DefExpr& a : e.args)
      collectOperands(a, out);
  }

  const Module& m_module;
  const reg::Registry& m_registry;
  const target::TargetSet& m_targets;
  DiagnosticEngine& m_diags;
  const SourceMap& m_map;
  KernelModel m_model;
  std::map<std::string, Symbol> m_symbols;
  std::map<std::string, std::int64_t> m_consts;
  std::set<std::string> m_failedConsts;
};

} // namespace

bool isReservedName(std::string_view name) {
  return std::find(std::begin(kReserved), std::end(kReserved), name) != std::end(kReserved);
}

KernelModel check(const Module& module, const reg::Registry& registry,
                  const target::TargetSet& targets, DiagnosticEngine& diags) {
  KernelModel model = Checker(module, registry, targets, diags).run();
  // The op table grew by doubling; the verifier, cost model and lowering keep it for the whole
  // run, so drop the slack (up to half of it) before they allocate their own tables.
  model.ops.shrink_to_fit();
  return model;
}

} // namespace cake::sema
