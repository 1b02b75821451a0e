// Lowering of each primitive: synchronisation, data movement and tensor-core operations expand
// their registry templates with typed slot bindings; elementwise, reduction and epilogue
// primitives (lowering "derived": true) are generated from the register fragment layouts.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Lowerer.h"
#include "cake/Sema/MmaLayout.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

namespace cake::lower::detail {

using namespace ex;

namespace {

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

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

// ---------------------------------------------------------------------------- dispatch

void Lowerer::issueGuard(reg::IssueScope scope, const std::function<void()>& body) {
  switch (scope) {
  case reg::IssueScope::Elected:
    ifThen(bin(Op::Ne, var(m_p, m_role.elected), u32(0)), body);
    return;
  default:
    body();
    return;
  }
}

void Lowerer::roleBarrier() {
  const std::int64_t threads = m_role.role->threads();
  auto it = m_barrierPlan.roleBarrier.find(m_role.role->name);
  const std::int64_t id = it == m_barrierPlan.roleBarrier.end() ? 0 : it->second;
  if (id == 0 || threads == m_md.threads) {
    asmStmt("bar.sync 0;", {}, {}, true, "llvm.nvvm.barrier0");
    return;
  }
  AsmOperand a, b;
  a.constraint = b.constraint = 'n';
  a.value = i32(id);
  b.value = i32(threads);
  asmStmt("bar.sync " + std::to_string(id) + ", " + std::to_string(threads) + ";", {}, {a, b},
          true, "llvm.nvvm.barrier.sync.cnt");
}

void Lowerer::releaseSync(verify::ReleaseSync sync) {
  switch (sync) {
  case verify::ReleaseSync::None:
    return;
  case verify::ReleaseSync::Warp: {
    // The arriving lane's release then covers its warp's accesses (bar.warp.sync orders memory
    // among the participating lanes).
    AsmOperand mask;
    mask.constraint = 'n';
    mask.value = i32(-1);
    asmStmt("bar.warp.sync -1;", {}, {mask}, true, "llvm.nvvm.bar.warp.sync");
    return;
  }
  case verify::ReleaseSync::Warpgroup: {
    // Each warpgroup of the role has its own barrier: a shared id would let warps of two
    // warpgroups complete each other's 128 arrivals.
    auto it = m_barrierPlan.warpgroupBase.find(m_role.role->name);
    if (it == m_barrierPlan.warpgroupBase.end()) {
      unsupported("no warpgroup barrier was planned for this release");
      return;
    }
    // Literal ids (with a register id ptxas must assume all 16 barriers are in use), chosen
    // by a predicate inside one asm statement: control flow around the barrier would split the
    // block LLVM optimises (the Flash-KMeans argmin grew by 40% of its SASS that way).
    const std::int64_t groups = (m_role.role->warps() + 3) / 4;
    std::string text = "{\n.reg .pred cake_wg;\n";
    for (std::int64_t w = 0; w < groups; ++w)
      text += "setp.eq.s32 cake_wg, %0, " + std::to_string(w) + ";\n@cake_wg bar.sync " +
              std::to_string(it->second + w) + ", 128;\n";
    text += "}";
    AsmOperand wg;
    wg.value = var(m_p, m_role.wg);
    asmStmt(text, {}, {wg}, true);
    return;
  }
  case verify::ReleaseSync::Role:
    roleBarrier();
    return;
  }
}

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

