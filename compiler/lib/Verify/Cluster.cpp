// The cluster protocol model: every CTA of one thread-block cluster runs the kernel's program
// together, with per-CTA mbarriers, remote arrivals (mbarrier.arrive cta_mask=), multicast TMA
// loads (tma.load multicast=) and cluster barriers (cluster.sync), checked for transaction bytes
// and arrival counts per receiving CTA, remote signals before a peer's barrier initialisation or
// after it may have exited, and multicast writes into a peer's shared memory that the peer's
// readers did not release. Also the static cluster rules: remote arrivals outside the cluster
// and tcgen05 cta_group pairing.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Cluster.h"

#include "Instances.h"
#include "Reporter.h"
#include "cake/Registry/Registry.h"
#include "cake/Sema/RuntimeBound.h"
#include "cake/Verify/ClusterTrace.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace cake::verify::detail {

std::int64_t clusterSize(const sema::KernelModel& model) {
  std::int64_t n = 1;
  if (model.grid)
    for (std::int64_t c : model.grid->cluster)
      n *= std::max<std::int64_t>(c, 1);
  return n;
}

std::int64_t intAttribute(const sema::OpInfo& op, const Step& step, std::string_view name,
                          std::int64_t fallback) {
  auto idx = op.primitive->attributeIndex(std::string(name));
  if (!idx)
    return fallback;
  const auto& values = step.attributes.empty() ? op.attributes : step.attributes;
  if (*idx >= values.size() || values[*idx].kind != reg::DefValue::Kind::Int)
    return fallback;
  return values[*idx].i;
}

RankZeroView rankZeroView(const sema::KernelModel& model, const sema::OpInfo& op,
                          const Step& step) {
  RankZeroView v;
  std::int64_t n = clusterSize(model);
  if (n <= 1)
    return v;
  if (std::int64_t mask = intAttribute(op, step, "cta_mask", 0); mask != 0)
    v.arrivals = (mask & 1) ? n : 0;
  if (op.primitive->name == "tma.load") {
    std::int64_t mask = intAttribute(op, step, "multicast", 0);
    v.skip = mask != 0 && !(mask & 1);
    if (intAttribute(op, step, "cta_group", 1) == 2)
      v.bytes = 2;
  }
  return v;
}

std::unordered_set<const ir::Stmt*> leaderOnlyStmts(const ir::Module& module) {
  std::unordered_set<const ir::Stmt*> out;
  if (!module.kernel)
    return out;
  auto collect = [&](auto&& self, const ir::Stmt& s) -> void {
    if (s.kind == ir::StmtKind::Op)
      out.insert(&s);
    for (const ir::StmtPtr& c : s.body)
      if (c)
        self(self, *c);
  };
  for (const ir::StmtPtr& s : module.kernel->body) {
    if (!s || s->kind != ir::StmtKind::On)
      continue;
    const ir::Attribute* a = s->attribute("cta");
    if (a && a->value && a->value->kind == ir::ExprKind::Name && a->value->text() == "leader")
      collect(collect, *s);
  }
  return out;
}

bool leaderOnly(const std::unordered_set<const ir::Stmt*>& leaderStmts, const sema::OpInfo& op,
                const Step& step) {
  if (leaderStmts.count(op.stmt))
    return true;
  return op.primitive && op.primitive->name == "mbarrier.arrive_expect_tx" &&
         intAttribute(op, step, "cta_group", 1) == 2;
}

namespace {

/// One mbarrier element of one CTA.
struct Element {
  bool initialized = false;
  std::size_t initAgent = 0;
  std::uint64_t initStamp = 0;
  const Step* initStep = nullptr;
  std::int64_t phase = 0;
  std::int64_t remaining = 0;
  std::int64_t tx = 0;
  std::int64_t arrivedThisPhase = 0;
  Clock release, completed;
  // Totals over the run, for the transaction-byte check per receiving CTA.
  std::int64_t expected = 0;
  std::int64_t expectEvents = 0;
  std::map<std::pair<std::int64_t, const Step*>, std::int64_t> delivered; ///< (source CTA, step)
  std::map<std::pair<std::int64_t, const Step*>, std::int64_t> arrivals;  ///< (source CTA, step)
  std::int64_t overflowArrivals = -1; ///< arrivals of the first phase that exceeded the count
  // The current phase: bytes announced and delivered (by source CTA and step).
  std::int64_t phaseExpected = 0;
  std::map<std::pair<std::int64_t, const Step*>, std::int64_t> phaseDelivered;
};

/// A read of shared memory by an agent, for multicast writes into that CTA.
struct Read {
  std::size_t agent = 0;
  std::uint64_t stamp = 0;
  Footprint footprint;
  const Step* step = nullptr;
};

/// A remote access into a CTA (arrive, multicast delivery), for the exit check.
struct Remote {
  std::size_t agent = 0;
  std::uint64_t stamp = 0;
  const Step* step = nullptr;
  std::size_t barrier = SIZE_MAX;
};

struct Agent {
  std::int64_t cta = 0;
  std::size_t stream = 0;
  std::size_t pc = 0;
  Clock clock;
  std::map<std::pair<int, std::size_t>, std::int64_t> syncs; ///< (scope, barrier) → count
  std::uint64_t blockedSince = 0; ///< round of its first failed attempt at the current step
  bool blocked = false;
};

struct Rendezvous {
  std::vector<std::size_t> arrived;
  Clock joined;
};

class ClusterModel {
public:
  explicit ClusterModel(Context& ctx)
      : m_ctx(ctx), m_model(ctx.model), m_n(clusterSize(ctx.model)),
        m_roles(ctx.program.roles.size()), m_leaderStmts(leaderOnlyStmts(ctx.module)) {}

