// Shared-memory layouts the hardware assumes against the layout the buffer holds: the
// descriptor lowering derives for a matrix instruction (sema::deriveMmaSmemLayout) must read
// every element of an operand where the buffer's writers put it, and a TMA box, which moves
// contiguous rows from its shared-memory start address, must fill a dense view.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Analyses.h"
#include "cake/Sema/MmaLayout.h"

#include <optional>

namespace cake::verify::detail {

namespace {

/// Operands the primitive's lowering passes as matrix descriptors (`{a.desc}` in its template).
std::vector<bool> descriptorOperands(const reg::Primitive& p) {
  std::vector<bool> out(p.operands.size(), false);
  for (const reg::TemplateSlot& slot : p.lowering.templateSlots)
    if (slot.isOperand && slot.facet == "desc" && slot.index < out.size())
      out[slot.index] = true;
  return out;
}

std::string bytes(std::int64_t n) { return std::to_string(n) + " B"; }

/// The first operation other than `skip` that writes buffer `buffer`, with the operand index.
std::pair<const sema::OpInfo*, std::size_t> firstWriter(const sema::KernelModel& m,
                                                         std::size_t buffer,
                                                         const sema::OpInfo* skip) {
  for (const sema::OpInfo& op : m.ops) {
    if (&op == skip)
      continue;
    for (const reg::EffectDef& e : op.primitive->effects) {
      if (e.kind != reg::EffectKind::Write || !e.operandIndex ||
          *e.operandIndex >= op.operands.size())
        continue;
      const sema::OperandInfo& o = op.operands[*e.operandIndex];
      if (o.entity == sema::EntityKind::Buffer && o.facts.isBuffer && o.entityIndex == buffer)
        return {&op, *e.operandIndex};
    }
  }
  return {nullptr, 0};
}

} // namespace

namespace {

/// A byte-addressed shared-memory operand of an operation as its buffer holds it.
struct SmemView {
  const sema::BufferInfo* buffer = nullptr;
  std::int64_t elementBytes = 0;
  std::vector<std::int64_t> strides; ///< bytes, one per dimension of the operand's shape
};

/// Operand `i` of `op` as a view of its shared-memory buffer, or nothing when it is not a
/// shared-memory buffer of whole-byte elements whose strides are known.
std::optional<SmemView> smemView(const sema::KernelModel& m, const sema::OpInfo& op,
                                 std::size_t i) {
  if (i >= op.operands.size() || i >= op.stmt->operands.size())
    return std::nullopt;
  const sema::OperandInfo& info = op.operands[i];
  const reg::OperandFacts& f = info.facts;
  int bits = ir::info(f.dtype).bits;
  if (!f.present || !f.isBuffer || f.space != ir::Space::Smem || f.shape.empty() || bits % 8 != 0)
    return std::nullopt;
  SmemView v;
  v.buffer = &m.buffers[info.entityIndex];
  v.elementBytes = bits / 8;
  v.strides = sema::operandStrides(*v.buffer, op.stmt->operands[i], info.stageIndexed);
  if (v.strides.size() != f.shape.size())
    return std::nullopt;
  return v;
}

/// TMA boxes against their shared-memory views: the box is moved as contiguous rows of its
/// inner extent starting at the view's first byte, so the view must be dense in its buffer.
void checkTmaViews(Context& ctx) {
  const sema::KernelModel& m = ctx.model;
  for (const sema::OpInfo& op : m.ops) {
    const reg::OperandFacts* box = nullptr;
    for (const sema::OperandInfo& o : op.operands)
      if (o.entity == sema::EntityKind::TensorMap && o.facts.present)
        box = &o.facts;
    if (!box)
      continue;
    for (std::size_t i = 0; i < op.operands.size(); ++i) {
      std::optional<SmemView> view = smemView(m, op, i);
      if (!view)
        continue;
      const reg::OperandFacts& f = op.operands[i].facts;
      const sema::BufferInfo& b = *view->buffer;
      const std::vector<std::int64_t>& strides = view->strides;
      int bits = int(view->elementBytes * 8);
      // The first dimension (innermost outwards) whose stride is not the dense one.
      std::int64_t dense = bits / 8;
      std::size_t bad = f.shape.size();
      for (std::size_t d = f.shape.size(); d-- > 0;) {
        if (f.shape[d] > 1 && strides[d] != dense) {
          bad = d;
          break;
        }
        dense *= f.shape[d];
      }
      if (bad == f.shape.size())
        continue;
      std::int64_t inner = 1;
      for (std::size_t d = bad + 1; d < f.shape.size(); ++d)
        inner *= f.shape[d];
      std::string what = op.primitive->name;
      std::string step = "[";
      for (std::size_t k = 0; k < f.shape.size(); ++k)
        step += std::string(k ? ", " : "") + (k == bad ? "1" : "0");
      step += "]";
      Diagnostic* d = ctx.reporter.report(
          VerifyId::TmaViewLayout, ctx.operandRange(op, i),
          "'" + what + "' moves its box as contiguous rows from the first byte of '" +
              b.name + "' here: dimension " + std::to_string(bad) + " of the box steps " +
              bytes(dense) + " (" + std::to_string(inner) + " elements of " +
              bytes(bits / 8) + "), but the view's dimension " + std::to_string(bad) +
              " steps " + bytes(strides[bad]) + " in '" + b.name +
              "' (rows of " + std::to_string(b.shape.back() * (bits / 8)) +
              " bytes): the box's element " + step + " lands at byte " + std::to_string(dense) +
              " of the view, where the view's element " + step + " is at byte " +
              std::to_string(strides[bad]));
      if (!d)
        continue;
      addNote(d, ctx.declRange(b.decl),
              "'" + b.name + "' declared here: " + std::string(ir::toString(b.dtype)) +
                  " rows of " + std::to_string(b.shape.back() * (bits / 8)) + " bytes");
      setFix(d, "move whole rows (a box as wide as the buffer's row), or give the buffer one "
                "dense block per box (e.g. [blocks, rows, box columns]) and index the block");
    }
  }
}

} // namespace

void checkMmaDescriptors(Context& ctx) {
  checkTmaViews(ctx);
  const sema::KernelModel& m = ctx.model;
  for (const sema::OpInfo& op : m.ops) {
    std::vector<bool> desc = descriptorOperands(*op.primitive);
    for (std::size_t i = 0; i < op.operands.size() && i < desc.size(); ++i) {
      const reg::OperandFacts& f = op.operands[i].facts;
      // Swizzled operands are hw-mma-swizzle-span's: their rows must be exactly one span.
      if (!desc[i] || f.swizzle != "none" || f.shape.size() != 2)
        continue;
      std::optional<SmemView> view = smemView(m, op, i);
      if (!view)
        continue;
      const sema::BufferInfo& b = *view->buffer;
      const std::vector<std::int64_t>& strides = view->strides;
      int bits = int(view->elementBytes * 8);
      const std::string& name = op.primitive->operands[i].name;
      bool mn = false;
      if (auto a = op.primitive->attributeIndex(name + "_major"); a && *a < op.attributes.size())
        mn = op.attributes[*a].kind == reg::DefValue::Kind::Symbol && op.attributes[*a].sym == "mn";
      std::int64_t eb = bits / 8;
      sema::MmaSmemLayout l = sema::deriveMmaSmemLayout(
          f.swizzle, mn, eb, sema::mmaInstructionK(f.dtype), f.shape[0], strides[0]);
      // Every element, until the first one the descriptors read elsewhere than the buffer
      // holds it (the operand is at most a few hundred rows by a few hundred columns).
      std::int64_t row = -1, col = -1, held = 0, read = 0;
      for (std::int64_t r = 0; r < f.shape[0] && row < 0; ++r)
        for (std::int64_t c = 0; c < f.shape[1]; ++c) {
          std::int64_t want = r * strides[0] + c * strides[1], got = l.readOffset(r, c);
          if (want != got) {
            row = r, col = c, held = want, read = got;
            break;
          }
        }
      if (row < 0)
        continue;
      std::string major = mn ? "MN-major [K, MN]" : "K-major [MN, K]";
      std::string pitch = mn ? "8 K rows" : "8 rows";
      Diagnostic* d = ctx.reporter.report(
          VerifyId::MmaDescriptorLayout, ctx.operandRange(op, i),
          "'" + op.primitive->name + "' reads '" + name + "' (" + b.name + ", " +
              std::string(ir::toString(f.dtype)) + "[" + std::to_string(f.shape[0]) + ", " +
              std::to_string(f.shape[1]) + "], " + major +
              ", swizzle=none) through descriptors of 16-byte-wide core matrices of " + pitch +
              " 16 bytes apart (LBO " + bytes(l.lbo) + ", SBO " + bytes(l.sbo) + ", " +
              bytes(l.kStepBytes) + " per instruction), but '" + b.name +
              "' holds the operand in plain rows " + bytes(strides[0]) + " apart (row bytes " +
              std::to_string(f.shape[1] * eb) + ", elements " + bytes(strides[1]) +
              " apart), as TMA and cp.async write it: element [" + std::to_string(row) + ", " +
              std::to_string(col) + "] is at byte " + std::to_string(held) +
              " of the operand, the descriptor reads byte " + std::to_string(read));
      if (!d)
        continue;
      addNote(d, ctx.declRange(b.decl),
              "'" + b.name + "' declared here: " + std::string(ir::toString(b.dtype)) +
                  " rows of " + std::to_string(b.shape.back() * eb) +
                  " bytes, swizzle=none (row-major)");
      if (auto [w, wi] = firstWriter(m, op.operands[i].entityIndex, &op); w)
        addNote(d, ctx.operandRange(*w, wi),
                "'" + w->primitive->name + "' writes '" + b.name + "' here, row by row (" +
                    reg::describe(w->operands[wi].facts) + ")");
      setFix(d, "give the buffer and its tensor map swizzle=128B with rows of exactly 128 bytes "
                "(64 bf16), the layout the descriptor walks in swizzle atoms; without a swizzle "
                "a descriptor can only read rows of 16 bytes (8 rows of a core matrix are 16 "
                "bytes apart)");
    }
  }
}

} // namespace cake::verify::detail
