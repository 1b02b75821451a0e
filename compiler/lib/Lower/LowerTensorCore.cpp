// Lowering, tensor-core family: builtin patterns for wgmma, mma.sync and tcgen05 (descriptors,
// fragment registers per tile and K step, tensor-memory addresses).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Lowerer.h"
#include "cake/Sema/MmaLayout.h"

namespace cake::lower::detail {

using namespace ex;

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
  // 8-bit inputs (e4m3, e5m2, s8, u8) exist only K-major: that form of wgmma has no
  // imm-trans-a / imm-trans-b operands (PTX ISA, wgmma.mma_async syntax).
  bool noTranspose = ir::info(ab).bits < 16;
  if (noTranspose && (aMajor == "mn" || bMajor == "mn")) {
    unsupported("wgmma with 8-bit inputs reads K-major operands only (a_major=k, b_major=k)");
    return;
  }

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
    sema::MmaSmemLayout l =
        sema::deriveMmaSmemLayout(buf.swizzle, major == "mn", elemBytes(buf.dtype), instK,
                                  info.facts.shape.front(), strides.empty() ? 0 : strides.front());
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
        if (isSlot(slot, 0, "cols")) {
          b.literal = std::to_string(n);
          return b;
        }
        if (isSlot(slot, 1, "desc")) {
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
        if (isSlot(slot, 2, "desc")) {
          AsmOperand o;
          o.constraint = 'l';
          o.value = descAt(descB, descB0, kstep);
          b.operands.push_back(o);
          return b;
        }
        if (isAttrSlot(op, slot, "accumulate")) {
          AsmOperand o;
          o.value = accumulate ? i32(1) : convert(bin(Op::Gt, kk, i32(0)), Ty::I32);
          b.operands.push_back(o);
          return b;
        }
        if (isAttrSlot(op, slot, "a_major") && (aInRegs || noTranspose)) {
          b.dropArgument = true; // the register-A form has no transpose immediate for A
          return b;
        }
        if (isAttrSlot(op, slot, "b_major") && noTranspose) {
          b.dropArgument = true;
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
            if (slot.index == 0)
              return viewRegs(*d, mul(add(mul(mi, i32(nt)), ni), i32(4)), 4, '+');
            if (slot.index == 1)
              return viewRegs(*a, mul(mi, i32(4)), 4, 0);
            if (slot.index == 2)
              return viewRegs(*b, mul(ni, i32(2)), 2, 0);
          }
          return defaultBinding(op, slot);
        };
        emitTemplate(op, bind);
      }
    }
  });
}

// ---------------------------------------------------------------------------- tcgen05

