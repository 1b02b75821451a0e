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

/// mbarrier protocol over per-role visits: roles, arrivals per phase, transaction bytes,
/// parity cadence, phases without a producer. Fills result.barriers.
void checkProtocol(Context& ctx);
/// Executes all roles together with the mbarrier phase model and CTA/named barriers:
/// deadlocks (wait cycles, divergence), initialisation and TMEM lifetime, cross-role races and
/// proxy fences through vector clocks; records the event trace.
void simulate(Context& ctx);
/// Per-role program-order checks: async results used before their wait, wgmma.fence, async
/// work pending at exit, intra-role races between warps of one role.
void checkAsync(Context& ctx);
/// Lanes of every warp-issued tensor-memory access against the issuing warp's lane quarter.
void checkTmemLanes(Context& ctx);
void checkResources(Context& ctx);
void checkPatterns(Context& ctx);
/// Shared-memory matrix descriptors (wgmma, tcgen05.mma) of unswizzled operands against the
/// rows the buffer holds (dc-mma-descriptor-layout).
void checkMmaDescriptors(Context& ctx);
void checkCoverage(Context& ctx);
void checkUsage(Context& ctx);
void checkPerformance(Context& ctx);

} // namespace cake::verify::detail