  void run();
  /// Records the schedule into `trace` (traceCluster).
  void setTrace(ClusterTrace* trace) { m_trace = trace; }

private:
  void record(ClusterEvent::Kind kind, std::size_t a, const Step& s, std::int64_t target,
              std::string barrier, std::int64_t amount, std::uint64_t start);
  std::size_t agentIndex(std::int64_t cta, std::size_t stream) const {
    return std::size_t(cta) * m_roles + stream;
  }
  Element* element(std::int64_t cta, std::size_t barrier, std::int64_t el) {
    auto& v = m_bars[std::size_t(cta)][barrier];
    return el >= 0 && std::size_t(el) < v.size() ? &v[std::size_t(el)] : nullptr;
  }
  std::vector<std::int64_t> ctasOf(std::int64_t mask) const {
    std::vector<std::int64_t> out;
    for (std::int64_t c = 0; c < m_n && c < 63; ++c)
      if (mask & (std::int64_t(1) << c))
        out.push_back(c);
    return out;
  }
  const StepOperand* operandOf(const Step& s, const reg::EffectDef& e) const {
    if (!e.operandIndex || *e.operandIndex >= s.operands.size())
      return nullptr;
    const StepOperand& so = s.operands[*e.operandIndex];
    return so.present ? &so : nullptr;
  }
  /// (scope, barrier): scope 0 the CTA barrier, 1 a named barrier, 2 the cluster barrier.
  std::pair<int, std::size_t> syncKey(const Step& s, const reg::EffectDef& e) const;
  std::vector<std::size_t> participants(std::int64_t cta, std::pair<int, std::size_t> key) const;
  bool tryStep(std::size_t a);
  void signal(std::size_t a, const Step& s, std::int64_t target, std::size_t barrier,
              std::int64_t el, std::int64_t arrivals, std::int64_t bytes);
  void multicastWrite(std::size_t a, const Step& s, std::int64_t target, const Footprint& fp);
  void finish();
  /// "16384 from CTA 0's 'tma.load' in producer (tile 0 k=0), ..."; `anchor` receives a
  /// delivering step (a peer's, when there is one).
  std::string sources(const std::map<std::pair<std::int64_t, const Step*>, std::int64_t>& from,
                      const Step** anchor) const;
  /// A multicast tma.load that signals `barrier` (the IR decision a bytes finding names).
  const Step* multicastInto(std::size_t barrier) const;
  void reportBytes(std::int64_t cta, std::size_t b, std::int64_t el, std::int64_t expected,
                   const std::map<std::pair<std::int64_t, const Step*>, std::int64_t>& from,
                   const std::string& what, const Step* wait);
  std::string where(const Step& s) const {
    return m_ctx.role(s).name + " (" + m_ctx.context(s) + ")";
  }

