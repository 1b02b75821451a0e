// Lowering by declared strategy: the registry says how each primitive lowers (a template over
// typed slots, per instance / fragment element / fragment register; an expansion into other
// primitives; or a builtin C++ pattern from the one table below). No primitive is picked by name.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Lowerer.h"
#include "cake/IR/Clone.h"

#include <algorithm>
#include <charconv>
#include <map>

namespace cake::lower::detail {

using namespace ex;

// ---------------------------------------------------------------------------- the table

const std::vector<std::pair<std::string_view, PatternFn>>& loweringPatterns() {
  // One entry per reg::builtinPatterns() name (tst_lower_patterns checks both ways); the
  // families' files hold the patterns. Parameters that once came from comparing primitive names
  // are fixed here.
  static const std::vector<std::pair<std::string_view, PatternFn>> table = {
      // tensor core (LowerTensorCore.cpp)
      {"wgmma", [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opWgmma(op, s); }},
      {"mma.sync",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opMmaSync(op, s); }},
      {"tcgen05.mma",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opTcgen05Mma(op, s); }},
      {"tcgen05.ld",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opTcgen05Ld(op, s); }},
      {"tcgen05.st",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opTcgen05St(op, s); }},
      {"tcgen05.alloc",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opTcgen05Tmem(op, s, true); }},
      {"tcgen05.dealloc", [](Lowerer& l, const sema::OpInfo& op,
                             const ir::Stmt& s) { l.opTcgen05Tmem(op, s, false); }},
      // memory (LowerMemory.cpp)
      {"ldmatrix",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opLdmatrix(op, s); }},
      {"stmatrix",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opStmatrix(op, s); }},
      {"cp.async",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opCpAsync(op, s); }},
      {"ld.global", [](Lowerer& l, const sema::OpInfo& op,
                       const ir::Stmt& s) { l.opGlobalAccess(op, s, true); }},
      {"st.global", [](Lowerer& l, const sema::OpInfo& op,
                       const ir::Stmt& s) { l.opGlobalAccess(op, s, false); }},
      {"ld.shared",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opLdShared(op, s); }},
      {"st.shared",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opStShared(op, s); }},
      {"epilogue.store",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opEpilogueStore(op, s); }},
      // elementwise and reductions (LowerElementwise.cpp)
      {"ew.fill", [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opFill(op, s); }},
      {"cast", [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opCast(op, s); }},
      {"ew.unary",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opElementwise(op, s, 1); }},
      {"ew.binary",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opElementwise(op, s, 2); }},
      {"ew.fma",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opElementwise(op, s, 3); }},
      {"softmax.rescale",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opSoftmaxRescale(op, s); }},
      {"ew.mask", [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opMask(op, s); }},
      {"reduce.warp",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opReduceWarp(op, s); }},
      {"reduce.cta",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opReduceCta(op, s); }},
      {"reduce.argmin",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opArgReduce(op, s, true); }},
      {"reduce.argmax",
       [](Lowerer& l, const sema::OpInfo& op, const ir::Stmt& s) { l.opArgReduce(op, s, false); }},
  };
  return table;
}

} // namespace cake::lower::detail

namespace cake::lower {

std::vector<std::string> implementedLoweringPatterns() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : detail::loweringPatterns())
    names.emplace_back(name);
  return names;
}

} // namespace cake::lower

