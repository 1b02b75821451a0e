// The verifier's driver: unroll the roles, run every analysis, collect their data.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Verify/Verifier.h"

#include "Analyses.h"

#include "cake/Sema/RuntimeBound.h"

#include <algorithm>

namespace cake::verify {

std::uint32_t Trace::intern(std::string_view text) {
  auto it = m_index.find(text);
  if (it != m_index.end())
    return it->second;
  std::uint32_t index = add(std::string(text));
  m_index.emplace(std::string(text), index);
  return index;
}

std::uint32_t Trace::add(std::string text) {
  m_texts.push_back(std::move(text));
  return static_cast<std::uint32_t>(m_texts.size() - 1);
}

std::string_view toString(TraceEvent::Kind kind) {
  switch (kind) {
  case TraceEvent::Kind::Issue:
    return "issue";
  case TraceEvent::Kind::Arrive:
    return "arrive";
  case TraceEvent::Kind::ExpectTx:
    return "expect_tx";
  case TraceEvent::Kind::CompleteTx:
    return "complete_tx";
  case TraceEvent::Kind::Commit:
    return "commit";
  case TraceEvent::Kind::Wait:
    return "wait";
  case TraceEvent::Kind::Sync:
    return "sync";
  case TraceEvent::Kind::PhaseDone:
    return "phase_done";
  }
  return "?";
}

VerifyResult verify(const ir::Module& module, const sema::KernelModel& model,
                    const reg::Registry& registry, const RuleSet& rules, DiagnosticEngine& diags,
                    const VerifyOptions& options) {
  VerifyResult result;
  if (!module.kernel)
    return result;
  result.ran = true;
  detail::Reporter reporter(rules, diags, module.sourceMap);
  // Run-time loop ranges: the first simulation (whose trace `cake trace` shows and the cost
  // model re-times) runs the tile with the mean trip count; persistent grids start at CTA 0.
  const std::int64_t primary = model.grid && !model.grid->persistent ? sema::primaryTile(model) : 0;
  detail::Program program =
      detail::unroll(module, model, options.maxSteps, options.tileCap, primary);
  result.ctas = program.ctas;
  result.tilesPerCta = program.tilesPerCta;
  result.tilesAnalysed = program.tilesAnalysed;
  result.boundReached = program.boundReached;
  detail::Context ctx{module, model, registry, rules, reporter, program, result, {}};
  detail::checkCoverage(ctx);
  detail::checkRequirements(ctx);
  detail::checkResources(ctx);
  detail::checkPatterns(ctx);
  detail::checkMmaDescriptors(ctx);
  detail::checkUsage(ctx);
  detail::checkTmemLanes(ctx);
  detail::checkInstanceWrites(ctx);
  if (program.boundReached) {
    reporter.report(VerifyId::AnalysisBound, module.sourceMap.range(module.kernel->name.id),
                    "analysis bound reached: the roles' programs unroll to more than " +
                        std::to_string(options.maxSteps) +
                        " operation executions; protocol totals are not judged, only the "
                        "executions analysed");
  } else {
    detail::checkTripCounts(ctx);
    detail::checkTileOwnership(ctx);
    detail::checkProtocol(ctx);
  }
  detail::simulate(ctx);
  detail::checkCluster(ctx);
  detail::checkAsync(ctx);
  detail::checkMasks(ctx);
  detail::checkPerformance(ctx);
  ctx.attachConsequences();
  // The protocol, hazard, async and mask analyses again for the CTA whose first tile is `tile`
  // with the scalar values `binding` (empty: the checked ones); false when its unrolled
  // programs reach the analysis bound (nothing simulated).
  auto simulateAt = [&](std::int64_t tile, std::span<const std::int64_t> binding) {
    detail::Program other =
        detail::unroll(module, model, options.maxSteps, options.tileCap, tile, binding);
    if (other.boundReached)
      return false;
    VerifyResult scratch;
    detail::Context c2{module,   model, registry, rules,
                       reporter, other, scratch,  ctx.brokenBarriers};
    detail::checkProtocol(c2);
    detail::simulate(c2);
    detail::checkAsync(c2);
    detail::checkMasks(c2);
    c2.attachConsequences();
    result.deadlock |= scratch.deadlock;
    return true;
  };
  // Run-time loop ranges: the protocol is simulated again at the other representative tiles
  // (first, last, fewest and most iterations; docs/ir.md). Findings repeat only when new (the
  // reporter drops a code already reported at the same place); the trace stays the first
  // tile's.
  if (model.grid && !program.boundReached) {
    std::vector<std::int64_t> tiles = sema::representativeTiles(model);
    if (model.grid->persistent && sema::hasRuntimeBounds(model))
      tiles = {program.ctas - 1}; // the last CTA's tiles (CTA 0's were simulated)
    // A tile whose run-time loops run the same trip counts as one already simulated repeats
    // its protocol exactly (only addresses differ): simulated once.
    auto tripsAt = [&](std::int64_t tile) {
      std::vector<std::int64_t> out;
      std::vector<std::int64_t> c = sema::tileCoords(*model.grid, tile);
      for (const sema::LoopInfo& l : model.loops)
        if (l.runtime) {
          auto r = sema::loopRange(l, model, c);
          out.push_back(r ? r->second - r->first : -1);
        }
      return out;
    };
    std::vector<std::vector<std::int64_t>> seen;
    if (!model.grid->persistent)
      seen.push_back(tripsAt(primary));
    for (std::int64_t tile : tiles) {
      if (tile == primary)
        continue;
      if (!model.grid->persistent) {
        std::vector<std::int64_t> trips = tripsAt(tile);
        if (std::find(seen.begin(), seen.end(), trips) != seen.end())
          continue;
        seen.push_back(std::move(trips));
      }
      if (!simulateAt(tile, {}))
        break;
      result.tilesSimulated.push_back(tile);
    }
  }
  // Run-time scalar parameters (docs/ir.md "Run-time scalar parameters"): the protocol, the
  // hazards and the masks again at each sampled value of the launch contract (range ends, a
  // partial last block of every divisor), at the representative tiles of that value; every
  // finding these simulations add names the value.
  if (model.grid && !program.boundReached && !model.scalars.empty()) {
    const std::vector<std::int64_t> bound = model.scalarValues();
    for (const std::vector<std::int64_t>& binding : sema::scalarSamples(model)) {
      std::string text;
      SourceRange decl;
      for (std::size_t k = 0; k < binding.size(); ++k)
        if (binding[k] != bound[k]) {
          text += (text.empty() ? "" : ", ") + model.scalars[k].name + " = " +
                  std::to_string(binding[k]);
          decl = reporter.range(model.scalars[k].decl->name.id);
        }
      reporter.setBinding(text, decl);
      // Tiles are told apart by their run-time ranges, not only their trip counts: the split
      // after the first runs as many blocks, but later ones (its mask sees other keys).
      auto tripsAt = [&](std::int64_t tile) {
        std::vector<std::int64_t> out;
        std::vector<std::int64_t> c = sema::tileCoords(*model.grid, tile);
        for (const sema::LoopInfo& l : model.loops)
          if (l.runtime) {
            auto r = sema::loopRange(l, model, c, binding);
            out.push_back(r ? r->first : -1);
            out.push_back(r ? r->second : -1);
          }
        return out;
      };
      // The representative tiles of this value: the first and the last tile, and per run-time
      // loop the tiles with the fewest and the most iterations and the last tile that runs any
      // (a split-KV kernel's last non-empty split holds the partial block).
      std::vector<std::int64_t> tiles{0, model.grid->tileCount() - 1, primary};
      for (const sema::LoopInfo& l : model.loops) {
        if (!l.runtime)
          continue;
        std::vector<std::int64_t> trips =
            sema::tripCounts(l, model, std::int64_t(1) << 16, binding);
        if (trips.empty())
          continue;
        auto [mn, mx] = std::minmax_element(trips.begin(), trips.end());
        tiles.push_back(mn - trips.begin());
        tiles.push_back(mx - trips.begin());
        for (std::size_t t = trips.size(); t-- > 0;)
          if (trips[t] > 0) {
            tiles.push_back(std::int64_t(t));
            break;
          }
      }
      std::sort(tiles.begin(), tiles.end());
      tiles.erase(std::unique(tiles.begin(), tiles.end()), tiles.end());
      if (model.grid->persistent)
        tiles = {0, program.ctas - 1};
      std::vector<std::vector<std::int64_t>> seen;
      bool stop = false;
      for (std::int64_t tile : tiles) {
        if (!model.grid->persistent) {
          std::vector<std::int64_t> trips = tripsAt(tile);
          if (std::find(seen.begin(), seen.end(), trips) != seen.end())
            continue;
          seen.push_back(std::move(trips));
        }
        if (!simulateAt(tile, binding)) {
          stop = true;
          break;
        }
      }
      result.scalarBindingsSimulated.push_back(binding);
      if (stop)
        break;
    }
    reporter.setBinding({}, {});
  }
  result.analyses = {"coverage",         "resources", "layout",           "usage",
                     "barrier-protocol", "hazards",   "async-completion", "bank-conflicts",
                     "coalescing"};
  return result;
}

} // namespace cake::verify
