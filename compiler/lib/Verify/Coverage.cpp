// Effect coverage: the analyses see an operation only through its primitive's declared
// effects. An operand that is read or written without a matching effect, or a barrier operand
// without a barrier effect, would make them pass silently — that is reported instead.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Analyses.h"

#include <algorithm>
#include <set>

namespace cake::verify::detail {

void checkCoverage(Context& ctx) {
  std::set<const reg::Primitive*> seen;
  for (const sema::OpInfo& op : ctx.model.ops) {
    const reg::Primitive& p = *op.primitive;
    if (!seen.insert(&p).second)
      continue;
    for (std::size_t i = 0; i < p.operands.size(); ++i) {
      const reg::OperandDef& o = p.operands[i];
      bool read = false, write = false, barrier = false, sync = false;
      for (const reg::EffectDef& e : p.effects) {
        if (!e.operandIndex || *e.operandIndex != i)
          continue;
        read |= e.kind == reg::EffectKind::Read;
        // Allocation changes the buffer's state as far as the analyses are concerned.
        write |= e.kind == reg::EffectKind::Write || e.kind == reg::EffectKind::Alloc ||
                 e.kind == reg::EffectKind::Dealloc;
        sync |= e.kind == reg::EffectKind::Sync;
        barrier |= e.kind == reg::EffectKind::Init || e.kind == reg::EffectKind::Arrive ||
                   e.kind == reg::EffectKind::Wait || e.kind == reg::EffectKind::ExpectTx ||
                   e.kind == reg::EffectKind::CompleteTx || e.kind == reg::EffectKind::Commit;
      }
      std::string missing;
      if (o.kind == reg::OperandKind::Buffer || o.kind == reg::OperandKind::TensorMap) {
        bool wantRead = o.access == reg::Access::Read || o.access == reg::Access::ReadWrite;
        bool wantWrite = o.access == reg::Access::Write || o.access == reg::Access::ReadWrite;
        if (wantRead && !read)
          missing = "read effect";
        else if (wantWrite && !write)
          missing = "write effect";
        else if (o.access == reg::Access::None && o.kind == reg::OperandKind::Buffer && !read &&
                 !write && !std::any_of(p.effects.begin(), p.effects.end(), [&](const reg::EffectDef& e) {
                   return e.operandIndex && *e.operandIndex == i;
                 }))
          missing = "effect at all";
      } else if (o.kind == reg::OperandKind::MBarrier && !barrier) {
        missing = "barrier effect (init, arrive, expect_tx, complete_tx, wait or commit)";
      } else if (o.kind == reg::OperandKind::NBarrier && !sync) {
        missing = "sync effect";
      }
      if (missing.empty())
        continue;
      Diagnostic* d = ctx.reporter.report(
          VerifyId::EffectCoverage, ctx.opRange(op),
          "primitive '" + p.name + "' declares operand '" + o.name + "' (" +
              std::string(reg::toString(o.access)) + ") but defines no " + missing +
              " on it: the verifier cannot see what this operation does to it, so the kernel "
              "is not considered verified");
      addNote(d, o.range, "operand defined here");
    }
  }
}

} // namespace cake::verify::detail
