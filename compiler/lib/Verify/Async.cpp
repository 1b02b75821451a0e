// Per-role, program-order checks of asynchronous work and of races between the warps of one
// role:
//  - an access that completes through a commit group (wgmma, cp.async, bulk copies,
//    tcgen05.ld/st) is pending until a wait retires its group; using or overwriting its
//    registers or memory before that is a finding;
//  - registers an accumulator shares with other operations need a wgmma.fence before wgmma;
//  - work still pending when the role ends is a finding;
//  - shared/tensor memory written by some instances of a role and accessed by other instances
//    (a cooperative copy read by each warp, a warp's slice read by an elected thread) needs a
//    role-wide barrier (cta.sync or a named barrier of the role) in between.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Analyses.h"

#include "cake/IR/Printer.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>

namespace cake::verify::detail {

namespace {

struct Pending {
  Footprint footprint;
  bool write = false;
  const Step* step = nullptr;
  std::string group;
};

/// An access of shared/tensor memory by a role, live from the barrier epoch it was issued in
/// (`from`) to the epoch it completed in (`to`; equal for synchronous accesses).
struct RoleAccess {
  Footprint footprint;
  bool write = false;
  const Step* step = nullptr;
  std::size_t operand = 0;
  std::int64_t from = 0;
  std::int64_t to = 0;
};

/// Whether two accesses of one role are made by the same threads on the same data: same issue
/// scope and textually identical subscripts (each instance touches only its own slice).
bool sameInstances(const Context& ctx, const RoleAccess& a, const RoleAccess& b) {
  const sema::OpInfo& oa = ctx.op(*a.step);
  const sema::OpInfo& ob = ctx.op(*b.step);
  reg::IssueScope sa = oa.primitive->issue, sb = ob.primitive->issue;
  if (oa.primitive->issueAttribute || ob.primitive->issueAttribute)
    return false;
  if (sa != sb)
    return false;
  // Cooperative copies of one primitive distribute equal tiles over the role's threads the
  // same way: every thread touches the same elements in both.
  if (sa == reg::IssueScope::Role)
    return oa.primitive == ob.primitive &&
           oa.operands[a.operand].facts.shape == ob.operands[b.operand].facts.shape;
  if (sa == reg::IssueScope::Elected)
    return true; // the same elected thread
  const ir::Operand& x = oa.stmt->operands[a.operand];
  const ir::Operand& y = ob.stmt->operands[b.operand];
  if (x.indices.size() != y.indices.size())
    return false;
  for (std::size_t i = 0; i < x.indices.size(); ++i) {
    const ir::Index& p = x.indices[i];
    const ir::Index& q = y.indices[i];
    if (p.kind != q.kind)
      return false;
    if (p.start && ir::print(*p.start) != ir::print(*q.start))
      return false;
    if (p.size && ir::print(*p.size) != ir::print(*q.size))
      return false;
  }
  return true;
}

class RoleChecker {
public:
  RoleChecker(Context& ctx, const RoleStream& stream) : m_ctx(ctx), m_stream(stream) {}

  void run() {
    for (const Step& s : m_stream.steps)
      step(s);
    // A program cut by the analysis bound has no end: its last waits were never unrolled, so
    // work in flight there says nothing (as for deadlocks, Simulation.cpp).
    if (m_ctx.program.boundReached)
      return;
    // Work still in flight at the end: writes may never land, reads (a TMA store's source)
    // may still be reading shared memory the CTA releases when it exits.
    for (bool writes : {true, false}) {
      for (const auto& [group, list] : m_committed)
        for (const auto& g : list)
          for (const Pending& p : g)
            if (p.write == writes)
              pendingAtExit(p);
      for (const auto& [group, list] : m_open)
        for (const Pending& p : list)
          if (p.write == writes)
            pendingAtExit(p);
    }
  }

private:
  void pendingAtExit(const Pending& p) {
    // A read of global memory in flight at exit is harmless; shared or tensor memory is not.
    ir::Space space = m_ctx.model.buffers[p.footprint.buffer].space;
    if (!p.write && space != ir::Space::Smem && space != ir::Space::Tmem)
      return;
    const sema::OpInfo& op = m_ctx.op(*p.step);
    Diagnostic* d = m_ctx.reporter.report(
        VerifyId::AsyncPendingAtExit, m_ctx.opRange(op),
        "the asynchronous " + std::string(p.write ? "write of '" : "read of '") +
            op.primitive->name + "' " + (p.write ? "to " : "from ") +
            p.footprint.describe(m_ctx.model) + " is never waited for (" + p.group +
            " group) before '" + m_ctx.model.roles[m_stream.role].name + "' ends");
    setFix(d, "add a wait that retires the " + p.group + " group (e.g. pending=0) at the end");
  }