  const std::string& n = op->primitive->name;
  if (n.rfind("mbarrier.", 0) == 0)
    opMbarrier(*op, s);
  else if (n == "tma.load" || n == "tma.store")
    opTma(*op, s);
  else if (n == "wgmma.mma")
    opWgmma(*op, s);
  else if (n == "mma.sync")
    opMmaSync(*op, s);
  else if (n == "ldmatrix")
    opLdmatrix(*op, s);
  else if (n == "stmatrix")
    opStmatrix(*op, s);
  else if (n == "cp.async")
    opCpAsync(*op, s);
  else if (n == "ld.global")
    opGlobalAccess(*op, s, true);
  else if (n == "st.global")
    opGlobalAccess(*op, s, false);
  else if (n == "ld.shared")
    opLdShared(*op, s);
  else if (n == "ew.fill")
    opFill(*op, s);
  else if (n == "cast")
    opCast(*op, s);
  else if (n == "ew.binary" || n == "ew.unary" || n == "ew.fma")
    opElementwise(*op, s);
  else if (n == "softmax.rescale")
    opSoftmaxRescale(*op, s);
  else if (n == "reduce.warp")
    opReduceWarp(*op, s);
  else if (n == "reduce.cta")
    opReduceCta(*op, s);
  else if (n == "reduce.argmin" || n == "reduce.argmax")
    opArgReduce(*op, s, n == "reduce.argmin");
  else if (n == "epilogue.store")
    opEpilogueStore(*op, s);
  else if (n == "tcgen05.mma")
    opTcgen05Mma(*op, s);
  else if (n == "tcgen05.ld")
    opTcgen05Ld(*op, s);
  else if (n == "tcgen05.alloc" || n == "tcgen05.dealloc" || n == "tcgen05.commit")
    opTcgen05(*op, s);
  else if (op->primitive->lowering.derived)
    unsupported("lowering of the derived primitive '" + n + "' is not implemented");
  else if (std::any_of(op->primitive->lowering.templateSlots.begin(),
                       op->primitive->lowering.templateSlots.end(), [](const reg::TemplateSlot& t) {
                         return t.isOperand && (t.facet == "regs" || t.facet == "reg");
                       }))
    // Register operands are distributed over threads by a fragment layout: a template alone
    // cannot say which registers one instruction takes (st.shared, tcgen05.st, ...).
    unsupported("'" + n +
                "' moves register fragments; its lowering needs a per-layout "
                "distribution that is not implemented (the template alone is not enough)");
  else
    opSimpleTemplate(*op, s); // sync, fences, commit/wait groups, and new template primitives
  if (n == "wgmma.wait")
    fenceAsyncRegisters("wgmma.mma", "acc");
  else if (n == "tcgen05.wait_ld")
    fenceAsyncRegisters("tcgen05.ld", "dst");
  m_stmt = nullptr;
}

void Lowerer::fenceAsyncRegisters(const std::string& primitive, const std::string& operand) {
  auto key = std::make_tuple(primitive, operand, m_role.index);
  auto cached = m_asyncRegisters.find(key);
  if (cached == m_asyncRegisters.end()) {
    std::set<std::size_t> found;
    for (const sema::OpInfo& o : m_model.ops) {
      if (o.primitive->name != primitive ||
          std::find(o.roles.begin(), o.roles.end(), m_role.role->name) == o.roles.end())
        continue;
      for (std::size_t i = 0; i < o.operands.size() && i < o.primitive->operands.size(); ++i)
        if (o.primitive->operands[i].name == operand && o.operands[i].facts.present &&
            o.operands[i].entity == sema::EntityKind::Buffer &&
            m_model.buffers[o.operands[i].entityIndex].space == ir::Space::Reg)
          found.insert(o.operands[i].entityIndex);
    }
    cached = m_asyncRegisters.emplace(key, std::vector<std::size_t>(found.begin(), found.end()))
                 .first;
  }
  for (std::size_t b : cached->second) {
    auto it = m_role.regVars.find(b);
    if (it == m_role.regVars.end())
      continue;
    const Var& v = m_p.vars[it->second];
    std::vector<AsmOperand> outs;
    for (int r = 0; r < v.count; ++r) {
      AsmOperand a;
      a.constraint = v.ty == Ty::F32 ? 'f' : 'r';
      a.mode = '+';
      a.var = it->second;
      a.index = i32(r);
      outs.push_back(a);
    }
    // The wait itself names the registers (no separate asm): they are "written" by it.
    Stmt* wait = nullptr;
    for (auto it = m_cur->rbegin(); it != m_cur->rend(); ++it)
      if (it->kind != Stmt::Kind::Comment) {
        if (it->kind == Stmt::Kind::Asm && it->inputs.empty() &&
            (it->text.find("wait_group") != std::string::npos ||
             it->text.find("wait::ld") != std::string::npos))
          wait = &*it;
        break;
      }
    if (wait) {
      for (AsmOperand& o : outs)
        wait->outputs.push_back(std::move(o));
      continue;
    }
    comment("registers of '" + m_model.buffers[b].name + "' are complete after the wait");
    asmStmt("", std::move(outs), {}, true);
  }
}

void Lowerer::opSimpleTemplate(const sema::OpInfo& op, const ir::Stmt&) {
  const std::string& n = op.primitive->name;
  auto bind = [&](const reg::TemplateSlot& slot) { return defaultBinding(op, slot); };
  std::function<std::string(std::string)> rewrite;
  if (n == "bulk.wait_group" && boolAttr(op, "read", false))
    rewrite = [](std::string t) { return replaceAll(t, "wait_group", "wait_group.read"); };
  if (n == "fence.proxy.async") {
    std::string space = enumAttr(op, "space");
    if (space == "global")
      rewrite = [](std::string t) { return replaceAll(t, ".shared::cta", ".global"); };
    else if (space == "all")
      rewrite = [](std::string t) { return replaceAll(t, ".shared::cta", ""); };
  }
  // Operations whose NVVM intrinsic LLVM 19 has (the CUDA path prints the same PTX).
  std::string intrinsic;
  std::vector<AsmOperand> args;
  auto imm = [&](std::int64_t v) {
    AsmOperand a;
    a.constraint = 'n';
    a.value = i32(v);
    args.push_back(a);
  };
  if (n == "cta.sync") {
    intrinsic = "llvm.nvvm.barrier0";
  } else if (n == "cp.async.commit") {
    intrinsic = "llvm.nvvm.cp.async.commit.group";
  } else if (n == "cp.async.wait") {
    intrinsic = "llvm.nvvm.cp.async.wait.group";
    imm(intAttr(op, "pending", 0));
  } else if (n == "bar.sync" && m_stmt && !op.operands.empty()) {
    for (const BarrierGroup& g : m_md.barriers)
      if (g.name == m_model.barriers[op.operands[0].entityIndex].name) {
        intrinsic = "llvm.nvvm.barrier.sync.cnt";
        imm(g.hardwareId);
        imm(g.initCount);
      }
  }
  issueGuard(op.primitive->issue,
             [&] { emitTemplate(op, bind, {}, {}, {}, rewrite, intrinsic, args); });
}

// ---------------------------------------------------------------------------- mbarriers

void Lowerer::opMbarrier(const sema::OpInfo& op, const ir::Stmt& s) {
  const std::string& n = op.primitive->name;
  auto bind = [&](const reg::TemplateSlot& slot) { return defaultBinding(op, slot); };
  if (n == "mbarrier.init") {
    // One instruction per element of a barrier array (the operand names the whole array).
    const sema::BarrierInfo& bar = m_model.barriers[op.operands[0].entityIndex];
    issueGuard(reg::IssueScope::Elected, [&] {
      repeat("stage", bar.size, [&](ExprRef i) {
        auto bindElem = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
          if (slot.isOperand && slot.facet == "addr") {
            Binding b;
            AsmOperand a;
            a.value = barrierAddress(s.operands[0], op.operands[0], bar.size > 1 ? i : nullptr);
            b.operands.push_back(a);
            return b;
          }
          return defaultBinding(op, slot);
        };
        emitTemplate(op, bindElem);
      });
    });
    return;
  }
  if (n == "mbarrier.try_wait") {
    // Spin in PTX: the predicate never leaves the asm block (labels are local to `{ }`).
    issueGuard(op.primitive->issue, [&] {
      auto bindWait = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
        if (slot.isOperand && slot.facet == "phase") {
          Binding b;
          b.literal = "cake_p";
          return b;
        }
        return defaultBinding(op, slot);
      };
      emitTemplate(op, bindWait, "{\n.reg .pred cake_p;\ncake_wait:\n",
                   "\n@!cake_p bra cake_wait;\n}");
    });
    return;
  }
  if (n == "mbarrier.arrive") {
    std::string scope = enumAttr(op, "scope");
    ExprRef cond;
    if (scope == "warp")
      cond = bin(Op::Eq, var(m_p, m_role.lane), i32(0));
    else if (scope == "warpgroup")
      cond = bin(Op::Eq, umod(var(m_p, m_role.tid), 128), i32(0));
    else if (scope == "elected")
      cond = bin(Op::Ne, var(m_p, m_role.elected), u32(0));
    auto emit = [&] {
      auto bindArrive = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
        if (slot.isOperand && slot.facet == "phase") {
          Binding b;
          b.literal = "cake_state";
          return b;
        }
        return defaultBinding(op, slot);
      };
      emitTemplate(op, bindArrive, "{\n.reg .b64 cake_state;\n", "\n}");
    };
    if (cond)
      ifThen(cond, emit);
    else
      emit();
    return;
  }
  // arrive_expect_tx / expect_tx: elected, plain template.
  issueGuard(op.primitive->issue, [&] { emitTemplate(op, bind); });
}

