// Hardware barrier plan (ids of named barriers and the syncs lowering puts in front of
// warp-, warpgroup- and elected-scope releases); see cake/Verify/BarrierPlan.h.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Verify/BarrierPlan.h"

#include <algorithm>
#include <array>
#include <set>
#include <unordered_map>

namespace cake::verify {

namespace {

/// Levels of "the role's threads may have generic accesses of shared or tensor memory that no
/// barrier has ordered yet", by the scope a barrier covers: warp, warpgroup, role. A barrier of
/// a scope orders that scope and every smaller one, so dirty(warp) <= dirty(wg) <= dirty(role).
constexpr std::size_t kLevels = 3;
using State = std::array<bool, kLevels>;

/// What a statement does to one level: a transfer function on booleans.
enum class Effect : std::uint8_t { Keep, Set, Clear };
using Transfer = std::array<Effect, kLevels>;

Transfer then(const Transfer& first, const Transfer& second) {
  Transfer out{};
  for (std::size_t i = 0; i < kLevels; ++i)
    out[i] = second[i] == Effect::Keep ? first[i] : second[i];
  return out;
}

State applyTransfer(const Transfer& t, State s) {
  for (std::size_t i = 0; i < kLevels; ++i)
    if (t[i] != Effect::Keep)
      s[i] = t[i] == Effect::Set;
  return s;
}

/// The entry state of a loop body: the state before the loop joined with the back edge (the
/// least fixpoint of in = before | body(in)).
State loopEntry(const Transfer& body, State before) {
  for (std::size_t i = 0; i < kLevels; ++i)
    before[i] = before[i] || body[i] == Effect::Set;
  return before;
}

/// The loop as one statement: it may run zero times, so a body that clears a level keeps it.
Transfer loopTransfer(const Transfer& body) {
  Transfer out{};
  for (std::size_t i = 0; i < kLevels; ++i)
    out[i] = body[i] == Effect::Set ? Effect::Set : Effect::Keep;
  return out;
}

std::size_t level(ReleaseSync s) {
  switch (s) {
  case ReleaseSync::Warp:
    return 0;
  case ReleaseSync::Warpgroup:
    return 1;
  default:
    return 2;
  }
}

class Planner {
public:
  Planner(const ir::Module& module, const sema::KernelModel& model, BarrierPlan& plan)
      : m_module(module), m_model(model), m_plan(plan) {
    m_ops.reserve(model.ops.size());
    for (const sema::OpInfo& op : model.ops)
      m_ops.emplace(op.stmt, &op);
  }

  void run() {
    for (const sema::BarrierInfo& b : m_model.barriers)
      m_plan.declared += b.named ? 1 : 0;
    const std::int64_t ctaThreads = m_model.threadsPerCta();
    std::set<std::string> roleBarriers;
    for (const sema::OpInfo& op : m_model.ops)
      for (const reg::EffectDef& e : op.primitive->effects)
        if (e.kind == reg::EffectKind::Sync && !e.operandIndex && e.syncScope == "role")
          for (const std::string& r : op.roles)
            roleBarriers.insert(r);
    std::vector<bool> needsWarpgroups(m_model.roles.size(), false);
    for (std::size_t r = 0; r < m_model.roles.size(); ++r) {
      m_role = r;
      m_memo.clear();
      State s{};
      for (const ir::StmtPtr& top : m_module.kernel->body)
        if (top->kind == ir::StmtKind::On && names(*top, m_model.roles[r].name))
          s = forward(top->body, s);
      for (const auto& [key, sync] : m_plan.releases)
        if (key.first == r) {
          if (sync == ReleaseSync::Role)
            roleBarriers.insert(m_model.roles[r].name);
          needsWarpgroups[r] = needsWarpgroups[r] || sync == ReleaseSync::Warpgroup;
        }
    }
    std::int64_t next = 1 + m_plan.declared;
    for (const std::string& name : roleBarriers) {
      const sema::RoleInfo* role = findRole(name);
      if (role && role->threads() == ctaThreads)
        m_plan.roleBarrier[name] = 0;
      else
        m_plan.roleBarrier[name] = next++;
    }
    for (std::size_t r = 0; r < m_model.roles.size(); ++r)
      if (needsWarpgroups[r]) {
        m_plan.warpgroupBase[m_model.roles[r].name] = next;
        next += (m_model.roles[r].warps() + 3) / 4;
      }
    m_plan.count = next;
  }

private:
  const ir::Module& m_module;
  const sema::KernelModel& m_model;
  BarrierPlan& m_plan;
  std::unordered_map<const ir::Stmt*, const sema::OpInfo*> m_ops;
  std::size_t m_role = 0;
  std::unordered_map<const ir::Stmt*, Transfer> m_memo; ///< loop body summaries of m_role

