// The mechanical facts lowering derives from a checked kernel: role dispatch and register
// budgets, the shared-memory table (every buffer, stage, barrier and the TMEM base slot with
// its offset), mbarrier groups (init counts, expect-tx bytes, phase tracking), named barrier
// ids, TMEM allocations, tensor maps, operand descriptors and register fragments. Authors never
// write these; `cake lower --emit metadata` shows them and the emitters use them.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Kernel.h"
#include "cake/Sema/KernelModel.h"
#include "cake/Support/Json.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cake::lower {

struct RoleDispatch {
  std::string name;
  std::int64_t warpBegin = 0, warpEnd = 0; ///< half-open warp range (warp id = tid.x / 32)
  std::int64_t threadBegin = 0, threadEnd = 0;
  std::int64_t registers = 0; ///< setmaxnreg budget (0: none)
  std::string setmaxnreg;     ///< "inc", "dec" or "" (no instruction)
  /// How the role's elected thread is chosen: "elect.sync" (sm_90a+) or "lane 0".
  std::string elected;
  std::int64_t electedWarp = 0; ///< absolute warp of the elected thread
};

/// One entry of the shared-memory table.
struct SmemEntry {
  std::string name;
  std::string kind; ///< buffer | stage | mbarrier | tmem_base
  std::int64_t offset = 0;
  std::int64_t bytes = 0;
  std::int64_t stage = -1; ///< stage index for kind=stage / barrier element
  std::string swizzle = "none";
  std::string dtype;
  std::vector<std::int64_t> shape;
};

struct BarrierGroup {
  std::string name;
  bool named = false;             ///< nbarrier
  std::int64_t offset = -1;       ///< mbarrier: byte offset of element 0
  std::int64_t elements = 1;      ///< pipeline stages
  std::int64_t initCount = 0;     ///< mbarrier arrival count / nbarrier thread count
  std::int64_t hardwareId = -1;   ///< nbarrier id (0 is the CTA barrier)
  std::int64_t expectTxBytes = 0; ///< bytes announced per phase by arrive_expect_tx/expect_tx
  std::string pipeline;
  std::vector<std::string> producers, consumers;
  /// How the waiters' parity is tracked, e.g. "ring: slot = i % 4, phase = (i / 4) & 1".
  std::string phaseTracking;
};

struct TmemAllocation {
  std::string name;
  std::int64_t colBegin = 0, colEnd = 0;
  std::int64_t lanes = 128;
  std::int64_t allocColumns = 0; ///< power of two >= 32 requested from tcgen05.alloc
};

struct TensorMapInfo {
  std::string name;
  std::string source; ///< parameter
  std::string dtype;
  std::vector<std::int64_t> globalDims;    ///< innermost first (cuTensorMapEncodeTiled order)
  std::vector<std::int64_t> globalStrides; ///< bytes, dims 1.. (innermost first)
  std::vector<std::int64_t> box;           ///< innermost first
  std::string swizzle = "none";
  std::int64_t boxBytes = 0;
};

/// A shared-memory matrix descriptor of one MMA operand (wgmma / tcgen05).
struct DescriptorInfo {
  std::uint32_t line = 0; ///< source line of the operation
  std::string op;
  std::string operand;
  std::string buffer;
  std::string major; ///< k | mn
  std::string swizzle;
  std::int64_t lbo = 0, sbo = 0;     ///< bytes
  std::uint64_t encodedFixed = 0;    ///< descriptor bits without the start address
  std::int64_t kStepBytes = 0;       ///< start-address advance per instruction K step
  std::int64_t instructions = 0;     ///< MMA instructions per operation
  std::string instruction;           ///< e.g. wgmma.mma_async.m64n128k16.f32.bf16.bf16
  std::uint32_t instrDescriptor = 0; ///< tcgen05 instruction descriptor (0 for wgmma)
};

/// The register fragment lowering chose for a `reg` declaration.
struct FragmentInfo {
  std::string name;
  std::string scope;
  std::string layout; ///< thread | replicated | warp_vector | mma_acc | mma_a | mma_b |
                      ///< wgmma_acc | wgmma_row | wgmma_col | tmem_rows
  std::int64_t elementsPerThread = 0;
  std::int64_t registersPerThread = 0; ///< 32-bit registers
};

struct Metadata {
  std::string kernel;
  std::string target;
  std::string scheduleHash; ///< 16 hex digits of SHA-256 over the canonical kernel text
  std::int64_t warps = 0, threads = 0;
  std::vector<std::int64_t> tiles;
  std::int64_t tileCount = 0;
  bool persistent = false;
  bool rasterN = false;      ///< tile order: y walked first (grid raster=n)
  std::int64_t swizzle = 1;  ///< tile order: group swizzle (grid swizzle=)
  bool pdl = false; ///< launch with programmatic stream serialisation (grid pdl=on)
  std::int64_t ctas = 0; ///< grid size on the target (persistent: min(tiles, SMs))
  std::int64_t launchRegisters = 0;
  std::vector<RoleDispatch> roles;
  std::vector<SmemEntry> smem;
  std::int64_t smemBuffers = 0; ///< end of the last buffer
  std::int64_t smemTotal = 0;   ///< dynamic shared memory requested at launch
  std::vector<BarrierGroup> barriers;
  std::vector<std::pair<std::string, std::int64_t>> pipelines; ///< name, stages
  std::vector<TmemAllocation> tmem;
  std::int64_t tmemBaseOffset = -1; ///< smem slot receiving the TMEM base address
  std::vector<TensorMapInfo> tensorMaps;
  std::vector<DescriptorInfo> descriptors;
  std::vector<FragmentInfo> fragments;
};

/// Derives everything that does not depend on fragment layouts (those are added by lowering).
/// `model` must come from a kernel without blocking findings.
Metadata derive(const ir::Module& module, const sema::KernelModel& model);

/// Writes the metadata object (the `--emit metadata` document body).
void writeJson(json::Writer& w, const Metadata& md);

/// Bits of a wgmma (sm_90) shared-memory descriptor without the start address.
std::uint64_t wgmmaDescriptorBits(const std::string& swizzle, std::int64_t lbo, std::int64_t sbo);
/// Bits of a tcgen05 (sm_100) shared-memory descriptor without the start address.
std::uint64_t tcgen05DescriptorBits(const std::string& swizzle, std::int64_t lbo, std::int64_t sbo);
/// The tcgen05 kind::f16/tf32 instruction descriptor.
std::uint32_t tcgen05InstrDescriptor(ir::DType d, ir::DType a, ir::DType b, std::int64_t m,
                                     std::int64_t n, bool aMnMajor, bool bMnMajor);

} // namespace cake::lower
