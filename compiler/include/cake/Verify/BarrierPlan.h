// Hardware barrier plan shared by the verifier (named-barrier count) and lowering (ids): the
// kernel's nbarriers, the role barriers of reduce.cta and of role-wide releases, one barrier
// per warpgroup for warpgroup-scope releases, and which elected releases need a sync first.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Kernel.h"
#include "cake/Sema/KernelModel.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace cake::verify {

/// The sync a release issued by fewer threads than its scope needs in front of it, so that
/// the other threads' accesses are ordered before the single arrive (release semantics only
/// cover the arriving thread's own accesses).
enum class ReleaseSync : std::uint8_t {
  None,
  Warp,      ///< bar.warp.sync of the issuing warp
  Warpgroup, ///< bar.sync of the issuing warpgroup's own named barrier (128 threads)
  Role,      ///< the role's barrier (bar.sync 0 when the role is the whole CTA)
};

/// Hardware barrier ids of one kernel. Id 0 is the CTA barrier; the kernel's nbarriers take
/// 1..declared in declaration order, then the role barriers (role-name order), then, per role
/// with more than one warpgroup that needs warpgroup syncs (model order), one id per warpgroup.
struct BarrierPlan {
  std::int64_t declared = 0; ///< named barriers the kernel declares
  /// Role -> its role-wide barrier id (0 when the role is the whole CTA): roles with a
  /// role-scope sync effect (reduce.cta) or a role-wide release sync.
  std::map<std::string, std::int64_t> roleBarrier;
  /// Role -> id of its first warpgroup's barrier (role-relative warpgroup w uses base + w).
  std::map<std::string, std::int64_t> warpgroupBase;
  /// (role index, op statement) -> the sync lowering emits before that release.
  std::map<std::pair<std::size_t, const ir::Stmt*>, ReleaseSync> releases;
  /// Hardware barriers used in all, id 0 included.
  std::int64_t count = 1;

  ReleaseSync releaseSync(std::size_t role, const ir::Stmt* stmt) const {
    auto it = releases.find({role, stmt});
    return it == releases.end() ? ReleaseSync::None : it->second;
  }
};

/// Plans the kernel's barriers. A release (an op with an arrive effect issued per warp, per
/// warpgroup or by one elected thread) needs a sync of its issuing scope when the role may
/// have accessed shared or tensor memory through the generic proxy since the last barrier that
/// covers that scope (a forward analysis over the role's program; loops are joined with their
/// back edge, linear in the program size).
BarrierPlan planBarriers(const ir::Module& module, const sema::KernelModel& model);

} // namespace cake::verify
