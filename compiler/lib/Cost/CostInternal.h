// Private data of the cost model: the static per-operation accounting shared by the model, the
// what-if hints and the calibration fit.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Cost/CostModel.h"
#include "cake/IR/Kernel.h"
#include "cake/Sema/KernelModel.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake::cost {

namespace detail {

/// Per-SM execution resources an operation occupies (by its primitive's cost class).
enum class Pipe : std::uint8_t { None, Tensor, Global, Smem, Alu, Sfu, Tmem };
constexpr std::size_t kPipes = 7;
std::string_view pipeName(Pipe p);

/// How the issuing role experiences an operation.
enum class Kind : std::uint8_t {
  Sync,       ///< sync/control: issue cost only (waits come from the trace)
  Compute,    ///< ALU/SFU: the role executes it on the pipe
  Load,       ///< data into registers, synchronous completion: a register scoreboard entry
  Store,      ///< writes with synchronous completion: the role goes on, the pipe drains it
  AsyncGroup, ///< completes through a commit group (cp.async, TMA store, wgmma, tcgen05)
  AsyncTx,    ///< completes through an mbarrier transaction count (TMA load)
  TensorSync, ///< mma.sync: result registers ready after the pipe and the MMA latency
};

enum class Latency : std::uint8_t { None, Memory, Smem, Mma, Tmem };

/// Model constant (not a target fact): cycles to issue one operation of a role.
constexpr double kIssueCycles = 2.0;
/// A resource busy for at least this share of the predicted time is the bottleneck.
constexpr double kSaturated = 0.7;

struct GlobalAccess {
  std::size_t buffer = 0; ///< the global parameter
  bool write = false;
  double bytes = 0; ///< per issuing instance
  /// Inside a tile loop: the tile coordinates its subscripts use (bit d: coordinate d), the
  /// key of the order-aware L2 reuse (TileOrderReuse.cpp).
  bool inTile = false;
  unsigned tileDims = 0;
};

/// Tile coordinates (bit 0: x) that operand `o`'s subscripts use through tile variable `var`.
unsigned tileDimsOf(const ir::Operand& o, std::string_view var);

/// Distinct projections onto tile coordinates `dims` of each wave of `inFlight` consecutive
/// linear tiles in the grid's order, summed over the waves and divided by the tile count
/// (docs/cost.md, "Tile order and L2 reuse"): how often per tile a buffer indexed by `dims`
/// comes from HBM when a wave's tiles share it through L2 and nothing survives from one wave
/// to the next. Nullopt for grids too large to walk.
std::optional<double> orderMissFraction(const sema::GridInfo& g, unsigned dims,
                                        std::int64_t inFlight);

/// One role's executions of an operation.
struct RoleUse {
  std::size_t role = 0;
  double instances = 1; ///< issuing instances per execution
  double work = 0;      ///< cost-entry work per execution, all instances
  double perTile = 0;   ///< executions per tile (operation inside the tile loop)
  double once = 0;      ///< executions per CTA outside the tile loop
};

/// One per operation of the kernel (800,000 for a 50 MB kernel), so the names are views of
/// strings that outlive the estimate: the registry's effect definitions and the dtype table.
struct OpStatic {
  Pipe pipe = Pipe::None;
  Kind kind = Kind::Sync;
  Latency latency = Latency::None;
  std::string_view dtype; ///< tensor operations: the rated input type
  std::string_view group; ///< AsyncGroup: the commit group its completion joins
  std::string_view commitGroup, waitGroup, commitArrivesGroup;
  double waitPending = 0;
  bool waitIncludesOpen = false;
  bool fence = false;
  bool smemWrite = false;
  bool accumulates = false;
  bool tma = false;
  int roleSyncs = 0;
  double flopsPerInstance = 0, instrPerInstance = 0;
  LevelBytes bytes; ///< per issuing instance (hbm: the share expected to miss L2)
  double hbmFraction = 0;
  std::vector<GlobalAccess> globals;
  std::vector<std::size_t> regReads, regWrites;
  std::vector<RoleUse> uses;
};

} // namespace detail

class Prepared {
public:
  const driver::CheckResult* check = nullptr;
  const sema::KernelModel* model = nullptr;
  const target::Target* target = nullptr;
  Launch launch;
  double totalTiles = 1;
  std::vector<detail::OpStatic> ops;
  std::vector<std::size_t> firstTileOp; ///< per role, SIZE_MAX when it has no tile loop
  std::map<std::string, std::size_t> barrierIndex;
  std::vector<std::string> notes;
};

/// Re-checks what-if variants of the kernel's IR decisions and appends the hints that pay.
void addHints(const driver::Compiler& compiler, const driver::CheckResult& check,
              const Prepared& prepared, const Params& params, const Options& options,
              Estimate& estimate);

/// Applies edits (non-overlapping ranges of `text`) back to front.
std::string applyEdits(std::string text, std::vector<TextEdit> edits);

} // namespace cake::cost
