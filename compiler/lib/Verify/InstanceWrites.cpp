// Shared-memory writes of one instruction by several instances of a role: each warp or
// warpgroup that owns a tile must write its own elements. A subscript that names no instance
// variable, or per-instance footprints that overlap, make two instances write the same elements
// with one instruction (write-after-write inside the role) and leave others unwritten.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Analyses.h"

#include <algorithm>
#include <set>

namespace cake::verify::detail {

namespace {

enum class Owner { None, Thread, Warp, Warpgroup };

/// The instances that each own a distinct tile of a write: the issue scope, refined by the
/// scope of the register fragment it stores (a warp-issued stmatrix of a warpgroup fragment
/// writes the warpgroup's tile); a thread-issued store of a thread-scope fragment is owned by
/// each thread. Replicated (role-scope) fragments hold one value: not judged.
Owner owner(const sema::KernelModel& model, const sema::OpInfo& op, const Step& s) {
  reg::IssueScope scope = issueScope(op, s.attributes.empty() ? op.attributes : s.attributes);
  if (scope == reg::IssueScope::Elected || scope == reg::IssueScope::Role)
    return Owner::None;
  std::string fragment;
  for (std::size_t i = 0; i < op.operands.size() && i < s.operands.size(); ++i) {
    const StepOperand& so = s.operands[i];
    if (!so.present || so.entity != sema::EntityKind::Buffer)
      continue;
    const sema::BufferInfo& b = model.buffers[so.entityIndex];
    if (b.space == ir::Space::Reg)
      fragment = b.scope;
  }
  if (scope == reg::IssueScope::Warpgroup || fragment == "warpgroup")
    return fragment == "role" ? Owner::None : Owner::Warpgroup;
  if (fragment == "role")
    return Owner::None;
  if (fragment == "thread")
    return scope == reg::IssueScope::Thread ? Owner::Thread : Owner::None;
  if (scope == reg::IssueScope::Warp || fragment == "warp")
    return Owner::Warp;
  return Owner::None;
}

std::string range(sema::Interval i) {
  return i.exact() ? std::to_string(i.lo) : std::to_string(i.lo) + ".." + std::to_string(i.hi);
}

/// Rows of the first dimension that none of `boxes` covers, within [0, extent).
std::vector<sema::Interval> gaps(std::vector<sema::Interval> rows, std::int64_t extent) {
  std::sort(rows.begin(), rows.end(),
            [](const sema::Interval& a, const sema::Interval& b) { return a.lo < b.lo; });
  std::vector<sema::Interval> out;
  std::int64_t next = 0;
  for (const sema::Interval& r : rows) {
    if (r.lo > next)
      out.push_back({next, r.lo - 1});
    next = std::max(next, r.hi + 1);
  }
  if (next < extent)
    out.push_back({next, extent - 1});
  return out;
}

class InstanceWrites {
public:
  explicit InstanceWrites(Context& ctx) : m_ctx(ctx), m_model(ctx.model) {}

  void run() {
    for (const RoleStream& stream : m_ctx.program.roles) {
      const sema::RoleInfo& role = m_model.roles[stream.role];
      if (role.warps() < 2)
        continue;
      for (const Step& s : stream.steps)
        step(role, s);
    }
  }

private:
  void step(const sema::RoleInfo& role, const Step& s) {
    const sema::OpInfo& op = m_ctx.op(s);
    for (const reg::EffectDef& e : op.primitive->effects) {
      if (e.kind != reg::EffectKind::Write || !e.operandIndex ||
          *e.operandIndex >= s.operands.size())
        continue;
      const StepOperand& so = s.operands[*e.operandIndex];
      if (!so.present || !so.footprint ||
          m_model.buffers[so.footprint->buffer].space != ir::Space::Smem)
        continue;
      Owner who = owner(m_model, op, s);
      std::int64_t count = who == Owner::Thread      ? role.threads()
                           : who == Owner::Warp      ? role.warps()
                           : who == Owner::Warpgroup ? (role.warps() + 3) / 4
                                                     : 1;
      if (count < 2 || m_done.count({s.op, *e.operandIndex}))
        continue;
      check(role, s, op, *e.operandIndex, so, who, count);
    }
  }