// ---------------------------------------------------------------------------- TMA

void Lowerer::opTma(const sema::OpInfo& op, const ir::Stmt& s) {
  if (enumAttr(op, "cache") != "none" && !enumAttr(op, "cache").empty())
    unsupported("the TMA cache hint '" + enumAttr(op, "cache") +
                "' has no lowering yet (it needs an L2 cache-policy operand)");
  if (intAttr(op, "multicast", 0) != 0)
    unsupported("TMA multicast is not lowered yet (clusters are not emitted)");
  (void)s;
  auto bind = [&](const reg::TemplateSlot& slot) { return defaultBinding(op, slot); };
  issueGuard(op.primitive->issue, [&] { emitTemplate(op, bind); });
}

// ---------------------------------------------------------------------------- wgmma

void Lowerer::opWgmma(const sema::OpInfo& op, const ir::Stmt& s) {
  const sema::OperandInfo& accInfo = op.operands[0];
  const sema::OperandInfo& aInfo = op.operands[1];
  const sema::OperandInfo& bInfo = op.operands[2];
  auto acc = view(s.operands[0], accInfo);
  if (!acc)
    return;
  if (acc->layout.kind != Layout::WgmmaAcc) {
    unsupported("wgmma accumulators must be warpgroup fragments [64, N]");
    return;
  }
  const sema::BufferInfo& aBuf = m_model.buffers[aInfo.entityIndex];
  const sema::BufferInfo& bBuf = m_model.buffers[bInfo.entityIndex];
  bool aInRegs = aBuf.space == ir::Space::Reg;
  std::string aMajor = enumAttr(op, "a_major"), bMajor = enumAttr(op, "b_major");
  std::int64_t n = acc->layout.cols;
  ir::DType ab = aBuf.dtype;
  std::int64_t instK = sema::mmaInstructionK(ab);
  const std::vector<std::int64_t>& aShape = aInfo.facts.shape;
  const std::vector<std::int64_t>& bShape = bInfo.facts.shape;
  std::int64_t k = aMajor == "mn" ? aShape.front() : aShape.back();
  if (aShape.size() != 2 || bShape.size() != 2 || k % instK != 0) {
    unsupported("wgmma operands must be 2-D with K a multiple of the instruction K (" +
                std::to_string(instK) + ")");
    return;
  }
  std::int64_t ksteps = k / instK;
  bool accumulate = boolAttr(op, "accumulate", true);

  // Shared-memory descriptors: canonical K-major or MN-major layouts of the buffer's swizzle.
  struct Desc {
    ExprRef base; ///< U32 start address of the operand
    std::uint64_t bits = 0;
    std::int64_t step = 0;
    std::string name;
  };
  auto makeDesc = [&](const ir::Operand& o, const sema::OperandInfo& info, const std::string& major,
                      const std::string& which) -> Desc {
    const sema::BufferInfo& buf = m_model.buffers[info.entityIndex];
    Slice sl = slice(o, info);
    Desc d;
    d.base = smemAddress(smemOffset(sl, {}));
    // One derivation for lowering and verifier (dc-mma-descriptor-layout compares it with the
    // buffer's rows).
    std::vector<std::int64_t> strides = sema::operandStrides(buf, o, info.stageIndexed);
    sema::MmaSmemLayout l = sema::deriveMmaSmemLayout(
        buf.swizzle, major == "mn", elemBytes(buf.dtype), instK, info.facts.shape.front(),
        strides.empty() ? 0 : strides.front());
    std::int64_t lbo = l.lbo, sbo = l.sbo;
    d.step = l.kStepBytes;
    d.bits = wgmmaDescriptorBits(buf.swizzle, lbo, sbo);
    d.name = "DESC_L" + std::to_string(m_line) + "_" + which;
    DescriptorInfo di;
    di.line = m_line;
    di.op = op.primitive->name;
    di.operand = which;
    di.buffer = buf.name;
    di.major = major.empty() ? "k" : major;
    di.swizzle = buf.swizzle;
    di.lbo = lbo;
    di.sbo = sbo;
    di.encodedFixed = d.bits;
    di.kStepBytes = d.step;
    di.instructions = ksteps;
    di.instruction = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k" +
                     std::to_string(instK) + "." + ptxType(acc->dtype) + "." + ptxType(ab) + "." +
                     ptxType(bBuf.dtype);
    bool seen = false;
    for (const DescriptorInfo& e : m_md.descriptors)
      seen |= e.line == di.line && e.operand == di.operand;
    if (!seen)
      m_md.descriptors.push_back(di);
    return d;
  };
  Desc descB = makeDesc(s.operands[2], bInfo, bMajor, "B");
  Desc descA;
  std::optional<TileView> aView;
  if (aInRegs) {
    aView = view(s.operands[1], aInfo);
    if (!aView)
      return;
    if (aView->layout.kind != Layout::WgmmaAcc || !is16Bit(aView->dtype)) {
      unsupported("a register A operand of wgmma must be a 16-bit warpgroup fragment [64, K]");
      return;
    }
  } else {
    descA = makeDesc(s.operands[1], aInfo, aMajor, "A");
  }
  auto descValue = [&](const Desc& d, ExprRef kk) {
    ExprRef addr = add(d.base, convert(mul(kk, i32(d.step)), Ty::U32));
    ExprRef enc = bin(Op::Shr, bin(Op::And, addr, u32(0x3FFFF)), u32(4));
    return bin(Op::Or, named(d.name, static_cast<std::int64_t>(d.bits), Ty::U64),
               convert(enc, Ty::U64));
  };
  // Later K steps advance the first descriptor's start-address field (bits 0..13, address / 16)
  // as CUTLASS's descriptor iterator does: shared-memory addresses stay below 2^18, so the
  // field never carries into the strides.
  ExprRef descA0 = aInRegs ? nullptr : descValue(descA, i32(0));
  ExprRef descB0 = descValue(descB, i32(0));
  auto descAt = [&](const Desc& d, const ExprRef& d0, std::int64_t kstep) {
    if (kstep == 0)
      return d0;
    if (d.step % 16 != 0)
      return descValue(d, i32(kstep));
    return add(d0, u64(kstep * d.step / 16));
  };
  emitMerged([&] {
    for (std::int64_t kstep = 0; kstep < ksteps; ++kstep) {
      ExprRef kk = i32(kstep);
      auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
        Binding b;
        if (slot.isOperand && slot.name == "acc" && slot.facet == "cols") {
          b.literal = std::to_string(n);
          return b;
        }
        if (slot.isOperand && slot.name == "a" && slot.facet == "desc") {
          AsmOperand o;
          if (aInRegs) {
            // Register A (the k-th 16-column block of the fragment): `{a0, a1, a2, a3}`.
            Binding regs = viewRegs(*aView, mul(kk, i32(4)), 4, 0);
            regs.braces = true;
            return regs;
          }
          o.constraint = 'l';
          o.value = descAt(descA, descA0, kstep);
          b.operands.push_back(o);
          return b;
        }
        if (slot.isOperand && slot.name == "b" && slot.facet == "desc") {
          AsmOperand o;
          o.constraint = 'l';
          o.value = descAt(descB, descB0, kstep);
          b.operands.push_back(o);
          return b;
        }
        if (!slot.isOperand && slot.name == "accumulate") {
          AsmOperand o;
          o.value = accumulate ? i32(1) : convert(bin(Op::Gt, kk, i32(0)), Ty::I32);
          b.operands.push_back(o);
          return b;
        }
        if (!slot.isOperand && slot.name == "a_major" && aInRegs) {
          b.dropArgument = true; // the register-A form has no transpose immediate for A
          return b;
        }
        return defaultBinding(op, slot);
      };
      emitTemplate(op, bind);
    }
  });
}