  static bool names(const ir::Stmt& on, const std::string& role) {
    return std::any_of(on.block().roles.begin(), on.block().roles.end(),
                       [&](const ir::Ident& id) { return id.name == role || id.name == "all"; });
  }

  const sema::RoleInfo* findRole(const std::string& name) const {
    for (const sema::RoleInfo& r : m_model.roles)
      if (r.name == name)
        return &r;
    return nullptr;
  }

  /// The sync a release needs when its scope is dirty (None: not a partial-scope release).
  ReleaseSync releaseKind(const sema::OpInfo& op) const {
    const reg::Primitive& p = *op.primitive;
    if (std::none_of(p.effects.begin(), p.effects.end(),
                     [](const reg::EffectDef& e) { return e.kind == reg::EffectKind::Arrive; }))
      return ReleaseSync::None;
    reg::IssueScope scope = p.issue;
    if (p.issueAttribute && *p.issueAttribute < op.attributes.size())
      if (auto parsed = reg::parseIssueScope(op.attributes[*p.issueAttribute].sym))
        scope = *parsed;
    const std::int64_t warps = m_model.roles[m_role].warps();
    ReleaseSync kind = ReleaseSync::None;
    switch (scope) {
    case reg::IssueScope::Warp:
      kind = ReleaseSync::Warp;
      break;
    case reg::IssueScope::Warpgroup:
      kind = warps > 4 ? ReleaseSync::Warpgroup : ReleaseSync::Role;
      break;
    case reg::IssueScope::Elected:
      kind = ReleaseSync::Role;
      break;
    default:
      return ReleaseSync::None;
    }
    // A role of one warp is ordered by the warp's own barrier.
    return kind == ReleaseSync::Role && warps == 1 ? ReleaseSync::Warp : kind;
  }

  /// Generic-proxy access of shared or tensor memory (what a later TMA or MMA may overwrite).
  bool genericSlotAccess(const sema::OpInfo& op, const reg::EffectDef& e) const {
    if ((e.kind != reg::EffectKind::Read && e.kind != reg::EffectKind::Write) ||
        e.proxy == "async" || !e.operandIndex || *e.operandIndex >= op.operands.size())
      return false;
    const sema::OperandInfo& o = op.operands[*e.operandIndex];
    if (o.entity != sema::EntityKind::Buffer || o.entityIndex >= m_model.buffers.size())
      return false;
    const ir::Space space = m_model.buffers[o.entityIndex].space;
    return space == ir::Space::Smem || space == ir::Space::Tmem;
  }

  Transfer opTransfer(const sema::OpInfo& op) const {
    Transfer t{};
    if (ReleaseSync k = releaseKind(op); k != ReleaseSync::None)
      for (std::size_t i = 0; i <= level(k); ++i)
        t[i] = Effect::Clear;
    for (const reg::EffectDef& e : op.primitive->effects) {
      if (e.kind == reg::EffectKind::Sync && !e.syncArrive)
        t.fill(Effect::Clear);
      else if (genericSlotAccess(op, e))
        t.fill(Effect::Set);
    }
    return t;
  }

  Transfer summary(const std::vector<ir::StmtPtr>& body) {
    Transfer t{};
    for (const ir::StmtPtr& s : body)
      t = then(t, stmtTransfer(*s));
    return t;
  }

  Transfer stmtTransfer(const ir::Stmt& s) {
    if (s.kind == ir::StmtKind::Op) {
      auto it = m_ops.find(&s);
      return it == m_ops.end() ? Transfer{} : opTransfer(*it->second);
    }
    if (s.kind != ir::StmtKind::For)
      return Transfer{};
    auto it = m_memo.find(&s);
    if (it == m_memo.end())
      it = m_memo.emplace(&s, summary(s.body)).first;
    return loopTransfer(it->second);
  }

  State forward(const std::vector<ir::StmtPtr>& body, State s) {
    for (const ir::StmtPtr& st : body) {
      if (st->kind == ir::StmtKind::For) {
        Transfer t = stmtTransfer(*st); // fills the memo with the body summary
        forward(st->body, loopEntry(m_memo.at(st.get()), s));
        s = applyTransfer(t, s);
        continue;
      }
      if (st->kind != ir::StmtKind::Op)
        continue;
      auto it = m_ops.find(st.get());
      if (it == m_ops.end())
        continue;
      if (ReleaseSync k = releaseKind(*it->second); k != ReleaseSync::None && s[level(k)])
        m_plan.releases[{m_role, st.get()}] = k;
      s = applyTransfer(opTransfer(*it->second), s);
    }
    return s;
  }
};

} // namespace

BarrierPlan planBarriers(const ir::Module& module, const sema::KernelModel& model) {
  BarrierPlan plan;
  if (!module.kernel)
    return plan;
  Planner(module, model, plan).run();
  return plan;
}

} // namespace cake::verify