void Lowerer::opTcgen05Tmem(const sema::OpInfo& op, const ir::Stmt&, bool alloc) {
  auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
    if (slot.isOperand && slot.index == 0) {
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
        if (alloc) {
          // The shared-memory word that receives the TMEM base address.
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
  issueGuard(op.primitive->issue, [&] { emitTemplate(op, bind); });
}

void Lowerer::opTcgen05Mma(const sema::OpInfo& op, const ir::Stmt& s) {
  const sema::OperandInfo& dInfo = op.operands[0];
  const sema::OperandInfo& aInfo = op.operands[1];
  const sema::OperandInfo& bInfo = op.operands[2];
  const sema::BufferInfo& dBuf = m_model.buffers[dInfo.entityIndex];
  const sema::BufferInfo& aBuf = m_model.buffers[aInfo.entityIndex];
  const sema::BufferInfo& bBuf = m_model.buffers[bInfo.entityIndex];
  bool aInTmem = aBuf.space == ir::Space::Tmem;
  bool bMn = enumAttr(op, "b_major") == "mn";
  // cta_group::2: one MMA over the CTA pair, issued by the leader; each CTA holds M rows of A
  // and of the accumulator and N / 2 rows of B at the same offsets, so the descriptors are
  // this CTA's and the instruction's M and N are the pair's (M 256 from 128 per CTA).
  std::int64_t ctaGroup = intAttr(op, "cta_group", 1);
  if (aInTmem && ctaGroup != 1) {
    unsupported("tcgen05.mma with A in tensor memory is lowered for cta_group 1");
    return;
  }
  // The .kind follows the input type (the registry's template shows kind::f16).
  std::string kind;
  switch (aBuf.dtype) {
  case ir::DType::BF16:
  case ir::DType::F16:
    kind = "f16";
    break;
  case ir::DType::TF32:
    kind = "tf32";
    break;
  case ir::DType::F8E4M3:
  case ir::DType::F8E5M2:
    kind = "f8f6f4";
    break;
  default:
    unsupported("tcgen05.mma lowering handles kind::f16 (bf16/f16), kind::tf32 and "
                "kind::f8f6f4 (e4m3/e5m2) inputs, not " +
                std::string(ir::toString(aBuf.dtype)));
    return;
  }
  auto useKind = [kind](std::string t) {
    const std::string to = "kind::" + kind;
    for (std::size_t p = t.find("kind::f16"); p != std::string::npos;
         p = t.find("kind::f16", p + to.size()))
      t.replace(p, 9, to);
    return t;
  };
  const auto& aShape = aInfo.facts.shape;
  const auto& bShape = bInfo.facts.shape;
  const auto& dShape = dInfo.facts.shape;
  if (aShape.size() != 2 || bShape.size() != 2 || dShape.size() != 2) {
    unsupported("tcgen05.mma operands must be 2-D");
    return;
  }
  std::int64_t M = dShape[0] * ctaGroup, N = dShape[1], K = aShape[1];
  std::int64_t instK = sema::mmaInstructionK(aBuf.dtype);
  if (aInTmem && M != 128) {
    unsupported("tcgen05.mma with A in tensor memory is lowered for M = 128 (one row per lane)");
    return;
  }
  bool accumulate = boolAttr(op, "accumulate", true);
  std::uint32_t idesc =
      tcgen05InstrDescriptor(dBuf.dtype, aBuf.dtype, bBuf.dtype, M, N, false, bMn);
  struct Desc {
    ExprRef base;
    std::uint64_t bits = 0;
    std::string name;
    std::int64_t step = 0; ///< bytes the start address advances per instruction K
  };
  auto makeDesc = [&](const ir::Operand& o, const sema::OperandInfo& info,
                      const std::string& which, bool mn) {
    const sema::BufferInfo& buf = m_model.buffers[info.entityIndex];
    Slice sl = slice(o, info);
    std::vector<std::int64_t> strides = sema::operandStrides(buf, o, info.stageIndexed);
    // The derivation wgmma shares (and dc-mma-descriptor-layout checks): MN-major operands use
    // the same canonical layouts on sm_100.
    sema::MmaSmemLayout l =
        sema::deriveMmaSmemLayout(buf.swizzle, mn, elemBytes(buf.dtype), instK,
                                  info.facts.shape.front(), strides.empty() ? 0 : strides.front());
    std::int64_t lbo = l.lbo, sbo = l.sbo;
    Desc d{smemAddress(smemOffset(sl, {})), tcgen05DescriptorBits(buf.swizzle, lbo, sbo),
           "DESC_L" + std::to_string(m_line) + "_" + which, l.kStepBytes};
    DescriptorInfo di;
    di.line = m_line;
    di.op = op.primitive->name;
    di.operand = which;
    di.buffer = buf.name;
    di.major = mn ? "mn" : "k";
    di.swizzle = buf.swizzle;
    di.lbo = lbo;
    di.sbo = sbo;
    di.encodedFixed = d.bits;
    di.kStepBytes = l.kStepBytes;
    di.instructions = K / instK;
    di.instruction = "tcgen05.mma.cta_group::" + std::to_string(ctaGroup) + ".kind::" + kind +
                     " M=" + std::to_string(M) +
                     " N=" + std::to_string(N) + " K=" + std::to_string(instK);
    di.instrDescriptor = idesc;
    bool seen = false;
    for (const DescriptorInfo& e : m_md.descriptors)
      seen |= e.line == di.line && e.operand == di.operand;
    if (!seen)
      m_md.descriptors.push_back(di);
    return d;
  };
  Desc da;
  if (!aInTmem)
    da = makeDesc(s.operands[1], aInfo, "A", false);
  Desc db = makeDesc(s.operands[2], bInfo, "B", bMn);
  // A in tensor memory: the A tile's TMEM address (lane 0 of its rows), advanced by one
  // instruction K = 32 bytes of each row = 8 32-bit columns per step.
  std::optional<Slice> aSlice;
  if (aInTmem)
    aSlice = slice(s.operands[1], aInfo);
  issueGuard(op.primitive->issue, [&] {
    ExprRef taddr = tmemBase(dInfo.entityIndex);
    ExprRef aAddr;
    if (aInTmem) {
      ExprRef col = aSlice->start.size() > 1 ? aSlice->start[1] : i32(0);
      col = udiv(mul(col, i32(ir::info(aBuf.dtype).bits)), 32);
      ExprRef lane = aSlice->start.empty() ? i32(0) : aSlice->start[0];
      aAddr = add(tmemBase(aInfo.entityIndex),
                  convert(add(bin(Op::Shl, lane, i32(16)), col), Ty::U32));
    }
    emitMerged([&] {
      for (std::int64_t kstep = 0; kstep < K / instK; ++kstep) {
        ExprRef kk = i32(kstep);
        auto descValue = [&](const Desc& d) {
          ExprRef addr = add(d.base, convert(mul(kk, i32(d.step)), Ty::U32));
          return bin(Op::Or, named(d.name, static_cast<std::int64_t>(d.bits), Ty::U64),
                     convert(bin(Op::Shr, bin(Op::And, addr, u32(0x3FFFF)), u32(4)), Ty::U64));
        };
        auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
          Binding b;
          AsmOperand o;
          if (isSlot(slot, 1, "desc") && aInTmem) {
            o.value = add(aAddr, u32(kstep * 8));
            b.operands.push_back(o);
            b.brackets = true;
            return b;
          }
          if (slot.isOperand && slot.facet == "desc") {
            if (slot.index == 0) {
              o.value = named("IDESC_L" + std::to_string(m_line), idesc, Ty::U32);
            } else {
              o.constraint = 'l';
              o.value = descValue(slot.index == 1 ? da : db);
            }
            b.operands.push_back(o);
            return b;
          }
          if (isSlot(slot, 0, "addr")) {
            o.value = taddr;
            b.operands.push_back(o);
            return b;
          }
          if (isAttrSlot(op, slot, "accumulate")) {
            o.value = accumulate ? i32(1) : convert(bin(Op::Gt, kk, i32(0)), Ty::I32);
            b.operands.push_back(o);
            return b;
          }
          return defaultBinding(op, slot);
        };
        emitTemplate(op, bind, {}, {}, {}, useKind);
      }
    });
  });
}

void Lowerer::opTcgen05Ld(const sema::OpInfo& op, const ir::Stmt& s) {
  tmemCopy(op, s, 0, true);
}

void Lowerer::opTcgen05St(const sema::OpInfo& op, const ir::Stmt& s) {
  tmemCopy(op, s, 1, false);
}

void Lowerer::tmemCopy(const sema::OpInfo& op, const ir::Stmt& s, std::size_t frag, bool load) {
  const std::size_t mem = 1 - frag;
  const std::string name = op.primitive->name;
  auto v = view(s.operands[frag], op.operands[frag]);
  if (!v)
    return;
  if (v->layout.kind != Layout::TmemRows || enumAttr(op, "shape") != "32x32b") {
    unsupported(name + " lowering handles the 32x32b shape " + (load ? "into" : "from") +
                " [32, C] warp fragments");
    return;
  }
  // One 32-bit register per column of the warp's row (16-bit elements in pairs). PTX's .num
  // is a power of two up to 128, so a row of R registers takes one instruction per set bit of
  // R, each at the columns after the previous one (96 columns: .x64 then .x32 at +64).
  const std::int64_t regs = v->layout.registers;
  if (regs < 1 || regs > 255) {
    unsupported(name + " of " + std::to_string(regs) +
                " registers per thread: a warp row copies 1..255 32-bit columns");
    return;
  }
  std::int64_t done = 0;
  for (std::int64_t count = 128; count >= 1; count /= 2) {
    if ((regs & count) == 0)
      continue;
    const std::int64_t first = done;
    auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
      if (isSlot(slot, mem, "cols")) {
        Binding b;
        b.literal = std::to_string(count);
        return b;
      }
      if (isSlot(slot, mem, "addr")) {
        std::optional<Binding> b = defaultBinding(op, slot);
        if (b && first != 0 && !b->operands.empty())
          b->operands.front().value = add(b->operands.front().value, u32(first));
        return b;
      }
      if (isSlot(slot, frag, "regs"))
        return viewRegs(*v, i32(first), count, load ? '=' : 0);
      return defaultBinding(op, slot);
    };
    emitTemplate(op, bind);
    done += count;
  }
}

} // namespace cake::lower::detail