  Context& m_ctx;
  const sema::KernelModel& m_model;
  std::int64_t m_n;
  std::size_t m_roles;
  std::unordered_set<const ir::Stmt*> m_leaderStmts;
  std::vector<Agent> m_agents;
  std::vector<std::vector<std::vector<Element>>> m_bars; ///< per CTA, barrier, element
  std::map<std::tuple<int, std::int64_t, std::size_t, std::int64_t>, Rendezvous> m_rendezvous;
  std::vector<std::map<std::size_t, std::vector<Read>>> m_reads; ///< per CTA, per buffer
  std::vector<std::vector<Remote>> m_remote;                     ///< per target CTA
  std::set<std::size_t> m_reportedRace;
  bool m_reportedInit = false;
  std::uint64_t m_round = 0;
  ClusterTrace* m_trace = nullptr;
};

void ClusterModel::record(ClusterEvent::Kind kind, std::size_t a, const Step& s,
                          std::int64_t target, std::string barrier, std::int64_t amount,
                          std::uint64_t start) {
  if (!m_trace)
    return;
  ClusterEvent e;
  e.kind = kind;
  e.cta = m_agents[a].cta;
  e.role = m_ctx.program.roles[m_agents[a].stream].role;
  e.op = s.op;
  e.time = m_round;
  e.start = start;
  e.target = target;
  e.barrier = std::move(barrier);
  e.amount = amount;
  e.context = m_ctx.context(s);
  m_trace->events.push_back(std::move(e));
}

std::pair<int, std::size_t> ClusterModel::syncKey(const Step& s, const reg::EffectDef& e) const {
  const StepOperand* so = operandOf(s, e);
  if (so && so->entity == sema::EntityKind::NBarrier)
    return {1, so->entityIndex};
  if (m_ctx.op(s).primitive->name == "cluster.sync")
    return {2, SIZE_MAX};
  return {0, SIZE_MAX};
}

std::vector<std::size_t> ClusterModel::participants(std::int64_t cta,
                                                    std::pair<int, std::size_t> key) const {
  std::vector<std::size_t> out;
  for (std::int64_t c = 0; c < m_n; ++c) {
    if (key.first != 2 && c != cta)
      continue;
    for (std::size_t i = 0; i < m_roles; ++i) {
      if (key.first == 1) {
        const auto& names = m_model.barriers[key.second].roles;
        const std::string& role = m_model.roles[m_ctx.program.roles[i].role].name;
        if (std::find(names.begin(), names.end(), role) == names.end() &&
            std::find(names.begin(), names.end(), "all") == names.end())
          continue;
      }
      out.push_back(agentIndex(c, i));
    }
  }
  return out;
}

void ClusterModel::signal(std::size_t a, const Step& s, std::int64_t target, std::size_t barrier,
                          std::int64_t el, std::int64_t arrivals, std::int64_t bytes) {
  Agent& ag = m_agents[a];
  Element* es = element(target, barrier, el);
  if (!es)
    return;
  bool remote = target != ag.cta;
  if (remote) {
    // The peer's barrier must be initialised, and that ordered before this signal through a
    // cluster barrier: otherwise the init can land after it and erase the arrival.
    bool ordered = es->initialized && ag.clock[es->initAgent] >= es->initStamp;
    if (!ordered && !m_reportedInit) {
      m_reportedInit = true;
      const sema::OpInfo& op = m_ctx.op(s);
      Diagnostic* d = m_ctx.reporter.report(
          VerifyId::RemoteBeforeInit, m_ctx.opRange(op),
          "'" + op.primitive->name + "' of CTA " + std::to_string(ag.cta) + " in " + where(s) +
              " signals '" + m_ctx.element(barrier, el) + "' of CTA " + std::to_string(target) +
              (es->initialized ? ", but nothing orders that CTA's mbarrier.init before it"
                               : " before that CTA initialised it") +
              ": a cluster barrier (cluster.sync) after the initialisation must come first");
      if (es->initStep)
        addNote(d, m_ctx.opRange(m_ctx.op(*es->initStep)),
                "CTA " + std::to_string(target) + " initialises it here");
      setFix(d, "follow the mbarrier.init and fence.mbarrier_init with a cluster.sync in every "
                "role (on all { cluster.sync })");
      m_ctx.brokenBarriers.insert(barrier);
    }
    m_remote[std::size_t(target)].push_back({a, ag.clock[a], &s, barrier});
    record(bytes > 0 ? ClusterEvent::Kind::Delivery : ClusterEvent::Kind::Remote, a, s, target,
           m_ctx.element(barrier, el), bytes > 0 ? bytes : arrivals, m_round);
  }
  if (!es->initialized)
    return;
  if (arrivals > 0) {
    es->arrivals[{ag.cta, &s}] += arrivals;
    es->arrivedThisPhase += arrivals;
  }
  if (bytes > 0) {
    es->delivered[{ag.cta, &s}] += bytes;
    es->phaseDelivered[{ag.cta, &s}] += bytes;
  }
  es->remaining -= arrivals;
  es->tx -= bytes;
  join(es->release, ag.clock);
  if (es->remaining <= 0 && es->tx == 0) {
    if (es->remaining < 0 && es->overflowArrivals < 0)
      es->overflowArrivals = es->arrivedThisPhase;
    es->completed = es->release;
    es->remaining += m_model.barriers[barrier].count;
    es->arrivedThisPhase = 0;
    es->phaseExpected = 0;
    es->phaseDelivered.clear();
    record(ClusterEvent::Kind::PhaseDone, a, s, target, m_ctx.element(barrier, el), es->phase,
           m_round);
    ++es->phase;
  }
}

void ClusterModel::multicastWrite(std::size_t a, const Step& s, std::int64_t target,
                                  const Footprint& fp) {
  Agent& ag = m_agents[a];
  auto& reads = m_reads[std::size_t(target)][fp.buffer];
  for (auto it = reads.begin(); it != reads.end();) {
    if (ag.clock[it->agent] >= it->stamp) {
      it = reads.erase(it); // released to this writer; later writes of it are ordered too
      continue;
    }
    if (it->footprint.overlaps(fp) && m_reportedRace.insert(fp.buffer).second) {
      const sema::OpInfo& op = m_ctx.op(s);
      const sema::OpInfo& rop = m_ctx.op(*it->step);
      const Agent& reader = m_agents[it->agent];
      Diagnostic* d = m_ctx.reporter.report(
          VerifyId::ClusterRace, m_ctx.opRange(op),
          "multicast '" + op.primitive->name + "' of CTA " + std::to_string(ag.cta) + " in " +
              where(s) + " writes " + fp.describe(m_model) + " of CTA " + std::to_string(target) +
              ", which '" + m_model.roles[m_ctx.program.roles[reader.stream].role].name +
              "' of CTA " + std::to_string(reader.cta) + " reads in " + where(*it->step) +
              " and never released to CTA " + std::to_string(ag.cta) +
              ": the slot this CTA waited for is free in its own shared memory only");
      addNote(d, m_ctx.opRange(rop), "the read in CTA " + std::to_string(target));
      setFix(d, "release the stage to every CTA that writes it: arrive on the empty barrier of "
                "each CTA of the multicast mask (mbarrier.arrive ... cta_mask=MASK) and count "
                "those arrivals in its declaration");
    }
    ++it;
  }
}

bool ClusterModel::tryStep(std::size_t a) {
  Agent& ag = m_agents[a];
  const RoleStream& stream = m_ctx.program.roles[ag.stream];
  const Step& s = stream.steps[ag.pc];
  const sema::OpInfo& op = m_ctx.op(s);
  StepContext sctx(op, s);
  // The peer CTA of a pair skips what only the leader executes (`on … cta=leader`).
  if ((ag.cta & 1) != 0 && leaderOnly(m_leaderStmts, op, s)) {
    ++ag.clock[a];
    ++ag.pc;
    return true;
  }
  std::int64_t multicast = intAttribute(op, s, "multicast", 0);
  bool commit = op.primitive->name == "tcgen05.commit";
  if (op.primitive->name != "tma.load" && !commit)
    multicast = 0;
  std::vector<std::int64_t> receivers = multicast ? ctasOf(multicast) : std::vector{ag.cta};
  // A multicast load is issued by the lowest-ranked CTA of its mask only; a multicast commit by
  // the thread that issued the MMAs, in whichever CTA executes it.
  bool issues = !multicast || commit || (!receivers.empty() && receivers.front() == ag.cta);
  // A cta_group::2 copy lands in this CTA and completes its bytes on the pair leader's barrier.
  std::int64_t txTarget = op.primitive->name == "tma.load" && intAttribute(op, s, "cta_group", 1) == 2
                              ? (ag.cta & ~std::int64_t(1))
                              : -1;
  for (const reg::EffectDef& e : op.primitive->effects) {
    if (e.kind == reg::EffectKind::Wait) {
      const StepOperand* so = operandOf(s, e);
      if (!so || so->entity != sema::EntityKind::MBarrier || so->element < 0)
        continue;
      Element* es = element(ag.cta, so->entityIndex, so->element);
      std::int64_t parity = quantity(e.parity, sctx, -1);
      if (es && es->initialized && parity >= 0 && (es->phase & 1) == parity)
        return false;
    } else if (e.kind == reg::EffectKind::Sync) {
      if (!e.operandIndex && e.syncScope == "role")
        continue;
      auto key = syncKey(s, e);
      auto people = participants(ag.cta, key);
      if (std::find(people.begin(), people.end(), a) == people.end())
        continue; // reported by the one-CTA simulation
      std::int64_t n = ag.syncs[key];
      Rendezvous& rv = m_rendezvous[{key.first, key.first == 2 ? -1 : ag.cta, key.second, n}];
      if (std::find(rv.arrived.begin(), rv.arrived.end(), a) == rv.arrived.end()) {
        rv.arrived.push_back(a);
        if (rv.joined.empty())
          rv.joined.assign(m_agents.size(), 0);
        join(rv.joined, ag.clock);
      }
      if (rv.arrived.size() < people.size())
        return false;
    }
  }
  ++ag.clock[a];
  ++ag.pc;
  if (m_trace) {
    // What the step waited for: its barrier element, or the rendezvous it joined.
    std::string what;
    for (const reg::EffectDef& e : op.primitive->effects) {
      const StepOperand* so = operandOf(s, e);
      if (e.kind == reg::EffectKind::Wait && so && so->entity == sema::EntityKind::MBarrier &&
          so->element >= 0)
        what = m_ctx.element(so->entityIndex, so->element);
      else if (e.kind == reg::EffectKind::Sync && (e.operandIndex || e.syncScope != "role")) {
        auto key = syncKey(s, e);
        what = key.first == 2   ? std::string("cluster")
               : key.first == 1 ? m_model.barriers[key.second].name
                                : std::string("cta");
      }
    }
    record(ClusterEvent::Kind::Step, a, s, -1, what, 0, ag.blocked ? ag.blockedSince : m_round);
  }
  if (!issues)
    return true;
  for (const reg::EffectDef& e : op.primitive->effects) {
    const StepOperand* so = operandOf(s, e);
    switch (e.kind) {
    case reg::EffectKind::Wait: {
      if (!so || so->entity != sema::EntityKind::MBarrier || so->element < 0)
        break;
      if (Element* es = element(ag.cta, so->entityIndex, so->element))
        if (!es->completed.empty())
          join(ag.clock, es->completed);
      break;
    }
    case reg::EffectKind::Sync: {
      if (!e.operandIndex && e.syncScope == "role")
        break;
      auto key = syncKey(s, e);
      std::int64_t n = ag.syncs[key]++;
      auto it = m_rendezvous.find({key.first, key.first == 2 ? -1 : ag.cta, key.second, n});
      if (it != m_rendezvous.end())
        join(ag.clock, it->second.joined);
      break;
    }
    case reg::EffectKind::Init: {
      if (!so || so->entity != sema::EntityKind::MBarrier)
        break;
      auto& els = m_bars[std::size_t(ag.cta)][so->entityIndex];
      for (std::size_t i = 0; i < els.size(); ++i) {
        if (so->element >= 0 && std::int64_t(i) != so->element)
          continue;
        Element& es = els[i];
        es.initialized = true;
        es.initAgent = a;
        es.initStamp = ag.clock[a];
        es.initStep = &s;
        es.phase = 0;
        es.remaining = m_model.barriers[so->entityIndex].count;
        es.tx = 0;
        es.release.assign(m_agents.size(), 0);
      }
      break;
    }
    case reg::EffectKind::Arrive:
    case reg::EffectKind::Commit: {
      if (!so || so->entity != sema::EntityKind::MBarrier || so->element < 0)
        break;
      std::int64_t amount =
          (e.kind == reg::EffectKind::Arrive ? quantity(e.count, sctx, 1) : 1) * s.instances;
      std::int64_t mask = intAttribute(op, s, "cta_mask", 0);
      if (e.kind == reg::EffectKind::Commit && multicast)
        mask = multicast; // tcgen05.commit … multicast: the barrier of every CTA of the mask
      for (std::int64_t target : mask ? ctasOf(mask) : std::vector{ag.cta})
        signal(a, s, target, so->entityIndex, so->element, amount, 0);
      break;
    }
    case reg::EffectKind::ExpectTx: {
      if (!so || so->entity != sema::EntityKind::MBarrier || so->element < 0)
        break;
      if (Element* es = element(ag.cta, so->entityIndex, so->element)) {
        std::int64_t bytes = quantity(e.bytes, sctx, 0) * s.instances;
        es->tx += bytes;
        es->expected += bytes;
        es->phaseExpected += bytes;
        ++es->expectEvents;
      }
      break;
    }
    case reg::EffectKind::CompleteTx: {
      if (!so || so->entity != sema::EntityKind::MBarrier || so->element < 0)
        break;
      std::int64_t bytes = quantity(e.bytes, sctx, 0) * s.instances;
      if (txTarget >= 0) {
        signal(a, s, txTarget, so->entityIndex, so->element, 0, bytes);
        break;
      }
      for (std::int64_t target : receivers)
        signal(a, s, target, so->entityIndex, so->element, 0, bytes);
      break;
    }
    case reg::EffectKind::Write:
    case reg::EffectKind::Read: {
      if (!so || !so->footprint || so->entity != sema::EntityKind::Buffer)
        break;
      const sema::BufferInfo& b = m_model.buffers[so->footprint->buffer];
      if (b.space != ir::Space::Smem)
        break;
      if (e.kind == reg::EffectKind::Read) {
        m_reads[std::size_t(ag.cta)][so->footprint->buffer].push_back(
            {a, ag.clock[a], *so->footprint, &s});
        break;
      }
      for (std::int64_t target : receivers)
        if (target != ag.cta) {
          multicastWrite(a, s, target, *so->footprint);
          m_remote[std::size_t(target)].push_back({a, ag.clock[a], &s, SIZE_MAX});
        }
      break;
    }
    default:
      break;
    }
  }
  return true;
}

void ClusterModel::run() {
  for (std::int64_t c = 0; c < m_n; ++c)
    for (std::size_t i = 0; i < m_roles; ++i) {
      Agent ag;
      ag.cta = c;
      ag.stream = i;
      m_agents.push_back(std::move(ag));
    }
  for (Agent& ag : m_agents)
    ag.clock.assign(m_agents.size(), 0);
  m_bars.assign(std::size_t(m_n), {});
  for (auto& perCta : m_bars) {
    perCta.resize(m_model.barriers.size());
    for (std::size_t b = 0; b < m_model.barriers.size(); ++b)
      if (!m_model.barriers[b].named)
        perCta[b].resize(std::size_t(std::max<std::int64_t>(m_model.barriers[b].size, 1)));
  }
  m_reads.assign(std::size_t(m_n), {});
  m_remote.assign(std::size_t(m_n), {});
  // Round-robin: one step per agent and round while any can move (the one-CTA simulation's
  // schedule, with the CTAs of the cluster side by side).
  for (bool moved = true; moved;) {
    moved = false;
    for (std::size_t a = 0; a < m_agents.size(); ++a) {
      const RoleStream& stream = m_ctx.program.roles[m_agents[a].stream];
      Agent& ag = m_agents[a];
      if (ag.pc >= stream.steps.size())
        continue;
      if (tryStep(a)) {
        moved = true;
        ag.blocked = false;
      } else if (!ag.blocked) {
        ag.blocked = true;
        ag.blockedSince = m_round;
      }
    }
    ++m_round;
  }
  finish();
}

std::string
ClusterModel::sources(const std::map<std::pair<std::int64_t, const Step*>, std::int64_t>& from,
                      const Step** anchor) const {
  std::string out;
  for (const auto& [src, bytes] : from) {
    if (anchor && (!*anchor || src.first != 0))
      *anchor = src.second;
    if (!out.empty())
      out += ", ";
    out += std::to_string(bytes) + " from CTA " + std::to_string(src.first) + "'s '" +
           m_ctx.op(*src.second).primitive->name + "' in " + where(*src.second);
  }
  return out.empty() ? "no copy delivers into it" : out;
}

const Step* ClusterModel::multicastInto(std::size_t barrier) const {
  for (const RoleStream& stream : m_ctx.program.roles)
    for (const Step& st : stream.steps) {
      const sema::OpInfo& op = m_ctx.op(st);
      if (op.primitive->name != "tma.load" || intAttribute(op, st, "multicast", 0) == 0)
        continue;
      for (const StepOperand& so : st.operands)
        if (so.present && so.entity == sema::EntityKind::MBarrier && so.entityIndex == barrier)
          return &st;
    }
  return nullptr;
}

void ClusterModel::reportBytes(
    std::int64_t cta, std::size_t b, std::int64_t el, std::int64_t expected,
    const std::map<std::pair<std::int64_t, const Step*>, std::int64_t>& from,
    const std::string& what, const Step* wait) {
  std::int64_t got = 0;
  for (const auto& [src, bytes] : from)
    got += bytes;
  const Step* anchor = nullptr;
  std::string list = sources(from, &anchor);
  // The IR decision to name: a multicast copy that signals this barrier, when there is one.
  if (const Step* mc = multicastInto(b))
    anchor = mc;
  SourceRange at =
      anchor ? m_ctx.opRange(m_ctx.op(*anchor)) : m_ctx.declRange(m_model.barriers[b].decl);
  Diagnostic* d = m_ctx.reporter.report(
      VerifyId::ClusterExpectTx, at,
      "CTA " + std::to_string(cta) + " of the cluster announces " + std::to_string(expected) +
          " transaction bytes on '" + m_ctx.element(b, el) + "' " + what + " but receives " +
          std::to_string(got) + " (" + list +
          "): a multicast load delivers its box to every CTA of its mask, and each receiving "
          "CTA's barrier must expect exactly the bytes it receives",
      std::to_string(b));
  if (wait)
    addNote(d, m_ctx.opRange(m_ctx.op(*wait)),
            "CTA " + std::to_string(cta) + " waits here forever (" + where(*wait) + ")");
  addNote(d, m_ctx.declRange(m_model.barriers[b].decl), "barrier declared here");
  setFix(d, "make every receiving CTA expect the bytes it receives: include the multicast box "
            "in its expect_tx and name every CTA whose barrier expects it in the mask");
  m_ctx.brokenBarriers.insert(b);
}

void ClusterModel::finish() {
  // A deadlock: the wait that blocked first is the root (the others follow from it), unless
  // a wait is behind the same barrier of another CTA: every CTA runs the same program, so a
  // barrier that completed phases in one CTA and not in another misses a cross-CTA signal (a
  // commit or arrive without the peer in its mask), and the CTA left behind names the cause.
  // Its barrier misses bytes (transaction count) or arrivals (count), counted per CTA.
  auto behind = [&](const Agent& ag) {
    const Step& s = m_ctx.program.roles[ag.stream].steps[ag.pc];
    for (const reg::EffectDef& e : m_ctx.op(s).primitive->effects) {
      const StepOperand* so = operandOf(s, e);
      if (e.kind != reg::EffectKind::Wait || !so || so->entity != sema::EntityKind::MBarrier)
        continue;
      const Element* mine = element(ag.cta, so->entityIndex, so->element);
      for (std::int64_t c = 0; mine && c < m_n; ++c)
        if (const Element* other = element(c, so->entityIndex, so->element);
            c != ag.cta && other && other->phase > mine->phase)
          return true;
    }
    return false;
  };
  const Agent* first = nullptr;
  bool firstBehind = false;
  for (const Agent& ag : m_agents) {
    if (!ag.blocked || ag.pc >= m_ctx.program.roles[ag.stream].steps.size())
      continue;
    bool b = behind(ag);
    if (!first || (b && !firstBehind) ||
        (b == firstBehind && ag.blockedSince < first->blockedSince)) {
      first = &ag;
      firstBehind = b;
    }
  }
  bool deadlock = first != nullptr;
  // A protocol the one-CTA analyses already refused blocks every CTA alike: that finding is the
  // root, not the cluster.
  bool oneCtaRoot = false;
  for (VerifyId id : {VerifyId::WaitCycle, VerifyId::DeadlockNoProducer, VerifyId::ArrivalCount,
                      VerifyId::ExpectTxMismatch, VerifyId::CtaSyncDivergence,
                      VerifyId::NamedBarrierDivergence, VerifyId::ParityCadence})
    oneCtaRoot = oneCtaRoot || m_ctx.reporter.reportedCode(id);
  if (first && !oneCtaRoot) {
    const Step& s = m_ctx.program.roles[first->stream].steps[first->pc];
    const sema::OpInfo& op = m_ctx.op(s);
    for (const reg::EffectDef& e : op.primitive->effects) {
      const StepOperand* so = operandOf(s, e);
      if (e.kind != reg::EffectKind::Wait || !so || so->entity != sema::EntityKind::MBarrier ||
          so->element < 0 || m_ctx.brokenBarriers.count(so->entityIndex))
        continue;
      Element* es = element(first->cta, so->entityIndex, so->element);
      if (!es || !es->initialized)
        continue;
      if (es->remaining <= 0 && es->tx != 0) {
        reportBytes(first->cta, so->entityIndex, so->element, es->phaseExpected, es->phaseDelivered,
                    "in phase " + std::to_string(es->phase), &s);
        continue;
      }
      std::int64_t count = m_model.barriers[so->entityIndex].count;
      std::int64_t got = count - es->remaining;
      Diagnostic* d = m_ctx.reporter.report(
          VerifyId::ClusterArrivalCount, m_ctx.opRange(op),
          "'" + op.primitive->name + "' of CTA " + std::to_string(first->cta) + " in " + where(s) +
              " waits forever: its '" + m_ctx.element(so->entityIndex, so->element) +
              "' receives " + std::to_string(got) + " of the " + std::to_string(count) +
              " arrivals of phase " + std::to_string(es->phase) +
              " (arrivals of every CTA of the cluster, remote ones by cta_mask or a "
              "tcgen05.commit's multicast)");
      for (const auto& [src, n] : es->arrivals) {
        addNote(d, m_ctx.opRange(m_ctx.op(*src.second)),
                "CTA " + std::to_string(src.first) + " arrives here (" + std::to_string(n) +
                    " arrivals over the run)");
        break;
      }
      // The same barrier of another CTA did receive its arrivals: name the signal that
      // reached that CTA and not this one.
      for (std::int64_t c = 0; c < m_n && es->arrivals.empty(); ++c) {
        const Element* other = element(c, so->entityIndex, so->element);
        if (c == first->cta || !other || other->arrivals.empty())
          continue;
        const auto& [src, n] = *other->arrivals.begin();
        addNote(d, m_ctx.opRange(m_ctx.op(*src.second)),
                "CTA " + std::to_string(src.first) + " signals CTA " + std::to_string(c) +
                    "'s '" + m_ctx.element(so->entityIndex, so->element) + "' here (" +
                    std::to_string(n) + " arrivals over the run), but not CTA " +
                    std::to_string(first->cta) + "'s");
        break;
      }
      addNote(d, m_ctx.declRange(m_model.barriers[so->entityIndex].decl), "count declared here");
      setFix(d, "arrive on the barrier of every CTA that waits on it (cta_mask naming all of "
                "them; multicast= naming both CTAs of the pair on a cta_group=2 tcgen05.commit) "
                "and declare count= as the arrivals one CTA receives per phase");
      m_ctx.brokenBarriers.insert(so->entityIndex);
    }
  }
  // Without a deadlock: bytes and arrivals over the whole run, per CTA.
  for (std::int64_t c = 0; c < m_n && !deadlock; ++c)
    for (std::size_t b = 0; b < m_bars[std::size_t(c)].size(); ++b)
      for (std::size_t el = 0; el < m_bars[std::size_t(c)][b].size(); ++el) {
        Element& es = m_bars[std::size_t(c)][b][el];
        if (m_ctx.brokenBarriers.count(b))
          continue; // reported already (the one-CTA protocol or above)
        std::int64_t got = 0;
        for (const auto& [src, bytes] : es.delivered)
          got += bytes;
        if (got != es.expected) {
          reportBytes(c, b, std::int64_t(el), es.expected, es.delivered, "over the run", nullptr);
          continue;
        }
        if (es.overflowArrivals < 0 || es.arrivals.empty())
          continue;
        const Step* anchor = es.arrivals.begin()->first.second;
        Diagnostic* d = m_ctx.reporter.report(
            VerifyId::ClusterArrivalCount, m_ctx.opRange(m_ctx.op(*anchor)),
            "CTA " + std::to_string(c) + "'s '" + m_ctx.element(b, std::int64_t(el)) +
                "' receives " + std::to_string(es.overflowArrivals) +
                " arrivals in one phase, more than its count " +
                std::to_string(m_model.barriers[b].count) +
                " (arrivals of every CTA of the cluster, remote ones by cta_mask)",
            std::to_string(b));
        addNote(d, m_ctx.declRange(m_model.barriers[b].decl), "count declared here");
        m_ctx.brokenBarriers.insert(b);
      }
  // Remote accesses into a CTA must be ordered before that CTA exits (its shared memory and
  // barriers are gone afterwards).
  for (std::int64_t c = 0; c < m_n; ++c) {
    Clock exit(m_agents.size(), 0);
    bool exited = true;
    for (std::size_t i = 0; i < m_roles; ++i) {
      const Agent& ag = m_agents[agentIndex(c, i)];
      exited = exited && ag.pc >= m_ctx.program.roles[ag.stream].steps.size();
      join(exit, ag.clock);
    }
    if (!exited)
      continue;
    for (const Remote& r : m_remote[std::size_t(c)]) {
      if (exit[r.agent] >= r.stamp)
        continue;
      const sema::OpInfo& op = m_ctx.op(*r.step);
      const Agent& src = m_agents[r.agent];
      Diagnostic* d = m_ctx.reporter.report(
          VerifyId::RemoteAfterExit, m_ctx.opRange(op),
          "'" + op.primitive->name + "' of CTA " + std::to_string(src.cta) + " in " +
              where(*r.step) + " accesses CTA " + std::to_string(c) + "'s shared memory" +
              (r.barrier != SIZE_MAX ? " ('" + m_model.barriers[r.barrier].name + "')"
                                     : std::string()) +
              ", but nothing orders it before CTA " + std::to_string(c) +
              " exits: a CTA's shared memory must not be accessed after it has exited");
      setFix(d, "end the kernel with a cluster barrier in every role (on all { cluster.sync }) "
                "so that no CTA exits while a peer can still reach its shared memory");
      break;
    }
  }
}

} // namespace