// ---------------------------------------------------------------------------- mma.sync

void Lowerer::opMmaSync(const sema::OpInfo& op, const ir::Stmt& s) {
  auto d = view(s.operands[0], op.operands[0]);
  auto a = view(s.operands[1], op.operands[1]);
  auto b = view(s.operands[2], op.operands[2]);
  if (!d || !a || !b)
    return;
  if (d->layout.kind != Layout::MmaAcc || a->layout.kind != Layout::MmaA ||
      b->layout.kind != Layout::MmaB) {
    unsupported("mma.sync needs an accumulator fragment, an A fragment and a B fragment");
    return;
  }
  const sema::BufferInfo& ab = m_model.buffers[a->buffer];
  std::int64_t instK = 256 / ir::info(ab.dtype).bits;
  std::int64_t M = d->layout.rows, N = d->layout.cols, K = a->layout.cols;
  if (K != instK || b->layout.cols != K) {
    unsupported("mma.sync lowering handles one instruction K (" + std::to_string(instK) +
                ") per operation; split K across operations");
    return;
  }
  std::int64_t mt = M / 16, nt = N / 8;
  emitMerged([&] {
    for (std::int64_t mIdx = 0; mIdx < mt; ++mIdx) {
      ExprRef mi = i32(mIdx);
      for (std::int64_t nIdx = 0; nIdx < nt; ++nIdx) {
        ExprRef ni = i32(nIdx);
        auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
          if (slot.isOperand && slot.facet == "regs") {
            if (slot.name == "d")
              return viewRegs(*d, mul(add(mul(mi, i32(nt)), ni), i32(4)), 4, '+');
            if (slot.name == "a")
              return viewRegs(*a, mul(mi, i32(4)), 4, 0);
            if (slot.name == "b")
              return viewRegs(*b, mul(ni, i32(2)), 2, 0);
          }
          return defaultBinding(op, slot);
        };
        emitTemplate(op, bind);
      }
    }
  });
}

// ---------------------------------------------------------------------------- ldmatrix / stmatrix

void Lowerer::opLdmatrix(const sema::OpInfo& op, const ir::Stmt& s) {
  auto dst = view(s.operands[0], op.operands[0]);
  if (!dst)
    return;
  if (boolAttr(op, "trans", false)) {
    unsupported("ldmatrix trans=true is not lowered yet");
    return;
  }
  Slice src = slice(s.operands[1], op.operands[1]);
  ExprRef lane = var(m_p, m_role.lane);
  std::int64_t rows = dst->layout.rows;
  if (dst->layout.kind != Layout::MmaA && dst->layout.kind != Layout::MmaB) {
    unsupported("ldmatrix destinations must be mma.sync A or B fragments");
    return;
  }
  bool isA = dst->layout.kind == Layout::MmaA;
  // A (16x16 blocks): lanes 0-15 address rows 0-15 at k 0, lanes 16-31 the same rows at k 8,
  // giving a0..a3. B (N x K): lane l addresses matrix l / 8 = (n half, k half) so that the
  // four results are b0, b1 of n-tile 2p and b0, b1 of n-tile 2p + 1.
  ExprRef rowInBlock = isA ? umod(lane, 16) : add(mul(udiv(lane, 16), i32(8)), umod(lane, 8));
  ExprRef kOff = isA ? mul(udiv(lane, 16), i32(8)) : mul(umod(udiv(lane, 8), 2), i32(8));
  repeat("blk", rows / 16, [&](ExprRef blk) {
    ExprRef row = add(mul(blk, i32(16)), rowInBlock);
    ExprRef off = swizzledOffset(src, {row, kOff});
    auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
      if (slot.isOperand && slot.name == "dst" && slot.facet == "regs")
        return viewRegs(*dst, mul(blk, i32(4)), 4, '=');
      if (slot.isOperand && slot.name == "src" && slot.facet == "addr")
        return single(smemAddress(off));
      return defaultBinding(op, slot);
    };
    emitTemplate(op, bind);
  });
}