  void step(const Step& s) {
    const sema::OpInfo& op = m_ctx.op(s);
    StepContext sctx(op, s);
    // Effects in their declared order: reduce.cta writes scratch, syncs, then reads it.
    for (const reg::EffectDef& e : op.primitive->effects) {
      switch (e.kind) {
      case reg::EffectKind::Read:
      case reg::EffectKind::Write:
        access(s, op, e);
        break;
      case reg::EffectKind::CommitGroup:
        m_committed[e.group].push_back(std::move(m_open[e.group]));
        m_open[e.group].clear();
        break;
      case reg::EffectKind::WaitGroup: {
        std::int64_t keep = quantity(e.pending, sctx, 0);
        auto& list = m_committed[e.group];
        while (std::int64_t(list.size()) > keep)
          list.pop_front();
        bool hasCommit = e.group == "cp.async" || e.group == "bulk" || e.group == "wgmma";
        if (!hasCommit)
          m_open[e.group].clear();
        retireDeferred(e.group);
        break;
      }
      case reg::EffectKind::Commit:
        // tcgen05.commit: completion is observed through the barrier it arrives on.
        m_open[e.group].clear();
        m_committed[e.group].clear();
        retireDeferred(e.group);
        break;
      case reg::EffectKind::Fence:
        if (e.proxy == "wgmma")
          m_regWrites.clear();
        break;
      case reg::EffectKind::Sync:
        // bar.arrive does not wait: it orders nothing among the role's own threads.
        if (!e.syncArrive && syncCoversRole(s, e))
          ++m_epoch;
        break;
      default:
        break;
      }
    }
  }

  /// One read or write effect: checks against pending asynchronous work, wgmma.fence and
  /// intra-role races, then records it.
  void access(const Step& s, const sema::OpInfo& op, const reg::EffectDef& e) {
    if (!e.operandIndex)
      return;
    const StepOperand& so = s.operands[*e.operandIndex];
    if (!so.present || !so.footprint)
      return;
    const sema::RoleInfo& role = m_ctx.model.roles[m_stream.role];
    std::string ownGroup = e.completion.rfind("group:", 0) == 0 ? e.completion.substr(6) : "";
    bool write = e.kind == reg::EffectKind::Write;
    auto check = [&](const Pending& p) {
      if (p.group == ownGroup || !p.footprint.overlaps(*so.footprint))
        return false;
      if (!p.write && !write)
        return false;
      const sema::OpInfo& pending = m_ctx.op(*p.step);
      VerifyId id = p.write && !write ? VerifyId::AsyncReadBeforeWait : VerifyId::AsyncOverwrite;
      std::string what = p.write && !write ? "reads" : "overwrites";
      Diagnostic* d = m_ctx.reporter.report(
          id, m_ctx.operandRange(op, *e.operandIndex),
          "'" + op.primitive->name + "' " + what + " " + so.footprint->describe(m_ctx.model) +
              " while the asynchronous " + std::string(p.write ? "write" : "read") + " of '" +
              pending.primitive->name + "' (" + m_ctx.context(*p.step) +
              ") is still in flight: no wait has retired its " + p.group + " group");
      addNote(d, m_ctx.opRange(pending), "asynchronous operation issued here");
      setFix(d, waitHint(p.group));
      return true;
    };
    bool found = false;
    for (auto& [group, list] : m_committed)
      for (auto& g : list)
        for (const Pending& p : g)
          if (!found && check(p))
            found = true;
    for (auto& [group, list] : m_open)
      for (const Pending& p : list)
        if (!found && check(p))
          found = true;
    const sema::BufferInfo& b = m_ctx.model.buffers[so.footprint->buffer];
    // wgmma.fence: registers written by other operations before wgmma uses them.
    if (ownGroup == "wgmma" && b.space == ir::Space::Reg) {
      for (const RoleAccess& w : m_regWrites) {
        // A read by another instruction matters when the wgmma writes the registers.
        if (!w.footprint.overlaps(*so.footprint) || (!w.write && !write))
          continue;
        const sema::OpInfo& writer = m_ctx.op(*w.step);
        Diagnostic* d = m_ctx.reporter.report(
            VerifyId::WgmmaFenceMissing, m_ctx.operandRange(op, *e.operandIndex),
            "'" + op.primitive->name + "' uses registers of " + so.footprint->describe(m_ctx.model) +
                " that '" + writer.primitive->name + "' " + (w.write ? "wrote" : "read") + " (" +
                m_ctx.context(*w.step) + ") with no wgmma.fence in between");
        addNote(d, m_ctx.opRange(writer), w.write ? "register write here" : "register read here");
        setFix(d, "add 'wgmma.fence' before the first wgmma.mma after the register write");
        break;
      }
    }
    // Intra-role races on shared and tensor memory.
    if ((b.space == ir::Space::Smem || b.space == ir::Space::Tmem) && role.warps() > 1 &&
        e.completion.rfind("barrier:", 0) != 0) {
      RoleAccess a{*so.footprint, write, &s, *e.operandIndex, m_epoch, m_epoch};
      if (ownGroup.empty())
        intraRole(a);
      else
        m_deferred[ownGroup].push_back(a);
    }
    // PTX requires wgmma.fence before a wgmma that touches registers other instructions read
    // or wrote since the last fence.
    if (ownGroup != "wgmma" && b.space == ir::Space::Reg)
      m_regWrites.push_back({*so.footprint, write, &s, *e.operandIndex, m_epoch, m_epoch});
    if (!ownGroup.empty())
      m_open[ownGroup].push_back({*so.footprint, write, &s, ownGroup});
  }

