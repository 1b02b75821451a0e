// Run-time loop bounds evaluated at concrete tile coordinates (shared by the verifier's
// simulation, the CPU interpreter and the cost model, so they agree on every trip count).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Sema/RuntimeBound.h"

#include <algorithm>

namespace cake::sema {

std::optional<std::int64_t> evalTileExpr(const ir::Expr& e, const KernelModel& model,
                                         std::string_view tileVar,
                                         std::span<const std::int64_t> coords) {
  switch (e.kind) {
  case ir::ExprKind::Int:
    return e.intValue;
  case ir::ExprKind::Name:
    for (const ConstInfo& c : model.consts)
      if (c.name == e.text())
        return c.value;
    return std::nullopt;
  case ir::ExprKind::Member: {
    const ir::Expr& base = *e.children[0];
    if (base.kind != ir::ExprKind::Name || base.text() != tileVar)
      return std::nullopt;
    static constexpr std::string_view dims[] = {"x", "y", "z"};
    for (std::size_t i = 0; i < 3; ++i)
      if (e.text() == dims[i])
        return i < coords.size() ? std::optional<std::int64_t>(coords[i]) : std::nullopt;
    return std::nullopt;
  }
  case ir::ExprKind::Unary: {
    auto a = evalTileExpr(*e.children[0], model, tileVar, coords);
    return a ? ir::fold(e.unaryOp, *a) : std::nullopt;
  }
  case ir::ExprKind::Binary: {
    auto a = evalTileExpr(*e.children[0], model, tileVar, coords);
    auto b = evalTileExpr(*e.children[1], model, tileVar, coords);
    return a && b ? ir::fold(e.binaryOp, *a, *b) : std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

std::vector<std::int64_t> tileCoords(const GridInfo& grid, std::int64_t linear) {
  std::vector<std::int64_t> coords;
  for (std::int64_t extent : grid.tiles) {
    coords.push_back(extent > 0 ? linear % extent : 0);
    linear = extent > 0 ? linear / extent : 0;
  }
  return coords;
}

std::optional<std::pair<std::int64_t, std::int64_t>>
loopRange(const LoopInfo& loop, const KernelModel& model, std::span<const std::int64_t> coords) {
  if (!loop.runtime)
    return std::pair{loop.begin, loop.end};
  auto lo = evalTileExpr(*loop.beginExpr, model, loop.tileVar, coords);
  auto hi = evalTileExpr(*loop.endExpr, model, loop.tileVar, coords);
  if (!lo || !hi)
    return std::nullopt;
  return std::pair{*lo, *hi};
}

std::int64_t primaryTile(const KernelModel& model) {
  for (const LoopInfo& l : model.loops)
    if (l.runtime)
      return l.meanTripTile;
  return 0;
}

bool hasRuntimeBounds(const KernelModel& model) {
  return std::any_of(model.loops.begin(), model.loops.end(),
                     [](const LoopInfo& l) { return l.runtime; });
}

std::vector<std::int64_t> representativeTiles(const KernelModel& model) {
  std::vector<std::int64_t> out{0};
  if (!model.grid || !hasRuntimeBounds(model))
    return out;
  out.push_back(model.grid->tileCount() - 1);
  for (const LoopInfo& l : model.loops)
    if (l.runtime) {
      out.push_back(l.minTripTile);
      out.push_back(l.maxTripTile);
      out.push_back(l.meanTripTile);
    }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

} // namespace cake::sema