namespace cake::lower::detail {

// ---------------------------------------------------------------------------- dispatch

void Lowerer::lowerOp(const ir::Stmt& s) {
  auto found = m_opOf.find(&s);
  if (found == m_opOf.end())
    return;
  const sema::OpInfo* op = found->second;
  m_stmt = &s;
  SourceRange r = range(s.id);
  LineColumn lc = m_sources.lineColumn(r.file, r.begin);
  m_line = lc.line;
  m_column = lc.column;
  std::string text(m_sources.text(r.file).substr(r.begin, r.end - r.begin));
  if (auto nl = text.find('\n'); nl != std::string::npos)
    text.resize(nl);
  comment("L" + std::to_string(lc.line) + ": " + text);
  for (const sema::OperandInfo& oi : op->operands)
    if (oi.facts.present && oi.entity == sema::EntityKind::Buffer &&
        m_model.buffers[oi.entityIndex].space == ir::Space::Reg)
      recordFragment(oi.entityIndex);

  releaseSync(m_barrierPlan.releaseSync(m_role.index, &s));
  lowerOpInfo(*op, s);
  m_stmt = nullptr;
}

void Lowerer::lowerOpInfo(const sema::OpInfo& op, const ir::Stmt& s) {
  const reg::LoweringDef& low = op.primitive->lowering;
  switch (low.strategy) {
  case reg::LoweringStrategy::Expansion:
    lowerExpansion(op, s);
    return; // each step fences its own waits
  case reg::LoweringStrategy::Template:
    lowerTemplate(op, s);
    break;
  case reg::LoweringStrategy::Builtin: {
    if (refused(op))
      break;
    const auto& table = loweringPatterns();
    auto it = std::find_if(table.begin(), table.end(),
                           [&](const auto& e) { return e.first == low.builtin; });
    if (it == table.end()) // the registry refuses unknown names at load time
      unsupported("builtin lowering pattern '" + low.builtin + "' is not in this compiler");
    else if (s.operands.size() < op.primitive->operands.size() ||
             op.operands.size() < op.primitive->operands.size())
      // Patterns index every operand of their signature (an optional one left out, or an
      // expansion step passing fewer): refuse rather than read past the operation.
      unsupported("builtin lowering pattern '" + low.builtin + "' needs all " +
                  std::to_string(op.primitive->operands.size()) + " operands");
    else
      it->second(*this, op, s);
    break;
  }
  }
  // After a wait for an async group, the registers that group's operations write are complete:
  // the wait names them so that no compiler moves a use above it (wgmma.wait, tcgen05.wait_ld).
  for (const reg::EffectDef& e : op.primitive->effects)
    if (e.kind == reg::EffectKind::WaitGroup)
      fenceAsyncRegisters(e.group);
}

bool Lowerer::refused(const sema::OpInfo& op) {
  sema::OpDefContext ctx(op);
  bool any = false;
  for (const reg::LoweringRefusal& r : op.primitive->lowering.refusals) {
    reg::DefValue v = reg::evaluate(r.when, ctx);
    if (v.kind != reg::DefValue::Kind::Bool || !v.b)
      continue;
    // `{attr}` in the message names the attribute's value.
    std::string msg = r.message;
    for (std::size_t i = 0; i < op.primitive->attributes.size() && i < op.attributes.size(); ++i) {
      std::string key = "{" + op.primitive->attributes[i].name + "}";
      for (std::size_t p = msg.find(key); p != std::string::npos; p = msg.find(key, p))
        msg.replace(p, key.size(), op.attributes[i].str());
    }
    unsupported(msg);
    any = true;
  }
  return any;
}

Lowerer::TemplateRef Lowerer::templateOf(const sema::OpInfo& op) const {
  const reg::LoweringDef& low = op.primitive->lowering;
  if (!low.variants.empty()) {
    sema::OpDefContext ctx(op);
    for (const reg::TemplateVariant& v : low.variants) {
      reg::DefValue w = reg::evaluate(v.when, ctx);
      if (w.kind == reg::DefValue::Kind::Bool && w.b)
        return {&v.body.pieces, &v.body.templateSlots};
    }
  }
  return {&low.pieces, &low.templateSlots};
}

// ---------------------------------------------------------------------------- templates

void Lowerer::lowerTemplate(const sema::OpInfo& op, const ir::Stmt& s) {
  const reg::Primitive& prim = *op.primitive;
  const reg::LoweringDef& low = prim.lowering;
  if (refused(op))
    return;
  if (low.repeat != reg::TemplateRepeat::Instance) {
    lowerRepeatedTemplate(op, s);
    return;
  }
  TemplateRef t = templateOf(op);
  std::optional<std::size_t> wholeArray;
  for (const reg::TemplateSlot& slot : *t.slots) {
    if (!slot.isOperand)
      continue;
    if (slot.facet == "reg" || slot.facet == "regs")
      // Register operands are distributed over threads by a fragment layout: a template once
      // per instance cannot say which registers one instruction takes (st.shared,
      // tcgen05.st, ...). Templates "per" element or register can.
      return unsupported("'" + prim.name +
                         "' moves register fragments; its lowering needs a per-layout "
                         "distribution that is not implemented (the template alone is not "
                         "enough)");
    if (slot.facet == "addr" && prim.operands[slot.index].wholeArray &&
        slot.index < op.operands.size() && slot.index < s.operands.size() &&
        op.operands[slot.index].entity == sema::EntityKind::MBarrier)
      wholeArray = slot.index;
  }
  // The NVVM intrinsic the LLVM path calls instead (immediate arguments only).
  std::string intrinsic;
  std::vector<AsmOperand> args;
  if (low.intrinsic) {
    intrinsic = low.intrinsic->name;
    for (const reg::TemplateSlot& a : low.intrinsic->args) {
      std::optional<Binding> b = defaultBinding(op, a);
      std::int64_t v = 0;
      const char* end = b ? b->literal.data() + b->literal.size() : nullptr;
      if (!b || b->literal.empty() || std::from_chars(b->literal.data(), end, v).ptr != end) {
        intrinsic.clear();
        args.clear();
        break;
      }
      AsmOperand imm;
      imm.constraint = 'n';
      imm.value = i32(v);
      args.push_back(imm);
    }
  }
  auto bind = [&](const reg::TemplateSlot& slot) { return defaultBinding(op, slot); };
  auto emit = [&] {
    if (!wholeArray) {
      emitTemplate(op, bind, {}, {}, {}, {}, intrinsic, args);
      return;
    }
    // A whole barrier array: one instruction per element (stage).
    const sema::BarrierInfo& bar = m_model.barriers[op.operands[*wholeArray].entityIndex];
    repeat("stage", bar.size, [&](ExprRef i) {
      auto bindElem = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
        if (isSlot(slot, *wholeArray, "addr"))
          return single(barrierAddress(s.operands[*wholeArray], op.operands[*wholeArray],
                                       bar.size > 1 ? i : nullptr));
        return defaultBinding(op, slot);
      };
      emitTemplate(op, bindElem);
    });
  };
  if (prim.issueAttribute) {
    // The operation picks its issue scope: one instance per warp / warpgroup / elected thread.
    std::string scope = enumAttr(op, prim.attributes[*prim.issueAttribute].name);
    ExprRef cond;
    if (scope == "warp")
      cond = bin(Op::Eq, var(m_p, m_role.lane), i32(0));
    else if (scope == "warpgroup")
      cond = bin(Op::Eq, umod(var(m_p, m_role.tid), 128), i32(0));
    else if (scope == "elected")
      cond = bin(Op::Ne, var(m_p, m_role.elected), u32(0));
    if (cond)
      ifThen(cond, emit);
    else
      emit();
    return;
  }
  issueGuard(prim.issue, emit);
}