namespace {

/// Where each cta_group::2 instruction runs: the MMA and its commits in the leader only
/// (both CTAs issuing the pair's MMA computes it twice and races on both accumulators), the
/// allocation in both CTAs (the peer's columns must be reserved too). True when reported.
bool checkPairIssue(Context& ctx, const sema::OpInfo* pairMma) {
  const sema::KernelModel& m = ctx.model;
  auto leaders = leaderOnlyStmts(ctx.module);
  Step none;
  bool found = false;
  for (const sema::OpInfo& op : m.ops) {
    if (!op.primitive || op.primitive->name.rfind("tcgen05.", 0) != 0 ||
        intAttribute(op, none, "cta_group", 1) != 2)
      continue;
    const std::string& name = op.primitive->name;
    bool inLeader = leaders.count(op.stmt) != 0;
    if ((name == "tcgen05.mma" || name == "tcgen05.commit") && !inLeader) {
      Diagnostic* d = ctx.reporter.report(
          VerifyId::CtaGroupMismatch, ctx.opRange(op),
          "'" + name + "' cta_group=2 runs in both CTAs of the pair: one cta_group::2 " +
              (name == "tcgen05.mma" ? "MMA computes over both CTAs' operands and accumulators, "
                                       "so issued by both it is computed twice and each CTA's "
                                       "accumulator is written by two MMAs"
                                     : "commit tracks the MMAs its thread issued, which only "
                                       "the leader CTA issues") +
              "; issue it from the pair's leader only");
      if (&op != pairMma)
        addNote(d, ctx.opRange(*pairMma), "tcgen05.mma cta_group=2 here");
      setFix(d, "put the MMA loop in an 'on ROLE cta=leader { ... }' block (CUTLASS's "
                "is_mma_leader_cta)");
      found = true;
      break;
    }
    if ((name == "tcgen05.alloc" || name == "tcgen05.dealloc" ||
         name == "tcgen05.relinquish") &&
        inLeader) {
      Diagnostic* d = ctx.reporter.report(
          VerifyId::CtaGroupMismatch, ctx.opRange(op),
          "'" + name + "' cta_group=2 runs in the leader CTA only, but the pair's allocation is "
                       "collective: one warp of each CTA of the pair executes it (the MMA "
                       "writes the peer's columns too)");
      setFix(d, "move the allocation out of the 'cta=leader' block so both CTAs execute it");
      found = true;
      break;
    }
  }
  return found;
}

/// A cluster barrier in an `on … cta=leader` block: the peer CTA skips the block and never
/// arrives, so the cluster barrier never completes (a CTA barrier there is the leader's own
/// affair; one that misses roles of the CTA is the one-CTA analyses' finding). True when
/// reported.
bool checkLeaderSync(Context& ctx) {
  auto leaders = leaderOnlyStmts(ctx.module);
  for (const sema::OpInfo& op : ctx.model.ops) {
    if (!op.primitive || !leaders.count(op.stmt) || op.primitive->name != "cluster.sync")
      continue;
    Diagnostic* d = ctx.reporter.report(
        VerifyId::CtaSyncDivergence, ctx.opRange(op),
        "'cluster.sync' inside an 'on ... cta=leader' block: the peer CTA of the pair skips "
        "the block and never arrives, so the cluster barrier never completes");
    setFix(d, "synchronise the cluster outside the leader's block (on all { cluster.sync })");
    return true;
  }
  return false;
}

} // namespace

