// Instance clocks (docs/ir.md, "Instances of a role"): each warp of a role is an instance with
// its own vector clock. Steps of a role execute in the role-level simulation's order; an
// elected operation advances one warp, a per-warpgroup arrive the warpgroup leaders, anything
// else every warp. Warpgroup-collective instructions (wgmma.*, whose .aligned execution and
// shared completion make the warpgroup act as one) join the clocks of their warpgroup, and the
// sync lowering puts in front of a partial-scope release (BarrierPlan) joins the scope it
// covers. Accesses are recorded per issuing warp with that warp's footprint. A pair of
// accesses that the role-level simulation orders but the instance clocks do not is a bug only
// instances show: a release on behalf of instances that may still read, a TMA re-armed or read
// by the role's own warps without synchronisation, an aliased view clobbered by a faster
// instance, a proxy fence placed after the barrier that publishes the writes it should cover.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Instances.h"

#include <algorithm>

namespace cake::verify::detail {

namespace {

/// Accesses remembered per buffer before the instance analysis stops (and says so).
constexpr std::size_t kRecordBound = 4096;

std::int64_t swizzleSpan(const std::string& swizzle) {
  if (swizzle == "128B")
    return 128;
  if (swizzle == "64B")
    return 64;
  if (swizzle == "32B")
    return 32;
  return 1;
}

/// Bytes [lo, hi) of shared memory a footprint may touch: whole rows of its first dimension,
/// widened to the swizzle span (swizzling permutes 16-byte chunks inside one span).
std::pair<std::int64_t, std::int64_t> byteRange(const sema::BufferInfo& b, const Footprint& f) {
  std::int64_t stage = b.stageBytes();
  std::int64_t rows = b.shape.empty() ? 1 : std::max<std::int64_t>(1, b.shape[0]);
  std::int64_t rowBytes = std::max<std::int64_t>(1, stage / rows);
  std::int64_t lo = b.offset + f.stage.lo * stage + (f.box.empty() ? 0 : f.box[0].lo * rowBytes);
  std::int64_t hi =
      b.offset + f.stage.hi * stage + (f.box.empty() ? stage : (f.box[0].hi + 1) * rowBytes);
  std::int64_t span = swizzleSpan(b.swizzle);
  lo -= ((lo % span) + span) % span;
  hi += (span - hi % span) % span;
  return {lo, hi};
}

/// Whether `outer` contains every element of `inner` (same buffer).
bool covers(const Footprint& outer, const Footprint& inner) {
  if (outer.buffer != inner.buffer || inner.stage.lo < outer.stage.lo ||
      inner.stage.hi > outer.stage.hi)
    return false;
  for (std::size_t i = 0; i < inner.box.size() && i < outer.box.size(); ++i)
    if (inner.box[i].lo < outer.box[i].lo || inner.box[i].hi > outer.box[i].hi)
      return false;
  return true;
}

std::string bytes(std::pair<std::int64_t, std::int64_t> r) {
  return std::to_string(r.first) + ".." + std::to_string(r.second - 1);
}

} // namespace

InstanceModel::InstanceModel(Context& ctx, std::size_t agents, std::vector<std::size_t> barrierBase)
    : m_ctx(ctx), m_model(ctx.model), m_plan(planBarriers(ctx.module, ctx.model)), m_agents(agents),
      m_barrierBase(std::move(barrierBase)) {
  m_width = agents;
  for (std::size_t r = 0; r < m_model.roles.size(); ++r) {
    m_base.push_back(m_width);
    m_width += warps(r);
  }
  m_clocks.resize(m_model.roles.size());
  for (std::size_t r = 0; r < m_model.roles.size(); ++r)
    m_clocks[r].assign(warps(r), Clock(m_width, 0));
  m_synced.resize(m_model.roles.size());
  for (std::size_t r = 0; r < m_model.roles.size(); ++r)
    m_synced[r].assign((warps(r) + 3) / 4, 1); // all clocks start at zero
  m_scopes.assign(m_model.ops.size(), -1);
  m_syncs.assign(m_model.ops.size() * m_model.roles.size(), -1);
  m_history.resize(2 * m_model.buffers.size());
  m_pruned.assign(2 * m_model.buffers.size(), 0);
  m_elements.resize(m_model.barriers.size());
  for (std::size_t b = 0; b < m_model.barriers.size(); ++b)
    m_elements[b].assign(std::size_t(std::max<std::int64_t>(1, m_model.barriers[b].size)),
                         Element{Clock(m_width, 0), Clock(m_width, 0)});
}

std::size_t InstanceModel::warps(std::size_t role) const {
  return std::size_t(std::max<std::int64_t>(1, m_model.roles[role].warps()));
}

InstanceModel::Warps InstanceModel::issuers(std::size_t role, const Step& s) const {
  // The issue scope is static per operation (scope= is an enum attribute): cached.
  std::int8_t& cached = m_scopes[s.op];
  if (cached < 0) {
    const sema::OpInfo& op = m_ctx.op(s);
    reg::IssueScope scope = issueScope(op, s.attributes.empty() ? op.attributes : s.attributes);
    cached = scope == reg::IssueScope::Elected                                     ? 0
             : scope == reg::IssueScope::Warpgroup && op.primitive->issueAttribute ? 1
             : scope == reg::IssueScope::Warpgroup                                 ? 3
                                                                                   : 2;
  }
  std::size_t n = warps(role);
  if (cached == 0)
    return {0, 1, 1};
  if (cached == 1)
    return {0, 4, n}; // one arriving thread per warpgroup, in its first warp
  return {0, 1, n};
}

InstanceModel::Warps InstanceModel::accessors(const InstanceAccess& a) const {
  Warps all = issuers(a.role, *a.step);
  // A warpgroup-collective instruction joins its warpgroup's clocks (execute): the leader
  // then speaks for the warpgroup, unless the subscript gives its warps different data.
  if (m_scopes[a.step->op] == 3 && a.operand < a.step->operands.size() &&
      (a.step->operands[a.operand].instanceVars & ~StepOperand::kNamesWg) == 0)
    all.stride = 4;
  return all;
}

void InstanceModel::rendezvous(std::size_t role, std::size_t first, std::size_t count) {
  auto& clocks = m_clocks[role];
  auto& synced = m_synced[role];
  std::size_t end = std::min(clocks.size(), first + count);
  if (first >= end)
    return;
  auto inside = [&](std::size_t g) {
    return 4 * g >= first && std::min(4 * g + 4, clocks.size()) <= end;
  };
  // One warpgroup already in step: nothing to join.
  if (first % 4 == 0 && end == std::min(first + 4, clocks.size()) && synced[first / 4])
    return;
  // Join into the first clock; a warpgroup in step contributes its first warp's clock only.
  for (std::size_t w = first; w < end;) {
    std::size_t next = w % 4 == 0 && synced[w / 4] && inside(w / 4) ? std::min(w + 4, end) : w + 1;
    if (w != first)
      join(clocks[first], clocks[w]);
    w = next;
  }
  for (std::size_t w = first + 1; w < end; ++w)
    std::copy(clocks[first].begin(), clocks[first].end(), clocks[w].begin());
  for (std::size_t g = first / 4; 4 * g < end; ++g)
    if (inside(g))
      synced[g] = 1;
}

void InstanceModel::diverge(std::size_t role, const Warps& touched) {
  auto& synced = m_synced[role];
  std::size_t n = m_clocks[role].size();
  if (touched.first == 0 && touched.stride == 1 && touched.limit >= n)
    return; // every warp got the same change
  for (std::size_t w : touched)
    if (std::min(4 * (w / 4) + 4, n) - 4 * (w / 4) > 1)
      synced[w / 4] = 0;
}

void InstanceModel::pruneHistory(std::vector<Record>& history) {
  // What every instance has observed: a record below it is ordered before any future access
  // (clocks only grow) and can never race again.
  m_scratch.assign(m_width, UINT64_MAX);
  for (const auto& role : m_clocks)
    for (const Clock& c : role)
      for (std::size_t i = 0; i < m_width; ++i)
        m_scratch[i] = std::min(m_scratch[i], c[i]);
  // Newest first: a record is dropped when a newer kept record of the same instance, kind and
  // ordering component covers it.
  std::vector<Record> kept;
  kept.reserve(history.size());
  for (auto it = history.rbegin(); it != history.rend(); ++it) {
    if (m_scratch[it->component] >= it->stamp)
      continue;
    bool subsumed = false;
    for (const Record& y : kept)
      if (y.role == it->role && y.warp == it->warp && y.write == it->write &&
          y.component == it->component && covers(*y.footprint, *it->footprint)) {
        subsumed = true;
        break;
      }
    if (!subsumed)
      kept.push_back(*it);
  }
  std::reverse(kept.begin(), kept.end());
  history = std::move(kept);
}

void InstanceModel::execute(std::size_t role, const Step& s, std::uint64_t time) {
  m_time = time;
  const sema::OpInfo& op = m_ctx.op(s);
  std::size_t n = warps(role);
  std::int8_t& sync = m_syncs[role * m_model.ops.size() + s.op];
  if (sync < 0)
    sync = std::int8_t(m_plan.releaseSync(role, op.stmt));
  switch (ReleaseSync(sync)) {
  case ReleaseSync::Warpgroup:
    for (std::size_t w = 0; w < n; w += 4)
      rendezvous(role, w, 4);
    break;
  case ReleaseSync::Role:
    rendezvous(role, 0, n);
    break;
  default:
    break;
  }
  Warps ticked = issuers(role, s);
  const bool collective =
      op.primitive->issue == reg::IssueScope::Warpgroup && !op.primitive->issueAttribute;
  const bool all = ticked.first == 0 && ticked.stride == 1 && ticked.limit >= n;
  auto& clocks = m_clocks[role];
  auto& synced = m_synced[role];
  for (std::size_t w : ticked)
    ++clocks[w][comp(role, w)];
  if (collective && all) {
    // After the tick: what the collective instruction does (a wgmma read retired by
    // wgmma.wait) is then known to the whole warpgroup.
    for (std::size_t g = 0; 4 * g < n; ++g) {
      std::size_t first = 4 * g, end = std::min(first + 4, n);
      if (!synced[g]) {
        rendezvous(role, first, 4);
        continue;
      }
      // In step before the tick, each warp ticked its own component: the join is every
      // warp's clock plus the other warps' ticks.
      for (std::size_t x = first; x < end; ++x)
        for (std::size_t v = first; v < end; ++v)
          if (v != x)
            ++clocks[x][comp(role, v)];
    }
    return;
  }
  // Each ticked warp advanced its own component: a warpgroup of several warps is no longer
  // in step.
  for (std::size_t w : ticked)
    if (std::min(4 * (w / 4) + 4, n) - 4 * (w / 4) > 1)
      synced[w / 4] = 0;
  if (collective)
    for (std::size_t w = 0; w < n; w += 4)
      rendezvous(role, w, 4);
}

void InstanceModel::wait(std::size_t role, const Step& s, std::size_t barrier,
                         std::int64_t element) {
  const Element& el = m_elements[barrier][std::size_t(element)];
  Warps waiting = issuers(role, s);
  for (std::size_t w : waiting)
    join(m_clocks[role][w], el.completed);
  diverge(role, waiting);
}

void InstanceModel::syncArrive(std::pair<std::size_t, std::int64_t> key, std::size_t role) {
  Clock& j = m_joined[key];
  if (j.empty())
    j.assign(m_width, 0);
  const auto& clocks = m_clocks[role];
  for (std::size_t w = 0; w < clocks.size(); ++w) {
    join(j, clocks[w]);
    if (w % 4 == 0 && m_synced[role][w / 4])
      w += 3; // the warpgroup's other clocks are the same
  }
}

void InstanceModel::syncPass(std::pair<std::size_t, std::int64_t> key, std::size_t role) {
  auto it = m_joined.find(key);
  if (it == m_joined.end())
    return;
  // Every warp joins the same clock: warpgroups in step stay in step.
  for (Clock& c : m_clocks[role])
    join(c, it->second);
}

void InstanceModel::roleSync(std::size_t role) {
  rendezvous(role, 0, warps(role));
}

void InstanceModel::release(std::size_t role, const Step& s, std::size_t barrier,
                            std::int64_t element, std::size_t agent, std::uint64_t agentCount) {
  Element& el = m_elements[barrier][std::size_t(element)];
  Warps arriving = issuers(role, s);
  for (std::size_t w : arriving)
    join(el.release, m_clocks[role][w]);
  if (agent != SIZE_MAX)
    el.release[agent] = std::max<std::uint64_t>(el.release[agent], agentCount);
  // Remember releases that carry fewer than all of the role's instances, to name them when a
  // race goes through one.
  bool arrival = false;
  for (const reg::EffectDef& e : m_ctx.op(s).primitive->effects)
    arrival = arrival || e.kind == reg::EffectKind::Arrive || e.kind == reg::EffectKind::Commit;
  if (!arrival || (!m_releases.empty() && m_releases.back().step == &s))
    return;
  const auto& clocks = m_clocks[role];
  Release rel;
  rel.role = role;
  rel.step = &s;
  rel.time = m_time;
  bool all = true;
  // A CTA has at most 32 warps; warps past the mask (a refused launch shape) count as covered.
  for (std::size_t v = 0; v < clocks.size() && v < 64; ++v) {
    for (std::size_t w : arriving)
      if (clocks[w][comp(role, v)] >= clocks[v][comp(role, v)])
        rel.covered |= std::uint64_t(1) << v;
    all = all && (rel.covered >> v & 1);
  }
  if (all)
    return;
  rel.warp = arriving.first;
  rel.stamp = clocks[rel.warp][comp(role, rel.warp)];
  m_releases.push_back(std::move(rel));
}

void InstanceModel::phaseDone(std::size_t barrier, std::int64_t element) {
  Element& el = m_elements[barrier][std::size_t(element)];
  el.completed = el.release;
  el.release.assign(m_width, 0);
}

void InstanceModel::proxyFence(std::size_t role, const Step& s) {
  for (std::size_t w : issuers(role, s))
    for (GenericWrite& g : m_generic)
      if (g.role == role && g.warp == w && g.fenceStamp == 0) {
        g.fenceStamp = m_clocks[role][w][comp(role, w)];
        g.fence = &s;
      }
}

const Footprint* InstanceModel::warpFootprint(const InstanceAccess& a, std::size_t warp) {
  if (a.operand < a.step->operands.size()) {
    const Footprint* f = a.step->operands[a.operand].warpFootprint(warp);
    if (f && f->buffer == a.footprint->buffer)
      return f;
  }
  m_owned.push_back(*a.footprint);
  return &m_owned.back();
}

bool InstanceModel::aliases(const Footprint& a, const Footprint& b) const {
  const sema::BufferInfo& x = m_model.buffers[a.buffer];
  const sema::BufferInfo& y = m_model.buffers[b.buffer];
  if (a.buffer == b.buffer || x.pool.empty() || x.pool != y.pool || x.offset < 0 || y.offset < 0)
    return false;
  auto p = byteRange(x, a);
  auto q = byteRange(y, b);
  return p.first < q.second && q.first < p.second;
}

void InstanceModel::issue(const InstanceAccess& a, bool asyncProxyRead, const Clock& roleClock) {
  if (m_bounded)
    return;
  // Group-completed work (wgmma, cp.async, bulk, tcgen05) is never a TMA load.
  for (std::size_t w : accessors(a)) {
    const Footprint& f = *warpFootprint(a, w);
    if (asyncProxyRead)
      checkProxy(a, w, f);
    judge(a, w, f, a.write, false, roleClock);
  }
}

void InstanceModel::perform(const InstanceAccess& a, bool asyncProxyRead, const Clock& roleClock) {
  if (m_bounded)
    return;
  const std::size_t roles = m_model.roles.size();
  const bool agent = a.component >= roles;
  const bool tma = agent && a.write && !m_barrierBase.empty() && a.component >= m_barrierBase[0];
  const sema::BufferInfo& b = m_model.buffers[a.footprint->buffer];
  for (std::size_t w : accessors(a)) {
    const Footprint* fp = warpFootprint(a, w);
    const Footprint& f = *fp;
    if (asyncProxyRead)
      checkProxy(a, w, f);
    judge(a, w, f, a.write, tma, roleClock);
    Record rec;
    rec.role = a.role;
    rec.warp = w;
    rec.write = a.write;
    rec.footprint = fp;
    rec.component = agent ? a.component : comp(a.role, w);
    rec.stamp = agent ? a.stamp : m_clocks[a.role][w][comp(a.role, w)];
    rec.roleComponent = a.component;
    rec.roleStamp = a.stamp;
    rec.step = a.step;
    rec.issued = a.issued;
    rec.tma = tma;
    std::size_t key = 2 * f.buffer + (a.write ? 1 : 0);
    auto& history = m_history[key];
    // A later access of the same instance, kind and ordering component that covers an earlier
    // one subsumes it. Pruned when the history has doubled since the last pruning (amortised
    // linear; the judgement stays exact either way).
    std::size_t& pruned = m_pruned[key];
    if (history.size() >= 2 * pruned + 32 || history.size() >= kRecordBound) {
      pruneHistory(history);
      pruned = history.size();
    }
    if (history.size() >= kRecordBound) {
      m_bounded = true;
      Diagnostic* d = m_ctx.reporter.report(
          VerifyId::InstanceBound, m_ctx.opRange(m_ctx.op(*a.step)),
          "the instance analysis keeps at most " + std::to_string(kRecordBound) +
              " unordered accesses per buffer and '" + b.name + "' reached that here (" +
              m_ctx.context(*a.step) +
              "): races between instances of one role after this point are not judged");
      addNote(d, m_ctx.declRange(b.decl), "'" + b.name + "' declared here");
      return;
    }
    history.push_back(std::move(rec));
    if (b.space == ir::Space::Smem && a.write) {
      if (a.asyncProxy) {
        // Async-proxy data replaces what generic writes left there: nothing to fence.
        m_generic.erase(
            std::remove_if(m_generic.begin(), m_generic.end(),
                           [&](const GenericWrite& g) { return g.footprint->overlaps(f); }),
            m_generic.end());
      } else {
        m_generic.erase(std::remove_if(m_generic.begin(), m_generic.end(),
                                       [&](const GenericWrite& g) {
                                         return g.role == a.role && g.warp == w &&
                                                g.fenceStamp != 0 && g.footprint->overlaps(f);
                                       }),
                        m_generic.end());
        m_generic.push_back({a.role, w, fp, comp(a.role, w), m_clocks[a.role][w][comp(a.role, w)],
                             0, nullptr, a.step});
      }
    }
  }
}

std::string InstanceModel::who(std::size_t role, std::size_t warp) const {
  std::string out = "warp " + std::to_string(warp);
  if (warps(role) > 4)
    out += " (warpgroup " + std::to_string(warp / 4) + ")";
  return out + " of '" + m_model.roles[role].name + "'";
}

void InstanceModel::judge(const InstanceAccess& a, std::size_t warp, const Footprint& f, bool write,
                          bool tma, const Clock& roleClock) {
  const Clock& clock = m_clocks[a.role][warp];
  auto visit = [&](const std::vector<Record>& history, bool sameBuffer) {
    // Latest first: the note then names the access closest to this one.
    for (auto it = history.rbegin(); it != history.rend(); ++it) {
      const Record& x = *it;
      if ((!x.write && !write) || clock[x.component] >= x.stamp)
        continue; // x happens before this instance's access
      if (sameBuffer ? !x.footprint->overlaps(f) : !aliases(*x.footprint, f))
        continue;
      if (x.role != a.role) {
        if (!sameBuffer) {
          reportViewClobber(x, a, warp, f);
          return true;
        }
        // Unordered for the roles too: the role-level simulation reports that race.
        if (roleClock[x.roleComponent] < x.roleStamp)
          continue;
        reportPartialRelease(x, a, f, releaseBetween(x, a.role, warp));
        return true;
      }
      if (x.tma && !tma) {
        reportTma(x, a, warp, f, false);
        return true;
      }
      if (tma && !x.tma) {
        reportTma(x, a, warp, f, true);
        return true;
      }
      if (!sameBuffer) {
        reportViewClobber(x, a, warp, f);
        return true;
      }
      // Plain accesses of one buffer by instances of one role: the epoch analysis of
      // Async.cpp (ps-intra-role-race) judges those.
    }
    return false;
  };
  // A write is judged against reads first: the data another instance may still be reading.
  if ((write && visit(m_history[2 * f.buffer], true)) || visit(m_history[2 * f.buffer + 1], true))
    return;
  const sema::BufferInfo& b = m_model.buffers[f.buffer];
  if (b.pool.empty())
    return;
  for (std::size_t buffer = 0; buffer < m_model.buffers.size(); ++buffer)
    if (buffer != f.buffer && m_model.buffers[buffer].pool == b.pool &&
        ((write && visit(m_history[2 * buffer], false)) || visit(m_history[2 * buffer + 1], false)))
      return;
}

const InstanceModel::Release* InstanceModel::releaseBetween(const Record& x, std::size_t readerRole,
                                                            std::size_t warp) const {
  const Clock& clock = m_clocks[readerRole][warp];
  for (const Release& r : m_releases)
    if (r.role == x.role && r.time >= x.issued && x.warp < 64 && !(r.covered >> x.warp & 1) &&
        clock[comp(r.role, r.warp)] >= r.stamp)
      return &r;
  return nullptr;
}

void InstanceModel::reportPartialRelease(const Record& x, const InstanceAccess& a,
                                         const Footprint& f, const Release* rel) {
  const sema::OpInfo& other = m_ctx.op(*x.step);
  const sema::OpInfo& later = m_ctx.op(*a.step);
  const std::string& owner = m_model.roles[x.role].name;
  std::string access = "'" + other.primitive->name + "' of " + who(x.role, x.warp) + " " +
                       (x.write ? "writes " : "reads ") + x.footprint->describe(m_model) + " (" +
                       m_ctx.context(*x.step) + ")";
  std::string overwrite = "'" + m_model.roles[a.role].name + "' " +
                          (a.write ? "writes " : "reads ") + f.describe(m_model) + " with '" +
                          later.primitive->name + "' (" + m_ctx.context(*a.step) + ")";
  if (!rel) {
    Diagnostic* d = m_ctx.reporter.report(
        VerifyId::PartialRelease, m_ctx.opRange(later),
        overwrite + " after a synchronisation with other instances of '" + owner +
            "' only: " + access + " and no barrier orders that instance before it",
        std::to_string(x.step->op));
    addNote(d, m_ctx.opRange(other), "the unordered access of " + who(x.role, x.warp));
    return;
  }
  const sema::OpInfo& op = m_ctx.op(*rel->step);
  std::size_t uncovered = 0;
  for (std::size_t v = 0; v < warps(rel->role) && v < 64; ++v)
    uncovered += rel->covered >> v & 1 ? 0 : 1;
  Diagnostic* d = m_ctx.reporter.report(
      VerifyId::PartialRelease, m_ctx.opRange(op),
      "'" + op.primitive->name + "' (" + m_ctx.context(*rel->step) + ") releases the slot for '" +
          owner + "' from " + who(rel->role, rel->warp) + ", but its arrival carries only the " +
          "accesses of the instances it is synchronised with, not " + std::to_string(uncovered) +
          " other warp(s) of the role: " + access + " and may still be doing so when " + overwrite +
          " after observing this release");
  addNote(d, m_ctx.opRange(other),
          "access by " + who(x.role, x.warp) + " that the release does not cover (" +
              m_ctx.context(*x.step) + ")");
  addNote(d, m_ctx.opRange(later),
          "'" + m_model.roles[a.role].name + "' overwrites the slot here (" +
              m_ctx.context(*a.step) + ")");
  setFix(d, "let every instance that accesses the slot release it (scope=warpgroup or "
            "scope=warp with the barrier's count raised to match), or order the other "
            "instances first with a barrier of the role (bar.sync) before this release");
}

void InstanceModel::reportTma(const Record& x, const InstanceAccess& a, std::size_t warp,
                              const Footprint& f, bool rearm) {
  const sema::OpInfo& other = m_ctx.op(*x.step);
  const sema::OpInfo& mine = m_ctx.op(*a.step);
  const std::string& role = m_model.roles[a.role].name;
  if (!rearm) {
    // x is the role's own TMA write, completing on the barrier element behind its component.
    std::string through = "its barrier";
    for (std::size_t b = 0; b < m_barrierBase.size(); ++b) {
      std::size_t n = m_elements[b].size();
      if (x.component >= m_barrierBase[b] && x.component < m_barrierBase[b] + n)
        through = "'" + m_ctx.element(b, std::int64_t(x.component - m_barrierBase[b])) + "'";
    }
    Diagnostic* d = m_ctx.reporter.report(
        VerifyId::TmaReadBeforeWait, m_ctx.operandRange(mine, a.operand),
        "'" + mine.primitive->name + "' of " + who(a.role, warp) + " " +
            (a.write ? "writes " : "reads ") + f.describe(m_model) + " (" + m_ctx.context(*a.step) +
            "), which the role's own 'tma.load' (" + m_ctx.context(*x.step) +
            ") fills, but this warp has not waited on " + through +
            " for the phase that load completes: the data may not have landed",
        std::to_string(x.step->op));
    addNote(d, m_ctx.opRange(other), "the TMA load, completing on " + through);
    setFix(d, "wait on " + through +
                  " (mbarrier.try_wait with the load's phase parity) in "
                  "every warp of '" +
                  role + "' before touching the destination");
    return;
  }
  Diagnostic* d = m_ctx.reporter.report(
      VerifyId::TmaRearmWhileRead, m_ctx.opRange(mine),
      "'" + mine.primitive->name + "' re-arms " + f.describe(m_model) + " (" +
          m_ctx.context(*a.step) + ") from " + who(a.role, warp) + " while " + who(x.role, x.warp) +
          " may still " + (x.write ? "write" : "read") + " it with '" + other.primitive->name +
          "' (" + m_ctx.context(*x.step) +
          "): the issuing thread has not synchronised with the role's other instances since "
          "their access, so the copy can overwrite data they have not consumed",
      std::to_string(x.step->op));
  addNote(d, m_ctx.opRange(other),
          "access by " + who(x.role, x.warp) + " (" + m_ctx.context(*x.step) + ")");
  setFix(d, "order the role's instances before the copy is re-armed: a cta.sync (or a bar.sync "
            "of '" +
                role +
                "') after the last read of the buffer, or an empty barrier every "
                "reading instance arrives on and the issuing thread waits for");
}

void InstanceModel::reportViewClobber(const Record& x, const InstanceAccess& a, std::size_t warp,
                                      const Footprint& f) {
  const sema::OpInfo& other = m_ctx.op(*x.step);
  const sema::OpInfo& mine = m_ctx.op(*a.step);
  const sema::BufferInfo& v = m_model.buffers[x.footprint->buffer];
  const sema::BufferInfo& w = m_model.buffers[f.buffer];
  auto p = byteRange(w, f);
  auto q = byteRange(v, *x.footprint);
  std::pair<std::int64_t, std::int64_t> shared{std::max(p.first, q.first),
                                               std::min(p.second, q.second)};
  Diagnostic* d = m_ctx.reporter.report(
      VerifyId::InstanceViewClobber, m_ctx.opRange(mine),
      "'" + mine.primitive->name + "' of " + who(a.role, warp) + " " +
          (a.write ? "writes " : "reads ") + f.describe(m_model) + " (" + m_ctx.context(*a.step) +
          "), bytes " + bytes(shared) + " of pool '" + w.pool + "', which '" + v.name +
          "' also holds, while " + who(x.role, x.warp) + " may still " +
          (x.write ? "write" : "read") + " " + x.footprint->describe(m_model) + " there with '" +
          other.primitive->name + "' (" + m_ctx.context(*x.step) +
          "): no barrier orders the two instances, so a faster one clobbers the other's data",
      std::to_string(x.step->op));
  addNote(d, m_ctx.opRange(other),
          "access of the aliased view '" + v.name + "' by " + who(x.role, x.warp));
  addNote(d, m_ctx.declRange(v.decl), "'" + v.name + "' declared here");
  setFix(d, "put a cta.sync (or a bar.sync of the role) between the last access of '" + v.name +
                "' and the first access of '" + w.name + "', or give the views disjoint bytes");
}

void InstanceModel::checkProxy(const InstanceAccess& a, std::size_t warp, const Footprint& f) {
  const Clock& clock = m_clocks[a.role][warp];
  for (const GenericWrite& g : m_generic) {
    if (g.fenceStamp == 0 || !g.footprint->overlaps(f))
      continue;
    // Not visible at all: a race (reported elsewhere); fenced in time: fine.
    if (clock[g.component] < g.stamp || clock[g.component] >= g.fenceStamp)
      continue;
    const sema::OpInfo& fence = m_ctx.op(*g.fence);
    const sema::OpInfo& reader = m_ctx.op(*a.step);
    const sema::OpInfo& writer = m_ctx.op(*g.step);
    Diagnostic* d = m_ctx.reporter.report(
        VerifyId::ProxyFenceAfterBarrier, m_ctx.opRange(fence),
        "this 'fence.proxy.async' of " + who(g.role, g.warp) + " (" + m_ctx.context(*g.fence) +
            ") comes after the synchronisation that hands its '" + writer.primitive->name +
            "' write of " + g.footprint->describe(m_model) + " to " + who(a.role, warp) +
            ", which reads it through the async proxy with '" + reader.primitive->name + "' (" +
            m_ctx.context(*a.step) +
            "): a proxy fence covers only the fencing thread's own "
            "writes, and only when it is ordered before the async-proxy access");
    addNote(d, m_ctx.opRange(writer),
            "generic-proxy write by " + who(g.role, g.warp) + " (" + m_ctx.context(*g.step) + ")");
    addNote(d, m_ctx.opRange(reader), "async-proxy read by " + who(a.role, warp));
    setFix(d, "move 'fence.proxy.async' before the barrier: every writing thread fences its own "
              "writes, then the barrier publishes them to the thread that issues the "
              "asynchronous operation");
    return;
  }
}

} // namespace cake::verify::detail
