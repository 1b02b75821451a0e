// Cost model, tile order and L2 reuse: how many times HBM delivers the data the tiles in flight
// share (A row blocks, B column blocks) under the grid's raster order and group swizzle.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CostInternal.h"

#include "cake/Sema/RuntimeBound.h"

#include <algorithm>
#include <unordered_set>

namespace cake::cost::detail {

namespace {
/// Grids up to this many tiles are walked tile by tile (microseconds per thousand tiles).
constexpr std::int64_t kMaxWalkedTiles = std::int64_t(1) << 22;

void collectDims(const ir::Expr& e, std::string_view var, unsigned& dims) {
  if (e.kind == ir::ExprKind::Member && !e.children.empty() &&
      e.children[0]->kind == ir::ExprKind::Name && e.children[0]->text() == var) {
    std::string_view m = e.text();
    dims |= m == "x" ? 1u : m == "y" ? 2u : m == "z" ? 4u : 0u;
    return;
  }
  for (const ir::ExprPtr& c : e.children)
    if (c)
      collectDims(*c, var, dims);
}
} // namespace

unsigned tileDimsOf(const ir::Operand& o, std::string_view var) {
  unsigned dims = 0;
  for (const ir::Index& i : o.indices) {
    if (i.start)
      collectDims(*i.start, var, dims);
    if (i.size)
      collectDims(*i.size, var, dims);
  }
  return dims;
}

std::optional<double> orderMissFraction(const sema::GridInfo& g, unsigned dims,
                                        std::int64_t inFlight) {
  std::int64_t tiles = g.tileCount();
  if (tiles <= 0 || tiles > kMaxWalkedTiles)
    return std::nullopt;
  inFlight = std::clamp<std::int64_t>(inFlight, 1, tiles);
  std::int64_t misses = 0;
  std::unordered_set<std::int64_t> seen;
  for (std::int64_t w = 0; w < tiles; w += inFlight) {
    seen.clear();
    for (std::int64_t t = w; t < std::min(tiles, w + inFlight); ++t) {
      std::vector<std::int64_t> c = sema::tileCoords(g, t);
      // The projection onto `dims` as one key (mixed radix over the grid's extents).
      std::int64_t key = 0;
      for (std::size_t d = 0; d < c.size() && d < 3; ++d)
        if (dims & (1u << d))
          key = key * std::max<std::int64_t>(1, g.tiles[d]) + c[d];
      seen.insert(key);
    }
    misses += std::int64_t(seen.size());
  }
  return double(misses) / double(tiles);
}

} // namespace cake::cost::detail