void Lowerer::opStmatrix(const sema::OpInfo& op, const ir::Stmt& s) {
  auto src = view(s.operands[1], op.operands[1]);
  if (!src)
    return;
  if (boolAttr(op, "trans", false) || src->layout.kind != Layout::WgmmaAcc ||
      !is16Bit(src->dtype)) {
    unsupported("stmatrix lowering stores 16-bit wgmma fragments without transpose");
    return;
  }
  Slice dst = slice(s.operands[0], op.operands[0]);
  ExprRef lane = var(m_p, m_role.lane);
  ExprRef w = umod(var(m_p, m_role.warp), 4);
  // Matrix m = lane / 8 of a 16x16 block: (rows 0-7 | 8-15) x (cols 0-7 | 8-15) in the order
  // of the fragment registers (row half first), lane % 8 is the row inside the matrix.
  ExprRef m = udiv(lane, 8);
  ExprRef row = add(add(mul(w, i32(16)), mul(umod(m, 2), i32(8))), umod(lane, 8));
  repeat("blk", src->layout.cols / 16, [&](ExprRef blk) {
    ExprRef col = add(mul(blk, i32(16)), mul(udiv(m, 2), i32(8)));
    ExprRef off = swizzledOffset(dst, {row, col});
    auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
      if (slot.isOperand && slot.name == "src" && slot.facet == "regs")
        return viewRegs(*src, mul(blk, i32(4)), 4, 0);
      if (slot.isOperand && slot.name == "dst" && slot.facet == "addr")
        return single(smemAddress(off));
      return defaultBinding(op, slot);
    };
    emitTemplate(op, bind);
  });
}

// ---------------------------------------------------------------------------- cp.async

void Lowerer::opCpAsync(const sema::OpInfo& op, const ir::Stmt& s) {
  Slice dst = slice(s.operands[0], op.operands[0]);
  Slice src = slice(s.operands[1], op.operands[1]);
  const sema::BufferInfo& db = m_model.buffers[dst.buffer];
  std::int64_t chunk = intAttr(op, "chunk", 16);
  std::vector<std::int64_t> shape = dst.shape();
  if (shape.size() != 2 || src.shape() != shape) {
    unsupported("cp.async lowering copies 2-D tiles of equal shape");
    return;
  }
  std::int64_t eb = elemBytes(db.dtype);
  std::int64_t perRow = shape[1] * eb / chunk;
  std::int64_t chunks = shape[0] * perRow;
  std::int64_t threads = m_role.role->threads();
  if (perRow == 0 || chunks % threads != 0) {
    unsupported("cp.async lowering needs the tile's chunks to divide evenly over the role");
    return;
  }
  // Thread i copies chunks i, i + T, ...: consecutive threads read consecutive 16 bytes.
  repeat("c", chunks / threads, [&](ExprRef c) {
    ExprRef id = add(mul(c, i32(threads)), var(m_p, m_role.tid));
    ExprRef row = udiv(id, perRow);
    ExprRef col = mul(umod(id, perRow), i32(chunk / eb));
    ExprRef dOff = swizzledOffset(dst, {row, col});
    auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
      Binding b;
      if (slot.isOperand && slot.facet == "addr") {
        AsmOperand a;
        if (slot.name == "dst") {
          a.value = smemAddress(dOff);
        } else {
          a.constraint = 'l';
          a.value = globalAddress(src, {row, col});
        }
        b.operands.push_back(a);
        return b;
      }
      return defaultBinding(op, slot);
    };
    emitTemplate(op, bind);
  });
}

// ---------------------------------------------------------------------------- ld/st global,
// ld.shared

void Lowerer::opGlobalAccess(const sema::OpInfo& op, const ir::Stmt& s, bool load) {
  std::size_t regIdx = load ? 0 : 1, memIdx = load ? 1 : 0;
  auto v = view(s.operands[regIdx], op.operands[regIdx]);
  if (!v)
    return;
  Slice g = slice(s.operands[memIdx], op.operands[memIdx]);
  std::vector<std::int64_t> shape = g.shape();
  if (shape.size() != 1) {
    unsupported("global loads and stores of register tiles take 1-D contiguous slices");
    return;
  }
  const sema::BufferInfo& gb = m_model.buffers[g.buffer];
  std::int64_t eb = elemBytes(gb.dtype);
  if (elemBytes(v->dtype) != eb) {
    unsupported("ld.global/st.global move elements without conversion (use cast)");
    return;
  }
  // Alignment of the run start: what the index expressions guarantee, the parameter's 16 bytes.
  std::int64_t align = 16;
  {
    const ir::Operand& o = s.operands[memIdx];
    std::vector<std::int64_t> strides(gb.shape.size());
    std::int64_t st = 1;
    for (std::size_t d = gb.shape.size(); d-- > 0;) {
      strides[d] = st;
      st *= gb.shape[d];
    }
    std::size_t d = 0;
    for (const ir::Index& idx : o.indices) {
      if (idx.kind != ir::Index::Kind::Full && d < strides.size())
        align = std::min<std::int64_t>(align, knownMultiple(*idx.start) * strides[d] * eb);
      ++d;
    }
  }
  std::int64_t runElems, runs;
  ExprRef runStart; // element offset of run j, lambda below
  bool warpVec = v->layout.kind == Layout::WarpVector;
  if (v->layout.kind == Layout::Thread || v->layout.kind == Layout::Replicated) {
    runElems = v->elements;
    runs = 1;
  } else if (warpVec) {
    runElems = v->layout.run;
    runs = v->elements / runElems;
    align = std::min<std::int64_t>(align, runElems * eb);
  } else {
    unsupported("global loads and stores support thread vectors and warp vectors");
    return;
  }
  std::int64_t runBytes = runElems * eb;
  std::int64_t vec = std::min<std::int64_t>({16, runBytes, align});
  if (vec < 4 || runBytes % vec != 0) {
    unsupported("global accesses narrower than 4 bytes per instruction are not lowered");
    return;
  }
  std::int64_t regsPerInstr = vec / 4;
  std::int64_t perRun = runBytes / vec;
  std::string cache = enumAttr(op, "cache");
  std::string width = regsPerInstr == 4 ? ".v4" : regsPerInstr == 2 ? ".v2" : "";
  repeat("j", runs, [&](ExprRef j) {
    repeat("q", perRun, [&](ExprRef q) {
      // Element (within the slice) and register of this instruction's first element.
      ExprRef threadElem = add(mul(j, i32(runElems)), mul(q, i32(vec / eb)));
      ExprRef sliceElem = threadElem;
      if (warpVec)
        sliceElem = add(mul(add(mul(j, i32(32)), var(m_p, m_role.lane)), i32(runElems)),
                        mul(q, i32(vec / eb)));
      ExprRef firstReg = udiv(mul(add(v->offset, threadElem), i32(eb)), 4);
      auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
        Binding b;
        if (slot.isOperand && slot.facet == "regs") {
          b.output = load;
          for (std::int64_t r = 0; r < regsPerInstr; ++r)
            b.operands.push_back(regOperand(*v, add(firstReg, i32(r)), load ? '=' : 0));
          for (AsmOperand& a : b.operands)
            a.constraint = 'r';
          return b;
        }
        if (slot.isOperand && slot.facet == "addr") {
          AsmOperand a;
          a.constraint = 'l';
          a.value = globalAddress(g, {sliceElem});
          b.operands.push_back(a);
          return b;
        }
        return defaultBinding(op, slot);
      };
      std::string w = width;
      auto rewrite = [w](std::string t) { return replaceAll(t, ".v4", w); };
      if (m_p.vars[v->var].ty == Ty::F32) {
        // f32 fragments move as raw 32-bit registers: 'f' operands of a .b32 access.
        auto rw2 = [w](std::string t) {
          t = replaceAll(t, ".v4", w);
          return t;
        };
        emitTemplate(
            op,
            [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
              auto b = bind(slot);
              if (b && slot.isOperand && slot.facet == "regs")
                for (AsmOperand& a : b->operands)
                  a.constraint = 'f';
              return b;
            },
            {}, {}, {}, rw2);
      } else {
        emitTemplate(op, bind, {}, {}, {}, rewrite);
      }
    });
  });
}