void checkCluster(Context& ctx) {
  const sema::KernelModel& m = ctx.model;
  std::int64_t n = clusterSize(m);
  // Static rules: remote arrivals inside the cluster, tcgen05 cta_group pairing.
  bool staticFinding = false;
  const sema::OpInfo* pairMma = nullptr;
  const sema::OpInfo* singleMma = nullptr;
  for (const sema::OpInfo& op : m.ops) {
    if (!op.primitive)
      continue;
    Step none;
    if (std::int64_t mask = intAttribute(op, none, "cta_mask", 0);
        mask != 0 && (n <= 1 || mask >= (std::int64_t(1) << std::min<std::int64_t>(n, 62)))) {
      staticFinding = true;
      Diagnostic* d =
          ctx.reporter.report(VerifyId::RemoteArriveOutsideCluster, ctx.opRange(op),
                              "'" + op.primitive->name + "' arrives on the barriers of CTA mask " +
                                  std::to_string(mask) + ", but the cluster has " +
                                  std::to_string(n) + " CTA(s) (ranks 0.." + std::to_string(n - 1) +
                                  "): a remote arrive addresses a CTA outside the cluster");
      if (m.grid)
        addNote(d, ctx.declRange(m.grid->decl), "grid (cluster) declared here");
    }
    if (op.primitive->name == "tcgen05.mma") {
      std::int64_t g = intAttribute(op, none, "cta_group", 1);
      if (g == 2 && !pairMma)
        pairMma = &op;
      else if (g != 2 && !singleMma)
        singleMma = &op;
    }
  }
  if (n > 1 && n % 2 == 0)
    staticFinding |= checkLeaderSync(ctx);
  const sema::OpInfo* mma = pairMma ? pairMma : singleMma;
  if (mma) {
    std::int64_t want = pairMma ? 2 : 1;
    Step none;
    if (pairMma && singleMma) {
      Diagnostic* d = ctx.reporter.report(
          VerifyId::CtaGroupMismatch, ctx.opRange(*singleMma),
          "this tcgen05.mma uses cta_group=1 while another uses cta_group=2: every tcgen05 "
          "instruction of a kernel must use one cta_group");
      addNote(d, ctx.opRange(*pairMma), "cta_group=2 here");
    }
    if (pairMma && n % 2 != 0) {
      Diagnostic* d = ctx.reporter.report(
          VerifyId::CtaGroupMismatch, ctx.opRange(*pairMma),
          "tcgen05.mma cta_group=2 computes over a CTA pair, but the cluster has " +
              std::to_string(n) + " CTA(s): declare cluster=[2, 1, 1] (or a multiple of 2)");
      if (m.grid)
        addNote(d, ctx.declRange(m.grid->decl), "grid declared here");
    }
    // One finding at the first mismatching instruction (the kernel's one decision), the
    // others as notes.
    Diagnostic* d = nullptr;
    for (const sema::OpInfo& op : m.ops) {
      if (!op.primitive || op.primitive->name == "tcgen05.mma" ||
          !op.primitive->attributeIndex("cta_group"))
        continue;
      // Copies and announcements say cta_group=2 only in a pair kernel; cta_group=1 is theirs
      // by default (they are not tcgen05 instructions).
      if (op.primitive->name.rfind("tcgen05.", 0) != 0 &&
          (want == 2 || intAttribute(op, none, "cta_group", 1) == 1))
        continue;
      std::int64_t g = intAttribute(op, none, "cta_group", 1);
      if (g == want)
        continue;
      staticFinding = true;
      if (d) {
        addNote(d, ctx.opRange(op),
                "'" + op.primitive->name + "' uses cta_group=" + std::to_string(g) + " here too");
        continue;
      }
      d = ctx.reporter.report(
          VerifyId::CtaGroupMismatch, ctx.opRange(op),
          "'" + op.primitive->name + "' uses cta_group=" + std::to_string(g) +
              ", but the kernel's tcgen05.mma uses cta_group=" + std::to_string(want) +
              ": alloc, dealloc, commit and relinquish_alloc_permit must use the MMA's "
              "cta_group (mixing cta_group::1 and ::2 is undefined)");
      if (!d)
        break;
      addNote(d, ctx.opRange(*mma), "tcgen05.mma cta_group=" + std::to_string(want) + " here");
      setFix(d, "write cta_group=" + std::to_string(want) + " on every tcgen05 instruction");
    }
    // The pair's MMAs and their commits are issued once per pair, by the leader CTA
    // (`on … cta=leader`); the pair's columns are allocated and freed by both CTAs. Checked
    // once the cta_group values agree (one decision per finding).
    if (pairMma && !singleMma && n % 2 == 0 && !d)
      staticFinding |= checkPairIssue(ctx, pairMma);
  }
  // A mask outside the cluster would show again as the arrivals a peer misses.
  if (staticFinding || n <= 1 || n > 16 || ctx.program.boundReached || ctx.program.roles.empty())
    return;
  ClusterModel(ctx).run();
}

} // namespace cake::verify::detail

