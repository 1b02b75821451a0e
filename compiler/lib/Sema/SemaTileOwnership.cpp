// Type checker, per-role tile ownership: `for t in tiles stride=S offset=O` gives a role every
// S-th tile of its CTA's sequence (ping-pong consumers), `skip=N` on a pipeline loop inside it
// advances the pipeline past the stages of the tiles other roles own.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "SemaContext.h"

namespace cake::sema::detail {

void Checker::checkOwnershipAttribute(const Attribute& a, const StmtCtx& ctx, LoopInfo& loop) {
  const std::string& key = a.key.name;
  auto v = constInt(*a.value, "'" + key + "'", &ctx);
  if (!v)
    return;
  if (key == "stride" || key == "offset") {
    if (!loop.overTiles) {
      report(DiagId::SemAttributeType, a.key.id,
             "'" + key + "' divides the tiles among roles: it belongs on a 'for t in tiles' loop");
      return;
    }
    // A stride above the CTA's roles would leave tiles to nobody; 16 bounds the simulation.
    std::int64_t lo = key == "stride" ? 1 : 0;
    if (*v < lo || *v > 16) {
      report(DiagId::SemAttributeType, a.value->id,
             "'" + key + "' is " + std::to_string(*v) + "; it must be in [" + std::to_string(lo) +
                 ", 16]");
      return;
    }
    if (key == "stride" && *v > 1 && m_model.grid && !m_model.grid->persistent) {
      report(DiagId::SemAttributeType, a.value->id,
             "a tile stride shares a CTA's tiles among roles: it needs a persistent grid "
             "(schedule=persistent), where each CTA runs a sequence of tiles");
      return;
    }
    (key == "stride" ? loop.tileStride : loop.tileOffset) = *v;
    return;
  }
  // skip=
  const LoopInfo* tile = nullptr;
  for (std::size_t l : ctx.loops)
    if (m_model.loops[l].overTiles)
      tile = &m_model.loops[l];
  if (!tile || tile->tileStride <= 1) {
    report(DiagId::SemAttributeType, a.key.id,
           "'skip' advances a pipeline past the tiles other roles own: it needs an enclosing "
           "'for t in tiles stride=S' with S > 1");
    return;
  }
  if (*v < 0) {
    report(DiagId::SemAttributeType, a.value->id,
           "'skip' is " + std::to_string(*v) + "; it must not be negative");
    return;
  }
  loop.skip = *v;
}

} // namespace cake::sema::detail