void Lowerer::opLdShared(const sema::OpInfo& op, const ir::Stmt& s) {
  auto v = view(s.operands[0], op.operands[0]);
  if (!v)
    return;
  Slice src = slice(s.operands[1], op.operands[1]);
  const sema::BufferInfo& sb = m_model.buffers[src.buffer];
  std::int64_t eb = elemBytes(sb.dtype);
  if (src.shape().size() != 1 || elemBytes(v->dtype) != eb || eb != 4) {
    unsupported("ld.shared lowering reads 1-D slices of 32-bit elements");
    return;
  }
  auto emitRun = [&](ExprRef firstReg, ExprRef elemInSlice, std::int64_t regs) {
    ExprRef off = swizzledOffset(src, {elemInSlice});
    auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
      if (slot.isOperand && slot.facet == "regs")
        return viewRegs(*v, firstReg, regs, '=');
      if (slot.isOperand && slot.facet == "addr")
        return single(smemAddress(off));
      return defaultBinding(op, slot);
    };
    std::string w = regs == 4 ? ".v4" : regs == 2 ? ".v2" : "";
    emitTemplate(op, bind, {}, {}, {}, [w](std::string t) { return replaceAll(t, ".v4", w); });
  };
  if (v->layout.kind == Layout::WgmmaCol) {
    // Columns 8j + 2q, 8j + 2q + 1 of the accumulator: one 8-byte load per group of 8 columns.
    ExprRef q = umod(var(m_p, m_role.lane), 4);
    repeat("j", v->elements / 2,
           [&](ExprRef j) { emitRun(mul(j, i32(2)), add(mul(j, i32(8)), mul(q, i32(2))), 2); });
    return;
  }
  if (v->layout.kind == Layout::Thread || v->layout.kind == Layout::Replicated) {
    std::int64_t n = v->elements;
    repeat("j", n / 4, [&](ExprRef j) { emitRun(mul(j, i32(4)), mul(j, i32(4)), 4); });
    for (std::int64_t r = n / 4 * 4; r < n; ++r)
      emitRun(i32(r), i32(r), 1);
    return;
  }
  unsupported("ld.shared lowering supports thread vectors and wgmma column vectors");
}

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
    bool ok = (dst.layout.kind == Layout::WgmmaAcc && b.layout.kind == Layout::WgmmaRow) ||
              (dst.layout.kind == Layout::Thread && b.layout.kind == Layout::Thread);
    if (!ok) {
      unsupported("row broadcast lowering pairs wgmma accumulators with row vectors");
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

void Lowerer::opElementwise(const sema::OpInfo& op, const ir::Stmt& s) {
  const std::string& n = op.primitive->name;
  auto dst = view(s.operands[0], op.operands[0]);
  auto a = view(s.operands[1], op.operands[1]);
  if (!dst || !a)
    return;
  std::optional<TileView> b, c;
  if (n != "ew.unary") {
    b = view(s.operands[2], op.operands[2]);
    if (!b)
      return;
  }
  if (n == "ew.fma") {
    c = view(s.operands[3], op.operands[3]);
    if (!c)
      return;
  }
  std::string mode = n == "ew.unary" ? "none" : enumAttr(op, "broadcast");
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
  std::string fn = n == "ew.fma" ? "fma" : enumAttr(op, "fn");
  repeat("i", dst->elements / group, [&](ExprRef i) {
    std::vector<ExprRef> vals;
    for (std::int64_t h = 0; h < group; ++h) {
      ExprRef e = add(mul(i, i32(group)), i32(h));
      ExprRef x = readElem(*a, e, h);
      ExprRef r;
      if (n == "ew.unary") {
        r = isFloat ? unaryFn(fn, x) : (fn == "neg" ? un(Op::Neg, x) : x);
        if (!isFloat && fn != "neg" && fn != "abs" && fn != "relu")
          unsupported("integer ew.unary supports neg only");
      } else {
        ExprRef bi = *broadcastIndex(*dst, *b, mode, e);
        ExprRef y = readElem(*b, bi, mode == "none" ? h : 0);
        if (n == "ew.fma") {
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

// ---------------------------------------------------------------------------- epilogue

void Lowerer::opEpilogueStore(const sema::OpInfo& op, const ir::Stmt& s) {
  auto src = view(s.operands[1], op.operands[1]);
  if (!src)
    return;
  Slice dst = slice(s.operands[0], op.operands[0]);
  const sema::BufferInfo& db = m_model.buffers[dst.buffer];
  ir::DType dt = db.dtype;
  std::vector<std::int64_t> shape = dst.shape();
  ExprRef lane = var(m_p, m_role.lane);
  ExprRef g = udiv(lane, 4), q = umod(lane, 4);
  // Stores `count` consecutive elements of the thread (starting at element e) at (row, col).
  auto storePairs = [&](ExprRef e, std::int64_t count, std::vector<ExprRef> at) {
    std::vector<AsmOperand> ins;
    AsmOperand addr;
    addr.constraint = 'l';
    addr.value = globalAddress(dst, at);
    ins.push_back(addr);
    std::int64_t regs = 0;
    if (dt == src->dtype) {
      regs = is16Bit(dt) ? count / 2 : count;
      for (std::int64_t r = 0; r < regs; ++r) {
        AsmOperand v = regOperand(*src, regIndex(*src, add(e, i32(is16Bit(dt) ? 2 * r : r))), 0);
        ins.push_back(v);
      }
    } else if ((dt == ir::DType::BF16 || dt == ir::DType::F16) && src->dtype == ir::DType::F32) {
      regs = count / 2;
      for (std::int64_t r = 0; r < regs; ++r) {
        AsmOperand v;
        v.value =
            call(dt == ir::DType::F16 ? "pack_f16x2" : "pack_bf16x2",
                 {readElem(*src, add(e, i32(2 * r + 1))), readElem(*src, add(e, i32(2 * r)))});
        ins.push_back(v);
      }
    } else {
      unsupported("epilogue.store converts f32 to bf16/f16 or stores without conversion");
      return;
    }
    std::string regsText;
    for (std::int64_t r = 0; r < regs; ++r)
      regsText += (r ? ", %" : "%") + std::to_string(r + 1);
    std::string w = regs == 4 ? ".v4" : regs == 2 ? ".v2" : "";
    asmStmt("st.global" + w + ".b32 [%0], " + (regs > 1 ? "{" + regsText + "}" : regsText) + ";",
            {}, ins);
  };
  switch (src->layout.kind) {
  case Layout::WgmmaAcc: {
    if (shape.size() != 2 || ir::info(dt).bits * 2 % 32 != 0) {
      unsupported("epilogue.store of a wgmma accumulator writes a 2-D tile");
      return;
    }
    ExprRef w = umod(var(m_p, m_role.warp), 4);
    repeat("j", src->elements / 4, [&](ExprRef j) {
      for (std::int64_t h = 0; h < 2; ++h) {
        ExprRef row = add(add(mul(w, i32(16)), g), i32(8 * h));
        ExprRef col = add(mul(j, i32(8)), mul(q, i32(2)));
        storePairs(add(mul(j, i32(4)), i32(2 * h)), 2, {row, col});
      }
    });
    return;
  }
  case Layout::MmaAcc: {
    std::int64_t nt = src->layout.cols / 8;
    repeat("mi", src->layout.rows / 16, [&](ExprRef mi) {
      repeat("ni", nt, [&](ExprRef ni) {
        for (std::int64_t h = 0; h < 2; ++h) {
          ExprRef row = add(add(mul(mi, i32(16)), g), i32(8 * h));
          ExprRef col = add(mul(ni, i32(8)), mul(q, i32(2)));
          storePairs(add(mul(add(mul(mi, i32(nt)), ni), i32(4)), i32(2 * h)), 2, {row, col});
        }
      });
    });
    return;
  }
  case Layout::WgmmaRow: {
    if (shape.size() != 1 || ir::info(dt).bits != 32 || dt != src->dtype) {
      unsupported("epilogue.store of a row vector writes 32-bit values without conversion");
      return;
    }
    ExprRef w = umod(var(m_p, m_role.warp), 4);
    ifThen(bin(Op::Eq, q, i32(0)), [&] {
      for (std::int64_t h = 0; h < 2; ++h)
        storePairs(i32(h), 1, {add(add(mul(w, i32(16)), g), i32(8 * h))});
    });
    return;
  }
  case Layout::TmemRows: {
    std::int64_t perInstr = 16 / elemBytes(dt);
    repeat("c", src->elements / perInstr, [&](ExprRef c) {
      storePairs(mul(c, i32(perInstr)), perInstr, {lane, mul(c, i32(perInstr))});
    });
    return;
  }
  default:
    unsupported("epilogue.store lowering supports wgmma, mma.sync and tcgen05.ld fragments");
  }
}

// ---------------------------------------------------------------------------- tcgen05

void Lowerer::opTcgen05(const sema::OpInfo& op, const ir::Stmt& s) {
  const std::string& n = op.primitive->name;
  if (n == "tcgen05.commit" && intAttr(op, "multicast", 0) != 0) {
    unsupported("tcgen05.commit multicast is not lowered yet (clusters are not emitted)");
    return;
  }
  auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
    if (slot.isOperand && n != "tcgen05.commit") {
      const sema::BufferInfo& buf = m_model.buffers[op.operands[0].entityIndex];
      std::int64_t cols = 32;
      for (const TmemAllocation& a : m_md.tmem)
        if (a.name == buf.name)
          cols = a.allocColumns;
      Binding b;
      if (slot.facet == "cols") {
        b.literal = std::to_string(cols);
        return b;
      }
      if (slot.facet == "addr") {
        AsmOperand a;
        if (n == "tcgen05.alloc") {
          std::size_t k = 0;
          for (std::size_t i = 0; i < m_md.tmem.size(); ++i)
            if (m_md.tmem[i].name == buf.name)
              k = i;
          a.value = smemAddress(add(convert(named("SMEM_TMEM_BASE", m_md.tmemBaseOffset), Ty::U32),
                                    u32(4 * static_cast<std::int64_t>(k))));
        } else {
          a.value = tmemBase(op.operands[0].entityIndex);
        }
        b.operands.push_back(a);
        return b;
      }
    }
    return defaultBinding(op, slot);
  };
  (void)s;
  issueGuard(op.primitive->issue, [&] { emitTemplate(op, bind); });
}

void Lowerer::opTcgen05Mma(const sema::OpInfo& op, const ir::Stmt& s) {
  const sema::OperandInfo& dInfo = op.operands[0];
  const sema::OperandInfo& aInfo = op.operands[1];
  const sema::OperandInfo& bInfo = op.operands[2];
  const sema::BufferInfo& dBuf = m_model.buffers[dInfo.entityIndex];
  const sema::BufferInfo& aBuf = m_model.buffers[aInfo.entityIndex];
  const sema::BufferInfo& bBuf = m_model.buffers[bInfo.entityIndex];
  if (aBuf.space != ir::Space::Smem || intAttr(op, "cta_group", 1) != 1) {
    unsupported("tcgen05.mma lowering handles shared-memory A and cta_group 1");
    return;
  }
  if (aBuf.dtype != ir::DType::BF16 && aBuf.dtype != ir::DType::F16) {
    unsupported("tcgen05.mma lowering handles kind::f16 (bf16/f16 inputs)");
    return;
  }
  const auto& aShape = aInfo.facts.shape;
  const auto& bShape = bInfo.facts.shape;
  const auto& dShape = dInfo.facts.shape;
  if (aShape.size() != 2 || bShape.size() != 2 || dShape.size() != 2) {
    unsupported("tcgen05.mma operands must be 2-D");
    return;
  }
  std::int64_t M = dShape[0], N = dShape[1], K = aShape[1];
  std::int64_t instK = sema::mmaInstructionK(aBuf.dtype);
  bool accumulate = boolAttr(op, "accumulate", true);
  std::uint32_t idesc =
      tcgen05InstrDescriptor(dBuf.dtype, aBuf.dtype, bBuf.dtype, M, N, false, false);
  struct Desc {
    ExprRef base;
    std::uint64_t bits;
    std::string name;
  };
  auto makeDesc = [&](const ir::Operand& o, const sema::OperandInfo& info,
                      const std::string& which) {
    const sema::BufferInfo& buf = m_model.buffers[info.entityIndex];
    Slice sl = slice(o, info);
    std::vector<std::int64_t> strides = sema::operandStrides(buf, o, info.stageIndexed);
    sema::MmaSmemLayout l = sema::deriveMmaSmemLayout(
        buf.swizzle, false, elemBytes(buf.dtype), instK, info.facts.shape.front(),
        strides.empty() ? 0 : strides.front());
    std::int64_t lbo = l.lbo, sbo = l.sbo;
    Desc d{smemAddress(smemOffset(sl, {})), tcgen05DescriptorBits(buf.swizzle, lbo, sbo),
           "DESC_L" + std::to_string(m_line) + "_" + which};
    DescriptorInfo di;
    di.line = m_line;
    di.op = op.primitive->name;
    di.operand = which;
    di.buffer = buf.name;
    di.major = "k";
    di.swizzle = buf.swizzle;
    di.lbo = lbo;
    di.sbo = sbo;
    di.encodedFixed = d.bits;
    di.kStepBytes = instK * elemBytes(buf.dtype);
    di.instructions = K / instK;
    di.instruction = "tcgen05.mma.cta_group::1.kind::f16 M=" + std::to_string(M) +
                     " N=" + std::to_string(N) + " K=" + std::to_string(instK);
    di.instrDescriptor = idesc;
    bool seen = false;
    for (const DescriptorInfo& e : m_md.descriptors)
      seen |= e.line == di.line && e.operand == di.operand;
    if (!seen)
      m_md.descriptors.push_back(di);
    return d;
  };
  Desc da = makeDesc(s.operands[1], aInfo, "A");
  Desc db = makeDesc(s.operands[2], bInfo, "B");
  std::int64_t eb = elemBytes(aBuf.dtype);
  issueGuard(op.primitive->issue, [&] {
    ExprRef taddr = tmemBase(dInfo.entityIndex);
    emitMerged([&] {
      for (std::int64_t kstep = 0; kstep < K / instK; ++kstep) {
        ExprRef kk = i32(kstep);
        auto descValue = [&](const Desc& d) {
          ExprRef addr = add(d.base, convert(mul(kk, i32(instK * eb)), Ty::U32));
          return bin(Op::Or, named(d.name, static_cast<std::int64_t>(d.bits), Ty::U64),
                     convert(bin(Op::Shr, bin(Op::And, addr, u32(0x3FFFF)), u32(4)), Ty::U64));
        };
        auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
          Binding b;
          AsmOperand o;
          if (slot.isOperand && slot.facet == "desc") {
            if (slot.name == "d") {
              o.value = named("IDESC_L" + std::to_string(m_line), idesc, Ty::U32);
            } else {
              o.constraint = 'l';
              o.value = descValue(slot.name == "a" ? da : db);
            }
            b.operands.push_back(o);
            return b;
          }
          if (slot.isOperand && slot.name == "d" && slot.facet == "addr") {
            o.value = taddr;
            b.operands.push_back(o);
            return b;
          }
          if (!slot.isOperand && slot.name == "accumulate") {
            o.value = accumulate ? i32(1) : convert(bin(Op::Gt, kk, i32(0)), Ty::I32);
            b.operands.push_back(o);
            return b;
          }
          return defaultBinding(op, slot);
        };
        emitTemplate(op, bind);
      }
    });
  });
}

void Lowerer::opTcgen05Ld(const sema::OpInfo& op, const ir::Stmt& s) {
  auto dst = view(s.operands[0], op.operands[0]);
  if (!dst)
    return;
  if (dst->layout.kind != Layout::TmemRows || enumAttr(op, "shape") != "32x32b") {
    unsupported("tcgen05.ld lowering handles the 32x32b shape into [32, C] warp fragments");
    return;
  }
  auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
    if (slot.isOperand && slot.name == "src" && slot.facet == "cols") {
      Binding b;
      b.literal = std::to_string(dst->elements);
      return b;
    }
    return defaultBinding(op, slot);
  };
  emitTemplate(op, bind);
}

} // namespace cake::lower::detail
