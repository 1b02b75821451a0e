// Entry points of the individual analyses and helpers they share. Private to the verifier.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "Program.h"
#include "Reporter.h"
#include "cake/Verify/Verifier.h"

#include <set>
#include <string>

namespace cake::verify::detail {

struct Context {
  const ir::Module& module;
  const sema::KernelModel& model;
  const reg::Registry& registry;
  const RuleSet& rules;
  Reporter& reporter;
  const Program& program;
  VerifyResult& result;
  /// Barriers (indices into model.barriers) that already have a root-cause protocol finding;
  /// the simulation does not repeat them as deadlocks.
  std::set<std::size_t> brokenBarriers;

  /// A root-cause protocol finding (wrong parity, transaction bytes, arrival count) and what it
  /// breaks: the barrier and the buffers whose accesses that barrier orders. Findings it causes
  /// (races on those buffers, waits it blocks) link to it instead of standing alone.
  struct RootCause {
    std::string code;
    SourceRange range;
    std::size_t barrier = 0;
    std::set<std::size_t> buffers;
    std::vector<DiagNote> consequences; ///< added to the cause's notes when the run ends
  };
  std::vector<RootCause> causes;
  /// Per role, the shared/tensor-memory buffers its whole program reads and writes (built on
  /// first use by guardOf, which asks for them once per barrier element).
  mutable std::vector<std::set<std::size_t>> roleReads, roleWrites;
  /// Links finding `d` (a race on `buffer`) to the root cause whose barrier orders that buffer:
  /// caused_by, a note at the cause, and report severity (the cause alone refuses the kernel).
  /// No-op when no cause covers the buffer.
  void linkConsequence(Diagnostic* d, std::size_t buffer);
  /// A wait that the broken protocol of `barrier` blocks: a consequence note at its cause.
  void noteBlocked(std::size_t barrier, SourceRange at, std::string what);
  /// Writes the collected consequence notes into the root-cause findings.
  void attachConsequences();

  const sema::OpInfo& op(const Step& s) const { return model.ops[s.op]; }
  const sema::RoleInfo& role(const Step& s) const { return model.roles[s.role]; }
  SourceRange opRange(const sema::OpInfo& o) const { return reporter.range(o.stmt->id); }
  SourceRange operandRange(const sema::OpInfo& o, std::size_t i) const {
    return i < o.stmt->operands.size() ? reporter.range(o.stmt->operands[i].id) : opRange(o);
  }
  SourceRange declRange(const ir::Decl* d) const {
    return d ? reporter.range(d->name.id ? d->name.id : d->id) : SourceRange{};
  }
  /// "line 61" of an operation, for messages.
  std::string where(const sema::OpInfo& o) const;
  /// Loop values and pipeline counters of a step: "t=0 k=5".
  std::string context(const Step& s) const;
  /// "full[2]" for a barrier element.
  std::string element(std::size_t barrier, std::int64_t element) const;
};

/// What a wait orders: the shared/tensor-memory buffers its role reads after it (until its
/// next wait on the barrier) that the barrier's signallers write — the barrier publishes them —
/// and those it writes after it that the signallers access — the barrier releases them.
struct WaitGuard {
  std::set<std::size_t> reads;
  std::set<std::size_t> writes;
};
WaitGuard guardOf(const Context& ctx, const Step& wait, std::size_t barrier,
                  const std::vector<std::size_t>& signallers);
/// Whether a signalling visit (its steps, and its role's steps back to its last CTA or named
/// barrier) accesses one of `buffers` — writes it, when `writesOnly`: the signal depends on
/// that data, so a wait that guards the same data cannot be satisfied without it.
bool usedForSignal(const Context& ctx, const std::vector<const Step*>& visit,
                   const std::set<std::size_t>& buffers, bool writesOnly);

/// mbarrier protocol over per-role visits: roles, arrivals per phase, transaction bytes,
/// parity cadence, phases without a producer. Fills result.barriers.
void checkProtocol(Context& ctx);
/// Executes all roles together with the mbarrier phase model and CTA/named barriers:
/// deadlocks (wait cycles, divergence), initialisation and TMEM lifetime, cross-role races and
/// proxy fences through vector clocks; records the event trace.
void simulate(Context& ctx);
/// The cluster protocol model (all CTAs of one cluster, round-robin; Cluster.cpp) and the
/// static cluster rules (remote arrivals outside the cluster, tcgen05 cta_group pairing).
void checkCluster(Context& ctx);
/// Per-role program-order checks: async results used before their wait, wgmma.fence, async
/// work pending at exit, intra-role races between warps of one role.
void checkAsync(Context& ctx);
/// Shared-memory writes of one instruction by several warps / warpgroups of a role that
/// address the same elements (a subscript that does not depend on the instance).
void checkInstanceWrites(Context& ctx);
/// Lanes of every warp-issued tensor-memory access against the issuing warp's lane quarter.
void checkTmemLanes(Context& ctx);
void checkResources(Context& ctx);
void checkPatterns(Context& ctx);
/// Shared-memory matrix descriptors (wgmma, tcgen05.mma) of unswizzled operands against the
/// rows the buffer holds (dc-mma-descriptor-layout).
void checkMmaDescriptors(Context& ctx);
void checkCoverage(Context& ctx);
/// Built-in checks of primitive requirements (tensor-map global layout, cp.async alignment,
/// cluster against grid) and a coverage finding per unchecked requirement a kernel relies on.
void checkRequirements(Context& ctx);
void checkUsage(Context& ctx);
void checkPerformance(Context& ctx);
/// Run-time loop ranges: on every tile, each role that advances a pipeline must advance it as
/// often as every other role does (ps-trip-count-mismatch; RuntimeLoops.cpp). Marks the
/// pipeline's barriers broken so the simulation does not repeat the deadlock.
void checkTripCounts(Context& ctx);
/// Per-role tile ownership: strided tile loops sharing a pipeline own every tile once
/// (ps-tile-ownership) and skip exactly the producer's stages of the others' tiles
/// (ps-pipeline-skip; TileOwnership.cpp). Marks the pipeline's barriers broken.
void checkTileOwnership(Context& ctx);
/// ew.mask executions whose key block starts at or past the mask's sequence length
/// (dc-mask-past-sequence-end; RuntimeLoops.cpp).
void checkMasks(Context& ctx);

} // namespace cake::verify::detail
