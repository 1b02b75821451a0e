// The checked, resolved form of a kernel: every declaration with concrete numbers and every
// operation bound to its primitive with static operand facts. Analyses, cost model, lowering
// and views consume this instead of the syntax tree.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Kernel.h"
#include "cake/Sema/Interval.h"
#include "cake/Registry/Registry.h"
#include "cake/Support/CompactVector.h"
#include "cake/Support/SharedList.h"
#include "cake/Target/Target.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cake::sema {


struct ConstInfo {
  std::string name;
  std::int64_t value = 0;
  const ir::Decl* decl = nullptr;
};

/// A run-time scalar kernel parameter (`param kv_len : i32 role=scalar range=[1, 32768]`,
/// docs/ir.md "Run-time scalar parameters"): passed by value; `lo..hi` (inclusive) is its launch
/// contract. `value` is the binding this model was checked with (the workload contract's value
/// when the caller gave one, else `hi`): the trip statistics of run-time loops, the verifier's
/// first simulation, the cost model and the CPU run use it; the verifier also simulates other
/// values of the range (sema::scalarSamples).
struct ScalarInfo {
  std::string name;
  ir::DType dtype = ir::DType::I32;
  std::int64_t lo = 0, hi = 0;
  std::int64_t value = 0;
  bool valueFromCaller = false; ///< value given by the caller (a workload contract), not `hi`
  const ir::Decl* decl = nullptr;
};

struct GridInfo {
  std::vector<std::int64_t> tiles; ///< tile counts per dimension (x, y, z)
  bool persistent = false;
  /// Rasterisation (docs/ir.md, "Tile schedulers"): the tile dimension consecutive linear tile
  /// indices walk first, x (the M tiles, `raster=m`, today's order) or y (`raster=n`).
  bool rasterN = false;
  /// Group swizzle: a band of `swizzle` tiles of the other dimension is walked together
  /// (CUTLASS's swizzle_size, Triton's GROUP_SIZE_M); 1 keeps the plain raster order.
  std::int64_t swizzle = 1;
  std::vector<std::int64_t> cluster{1, 1, 1};
  /// pdl=on: launched with programmatic stream serialisation, so it may start while the previous
  /// kernel on the stream still runs (griddep.wait orders its global accesses after it).
  bool pdl = false;
  const ir::Decl* decl = nullptr;
  std::int64_t tileCount() const;
};

struct RoleInfo {
  std::string name;
  std::int64_t warpBegin = 0; ///< first warp
  std::int64_t warpEnd = 0;   ///< one past the last warp
  std::optional<std::int64_t> registers;
  const ir::Decl* decl = nullptr;
  std::int64_t warps() const { return warpEnd - warpBegin; }
  std::int64_t threads() const { return warps() * 32; }
};

struct PipelineInfo {
  std::string name;
  std::int64_t stages = 1;
  const ir::Decl* decl = nullptr;
};

struct PoolInfo {
  std::string name;
  std::int64_t offset = 0;
  std::int64_t bytes = 0;
  const ir::Decl* decl = nullptr;
};

/// A tensor-valued declaration: param (global), smem, tmem or reg.
struct BufferInfo {
  std::string name;
  ir::DeclKind kind = ir::DeclKind::Param;
  ir::Space space = ir::Space::Global;
  ir::DType dtype = ir::DType::F32;
  std::vector<std::int64_t> shape;
  std::int64_t stages = 1;
  std::string swizzle = "none";
  // param
  std::string paramRole; ///< input | output | state
  /// param: the base alignment in bytes the kernel declares (align=), its launch contract;
  /// 0 when not declared.
  std::int64_t align = 0;
  // smem
  std::int64_t offset = -1; ///< absolute byte offset in the CTA's shared memory
  std::string pool;
  std::string pipeline;
  // tmem
  std::int64_t colBegin = 0, colEnd = 0;
  // reg
  std::string scope = "thread"; ///< thread | warp | warpgroup | role
  const ir::Decl* decl = nullptr;

  std::int64_t elements() const;
  std::int64_t stageBytes() const;
  std::int64_t totalBytes() const { return stageBytes() * stages; }
};

struct TensorMapInfo {
  std::string name;
  ir::DType dtype = ir::DType::BF16;
  std::vector<std::int64_t> box;
  std::string source;
  std::string swizzle = "none";
  const ir::Decl* decl = nullptr;
};

struct BarrierInfo {
  std::string name;
  bool named = false; ///< nbarrier (bar.sync) rather than mbarrier
  std::int64_t count = 0; ///< mbarrier: arrivals per phase; nbarrier: threads
  std::int64_t size = 1;  ///< array length (pipeline stages)
  std::string pipeline;
  std::vector<std::string> producers; ///< mbarrier
  std::vector<std::string> consumers; ///< mbarrier
  std::vector<std::string> roles;     ///< nbarrier participants
  const ir::Decl* decl = nullptr;
};

