// Run-time loop bounds evaluated at concrete tile coordinates (shared by the verifier's
// simulation, the CPU interpreter and the cost model, so they agree on every trip count).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Sema/RuntimeBound.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <set>

namespace cake::sema {

namespace {
/// Index of scalar parameter `name` in model.scalars, or -1.
std::int64_t scalarIndex(const KernelModel& model, std::string_view name) {
  for (std::size_t i = 0; i < model.scalars.size(); ++i)
    if (model.scalars[i].name == name)
      return std::int64_t(i);
  return -1;
}
} // namespace

std::optional<std::int64_t> evalTileExpr(const ir::Expr& e, const KernelModel& model,
                                         std::string_view tileVar,
                                         std::span<const std::int64_t> coords,
                                         std::span<const std::int64_t> scalars) {
  switch (e.kind) {
  case ir::ExprKind::Int:
    return e.intValue;
  case ir::ExprKind::Name: {
    for (const ConstInfo& c : model.consts)
      if (c.name == e.text())
        return c.value;
    std::int64_t k = scalarIndex(model, e.text());
    if (k < 0)
      return std::nullopt;
    return std::size_t(k) < scalars.size() ? scalars[std::size_t(k)]
                                           : model.scalars[std::size_t(k)].value;
  }
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
    auto a = evalTileExpr(*e.children[0], model, tileVar, coords, scalars);
    return a ? ir::fold(e.unaryOp, *a) : std::nullopt;
  }
  case ir::ExprKind::Binary: {
    auto a = evalTileExpr(*e.children[0], model, tileVar, coords, scalars);
    auto b = evalTileExpr(*e.children[1], model, tileVar, coords, scalars);
    return a && b ? ir::fold(e.binaryOp, *a, *b) : std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

bool TileExprCode::emit(const ir::Expr& e, const KernelModel& model, std::string_view tileVar) {
  Ins ins;
  switch (e.kind) {
  case ir::ExprKind::Int:
    ins.value = e.intValue;
    break;
  case ir::ExprKind::Name: {
    auto c = std::find_if(model.consts.begin(), model.consts.end(),
                          [&](const ConstInfo& k) { return k.name == e.text(); });
    if (c != model.consts.end()) {
      ins.value = c->value;
      break;
    }
    std::int64_t k = scalarIndex(model, e.text());
    if (k < 0)
      return false;
    ins.kind = Ins::Kind::Scalar;
    ins.value = k;
    m_scalarDefaults.resize(model.scalars.size());
    for (std::size_t i = 0; i < model.scalars.size(); ++i)
      m_scalarDefaults[i] = model.scalars[i].value;
    break;
  }
  case ir::ExprKind::Member: {
    const ir::Expr& base = *e.children[0];
    if (base.kind != ir::ExprKind::Name || base.text() != tileVar)
      return false;
    static constexpr std::string_view dims[] = {"x", "y", "z"};
    auto d = std::find(std::begin(dims), std::end(dims), e.text());
    if (d == std::end(dims))
      return false;
    ins.kind = Ins::Kind::Coord;
    ins.value = d - std::begin(dims);
    break;
  }
  case ir::ExprKind::Unary:
    if (!emit(*e.children[0], model, tileVar))
      return false;
    ins.kind = Ins::Kind::Unary;
    ins.unary = e.unaryOp;
    break;
  case ir::ExprKind::Binary:
    if (!emit(*e.children[0], model, tileVar) || !emit(*e.children[1], model, tileVar))
      return false;
    ins.kind = Ins::Kind::Binary;
    ins.binary = e.binaryOp;
    break;
  default:
    return false;
  }
  m_code.push_back(ins);
  return true;
}

std::optional<TileExprCode> TileExprCode::compile(const ir::Expr& e, const KernelModel& model,
                                                  std::string_view tileVar) {
  TileExprCode code;
  if (!code.emit(e, model, tileVar))
    return std::nullopt;
  return code;
}

std::optional<std::int64_t> TileExprCode::eval(std::span<const std::int64_t> coords,
                                               std::span<const std::int64_t> scalars) const {
  std::int64_t stack[64];
  std::size_t top = 0;
  for (const Ins& ins : m_code) {
    switch (ins.kind) {
    case Ins::Kind::Push:
    case Ins::Kind::Coord:
      if (top == std::size(stack))
        return std::nullopt;
      if (ins.kind == Ins::Kind::Coord && std::size_t(ins.value) >= coords.size())
        return std::nullopt;
      stack[top++] = ins.kind == Ins::Kind::Push ? ins.value : coords[std::size_t(ins.value)];
      break;
    case Ins::Kind::Scalar: {
      if (top == std::size(stack))
        return std::nullopt;
      std::size_t k = std::size_t(ins.value);
      if (k < scalars.size())
        stack[top++] = scalars[k];
      else if (k < m_scalarDefaults.size())
        stack[top++] = m_scalarDefaults[k];
      else
        return std::nullopt;
      break;
    }
    case Ins::Kind::Unary: {
      auto v = ir::fold(ins.unary, stack[top - 1]);
      if (!v)
        return std::nullopt;
      stack[top - 1] = *v;
      break;
    }
    case Ins::Kind::Binary: {
      auto v = ir::fold(ins.binary, stack[top - 2], stack[top - 1]);
      if (!v)
        return std::nullopt;
      stack[--top - 1] = *v;
      break;
    }
    }
  }
  return top == 1 ? std::optional<std::int64_t>(stack[0]) : std::nullopt;
}

unsigned TileExprCode::dims() const {
  unsigned out = 0;
  for (const Ins& ins : m_code)
    if (ins.kind == Ins::Kind::Coord)
      out |= 1u << ins.value;
  return out;
}

std::vector<std::int64_t> tripCounts(const LoopInfo& loop, const KernelModel& model,
                                     std::int64_t maxTiles, std::span<const std::int64_t> scalars) {
  std::vector<std::int64_t> out;
  if (!model.grid || model.grid->tileCount() > maxTiles)
    return out;
  std::int64_t tiles = model.grid->tileCount();
  if (!loop.runtime) {
    out.assign(std::size_t(tiles), loop.end - loop.begin);
    return out;
  }
  auto lo = TileExprCode::compile(*loop.beginExpr, model, loop.tileVar);
  auto hi = TileExprCode::compile(*loop.endExpr, model, loop.tileVar);
  if (!lo || !hi)
    return out;
  // The bounds are evaluated once per combination of the coordinates they use (a causal
  // bound over t.x: once per query block) and broadcast over the others.
  const std::vector<std::int64_t>& ext = model.grid->tiles;
  unsigned used = lo->dims() | hi->dims();
  std::vector<std::int64_t> stride(ext.size(), 0);
  std::int64_t combos = 1;
  for (std::size_t d = 0; d < ext.size(); ++d)
    if (used & (1u << d)) {
      stride[d] = combos;
      combos *= ext[d];
    }
  std::vector<std::int64_t> small(std::size_t(combos), 0);
  std::vector<bool> known(std::size_t(combos), false);
  out.reserve(std::size_t(tiles));
  std::vector<std::int64_t> c(ext.size(), 0);
  const bool plain = ext.size() < 2 || (!model.grid->rasterN && model.grid->swizzle <= 1);
  for (std::int64_t t = 0; t < tiles; ++t) {
    if (!plain)
      c = tileCoords(*model.grid, t);
    std::size_t k = 0;
    for (std::size_t d = 0; d < c.size(); ++d)
      k += std::size_t(c[d] * stride[d]);
    if (!known[k]) {
      auto b = lo->eval(c, scalars), e = hi->eval(c, scalars);
      if (!b || !e)
        return {};
      small[k] = *e - *b;
      known[k] = true;
    }
    out.push_back(small[k]);
    // Next coordinates in the plain order (x fastest), as tileCoords numbers them there.
    for (std::size_t d = 0; plain && d < c.size(); ++d) {
      if (++c[d] < ext[d])
        break;
      c[d] = 0;
    }
  }
  return out;
}

namespace {

/// The raster / group-swizzle order of `tileCoords` over the tile counts `tiles`.
std::vector<std::int64_t>
orderedCoords(const GridInfo& grid, const std::vector<std::int64_t>& tiles, std::int64_t linear) {
  std::vector<std::int64_t> coords;
  if (tiles.size() < 2 || (!grid.rasterN && grid.swizzle <= 1)) {
    // x fastest, then y, then z: the plain order (raster=m, swizzle=1).
    for (std::int64_t extent : tiles) {
      coords.push_back(extent > 0 ? linear % extent : 0);
      linear = extent > 0 ? linear / extent : 0;
    }
    return coords;
  }
  // The (x, y) plane is rasterised; z (when present) stays outermost. The raster dimension is
  // walked first inside a band of `swizzle` tiles of the other dimension, the band's tiles of the
  // other dimension fastest: CUTLASS's PersistentTileSchedulerSm90 order (raster_order,
  // swizzle_size) and Triton's grouped ordering (GROUP_SIZE_M) in the transposed case. The last
  // band is narrower when the other dimension is not a multiple of `swizzle` (as in Triton), so
  // the map stays a bijection of [0, tileCount) for every extent.
  coords.assign(tiles.size(), 0);
  std::int64_t ex = std::max<std::int64_t>(1, tiles[0]);
  std::int64_t ey = std::max<std::int64_t>(1, tiles[1]);
  std::int64_t plane = ex * ey;
  std::int64_t rest = linear % plane;
  std::int64_t outer = linear / plane;
  for (std::size_t d = 2; d < tiles.size(); ++d) {
    std::int64_t extent = std::max<std::int64_t>(1, tiles[d]);
    coords[d] = outer % extent;
    outer /= extent;
  }
  std::size_t major = grid.rasterN ? 1 : 0, minor = 1 - major;
  std::int64_t majorExtent = major == 0 ? ex : ey, minorExtent = major == 0 ? ey : ex;
  std::int64_t group = std::max<std::int64_t>(1, grid.swizzle);
  std::int64_t band = group * majorExtent;
  std::int64_t first = rest / band * group;
  std::int64_t width = std::min(group, minorExtent - first);
  std::int64_t r = rest % band;
  coords[minor] = first + r % width;
  coords[major] = r / width;
  return coords;
}

} // namespace

std::vector<std::int64_t> tileCoords(const GridInfo& grid, std::int64_t linear) {
  std::int64_t clusterSize = 1;
  for (std::int64_t c : grid.cluster)
    clusterSize *= std::max<std::int64_t>(1, c);
  bool ordered = grid.tiles.size() >= 2 && (grid.rasterN || grid.swizzle > 1);
  if (!ordered || clusterSize <= 1)
    return orderedCoords(grid, grid.tiles, linear);
  // A clustered grid rasterises whole clusters (CUTLASS's scheduler orders cluster-shaped blocks
  // of tiles): the CTAs of one cluster are consecutive linear indices (a 1-D launch of whole
  // clusters), their rank in the cluster (x fastest) is their tile's offset inside the cluster's
  // block, so the CTAs of a multicast group or a CTA pair keep neighbouring tiles in any order.
  // The cluster shape divides the grid (hw-cluster-grid-shape); the plain order needs no split:
  // it already gives a cluster [X, 1, 1] the tiles x..x+X-1 of one row.
  std::vector<std::int64_t> blocks(grid.tiles.size(), 1), shape(grid.tiles.size(), 1);
  for (std::size_t d = 0; d < grid.tiles.size(); ++d) {
    shape[d] = d < grid.cluster.size() ? std::max<std::int64_t>(1, grid.cluster[d]) : 1;
    blocks[d] = std::max<std::int64_t>(1, grid.tiles[d] / shape[d]);
  }
  std::int64_t rank = linear % clusterSize;
  std::vector<std::int64_t> coords = orderedCoords(grid, blocks, linear / clusterSize);
  for (std::size_t d = 0; d < coords.size(); ++d) {
    coords[d] = coords[d] * shape[d] + rank % shape[d];
    rank /= shape[d];
  }
  return coords;
}

std::optional<std::pair<std::int64_t, std::int64_t>>
loopRange(const LoopInfo& loop, const KernelModel& model, std::span<const std::int64_t> coords,
          std::span<const std::int64_t> scalars) {
  if (!loop.runtime)
    return std::pair{loop.begin, loop.end};
  auto lo = evalTileExpr(*loop.beginExpr, model, loop.tileVar, coords, scalars);
  auto hi = evalTileExpr(*loop.endExpr, model, loop.tileVar, coords, scalars);
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

namespace {
/// True when `e` mentions scalar parameter `name`.
bool mentions(const ir::Expr& e, std::string_view name) {
  if (e.kind == ir::ExprKind::Name && e.text() == name)
    return true;
  if (e.kind == ir::ExprKind::Member)
    return false;
  for (const auto& c : e.children)
    if (c && mentions(*c, name))
      return true;
  return false;
}

/// Constant divisors `d` of `e / d`, `e % d` and `cdiv(e, d)` where `e` mentions `name`.
void collectDivisors(const ir::Expr& e, const KernelModel& model, std::string_view name,
                     std::set<std::int64_t>& out) {
  if (e.kind == ir::ExprKind::Binary &&
      (e.binaryOp == ir::BinaryOp::Div || e.binaryOp == ir::BinaryOp::Mod ||
       e.binaryOp == ir::BinaryOp::CeilDiv) &&
      mentions(*e.children[0], name)) {
    std::vector<std::int64_t> none;
    if (auto d = evalTileExpr(*e.children[1], model, "", none, none); d && *d > 1)
      out.insert(*d);
  }
  for (const auto& c : e.children)
    if (c)
      collectDivisors(*c, model, name, out);
}

void statementExprs(const ir::Stmt& s, const std::function<void(const ir::Expr&)>& f) {
  for (const ir::Operand& o : s.operands)
    for (const ir::Index& i : o.indices) {
      if (i.start)
        f(*i.start);
      if (i.size)
        f(*i.size);
    }
  for (const ir::Attribute& a : s.attributes)
    if (a.value)
      f(*a.value);
}
} // namespace

std::vector<std::vector<std::int64_t>> scalarSamples(const KernelModel& model) {
  std::vector<std::vector<std::int64_t>> out;
  const std::vector<std::int64_t> bound = model.scalarValues();
  for (std::size_t k = 0; k < model.scalars.size(); ++k) {
    const ScalarInfo& sc = model.scalars[k];
    std::set<std::int64_t> divisors;
    auto scan = [&](const ir::Expr& e) { collectDivisors(e, model, sc.name, divisors); };
    for (const LoopInfo& l : model.loops)
      if (l.runtime) {
        scan(*l.beginExpr);
        scan(*l.endExpr);
      }
    for (const OpInfo& op : model.ops)
      if (op.stmt)
        statementExprs(*op.stmt, scan);
    std::set<std::int64_t> values{sc.lo, sc.hi};
    for (std::int64_t d : divisors) {
      // The first and the last multiple of d inside the range, and one past each: a value
      // that leaves a partial last block of d, at both ends of the range.
      std::int64_t first = ((sc.lo + d - 1) / d) * d, last = (sc.hi / d) * d;
      for (std::int64_t v : {first, first + 1, last, last + 1, last - 1})
        if (v >= sc.lo && v <= sc.hi)
          values.insert(v);
    }
    std::vector<std::int64_t> picked(values.begin(), values.end());
    constexpr std::size_t kMaxValues = 16;
    if (picked.size() > kMaxValues) {
      // Keep the ends and an even sample of the rest.
      std::vector<std::int64_t> thin;
      for (std::size_t i = 0; i < kMaxValues; ++i)
        thin.push_back(picked[i * (picked.size() - 1) / (kMaxValues - 1)]);
      picked = std::move(thin);
    }
    for (std::int64_t v : picked) {
      if (v == bound[k])
        continue;
      std::vector<std::int64_t> binding = bound;
      binding[k] = v;
      out.push_back(std::move(binding));
    }
  }
  return out;
}

std::string scalarBindingText(const KernelModel& model, std::span<const std::int64_t> scalars) {
  std::string out;
  for (std::size_t k = 0; k < model.scalars.size() && k < scalars.size(); ++k) {
    out += out.empty() ? "" : ", ";
    out += model.scalars[k].name + " = " + std::to_string(scalars[k]);
  }
  return out;
}

} // namespace cake::sema