namespace cake::verify {

ClusterTrace traceCluster(const ir::Module& module, const sema::KernelModel& model,
                          const VerifyOptions& options) {
  ClusterTrace trace;
  std::int64_t n = detail::clusterSize(model);
  if (!module.kernel || n <= 1 || n > 16)
    return trace;
  const std::int64_t primary = model.grid && !model.grid->persistent ? sema::primaryTile(model) : 0;
  detail::Program program =
      detail::unroll(module, model, options.maxSteps, options.tileCap, primary);
  if (program.boundReached || program.roles.empty())
    return trace;
  // The model reports into a throwaway engine: verify() already reported its findings.
  static const RuleSet kNoRules;
  static const reg::Registry kNoRegistry;
  DiagnosticEngine diags;
  detail::Reporter reporter(kNoRules, diags, module.sourceMap);
  VerifyResult result;
  detail::Context ctx{module, model, kNoRegistry, kNoRules, reporter, program, result, {}};
  trace.ctas = n;
  for (const detail::RoleStream& r : program.roles)
    trace.roles.push_back(r.role);
  detail::ClusterModel m(ctx);
  m.setTrace(&trace);
  m.run();
  for (const ClusterEvent& e : trace.events)
    trace.rounds = std::max(trace.rounds, e.time + 1);
  // Agents whose program did not end: the last step each executed tells where they stopped.
  std::vector<std::size_t> steps(std::size_t(n) * program.roles.size(), 0);
  for (const ClusterEvent& e : trace.events)
    if (e.kind == ClusterEvent::Kind::Step)
      for (std::size_t i = 0; i < program.roles.size(); ++i)
        if (program.roles[i].role == e.role)
          ++steps[std::size_t(e.cta) * program.roles.size() + i];
  for (std::int64_t c = 0; c < n; ++c)
    for (std::size_t i = 0; i < program.roles.size(); ++i)
      if (steps[std::size_t(c) * program.roles.size() + i] < program.roles[i].steps.size())
        trace.stuck.emplace_back(c, i);
  return trace;
}

} // namespace cake::verify