struct LoopInfo {
  const ir::Stmt* stmt = nullptr;
  std::string var;
  bool overTiles = false;
  std::int64_t begin = 0, end = 0; ///< half-open; for tile loops [0, tiles per CTA bound)
  std::string pipeline;
  /// Run-time bounds (docs/ir.md, "Run-time loop bounds"): the range depends on the tile
  /// coordinates of `tileVar`. `begin`/`end` then hold the smallest start and the largest
  /// end over all tiles (sound for interval arithmetic); evaluate the range per tile with
  /// sema::loopRange.
  bool runtime = false;
  const ir::Expr* beginExpr = nullptr;
  const ir::Expr* endExpr = nullptr;
  std::string tileVar; ///< empty when the bounds use scalar parameters only
  std::int64_t minTrip = 0, maxTrip = 0;         ///< over all tiles (constant loops: end - begin)
  double meanTrip = 0;                           ///< over all tiles
  std::int64_t minTripTile = 0, maxTripTile = 0; ///< first linear tile reaching each
  std::int64_t meanTripTile = 0; ///< first linear tile whose trip count is closest to the mean
  /// Tile loops (docs/ir.md, "Per-role tile ownership"): the role works on the CTA's tiles
  /// j = tileOffset, tileOffset + tileStride, ... of the CTA's sequence (ping-pong consumers).
  std::int64_t tileStride = 1, tileOffset = 0;
  /// Pipeline loops inside a strided tile loop: stages the pipeline advances for each tile of
  /// the CTA's sequence the role does not own (the other consumers' stages; `skip=`).
  std::int64_t skip = 0;
  std::int64_t trip() const { return end - begin; }
};

/// What kind of entity an operand refers to.
enum class EntityKind : std::uint8_t { Buffer, TensorMap, MBarrier, NBarrier };

/// One resolved operand of an operation.
/// Kept small: a 50 MB kernel has over a million operands.
struct OperandInfo {
  std::uint32_t entityIndex = 0; ///< into buffers / tensorMaps / barriers
  EntityKind entity = EntityKind::Buffer;
  bool stageIndexed = false;
  reg::OperandFacts facts; ///< type after subscripts
  /// Interval of each subscript start (stage index first for staged buffers).
  CompactVector<Interval> indexRanges;
};

struct OpInfo {
  const ir::Stmt* stmt = nullptr;
  const reg::Primitive* primitive = nullptr;
  CompactVector<OperandInfo> operands;
  /// Static attribute values in the primitive's attribute order (defaults applied); run-time
  /// attributes are Unknown.
  CompactVector<reg::DefValue> attributes;
  SharedList<std::string> roles; ///< roles executing the op
  SharedList<std::size_t> loops; ///< enclosing loops (indices into loops), outermost first
};

/// An operation's static facts as the registry's constraint/effect expressions see them
/// (operands by index, attributes by index); used by Sema, pattern rules and the cost model.
class OpDefContext : public reg::DefContext {
public:
  explicit OpDefContext(const OpInfo& op) : m_op(op) {}
  const reg::OperandFacts* operand(std::size_t index) const override {
    return index < m_op.operands.size() ? &m_op.operands[index].facts : nullptr;
  }
  reg::DefValue attribute(std::size_t index) const override {
    return index < m_op.attributes.size() ? m_op.attributes[index] : reg::DefValue{};
  }

private:
  const OpInfo& m_op;
};

struct KernelModel {
  std::string name;
  std::string targetName;
  const target::Target* target = nullptr;
  std::vector<ConstInfo> consts;
  std::vector<ScalarInfo> scalars; ///< run-time scalar parameters, in declaration order
  std::optional<GridInfo> grid;
  std::vector<RoleInfo> roles;
  std::vector<PipelineInfo> pipelines;
  std::vector<PoolInfo> pools;
  std::vector<BufferInfo> buffers;
  std::vector<TensorMapInfo> tensorMaps;
  std::vector<BarrierInfo> barriers;
  std::vector<LoopInfo> loops;
  std::vector<OpInfo> ops; ///< program order

  const RoleInfo* role(std::string_view name) const;
  const BufferInfo* buffer(std::string_view name) const;
  const BarrierInfo* barrier(std::string_view name) const;
  const ScalarInfo* scalar(std::string_view name) const;
  /// The scalars' bound values (`value`), in declaration order.
  std::vector<std::int64_t> scalarValues() const;
  const PipelineInfo* pipeline(std::string_view name) const;
  std::int64_t warpsPerCta() const;
  std::int64_t threadsPerCta() const { return warpsPerCta() * 32; }
  /// Highest byte used by shared-memory buffers (stages included).
  std::int64_t smemBytes() const;
  /// Shared memory that lowering places after the buffers (authors never write it): one
  /// 8-byte word per mbarrier element and, when the kernel uses TMEM, the 8-byte slot that
  /// receives the TMEM base address.
  std::int64_t derivedSmemBytes() const;
};

} // namespace cake::sema
