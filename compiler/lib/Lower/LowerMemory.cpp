// Lowering, memory family: builtin patterns that distribute data movement over threads and
// fragment runs (ldmatrix, stmatrix, cp.async, ld/st.global, ld.shared, epilogue.store).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Lowerer.h"

#include <algorithm>

namespace cake::lower::detail {

using namespace ex;

namespace {

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

} // namespace

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
      if (isSlot(slot, 0, "regs"))
        return viewRegs(*dst, mul(blk, i32(4)), 4, '=');
      if (isSlot(slot, 1, "addr"))
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
      if (isSlot(slot, 1, "regs"))
        return viewRegs(*src, mul(blk, i32(4)), 4, 0);
      if (isSlot(slot, 0, "addr"))
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
        if (slot.index == 0) {
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
  if (shape.size() > 1) {
    unsupported("global loads and stores of register tiles take 1-D slices or single elements");
    return;
  }
  const sema::BufferInfo& gb = m_model.buffers[g.buffer];
  std::int64_t eb = elemBytes(gb.dtype);
  if (elemBytes(v->dtype) != eb) {
    unsupported("ld.global/st.global move elements without conversion (use cast)");
    return;
  }
  std::vector<std::int64_t> strides(gb.shape.size());
  {
    std::int64_t st = 1;
    for (std::size_t d = gb.shape.size(); d-- > 0;) {
      strides[d] = st;
      st *= gb.shape[d];
    }
  }
  // Alignment of the slice start: what the index expressions guarantee, the parameter's 16 bytes.
  std::int64_t align = 16;
  {
    const ir::Operand& o = s.operands[memIdx];
    std::size_t d = 0;
    for (const ir::Index& idx : o.indices) {
      if (idx.kind != ir::Index::Kind::Full && d < strides.size())
        align = std::min<std::int64_t>(align, knownMultiple(*idx.start) * strides[d] * eb);
      ++d;
    }
  }
  // Consecutive slice elements are adjacent in memory only when the kept dimension is the
  // innermost one with extent > 1 (a row run); a column of a row-major tensor (DeepGEMM's
  // per-row scales, SA[m0 +: 64, kb]) is strided: one element per instruction.
  bool contiguous = true;
  for (std::size_t d = 0; d < gb.shape.size(); ++d)
    if (g.kept[d] && strides[d] != 1)
      contiguous = false;
  if (shape.empty() && v->elements != 1) {
    unsupported("a single global element loads into or stores from a one-element register tile");
    return;
  }
  // The thread's elements in groups: group j holds `groupElems` consecutive elements of the
  // thread from element threadFirst(j), which are consecutive slice elements from sliceFirst(j).
  ExprRef lane = var(m_p, m_role.lane);
  std::int64_t groups = 1, groupElems = v->elements;
  std::function<ExprRef(ExprRef)> threadFirst = [&](ExprRef) { return i32(0); };
  std::function<ExprRef(ExprRef)> sliceFirst = [&](ExprRef) { return i32(0); };
  ExprRef storeGuard; // stores: one of the threads that hold the same value writes it
  switch (v->layout.kind) {
  case Layout::Thread:
  case Layout::Replicated:
    break;
  case Layout::WarpVector:
    groupElems = v->layout.run;
    groups = v->elements / groupElems;
    threadFirst = [&, groupElems](ExprRef j) { return mul(j, i32(groupElems)); };
    sliceFirst = [&, groupElems, lane](ExprRef j) {
      return mul(add(mul(j, i32(32)), lane), i32(groupElems));
    };
    break;
  case Layout::WgmmaRow: {
    // Rows 16 w + g and 16 w + g + 8 of the warpgroup's 64 (the accumulator rows the thread
    // owns); the four lanes of a quad hold the same two rows.
    ExprRef w = umod(var(m_p, m_role.warp), 4);
    groups = 2;
    groupElems = 1;
    threadFirst = [](ExprRef j) { return j; };
    sliceFirst = [&, w, lane](ExprRef j) {
      return add(add(mul(w, i32(16)), udiv(lane, 4)), mul(j, i32(8)));
    };
    storeGuard = bin(Op::Eq, umod(lane, 4), i32(0));
    break;
  }
  case Layout::WgmmaCol: {
    // Columns 8 j + 2 q and 8 j + 2 q + 1; every warp and every g of a quad column holds them.
    ExprRef q = umod(lane, 4);
    groups = v->elements / 2;
    groupElems = 2;
    threadFirst = [](ExprRef j) { return mul(j, i32(2)); };
    sliceFirst = [&, q](ExprRef j) { return add(mul(j, i32(8)), mul(q, i32(2))); };
    storeGuard = bin(Op::And, bin(Op::Eq, udiv(lane, 4), i32(0)),
                     bin(Op::Eq, umod(var(m_p, m_role.warp), 4), i32(0)));
    break;
  }
  default:
    unsupported("global loads and stores support thread, warp and wgmma row/column vectors, not " +
                std::string(toString(v->layout.kind)) + " fragments");
    return;
  }
  if (shape.size() == 1 && groups * groupElems != v->elements) {
    unsupported("the register tile's layout does not cover the global slice");
    return;
  }
  // A run: elements adjacent both in the thread's registers and in memory.
  std::int64_t runElems = contiguous ? groupElems : 1;
  std::int64_t runsPerGroup = groupElems / runElems;
  std::int64_t runBytes = runElems * eb;
  if (groups > 1 || runsPerGroup > 1)
    align = std::min<std::int64_t>(align, runBytes);
  // The widest power-of-two access (at most .v4.b32) that the run's size and start allow.
  std::int64_t vec = 16;
  while (vec > 1 && (vec > runBytes || vec > align || runBytes % vec != 0))
    vec /= 2;
  if (vec < 4) {
    unsupported("global accesses narrower than 4 bytes per instruction are not lowered (" +
                std::string(contiguous ? "" : "strided slice, ") + std::to_string(eb) +
                "-byte elements)");
    return;
  }
  std::int64_t regsPerInstr = vec / 4;
  std::int64_t perRun = runBytes / vec;
  std::string width = regsPerInstr == 4 ? ".v4" : regsPerInstr == 2 ? ".v2" : "";
  auto body = [&] {
    repeat("j", groups, [&](ExprRef j) {
      for (std::int64_t r = 0; r < runsPerGroup; ++r) {
        repeat("q", perRun, [&](ExprRef q) {
          // Element (within the slice) and register of this instruction's first element.
          ExprRef inRun = add(i32(r * runElems), mul(q, i32(vec / eb)));
          ExprRef threadElem = add(threadFirst(j), inRun);
          ExprRef sliceElem = add(sliceFirst(j), inRun);
          ExprRef firstReg = udiv(mul(add(v->offset, threadElem), i32(eb)), 4);
          std::vector<ExprRef> rel;
          if (!shape.empty())
            rel.push_back(sliceElem);
          bool f32Regs = m_p.vars[v->var].ty == Ty::F32;
          auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
            Binding b;
            if (slot.isOperand && slot.facet == "regs") {
              b.output = load;
              for (std::int64_t k = 0; k < regsPerInstr; ++k)
                b.operands.push_back(regOperand(*v, add(firstReg, i32(k)), load ? '=' : 0));
              // f32 fragments move as raw 32-bit registers: 'f' operands of a .b32 access.
              for (AsmOperand& a : b.operands)
                a.constraint = f32Regs ? 'f' : 'r';
              return b;
            }
            if (slot.isOperand && slot.facet == "addr") {
              AsmOperand a;
              a.constraint = 'l';
              a.value = globalAddress(g, rel);
              b.operands.push_back(a);
              return b;
            }
            return defaultBinding(op, slot);
          };
          std::string w = width;
          emitTemplate(op, bind, {}, {}, {},
                       [w](std::string t) { return replaceAll(t, ".v4", w); });
        });
      }
    });
  };
  if (!load && storeGuard)
    ifThen(storeGuard, body);
  else
    body();
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

void Lowerer::opStShared(const sema::OpInfo& op, const ir::Stmt& s) {
  Slice dst = slice(s.operands[0], op.operands[0]);
  auto v = view(s.operands[1], op.operands[1]);
  if (!v)
    return;
  const sema::BufferInfo& db = m_model.buffers[dst.buffer];
  std::int64_t eb = elemBytes(db.dtype);
  std::vector<std::int64_t> shape = dst.shape();
  // Stores `regs` registers of the thread (from register `firstReg`) at `at` in the slice: one
  // run of 4 * regs contiguous bytes, which a swizzle keeps contiguous inside its 16-byte chunk.
  auto emitRun = [&](ExprRef firstReg, std::int64_t regs, std::vector<ExprRef> at) {
    ExprRef off = swizzledOffset(dst, at);
    auto bind = [&](const reg::TemplateSlot& slot) -> std::optional<Binding> {
      if (slot.isOperand && slot.facet == "regs")
        return viewRegs(*v, firstReg, regs, 0);
      if (slot.isOperand && slot.facet == "addr")
        return single(smemAddress(off));
      return defaultBinding(op, slot);
    };
    std::string w = regs == 4 ? ".v4" : regs == 2 ? ".v2" : "";
    emitTemplate(op, bind, {}, {}, {}, [w](std::string t) { return replaceAll(t, ".v4", w); });
  };
  if (elemBytes(v->dtype) != eb || (eb != 2 && eb != 4)) {
    unsupported("st.shared lowering stores 16- and 32-bit elements without conversion");
    return;
  }
  std::int64_t perRun = 16 / eb; // elements of one 16-byte st.shared.v4.b32
  if (v->layout.kind == Layout::TmemRows) {
    // tcgen05.ld 32x32b: lane l holds row l of the [32, C] slice, its C columns in order.
    if (shape.size() != 2 || shape[0] != 32 || v->elements % perRun != 0) {
      unsupported("st.shared of a tcgen05.ld fragment writes a [32, C] slice, C a multiple of " +
                  std::to_string(perRun));
      return;
    }
    ExprRef lane = var(m_p, m_role.lane);
    repeat("c", v->elements / perRun, [&](ExprRef c) {
      emitRun(udiv(mul(c, i32(16)), 4), 4, {lane, mul(c, i32(perRun))});
    });
    return;
  }
  if ((v->layout.kind == Layout::Thread || v->layout.kind == Layout::Replicated) &&
      shape.size() == 1 && eb == 4) {
    std::int64_t n = v->elements;
    repeat("j", n / 4, [&](ExprRef j) { emitRun(mul(j, i32(4)), 4, {mul(j, i32(4))}); });
    for (std::int64_t r = n / 4 * 4; r < n; ++r)
      emitRun(i32(r), 1, {i32(r)});
    return;
  }
  unsupported("st.shared lowering stores tcgen05.ld fragments ([32, C] slices) and 1-D thread "
              "vectors of 32-bit elements");
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

} // namespace cake::lower::detail
