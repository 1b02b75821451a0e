// The built-in schedule search (`cake evolve`): one-decision edits of a kernel's schedule,
// gated by the verifier, ranked by the cost model, explored by islands or a MAP-Elites archive,
// written as a campaign folder (docs/campaigns.md).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cake::campaign {

/// One decision edit of a kernel: what changed and the child's text.
struct ScheduleEdit {
  std::string decision; ///< "pipeline ring stages", "const BK", "role consumer regs", ...
  std::string from, to;
  std::string text;
  /// Why the search tried it first, when a cost-model hint names it (else empty).
  std::string note;
  std::string rationale() const {
    return decision + ": " + from + " -> " + to + (note.empty() ? "" : " (" + note + ")");
  }
};

/// Every one-decision edit of an accepted kernel, in a fixed order: pipeline depth (shared
/// memory moved to fit), grid schedule, tile constants (halved, doubled), register split per
/// role (-8, +8), the kernel's swizzle mode (every swizzle=X to the neighbouring widths) and
/// MMA groups in flight (`pending=` of a *mma*.wait op, -1, +1). Warps per role are not edited
/// (a role's warp range moves every later role and its register budget; not implemented).
std::vector<ScheduleEdit> scheduleEdits(const driver::CheckResult& kernel);

enum class Strategy { Islands, MapElites };
/// "islands", "map-elites".
std::optional<Strategy> strategyFromString(const std::string& text);
const char* toString(Strategy strategy);

struct EvolveOptions {
  std::size_t budget = 30; ///< children to write (refused ones included)
  std::uint64_t seed = 1;
  Strategy strategy = Strategy::Islands;
  std::string arm = "a";
  std::string campaign;  ///< campaign name for a new folder
  std::string timestamp; ///< written on every candidate of this run
  std::string workload;  ///< JSON of the workload contract, or empty
  unsigned jobs = 0;     ///< assessment threads; 0: hardware concurrency
  /// Propose the edits the cost model's hints name first (off: every edit drawn at random, an
  /// ablation arm that shows what the hints are worth).
  bool hints = true;
};

struct EvolveResult {
  bool ok = false;
  std::string error;
  std::string campaign, arm;
  std::size_t candidates = 0, accepted = 0;
  std::string bestId;
  std::optional<double> bestUs;
};

/// Runs the search from the kernel at `kernelPath` and writes folder `out`: a new campaign
/// (campaign.json, the root kernel as candidate "root") or, when `out` already holds a campaign
/// of the same root kernel, a new arm appended to it.
EvolveResult evolve(const driver::Compiler& compiler, const std::string& kernelPath,
                    const std::string& out, const EvolveOptions& options);

} // namespace cake::campaign
