// Type checker, statements: role blocks, loops (tiles, ranges, pipelines) and operations bound
// to their primitive definitions.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "SemaContext.h"

#include "cake/IR/Printer.h"

namespace cake::sema::detail {

void Checker::checkTopLevel(const Stmt& s) {
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

void Checker::checkOn(const Stmt& s) {
  StmtCtx ctx;
  std::set<std::string> seen;
  for (const Ident& r : s.block().roles) {
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
  std::vector<std::string> names;
  for (const RoleInfo* info : ctx.roles)
    names.push_back(info->name);
  ctx.roleNames = SharedList<std::string>(std::move(names));
  checkOnAttributes(s);
  for (const StmtPtr& child : s.body)
    checkStmt(*child, ctx);
}

void Checker::checkOnAttributes(const Stmt& s) {
  // `cta=leader`: the block runs in the leader (even-ranked) CTA of each CTA pair only
  // (CUTLASS's is_mma_leader_cta); the grid's cluster must hold CTA pairs.
  for (const Attribute& a : s.attributes) {
    if (a.key.name != "cta") {
      Diagnostic* d = report(DiagId::SemUnknownAttribute, a.key.id,
                             "'on' blocks have no attribute '" + a.key.name + "' (known: cta)");
      setFix(d, "write 'cta=leader' or nothing");
      continue;
    }
    if (a.value->kind != ExprKind::Name || a.value->text() != "leader") {
      report(DiagId::SemAttributeType, a.value->id,
             "cta= takes 'leader' (the even-ranked CTA of each CTA pair of the cluster)");
      continue;
    }
    std::int64_t ctas = 1;
    if (m_model.grid)
      for (std::int64_t c : m_model.grid->cluster)
        ctas *= c;
    if (ctas % 2 != 0) {
      Diagnostic* d = report(DiagId::SemAttributeType, a.value->id,
                             "cta=leader names the leader CTA of a CTA pair, but the cluster has " +
                                 std::to_string(ctas) + " CTA(s)");
      setFix(d, "declare grid ... cluster=[2, 1, 1] (an even cluster size)");
      if (m_model.grid)
        noteDecl(d, m_model.grid->decl, "grid declared here");
    }
  }
}

void Checker::checkStmt(const Stmt& s, StmtCtx& ctx) {
  switch (s.kind) {
  case StmtKind::On: {
    Diagnostic* d =
        report(DiagId::SemNestedRoleBlock, s.id, "'on' blocks appear only at kernel level");
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

void Checker::checkFor(const Stmt& s, StmtCtx& ctx) {
  LoopInfo loop;
  loop.stmt = &s;
  loop.var = s.block().loopVar.name;
  bool ok = true;
  if (isReservedName(loop.var) || parseDType(loop.var)) {
    report(DiagId::SemReservedName, s.block().loopVar.id, "'" + loop.var + "' is reserved");
    ok = false;
  } else if (const Symbol* sym = lookup(loop.var)) {
    Diagnostic* d = report(DiagId::SemShadowedName, s.block().loopVar.id,
                           "loop variable '" + loop.var + "' hides a declaration");
    noteDecl(d, sym->decl, "declared here");
    ok = false;
  } else if (loopFor(&ctx, loop.var)) {
    report(DiagId::SemShadowedName, s.block().loopVar.id,
           "loop variable '" + loop.var + "' hides an enclosing loop variable");
    ok = false;
  }
  const Expr& range = *s.block().loopRange;
  if (range.kind == ExprKind::Name && range.text() == "tiles") {
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
  } else if (range.kind == ExprKind::Range && checkRuntimeRange(range, ctx, loop, ok)) {
    // a range over tile coordinates: checked (and `loop` filled) by checkRuntimeRange
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
      loop.minTrip = loop.maxTrip = *hi - *lo;
      loop.meanTrip = double(*hi - *lo);
    }
  } else {
    report(DiagId::SemLoopBounds, range.id,
           "a loop runs over 'tiles' or a range 'lo..hi' (constants and tile coordinates)");
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
    } else if (a.key.name == "stride" || a.key.name == "offset" || a.key.name == "skip") {
      checkOwnershipAttribute(a, ctx, loop);
    } else {
      std::vector<std::string> names{"pipeline", "unroll", "stride", "offset", "skip"};
      Diagnostic* d = report(DiagId::SemUnknownAttribute, a.key.id,
                             "loops have no attribute '" + a.key.name +
                                 "' (known: pipeline, unroll, stride, offset, skip)");
      if (auto guess = closestMatch(a.key.name, names))
        setFix(d, "did you mean '" + *guess + "'?", R(a.key.id), *guess);
    }
  }
  if (loop.tileOffset >= loop.tileStride) {
    const Attribute* a = s.attribute("offset");
    report(DiagId::SemAttributeType, a ? a->value->id : s.id,
           "tile offset " + std::to_string(loop.tileOffset) + " is not below the stride " +
               std::to_string(loop.tileStride) + ": the role would own no tile");
    loop.tileOffset = 0;
  }
  if (const Attribute* a = s.attribute("skip"); a && loop.pipeline.empty())
    report(DiagId::SemAttributeType, a->value->id,
           "'skip' advances the loop's pipeline past other roles' tiles: this loop has no "
           "'pipeline='");
  (void)ok;
  m_model.loops.push_back(loop);
  ctx.loops.push_back(m_model.loops.size() - 1);
  SharedList<std::size_t> outer = std::move(ctx.loopList);
  ctx.loopList = SharedList<std::size_t>(ctx.loops);
  for (const StmtPtr& child : s.body)
    checkStmt(*child, ctx);
  ctx.loops.pop_back();
  ctx.loopList = std::move(outer);
}

void Checker::checkOp(const Stmt& s, const StmtCtx& ctx) {
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
                           "'" + prim->name +
                               "' is derived by lowering and is not written "
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
  op.loops = ctx.loopList;
  op.roles = ctx.roleNames;
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
                               join(names, ", ") + "), found " + std::to_string(s.operands.size()));
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

} // namespace cake::sema::detail
