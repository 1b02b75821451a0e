// Run-time loop bounds: loop ranges that depend on the CTA's tile coordinates (a causal
// attention's key loop `0..(t.x + 1) * BQ / BKV`), evaluated per tile by every consumer.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Sema/KernelModel.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace cake::sema {

/// Value of an integer expression over constants, the members `x`, `y`, `z` of tile variable
/// `tileVar` at tile coordinates `coords` and the run-time scalar parameters bound to `scalars`
/// (in model.scalars order; empty: each scalar's bound `value`); nullopt for anything else (a
/// name that is not a constant, overflow, division by zero).
std::optional<std::int64_t> evalTileExpr(const ir::Expr& e, const KernelModel& model,
                                         std::string_view tileVar,
                                         std::span<const std::int64_t> coords,
                                         std::span<const std::int64_t> scalars = {});

/// A run-time bound compiled once for evaluation at many tiles: constants resolved, the
/// expression flattened to postfix code (evaluating every tile of a 4,096-tile grid this way
/// costs microseconds, where walking the tree with name lookups costs milliseconds).
class TileExprCode {
public:
  /// Nullopt when `e` uses anything but integers, constants and `tileVar`'s members.
  static std::optional<TileExprCode> compile(const ir::Expr& e, const KernelModel& model,
                                             std::string_view tileVar);
  /// Value at `coords` with the scalar parameters bound to `scalars` (model.scalars order);
  /// nullopt on overflow or division by zero.
  std::optional<std::int64_t> eval(std::span<const std::int64_t> coords,
                                   std::span<const std::int64_t> scalars) const;
  /// Bit d set when the value depends on coordinate d (x = bit 0).
  unsigned dims() const;

private:
  struct Ins {
    enum class Kind : std::uint8_t { Push, Coord, Scalar, Unary, Binary } kind = Kind::Push;
    std::int64_t value = 0; ///< Push: the value; Coord: the dimension; Scalar: its index
    ir::BinaryOp binary = ir::BinaryOp::Add;
    ir::UnaryOp unary = ir::UnaryOp::Neg;
  };
  bool emit(const ir::Expr& e, const KernelModel& model, std::string_view tileVar);
  std::vector<Ins> m_code;
  std::vector<std::int64_t> m_scalarDefaults; ///< the model's bound values (empty binding)
};

/// Trip count of run-time loop `loop` at every linear tile of the grid with the scalar
/// parameters bound to `scalars` (empty: their bound values); empty when the grid has more than
/// `maxTiles` tiles or a bound cannot be evaluated somewhere.
std::vector<std::int64_t> tripCounts(const LoopInfo& loop, const KernelModel& model,
                                     std::int64_t maxTiles,
                                     std::span<const std::int64_t> scalars = {});

/// Coordinates (x, y, z order) of linear tile `linear` of the grid in the grid's tile order
/// (raster and group swizzle, docs/ir.md "Tile schedulers"). The one definition of the order:
/// the verifier, the CPU interpreter, the cost model and the views call it, and lowering emits
/// the same arithmetic (a bijection of [0, tileCount) onto the tile coordinates).
std::vector<std::int64_t> tileCoords(const GridInfo& grid, std::int64_t linear);

/// Half-open range of `loop` at tile `coords` (constant loops ignore `coords`); nullopt when
/// a run-time bound cannot be evaluated.
std::optional<std::pair<std::int64_t, std::int64_t>>
loopRange(const LoopInfo& loop, const KernelModel& model, std::span<const std::int64_t> coords,
          std::span<const std::int64_t> scalars = {});

/// The values of the run-time scalar parameters the verifier simulates besides the bound one
/// (docs/ir.md "Run-time scalar parameters"): per scalar, the range ends and, for every constant
/// divisor d its expressions divide it by (`kv_len / BKV`, `cdiv(kv_len, BKV)`), the multiples
/// of d nearest both ends and inside the range and those multiples plus one (a partial last
/// block); at most 16 values per scalar, ascending. Each binding varies one scalar, the others
/// keep their bound value.
std::vector<std::vector<std::int64_t>> scalarSamples(const KernelModel& model);

/// "kv_len = 65" (every scalar whose value differs from its bound one; "" when none).
std::string scalarBindingText(const KernelModel& model, std::span<const std::int64_t> scalars);

/// Linear tiles the verifier simulates when a kernel has run-time loop bounds: the first and
/// the last tile, the tiles with the fewest and the most iterations of the kernel's run-time
/// loops and the primary tile (the first such tile in linear order), deduplicated, ascending.
/// Kernels without run-time bounds get {0}.
std::vector<std::int64_t> representativeTiles(const KernelModel& model);

/// The tile the verifier simulates first (its trace is the one `cake trace` shows and the cost
/// model re-times): the first run-time loop's tile with a trip count closest to the mean, or 0.
std::int64_t primaryTile(const KernelModel& model);

/// True when some loop of the kernel has a run-time bound.
bool hasRuntimeBounds(const KernelModel& model);

} // namespace cake::sema
