// Type checker, integer expressions: constants, loop variables, builtins and pipeline members
// evaluated to sound intervals (the bounds every subscript check relies on).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "SemaContext.h"

#include "cake/IR/Printer.h"

namespace cake::sema::detail {

namespace {
constexpr std::string_view kBuiltins[] = {"tid", "lane", "warp", "wg"};
} // namespace

std::optional<std::int64_t> Checker::constInt(const Expr& e, std::string_view what,
                                              const StmtCtx* ctx) {
  IntResult r = intExpr(e, ctx, true);
  if (!r.ok)
    return std::nullopt;
  if (!r.range || !r.range->exact()) {
    report(DiagId::SemNotConstant, e.id, std::string(what) + " must be a constant integer");
    return std::nullopt;
  }
  return r.range->lo;
}

const LoopInfo* Checker::loopFor(const StmtCtx* ctx, std::string_view var) const {
  if (!ctx)
    return nullptr;
  for (auto it = ctx->loops.rbegin(); it != ctx->loops.rend(); ++it)
    if (m_model.loops[*it].var == var)
      return &m_model.loops[*it];
  return nullptr;
}

bool Checker::pipelineBound(const StmtCtx* ctx, std::string_view pipeline) const {
  if (!ctx)
    return false;
  for (std::size_t l : ctx->loops)
    if (m_model.loops[l].pipeline == pipeline)
      return true;
  return false;
}

std::int64_t Checker::maxRoleWarps(const StmtCtx* ctx) const {
  std::int64_t w = 1;
  if (ctx)
    for (const RoleInfo* r : ctx->roles)
      w = std::max(w, r->warps());
  return w;
}

IntResult Checker::intExpr(const Expr& e, const StmtCtx* ctx, bool constOnly) {
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

IntResult Checker::nameValue(const Expr& e, const StmtCtx* ctx, bool constOnly) {
  const std::string n(e.text());
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
  if (const ScalarInfo* sc = m_model.scalar(n))
    return scalarValue(e, *sc, constOnly);
  if (const Symbol* s = lookup(n)) {
    if (s->kind == DeclKind::Const) {
      if (m_failedConsts.count(n))
        return {false, std::nullopt}; // its own finding was reported
      // Declared later (or this very constant): constants see only earlier constants.
      Diagnostic* d = report(DiagId::SemInvalidExpression, e.id,
                             "constant '" + n +
                                 "' is used before its declaration is complete; "
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

IntResult Checker::notConstant(const Expr& e) {
  report(DiagId::SemNotConstant, e.id,
         "'" + print(e) + "' changes at run time; a constant is needed here");
  return {false, std::nullopt};
}

IntResult Checker::memberValue(const Expr& e, const StmtCtx* ctx, bool constOnly) {
  const Expr& base = *e.children[0];
  if (base.kind != ExprKind::Name) {
    report(DiagId::SemInvalidExpression, e.id, "'" + print(e) + "' is not an integer");
    return {false, std::nullopt};
  }
  const std::string b(base.text());
  if (const LoopInfo* loop = loopFor(ctx, b); loop && loop->overTiles) {
    if (constOnly)
      return notConstant(e);
    static constexpr std::string_view dims[] = {"x", "y", "z"};
    const auto& tiles = m_model.grid ? m_model.grid->tiles : std::vector<std::int64_t>{};
    for (std::size_t i = 0; i < tiles.size() && i < 3; ++i)
      if (e.text() == dims[i])
        return {true, Interval{0, tiles[i] - 1}};
    report(DiagId::SemInvalidExpression, e.id,
           "tile '" + b + "' has no member '" + std::string(e.text()) + "' (the grid has " +
               std::to_string(tiles.size()) + " tile dimension(s): x, y, z in order)");
    return {false, std::nullopt};
  }
  if (const Symbol* s = lookup(b); s && s->kind == DeclKind::Pipeline) {
    if (e.text() != "slot" && e.text() != "phase") {
      report(DiagId::SemInvalidExpression, e.id,
             "pipeline '" + b + "' has members 'slot' and 'phase', not '" + std::string(e.text()) + "'");
      return {false, std::nullopt};
    }
    if (constOnly)
      return notConstant(e);
    if (!pipelineBound(ctx, b)) {
      Diagnostic* d = report(DiagId::SemPipelineIndexOutsideLoop, e.id,
                             "'" + print(e) + "' is only defined inside a loop with pipeline=" + b);
      setFix(d, "add pipeline=" + b + " to the enclosing 'for' loop");
      return {false, std::nullopt};
    }
    const PipelineInfo* p = m_model.pipeline(b);
    std::int64_t stages = p ? p->stages : 1;
    if (e.text() == "slot")
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

IntResult Checker::binaryValue(const Expr& e, const StmtCtx* ctx, bool constOnly) {
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

} // namespace cake::sema::detail
