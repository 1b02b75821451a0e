// Per-role tile ownership (ping-pong consumers): roles whose tile loops take every S-th tile of
// the CTA's sequence must together own each tile exactly once, and each must move the shared
// pipeline past the stages of the tiles it does not own by exactly what the producer fills
// for them (CUTLASS's KernelTmaWarpSpecializedPingpong advances its consumer pipeline state by
// the other warpgroup's k-tile count). A wrong skip puts the consumer on a slot and phase the
// producer has not filled for it: reported at the `skip=`, before the simulation's deadlock.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Analyses.h"

#include "cake/IR/Printer.h"

#include <map>

namespace cake::verify::detail {

namespace {
/// One role's use of a pipeline inside its tile loop.
struct RolePipe {
  std::size_t tileLoop = SIZE_MAX;
  std::int64_t advance = 0; ///< stages per owned tile (constant loops)
  std::int64_t skip = 0;    ///< stages skipped per tile owned by another role
  std::size_t firstLoop = SIZE_MAX; ///< a pipeline loop of the role (for locations)
  std::size_t skipLoop = SIZE_MAX;  ///< the loop carrying skip= (or firstLoop)
  bool runtime = false;
};
} // namespace

void checkTileOwnership(Context& ctx) {
  const sema::KernelModel& m = ctx.model;
  if (!m.grid)
    return;
  bool strided = false;
  for (const sema::LoopInfo& l : m.loops)
    strided |= l.overTiles && l.tileStride > 1;
  if (!strided)
    return;
  // Per loop: the roles that execute it and its enclosing loops (from the operations inside).
  std::vector<std::set<std::string>> roles(m.loops.size());
  std::vector<std::vector<std::size_t>> outer(m.loops.size());
  std::vector<bool> seen(m.loops.size(), false);
  for (const sema::OpInfo& op : m.ops)
    for (std::size_t i = 0; i < op.loops.size(); ++i) {
      std::size_t l = op.loops[i];
      for (const std::string& r : op.roles)
        roles[l].insert(r);
      if (!seen[l])
        outer[l].assign(op.loops.begin(), op.loops.begin() + std::ptrdiff_t(i));
      seen[l] = true;
    }
  for (std::size_t pi = 0; pi < m.pipelines.size(); ++pi) {
    const sema::PipelineInfo& p = m.pipelines[pi];
    std::map<std::string, RolePipe> byRole;
    for (std::size_t l = 0; l < m.loops.size(); ++l) {
      const sema::LoopInfo& li = m.loops[l];
      if (li.pipeline != p.name || li.overTiles)
        continue;
      std::size_t tile = SIZE_MAX;
      std::int64_t times = 1;
      bool runtime = li.runtime;
      for (std::size_t o : outer[l]) {
        if (m.loops[o].overTiles)
          tile = o;
        else if (m.loops[o].runtime)
          runtime = true;
        else
          times *= m.loops[o].trip();
      }
      if (tile == SIZE_MAX)
        continue;
      for (const std::string& r : roles[l]) {
        RolePipe& rp = byRole[r];
        rp.tileLoop = tile;
        rp.advance += li.trip() * times;
        rp.skip += li.skip * times;
        rp.runtime |= runtime;
        if (rp.firstLoop == SIZE_MAX)
          rp.firstLoop = l;
        if (li.skip > 0 || rp.skipLoop == SIZE_MAX)
          rp.skipLoop = l;
      }
    }
    // The roles that work on every tile (the producer) fix the stages per tile.
    const std::pair<const std::string, RolePipe>* full = nullptr;
    for (const auto& entry : byRole)
      if (m.loops[entry.second.tileLoop].tileStride == 1 && !entry.second.runtime) {
        full = &entry;
        break;
      }
    bool broken = false;
    // Ownership: the strided roles of one stride must hold every offset exactly once.
    std::map<std::int64_t, std::map<std::int64_t, std::vector<std::string>>> offsets;
    for (const auto& [role, rp] : byRole) {
      const sema::LoopInfo& tl = m.loops[rp.tileLoop];
      if (tl.tileStride > 1)
        offsets[tl.tileStride][tl.tileOffset].push_back(role);
    }
    for (const auto& [stride, owners] : offsets) {
      for (std::int64_t o = 0; o < stride && !broken; ++o) {
        auto it = owners.find(o);
        if (it != owners.end() && it->second.size() == 1)
          continue;
        // Report at a strided role's tile loop: the first one (or the first duplicate).
        const std::string& at = it != owners.end() ? it->second[1] : owners.begin()->second[0];
        const sema::LoopInfo& tl = m.loops[byRole[at].tileLoop];
        const ir::Attribute* a = tl.stmt->attribute("offset");
        std::string msg =
            it == owners.end()
                ? "no role sharing pipeline '" + p.name + "' owns tiles j = " + std::to_string(o) +
                      " (mod " + std::to_string(stride) + ") of each CTA's sequence: " +
                      (full ? "'" + full->first + "' fills their stages and nobody consumes them"
                            : "their tiles are never computed")
                : "roles '" + it->second[0] + "' and '" + at + "' both own tiles j = " +
                      std::to_string(o) + " (mod " + std::to_string(stride) +
                      ") of each CTA's sequence: each tile is computed twice and each consumer "
                      "waits for stages filled for the other";
        Diagnostic* d = ctx.reporter.report(
            VerifyId::TileOwnership,
            ctx.reporter.range(a ? a->value->id : tl.stmt->block().loopRange->id), msg);
        if (d && it != owners.end())
          addNote(d, ctx.reporter.range(m.loops[byRole[it->second[0]].tileLoop].stmt->block().loopRange->id),
                  "'" + it->second[0] + "' takes the same tiles here");
        if (d)
          setFix(d, "give the " + std::to_string(stride) +
                        " roles offsets 0.." + std::to_string(stride - 1) + ", one each");
        broken = true;
      }
    }
    // Skips: each strided role moves past the other tiles' stages exactly.
    if (full && !broken)
      for (const auto& [role, rp] : byRole) {
        const sema::LoopInfo& tl = m.loops[rp.tileLoop];
        if (tl.tileStride <= 1 || rp.runtime || rp.skip == full->second.advance)
          continue;
        const sema::LoopInfo& at = m.loops[rp.skipLoop];
        const ir::Attribute* a = at.stmt->attribute("skip");
        Diagnostic* d = ctx.reporter.report(
            VerifyId::PipelineSkip,
            ctx.reporter.range(a ? a->value->id : at.stmt->block().loopRange->id),
            "role '" + role + "' owns one tile in " + std::to_string(tl.tileStride) +
                " and skips " + std::to_string(rp.skip) + " stage(s) of pipeline '" + p.name +
                "' for each tile it does not own, but '" + full->first + "' fills " +
                std::to_string(full->second.advance) +
                " per tile: on its next tile it waits on the wrong slot and phase (a stage "
                "another role consumes, or one never filled)");
        if (d) {
          addNote(d, ctx.reporter.range(m.loops[full->second.firstLoop].stmt->block().loopRange->id),
                  "'" + full->first + "' advances '" + p.name + "' here on every tile");
          setFix(d, "skip=" + std::to_string(full->second.advance) +
                        " (the stages the producer fills per tile)");
        }
        broken = true;
      }
    if (broken)
      for (std::size_t b = 0; b < m.barriers.size(); ++b)
        if (m.barriers[b].pipeline == p.name)
          ctx.brokenBarriers.insert(b);
  }
}

} // namespace cake::verify::detail