void Lowerer::lowerRepeatedTemplate(const sema::OpInfo& op, const ir::Stmt& s) {
  const reg::Primitive& prim = *op.primitive;
  const bool perElement = prim.lowering.repeat == reg::TemplateRepeat::Element;
  const char* facet = perElement ? "elem" : "reg";
  TemplateRef t = templateOf(op);
  // The fragments the template repeats over: the compiler binds their layout (which registers
  // of this thread hold which elements).
  std::map<std::size_t, TileView> views;
  for (const reg::TemplateSlot& slot : *t.slots) {
    if (!slot.isOperand || slot.facet != facet || views.count(slot.index))
      continue;
    if (slot.index >= op.operands.size() || slot.index >= s.operands.size() ||
        !op.operands[slot.index].facts.present)
      return unsupported("'{" + slot.name + "." + facet + "}' of '" + prim.name +
                         "' names an operand this operation leaves out");
    const sema::OperandInfo& info = op.operands[slot.index];
    if (info.entity != sema::EntityKind::Buffer ||
        m_model.buffers[info.entityIndex].space != ir::Space::Reg)
      return unsupported("'{" + slot.name + "." + facet + "}' of '" + prim.name +
                         "' needs a register fragment");
    auto v = view(s.operands[slot.index], info);
    if (!v)
      return;
    views.emplace(slot.index, *v);
  }
  if (views.empty())
    return unsupported("'" + prim.name + "' has no register fragment to repeat over");
  auto count = [&](const TileView& v) {
    return perElement || !is16Bit(v.dtype) ? v.elements : v.elements / 2;
  };
  auto perThread = [](Layout k) { return k == Layout::Thread || k == Layout::Replicated; };
  const TileView* lead = nullptr;
  for (const auto& [i, v] : views)
    if (!lead || count(v) > count(*lead))
      lead = &v;
  const std::int64_t n = count(*lead);
  for (const auto& [i, v] : views) {
    if (perElement && elemBytes(v.dtype) != 4)
      return unsupported("a per-element template binds 32-bit elements; '" +
                         std::string(ir::toString(v.dtype)) +
                         "' elements are packed in pairs: use \"per\": \"register\"");
    if (!perElement && is16Bit(v.dtype) != is16Bit(lead->dtype))
      return unsupported("a per-register template needs fragments whose registers hold the same "
                         "elements (all 16-bit or all 32-bit)");
    bool scalar = count(v) == 1 && perThread(v.layout.kind);
    bool same = count(v) == n && (v.layout.kind == lead->layout.kind ||
                                  (perThread(v.layout.kind) && perThread(lead->layout.kind)));
    if (!scalar && !same)
      return unsupported("operands of '" + prim.name +
                         "' must share the fragment layout of the largest one (or be a single "
                         "value every thread holds)");
  }
  issueGuard(prim.issue, [&] {
    repeat("i", n, [&](ExprRef i) {
      auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
        auto it = slot.isOperand && slot.facet == facet ? views.find(slot.index) : views.end();
        if (it == views.end())
          return defaultBinding(op, slot);
        const TileView& v = it->second;
        reg::Access acc = prim.operands[slot.index].access;
        char mode = acc == reg::Access::Write ? '=' : acc == reg::Access::ReadWrite ? '+' : 0;
        ExprRef k = count(v) == 1 ? i32(0) : i;
        Binding b;
        b.output = mode != 0;
        b.operands.push_back(perElement ? regOperand(v, regIndex(v, k), mode)
                                        : viewReg(v, k, mode));
        return b;
      };
      emitTemplate(op, bind);
    });
  });
}

