// Tensor-memory lane access: relates the lanes every warp-issued tcgen05.ld/st addresses to the
// lane quarter of the hardware warp that issues it.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Analyses.h"

namespace cake::verify::detail {

void checkTmemLanes(Context& ctx) {
  for (const RoleStream& stream : ctx.program.roles) {
    const sema::RoleInfo& role = ctx.model.roles[stream.role];
    for (const Step& s : stream.steps) {
      for (std::size_t i = 0; i < s.operands.size(); ++i) {
        const StepOperand& so = s.operands[i];
        if (so.warpLanes.empty() || !so.footprint)
          continue;
        for (std::size_t w = 0; w < so.warpLanes.size(); ++w) {
          // A warp reaches lanes 32 * (hardware warp % 4) .. + 31 only (PTX ISA, tcgen05).
          std::int64_t hw = role.warpBegin + std::int64_t(w);
          std::int64_t lo = 32 * (hw % 4), hi = lo + 31;
          sema::Interval lanes = so.warpLanes[w];
          if (lanes.lo >= lo && lanes.hi <= hi)
            continue;
          const sema::OpInfo& op = ctx.op(s);
          const sema::BufferInfo& b = ctx.model.buffers[so.footprint->buffer];
          Diagnostic* d = ctx.reporter.report(
              VerifyId::TmemLaneAccess, ctx.operandRange(op, i),
              "'" + op.primitive->name + "' by warp " + std::to_string(w) + " of '" +
                  role.name + "' (hardware warp " + std::to_string(hw) + ") addresses lanes " +
                  std::to_string(lanes.lo) + ".." + std::to_string(lanes.hi) +
                  " of tensor memory '" + b.name + "' (" + ctx.context(s) + "), but warp " +
                  std::to_string(hw) + " can access only lanes " + std::to_string(lo) + ".." +
                  std::to_string(hi) + " (32 * (" + std::to_string(hw) + " % 4))");
          addNote(d, ctx.declRange(role.decl),
                  "role '" + role.name + "' declared here: warps " +
                      std::to_string(role.warpBegin) + ".." + std::to_string(role.warpEnd));
          setFix(d, role.warpBegin % 4 != 0
                        ? "start the role at a multiple of 4 warps, or index the lanes with ((" +
                              std::to_string(role.warpBegin) + " + warp) % 4) * 32"
                        : "index the lanes with (warp % 4) * 32 +: 32 so that each warp reads "
                          "its own quarter");
          break;
        }
      }
    }
  }
}

} // namespace cake::verify::detail