  void check(const sema::RoleInfo& role, const Step& s, const sema::OpInfo& op, std::size_t operand,
             const StepOperand& so, Owner who, std::int64_t count) {
    const std::string unit = who == Owner::Thread ? "thread"
                             : who == Owner::Warp ? "warp"
                                                  : "warpgroup";
    // Per-owner footprints, exact only when the subscript names nothing finer than the owner.
    std::vector<Footprint> tiles;
    if (so.instanceVars == 0) {
      // Threads are judged only here: a subscript without tid or lane is the same element
      // for every thread (interval bounds of a per-thread subscript are not exact).
      tiles.assign(std::size_t(std::min<std::int64_t>(count, 2)), *so.footprint);
    } else if (who == Owner::Thread) {
      return;
    } else {
      unsigned finer =
          StepOperand::kNamesThread | (who == Owner::Warpgroup ? StepOperand::kNamesWarp : 0u);
      if (so.instanceVars & finer)
        return; // a thread's or warp's slice of the owner's tile: not judged here
      for (std::int64_t i = 0; i < count; ++i) {
        const Footprint* f = so.warpFootprint(std::size_t(who == Owner::Warp ? i : i * 4));
        if (!f)
          return;
        tiles.push_back(*f);
      }
    }
    for (std::size_t i = 0; i < tiles.size(); ++i)
      for (std::size_t j = i + 1; j < tiles.size(); ++j)
        if (tiles[i].overlaps(tiles[j])) {
          m_done.insert({s.op, operand});
          report(role, s, op, operand, so, unit, tiles, i, j);
          return;
        }
  }

  void report(const sema::RoleInfo& role, const Step& s, const sema::OpInfo& op,
              std::size_t operand, const StepOperand& so, const std::string& unit,
              const std::vector<Footprint>& tiles, std::size_t i, std::size_t j) {
    const sema::BufferInfo& b = m_model.buffers[so.footprint->buffer];
    std::string message = "'" + op.primitive->name + "' (" + m_ctx.context(s) + ") makes " + unit +
                          "s " + std::to_string(i) + " and " + std::to_string(j) + " of '" +
                          role.name + "' write the same elements of '" + b.name + "' (" +
                          tiles[i].describe(m_model) + " and " + tiles[j].describe(m_model) + ")";
    message += so.instanceVars == 0
                   ? ": the subscript names no wg, warp or lane, so every " + unit +
                         " of the role writes the same tile (write-after-write inside the role)"
                   : ": their tiles overlap (write-after-write inside the role)";
    // Rows of the stages written that no instance writes.
    if (!b.shape.empty() && !tiles[0].box.empty()) {
      std::vector<sema::Interval> rows;
      for (const Footprint& f : tiles)
        rows.push_back(f.box[0]);
      auto missing = gaps(rows, b.shape[0]);
      if (!missing.empty()) {
        message += "; rows ";
        for (std::size_t k = 0; k < missing.size(); ++k)
          message += (k ? ", " : "") + range(missing[k]);
        message += " of '" + b.name + "' are written by no " + unit;
      }
    }
    Diagnostic* d = m_ctx.reporter.report(VerifyId::InstanceWriteOverlap,
                                          m_ctx.operandRange(op, operand), message);
    std::int64_t instances = unit == "thread" ? role.threads()
                             : unit == "warp" ? role.warps()
                                              : (role.warps() + 3) / 4;
    addNote(d, m_ctx.declRange(role.decl),
            "'" + role.name + "' runs " + std::to_string(instances) + " " + unit + "s (warps " +
                std::to_string(role.warpBegin) + ".." + std::to_string(role.warpEnd - 1) +
                "), each executing this instruction");
    addNote(d, m_ctx.declRange(b.decl), "'" + b.name + "' declared here");
    std::string var = unit == "thread" ? "tid" : unit == "warp" ? "warp" : "wg";
    setFix(d, "give each " + unit + " its own elements: index the destination by `" + var +
                  "` (e.g. `" + b.name + "[" + var + " * ROWS +: ROWS, ...]`)" +
                  (unit == "thread" ? ", or let one elected thread store a shared value" : ""));
  }

  Context& m_ctx;
  const sema::KernelModel& m_model;
  std::set<std::pair<std::size_t, std::size_t>> m_done;
};

} // namespace

void checkInstanceWrites(Context& ctx) {
  InstanceWrites(ctx).run();
}

} // namespace cake::verify::detail