// ---------------------------------------------------------------------------- expansions

void Lowerer::lowerExpansion(const sema::OpInfo& op, const ir::Stmt& s) {
  const reg::LoweringDef& low = op.primitive->lowering;
  const ir::Stmt* saved = m_stmt;
  for (const reg::ExpansionStep& step : low.steps) {
    if (!step.resolved) {
      unsupported("expansion step '" + step.primitive + "' of '" + op.primitive->name +
                  "' is not resolved");
      break;
    }
    const reg::Primitive& prim = *step.resolved;
    // The step as an operation of its own primitive: the expanded operation's operands (by
    // index), attribute values substituted or literal, run-time attributes as their syntax.
    sema::OpInfo stepOp;
    stepOp.stmt = op.stmt;
    stepOp.primitive = &prim;
    stepOp.roles = op.roles;
    stepOp.loops = op.loops;
    ir::Stmt stepStmt;
    stepStmt.kind = ir::StmtKind::Op;
    stepStmt.id = s.id;
    stepStmt.opName.name = prim.name;
    stepStmt.opName.id = s.opName.id;
    for (std::size_t k : step.operands) {
      if (k >= op.operands.size() || k >= s.operands.size())
        break; // an optional operand the operation leaves out
      stepOp.operands.push_back(op.operands[k]);
      stepStmt.operands.push_back(ir::cloneOperand(s.operands[k]));
    }
    stepOp.attributes.assign(prim.attributes.size(), reg::DefValue{});
    for (std::size_t i = 0; i < prim.attributes.size(); ++i)
      if (prim.attributes[i].defaultValue)
        stepOp.attributes[i] = reg::defValueFromJson(*prim.attributes[i].defaultValue);
    for (const reg::ExpansionStep::Attr& a : step.attributes) {
      if (a.literal) {
        stepOp.attributes[a.index] = reg::defValueFromJson(*a.literal);
        continue;
      }
      if (!a.fromAttr)
        continue;
      const std::string& outerName = op.primitive->attributes[*a.fromAttr].name;
      if (*a.fromAttr < op.attributes.size())
        stepOp.attributes[a.index] = op.attributes[*a.fromAttr];
      if (const ir::Attribute* syntax = s.attribute(outerName)) {
        ir::Attribute c;
        c.key.name = prim.attributes[a.index].name;
        c.key.id = syntax->key.id;
        c.id = syntax->id;
        if (syntax->value)
          c.value = ir::cloneExpr(*syntax->value);
        stepStmt.attributes.push_back(std::move(c));
      }
    }
    m_stmt = &stepStmt;
    lowerOpInfo(stepOp, stepStmt);
    m_stmt = saved;
  }
}

} // namespace cake::lower::detail