  bool syncCoversRole(const Step& s, const reg::EffectDef& e) {
    if (!e.operandIndex)
      return true; // CTA-wide
    const StepOperand& so = s.operands[*e.operandIndex];
    if (!so.present || so.entity != sema::EntityKind::NBarrier)
      return true;
    const sema::BarrierInfo& b = m_ctx.model.barriers[so.entityIndex];
    const std::string& name = m_ctx.model.roles[m_stream.role].name;
    return std::find(b.roles.begin(), b.roles.end(), name) != b.roles.end() ||
           std::find(b.roles.begin(), b.roles.end(), "all") != b.roles.end();
  }

  void retireDeferred(const std::string& group) {
    std::vector<RoleAccess> retired = std::move(m_deferred[group]);
    m_deferred[group].clear();
    for (RoleAccess a : retired) {
      a.to = m_epoch; // live from its issue until now
      intraRole(a);
    }
  }

  void intraRole(const RoleAccess& a) {
    // Completed accesses of the current epoch, and asynchronous ones still in flight (live
    // until their group retires).
    if (!raceWith(a, m_accesses, false))
      for (const auto& [group, list] : m_deferred)
        if (raceWith(a, list, true))
          break;
    // Accesses that ended in an earlier epoch can no longer race with anything that follows.
    m_accesses.erase(std::remove_if(m_accesses.begin(), m_accesses.end(),
                                    [&](const RoleAccess& x) { return x.to < m_epoch; }),
                     m_accesses.end());
    m_accesses.push_back(a);
  }

  /// Reports the first access of `others` that races with `a`; returns whether one did.
  bool raceWith(const RoleAccess& a, const std::vector<RoleAccess>& others, bool inFlight) {
    for (const RoleAccess& x : others) {
      std::int64_t xTo = inFlight ? std::numeric_limits<std::int64_t>::max() : x.to;
      bool concurrent = x.from <= a.to && a.from <= xTo;
      if (!concurrent || (!x.write && !a.write) || !x.footprint.overlaps(a.footprint))
        continue;
      if (sameInstances(m_ctx, x, a))
        continue;
      const sema::OpInfo& later = m_ctx.op(*a.step);
      const sema::OpInfo& earlier = m_ctx.op(*x.step);
      // Program order (not completion order) names the hazard.
      bool aFirst = a.step < x.step;
      const RoleAccess& first = aFirst ? a : x;
      const RoleAccess& second = aFirst ? x : a;
      std::string kind = first.write && second.write ? "WAW" : first.write ? "RAW" : "WAR";
      Diagnostic* d = m_ctx.reporter.report(
          VerifyId::IntraRoleRace, m_ctx.operandRange(later, a.operand),
          kind + " race between warps of '" + m_ctx.model.roles[m_stream.role].name + "' on " +
              a.footprint.describe(m_ctx.model) + ": '" + later.primitive->name + "' (" +
              m_ctx.context(*a.step) + ") " + (a.write ? "writes" : "reads") +
              " data other threads " + (x.write ? "wrote" : "read") + " with '" +
              earlier.primitive->name + "' (" + m_ctx.context(*x.step) +
              ") and no role-wide barrier separates them",
          std::to_string(x.step->op));
      addNote(d, m_ctx.opRange(earlier), "the other access");
      setFix(d, "put a cta.sync (or a named barrier of this role) between the two accesses");
      return true;
    }
    return false;
  }

  static std::string waitHint(const std::string& group) {
    if (group == "wgmma")
      return "retire it first: wgmma.commit, then wgmma.wait pending=0";
    if (group == "cp.async")
      return "retire it first: cp.async.commit, then cp.async.wait pending=N";
    if (group == "bulk")
      return "retire it first: bulk.commit_group, then bulk.wait_group pending=N";
    if (group == "tcgen05.ld")
      return "add tcgen05.wait_ld before using the loaded registers";
    if (group == "tcgen05.st")
      return "add tcgen05.wait_st before reusing the source registers";
    return "wait for the " + group + " group first";
  }

  Context& m_ctx;
  const RoleStream& m_stream;
  std::map<std::string, std::vector<Pending>> m_open;
  std::map<std::string, std::deque<std::vector<Pending>>> m_committed;
  std::vector<RoleAccess> m_regWrites;
  std::vector<RoleAccess> m_accesses;
  std::map<std::string, std::vector<RoleAccess>> m_deferred;
  std::int64_t m_epoch = 0;
};

} // namespace

void checkAsync(Context& ctx) {
  for (const RoleStream& s : ctx.program.roles)
    RoleChecker(ctx, s).run();
}

} // namespace cake::verify::detail
