// Type checker, run-time loop ranges: `lo..hi` over constants and the coordinates of the
// enclosing tile loop (a causal key loop `0..(t.x + 1) * BQ / BKV`), with the trip count of
// every tile computed once here for the verifier, the interpreter and the cost model.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "SemaContext.h"

#include "cake/IR/Printer.h"
#include "cake/Sema/RuntimeBound.h"

#include <cmath>
#include <functional>

namespace cake::sema::detail {

namespace {
/// Tiles enumerated exactly; larger grids use the bounds' intervals.
constexpr std::int64_t kMaxEnumeratedTiles = std::int64_t(1) << 20;

std::string coordText(const std::vector<std::int64_t>& c) {
  std::string out = "(";
  for (std::size_t i = 0; i < c.size(); ++i)
    out += (i ? ", " : "") + std::to_string(c[i]);
  return out + ")";
}
} // namespace

bool Checker::checkRuntimeRange(const Expr& range, const StmtCtx& ctx, LoopInfo& loop, bool& ok) {
  const LoopInfo* tile = nullptr;
  for (std::size_t l : ctx.loops)
    if (m_model.loops[l].overTiles)
      tile = &m_model.loops[l];
  bool mentionsTile = false, mentionsScalar = false;
  const Expr* bad = nullptr;
  std::function<void(const Expr&)> scan = [&](const Expr& e) {
    if (tile && e.kind == ExprKind::Member && e.children[0]->kind == ExprKind::Name &&
        e.children[0]->text() == tile->var) {
      mentionsTile = true;
      return;
    }
    if (e.kind == ExprKind::Unary || e.kind == ExprKind::Binary) {
      for (const auto& c : e.children)
        scan(*c);
      return;
    }
    if (e.kind == ExprKind::Name && m_model.scalar(e.text())) {
      mentionsScalar = true;
      return;
    }
    if (e.kind == ExprKind::Int ||
        (e.kind == ExprKind::Name && m_consts.count(std::string(e.text()))))
      return;
    if (!bad)
      bad = &e;
  };
  scan(*range.children[0]);
  scan(*range.children[1]);
  if (!mentionsTile && !mentionsScalar)
    return false;
  if (bad) {
    std::string allowed =
        tile ? "constants and the coordinates of tile '" + tile->var +
                   "' (" + tile->var + ".x, " + tile->var + ".y, " + tile->var +
                   ".z), and run-time scalar parameters"
             : std::string("constants and run-time scalar parameters");
    report(DiagId::SemLoopBounds, bad->id,
           "'" + print(*bad) + "' is not a constant or a tile coordinate: a run-time loop bound "
           "may use only " + allowed);
    ok = false;
    return true;
  }
  IntResult lo = intExpr(*range.children[0], &ctx, false);
  IntResult hi = intExpr(*range.children[1], &ctx, false);
  if (!lo.ok || !hi.ok || !lo.range || !hi.range || !m_model.grid) {
    ok = false;
    return true;
  }
  loop.runtime = true;
  loop.beginExpr = range.children[0].get();
  loop.endExpr = range.children[1].get();
  loop.tileVar = tile ? tile->var : std::string();
  loop.begin = lo.range->lo;
  loop.end = hi.range->hi;
  std::int64_t tiles = m_model.grid->tileCount();
  if (tiles > kMaxEnumeratedTiles) {
    loop.minTrip = hi.range->lo - lo.range->hi;
    loop.maxTrip = hi.range->hi - lo.range->lo;
    loop.meanTrip = 0.5 * double(loop.minTrip + loop.maxTrip);
    loop.minTripTile = 0;
    loop.maxTripTile = tiles - 1;
    loop.meanTripTile = tiles / 2;
    if (loop.minTrip < 0) {
      report(DiagId::SemLoopBounds, range.id,
             "run-time loop range '" + print(range) + "' may be reversed (its trip count lies in " +
                 std::to_string(loop.minTrip) + ".." + std::to_string(loop.maxTrip) + " over " +
                 std::to_string(tiles) + " tiles); its start must not exceed its end on any tile");
      ok = false;
    }
    return true;
  }
  // Scalar parameters: the range must not be reversed at either end of any scalar's range
  // (the verifier simulates further values; docs/ir.md), checked on every tile.
  for (std::size_t k = 0; k < m_model.scalars.size() && mentionsScalar; ++k)
    for (std::int64_t v : {m_model.scalars[k].lo, m_model.scalars[k].hi}) {
      std::vector<std::int64_t> binding = m_model.scalarValues();
      binding[k] = v;
      std::vector<std::int64_t> t = tripCounts(loop, m_model, kMaxEnumeratedTiles, binding);
      for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i] >= 0)
          continue;
        std::vector<std::int64_t> c = tileCoords(*m_model.grid, std::int64_t(i));
        report(DiagId::SemLoopBounds, range.id,
               "run-time loop range '" + print(range) + "' is reversed with " +
                   scalarBindingText(m_model, binding) + " at tile " + coordText(c) +
                   "; an empty range (start = end) runs no iteration, a reversed one is an "
                   "error (min(), max() keep a bound inside the range)");
        ok = false;
        return true;
      }
    }
  // Every tile's trip count (compiled bounds: microseconds for thousands of tiles); the tree
  // evaluator only words the finding.
  std::vector<std::int64_t> trips = tripCounts(loop, m_model, kMaxEnumeratedTiles);
  for (std::int64_t t = 0; t < tiles; ++t) {
    if (!trips.empty() && trips[std::size_t(t)] >= 0)
      continue;
    std::vector<std::int64_t> c = tileCoords(*m_model.grid, t);
    auto b = evalTileExpr(*loop.beginExpr, m_model, loop.tileVar, c);
    auto e = evalTileExpr(*loop.endExpr, m_model, loop.tileVar, c);
    if (!b || !e) {
      if (!trips.empty())
        continue;
      report(DiagId::SemArithmetic, range.id,
             "run-time loop range '" + print(range) + "' cannot be evaluated at tile " +
                 coordText(c) + " (overflow or division by zero)");
    } else {
      if (*e >= *b)
        continue;
      report(DiagId::SemLoopBounds, range.id,
             "run-time loop range '" + print(range) + "' is reversed at tile " + coordText(c) +
                 " (" + std::to_string(*b) + ".." + std::to_string(*e) +
                 "); an empty range (start = end) runs no iteration, a reversed one is an error");
    }
    ok = false;
    return true;
  }
  if (trips.size() != std::size_t(tiles)) {
    ok = false; // the compiled and the tree evaluator disagree: nothing to record
    return true;
  }
  double sum = 0;
  for (std::int64_t t = 0; t < tiles; ++t) {
    std::int64_t trip = trips[std::size_t(t)];
    if (t == 0 || trip < loop.minTrip) {
      loop.minTrip = trip;
      loop.minTripTile = t;
    }
    if (t == 0 || trip > loop.maxTrip) {
      loop.maxTrip = trip;
      loop.maxTripTile = t;
    }
    sum += double(trip);
  }
  loop.meanTrip = sum / double(std::max<std::int64_t>(1, tiles));
  double best = -1;
  for (std::int64_t t = 0; t < tiles; ++t) {
    double d = std::abs(double(trips[std::size_t(t)]) - loop.meanTrip);
    if (best < 0 || d < best) {
      best = d;
      loop.meanTripTile = t;
    }
  }
  return true;
}

} // namespace cake::sema::detail
