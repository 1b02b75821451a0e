// mbarrier protocol by the phase model, independent of timing. Each role's executions on a
// barrier element are grouped into visits (one per iteration of the innermost loop; copies in a
// nested loop that deliver bytes the open visit announced belong to it). Round n
// of an element is the n-th signalling visit of every producer role: its arrivals must equal
// the declared count and its expect-tx bytes the bytes delivered. A waiter's n-th visit
// observes phase base + n (base 0, or -1 when it starts on the released state), so its parity
// must alternate, and the phase must be one that the producers complete.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Analyses.h"
#include "Cluster.h"

#include "cake/IR/Printer.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <map>

namespace cake::verify::detail {

std::string Context::where(const sema::OpInfo& o) const {
  SourceRange r = opRange(o);
  if (!r.valid())
    return "?";
  // Line numbers are resolved through the module's file by the caller's source manager; the
  // op name is enough to identify the operation in messages.
  return "'" + o.primitive->name + "'";
}

std::string Context::context(const Step& s) const {
  std::string out;
  for (const auto& [loop, value] : s.loopValues) {
    const sema::LoopInfo& l = model.loops[loop];
    if (!out.empty())
      out += ' ';
    if (l.overTiles)
      out += "tile " + std::to_string(value);
    else
      out += l.var + "=" + std::to_string(value);
  }
  return out.empty() ? "before the loops" : out;
}

std::string Context::element(std::size_t barrier, std::int64_t element) const {
  const sema::BarrierInfo& b = model.barriers[barrier];
  if (b.size <= 1)
    return b.name;
  return b.name + "[" + std::to_string(element) + "]";
}

namespace {

struct SignalVisit {
  std::uint64_t iteration = 0;
  std::int64_t pass = -1; ///< the ring pass of its pipeline (Step::pass) when bound to one
  std::int64_t arrivals = 0;
  std::int64_t expect = 0;
  std::int64_t complete = 0;
  std::vector<const Step*> steps;
};

struct WaitVisit {
  std::uint64_t iteration = 0;
  std::int64_t pass = -1;
  std::vector<std::pair<const Step*, std::int64_t>> waits; // (step, parity)
};

struct PerRole {
  std::vector<SignalVisit> signals;
  std::vector<WaitVisit> waits;
};

bool listed(const std::vector<std::string>& roles, const std::string& role) {
  return std::find(roles.begin(), roles.end(), role) != roles.end() ||
         std::find(roles.begin(), roles.end(), "all") != roles.end();
}

std::string ordinal(std::int64_t n) {
  std::int64_t k = n + 1;
  std::string suffix = (k % 100 >= 11 && k % 100 <= 13) ? "th"
                       : k % 10 == 1                    ? "st"
                       : k % 10 == 2                    ? "nd"
                       : k % 10 == 3                    ? "rd"
                                                        : "th";
  return std::to_string(k) + suffix;
}

std::string bufferList(const sema::KernelModel& m, const std::set<std::size_t>& buffers) {
  std::string out;
  for (std::size_t b : buffers)
    out += (out.empty() ? "" : ", ") + m.buffers[b].name;
  return out;
}

/// The buffers barrier `bi` orders: what its waiters read or overwrite after waiting, and what
/// asynchronous writes completing on it deliver.
std::set<std::size_t> orderedBuffers(const Context& ctx, std::size_t bi,
                                     const std::map<std::size_t, PerRole>& roles) {
  std::vector<std::size_t> signallers;
  for (const auto& [r, pr] : roles)
    if (!pr.signals.empty())
      signallers.push_back(r);
  std::set<std::size_t> out;
  for (const auto& [r, pr] : roles) {
    if (pr.waits.empty())
      continue;
    WaitGuard g = guardOf(ctx, *pr.waits[0].waits[0].first, bi, signallers);
    out.insert(g.reads.begin(), g.reads.end());
    out.insert(g.writes.begin(), g.writes.end());
  }
  for (const auto& [r, pr] : roles)
    for (const SignalVisit& v : pr.signals)
      for (const Step* s : v.steps)
        for (const reg::EffectDef& e : ctx.op(*s).primitive->effects)
          if (e.kind == reg::EffectKind::Write && e.operandIndex &&
              *e.operandIndex < s->operands.size() && e.completion.rfind("barrier:", 0) == 0 &&
              s->operands[*e.operandIndex].entity == sema::EntityKind::Buffer)
            out.insert(s->operands[*e.operandIndex].entityIndex);
  return out;
}

void addCause(Context& ctx, const Diagnostic* d, std::size_t bi,
              const std::map<std::size_t, PerRole>& roles) {
  if (!d)
    return;
  ctx.causes.push_back({d->code, d->range, bi, orderedBuffers(ctx, bi, roles), {}});
}

/// The parity expression with its last `^ 1` removed, or with one added: the other convention.
std::string flippedParity(const ir::Expr& e) {
  if (e.kind == ir::ExprKind::Binary && e.binaryOp == ir::BinaryOp::BitXor &&
      e.children.size() == 2 && e.children[1]->kind == ir::ExprKind::Int &&
      e.children[1]->intValue == 1)
    return ir::print(*e.children[0]);
  std::string text = ir::print(e);
  bool simple =
      e.kind == ir::ExprKind::Name || e.kind == ir::ExprKind::Member || e.kind == ir::ExprKind::Int;
  return (simple ? text : "(" + text + ")") + " ^ 1";
}

} // namespace

void checkProtocol(Context& ctx) {
  const sema::KernelModel& model = ctx.model;
  Reporter& rep = ctx.reporter;
  // With per-role tile ownership (ping-pong) the roles that share a ring take turns: round n
  // of a barrier element is its n-th pass over the ring, not every role's n-th visit.
  bool strided = false;
  for (const sema::LoopInfo& l : model.loops)
    strided |= l.overTiles && l.tileStride > 1;
  auto passOf = [&](const Step& step, const sema::BarrierInfo& b) -> std::int64_t {
    if (!strided || step.pipeline < 0 || b.pipeline.empty() ||
        model.pipelines[std::size_t(step.pipeline)].name != b.pipeline)
      return -1;
    return step.pass;
  };
  // (barrier, element) → role → visits
  std::map<std::pair<std::size_t, std::int64_t>, std::map<std::size_t, PerRole>> table;

  for (const RoleStream& stream : ctx.program.roles) {
    const sema::RoleInfo& role = model.roles[stream.role];
    for (const Step& step : stream.steps) {
      const sema::OpInfo& op = ctx.op(step);
      StepContext sctx(op, step);
      // CTA rank 0's share of cluster-wide signals (remote arrivals, multicast copies).
      RankZeroView view = rankZeroView(model, op, step);
      if (view.skip)
        continue;
      for (const reg::EffectDef& e : op.primitive->effects) {
        if (!e.operandIndex || *e.operandIndex >= step.operands.size())
          continue;
        const StepOperand& so = step.operands[*e.operandIndex];
        if (!so.present || so.entity != sema::EntityKind::MBarrier)
          continue;
        const sema::BarrierInfo& b = model.barriers[so.entityIndex];
        if (e.kind == reg::EffectKind::Init)
          continue;
        bool signal = e.kind == reg::EffectKind::Arrive || e.kind == reg::EffectKind::Commit ||
                      e.kind == reg::EffectKind::ExpectTx || e.kind == reg::EffectKind::CompleteTx;
        bool wait = e.kind == reg::EffectKind::Wait;
        if (!signal && !wait)
          continue;
        SourceRange at = ctx.operandRange(op, *e.operandIndex);
        if (signal && !listed(b.producers, role.name)) {
          Diagnostic* d =
              rep.report(VerifyId::SignallerNotProducer, at,
                         "role '" + role.name + "' signals '" + b.name +
                             "', but its producers are [" + join(b.producers, ", ") + "]");
          addNote(d, ctx.declRange(b.decl), "producers declared here");
          ctx.brokenBarriers.insert(so.entityIndex);
        }
        if (wait && !listed(b.consumers, role.name)) {
          Diagnostic* d =
              rep.report(VerifyId::WaiterNotConsumer, at,
                         "role '" + role.name + "' waits on '" + b.name +
                             "', but its consumers are [" + join(b.consumers, ", ") + "]");
          addNote(d, ctx.declRange(b.decl), "consumers declared here");
          ctx.brokenBarriers.insert(so.entityIndex);
        }
        if (so.element == -2) {
          rep.report(VerifyId::AnalysisBound, at,
                     "the index of '" + b.name +
                         "' is not statically known here, so its phase "
                         "protocol is not verified; index barrier arrays with a pipeline slot or a "
                         "constant");
          ctx.brokenBarriers.insert(so.entityIndex);
          continue;
        }
        std::vector<std::int64_t> elements;
        if (so.element == -1)
          for (std::int64_t i = 0; i < b.size; ++i)
            elements.push_back(i);
        else
          elements.push_back(so.element);
        for (std::int64_t el : elements) {
          PerRole& pr = table[{so.entityIndex, el}][stream.role];
          if (signal) {
            // A visit is one loop iteration's signals, split where a role completes one phase
            // and starts arriving for the next (two phases in one straight-line block).
            // Copies in an inner loop still deliver the bytes the visit announced (expect_tx
            // before the loop, one tma.load per box inside it), so they join the open visit.
            bool arrives = e.kind == reg::EffectKind::Arrive || e.kind == reg::EffectKind::Commit;
            bool full = !pr.signals.empty() && pr.signals.back().arrivals >= b.count;
            bool delivering = e.kind == reg::EffectKind::CompleteTx && !pr.signals.empty() &&
                              pr.signals.back().complete < pr.signals.back().expect;
            if (pr.signals.empty() ||
                (pr.signals.back().iteration != step.iteration && !delivering) ||
                (arrives && full)) {
              pr.signals.emplace_back();
              pr.signals.back().iteration = step.iteration;
              pr.signals.back().pass = passOf(step, b);
            }
            SignalVisit& v = pr.signals.back();
            if (v.steps.empty() || v.steps.back() != &step)
              v.steps.push_back(&step);
            switch (e.kind) {
            case reg::EffectKind::Arrive:
              v.arrivals += quantity(e.count, sctx, 1) * step.instances * view.arrivals;
              break;
            case reg::EffectKind::Commit:
              v.arrivals += step.instances;
              break;
            case reg::EffectKind::ExpectTx:
              v.expect += quantity(e.bytes, sctx, 0) * step.instances;
              break;
            case reg::EffectKind::CompleteTx:
              v.complete += quantity(e.bytes, sctx, 0) * step.instances * view.bytes;
              break;
            default:
              break;
            }
          } else {
            // Waits for a different parity in the same iteration observe the next phase.
            std::int64_t parity = quantity(e.parity, sctx, -1);
            if (pr.waits.empty() || pr.waits.back().iteration != step.iteration ||
                pr.waits.back().waits.front().second != parity) {
              pr.waits.emplace_back();
              pr.waits.back().iteration = step.iteration;
              pr.waits.back().pass = passOf(step, b);
            }
            pr.waits.back().waits.emplace_back(&step, parity);
          }
        }
      }
    }
  }

  for (auto& [key, roles] : table) {
    const auto [bi, el] = key;
    const sema::BarrierInfo& b = model.barriers[bi];
    std::string name = ctx.element(bi, el);
    BarrierSummary summary;
    summary.name = b.name;
    summary.element = el;
    summary.count = b.count;
    // Visits numbered by ring pass when every visit of the element has one (ping-pong).
    bool byPass = strided;
    for (const auto& [r, pr] : roles) {
      for (const SignalVisit& v : pr.signals)
        byPass &= v.pass >= 0;
      for (const WaitVisit& v : pr.waits)
        byPass &= v.pass >= 0;
    }
    // Round n of a role: its n-th visit, or (by pass) its visits in pass n merged.
    auto roundOf = [&](const PerRole& pr, std::size_t n) {
      SignalVisit out;
      if (!byPass) {
        if (n < pr.signals.size())
          out = pr.signals[n];
        return out;
      }
      for (const SignalVisit& v : pr.signals)
        if (v.pass == std::int64_t(n)) {
          out.arrivals += v.arrivals;
          out.expect += v.expect;
          out.complete += v.complete;
          out.steps.insert(out.steps.end(), v.steps.begin(), v.steps.end());
        }
      return out;
    };
    std::size_t rounds = 0;
    for (const auto& [r, pr] : roles) {
      rounds = std::max(rounds, pr.signals.size());
      if (byPass)
        for (const SignalVisit& v : pr.signals)
          rounds = std::max(rounds, std::size_t(v.pass + 1));
      if (!pr.signals.empty())
        summary.producers.push_back(model.roles[r].name);
      if (!pr.waits.empty())
        summary.waiters.push_back(model.roles[r].name);
    }
    bool healthy = !ctx.brokenBarriers.count(bi);

    // Arrivals and transaction bytes per round.
    for (std::size_t n = 0; n < rounds && healthy; ++n) {
      std::int64_t arrivals = 0, expect = 0, complete = 0;
      for (const auto& [r, pr] : roles) {
        SignalVisit v = roundOf(pr, n);
        arrivals += v.arrivals;
        expect += v.expect;
        complete += v.complete;
      }
      if (n == 0) {
        summary.arrivalsPerPhase = arrivals;
        summary.expectTxPerPhase = expect;
        summary.deliveredTxPerPhase = complete;
      }
      if (arrivals != b.count) {
        Diagnostic* d = rep.report(
            VerifyId::ArrivalCount, ctx.declRange(b.decl),
            "'" + name + "' is initialised for " + std::to_string(b.count) +
                " arrival(s) per phase, but its " + ordinal(std::int64_t(n)) + " phase receives " +
                std::to_string(arrivals) +
                (arrivals < b.count ? ": the phase never completes and its waiters hang"
                                    : ": phases complete early and waiters pass before every "
                                      "producer is done"),
            std::to_string(el));
        for (const auto& [r, pr] : roles) {
          for (const Step* s : roundOf(pr, n).steps) {
            const sema::OpInfo& op = ctx.op(*s);
            addNote(d, ctx.opRange(op),
                    "'" + model.roles[r].name + "' arrives here (" + ctx.context(*s) +
                        "): " + std::to_string(s->instances) + " issuing instance(s) of '" +
                        op.primitive->name + "'");
          }
        }
        if (const ir::Attribute* c = b.decl->attribute("count"))
          addNote(d, rep.range(c->id), "count declared here");
        addCause(ctx, d, bi, roles);
        ctx.brokenBarriers.insert(bi);
        healthy = false;
        break;
      }
      if ((expect != 0 || complete != 0) && expect != complete) {
        const Step* expectStep = nullptr;
        const Step* completeStep = nullptr;
        for (const auto& [r, pr] : roles) {
          for (const Step* s : roundOf(pr, n).steps) {
            for (const reg::EffectDef& e : ctx.op(*s).primitive->effects) {
              if (e.kind == reg::EffectKind::ExpectTx && !expectStep)
                expectStep = s;
              if (e.kind == reg::EffectKind::CompleteTx && !completeStep)
                completeStep = s;
            }
          }
        }
        const Step* anchor = expectStep ? expectStep : completeStep;
        Diagnostic* d = rep.report(
            VerifyId::ExpectTxMismatch, ctx.opRange(ctx.op(*anchor)),
            "'" + name + "' expects " + std::to_string(expect) +
                " transaction bytes per phase, "
                "but the copies signalling it deliver " +
                std::to_string(complete) +
                (expect > complete ? ": the phase never completes" : ": the tx-count underflows"),
            std::to_string(el));
        for (const auto& [r, pr] : roles) {
          for (const Step* s : roundOf(pr, n).steps) {
            const sema::OpInfo& op = ctx.op(*s);
            StepContext sctx(op, *s);
            for (const reg::EffectDef& e : op.primitive->effects)
              if (e.kind == reg::EffectKind::CompleteTx) {
                std::int64_t bytes = quantity(e.bytes, sctx, 0);
                bool pair = rankZeroView(model, op, *s).bytes == 2;
                addNote(d, ctx.opRange(op),
                        "delivers " + std::to_string(bytes) + " bytes" +
                            (pair ? " here and " + std::to_string(bytes) +
                                        " from the peer CTA's copy (cta_group=2 completes on "
                                        "the pair leader's barrier)"
                                  : std::string()));
              }
          }
        }
        addCause(ctx, d, bi, roles);
        ctx.brokenBarriers.insert(bi);
        healthy = false;
        break;
      }
    }
    summary.phasesCompleted = healthy ? std::int64_t(rounds) : 0;

    // The pipeline's phase convention, from what the barrier orders: a barrier that publishes
    // data (its waiter reads what its signallers write) is waited for with the ring's phase,
    // so its first wait blocks until the first signal; one that releases slots (its waiter
    // overwrites what its signallers used) starts released, so its first wait passes (parity
    // P.phase ^ 1). Breaking it deadlocks (a release wait that needs its own data first) or
    // reads data before it is written (a publish wait that passes on the fresh barrier).
    std::vector<std::size_t> signallers;
    for (const auto& [r, pr] : roles)
      if (!pr.signals.empty())
        signallers.push_back(r);
    for (const auto& [r, pr] : roles) {
      if (pr.waits.empty() || !healthy || signallers.empty())
        continue;
      const Step* first = pr.waits[0].waits[0].first;
      std::int64_t p0 = pr.waits[0].waits[0].second;
      WaitGuard g = guardOf(ctx, *first, bi, signallers);
      bool publishes = !g.reads.empty();
      bool releases = !publishes && !g.writes.empty();
      // The parity of the pass of the first wait (0 unless a ping-pong role starts later).
      std::int64_t natural = byPass ? pr.waits[0].pass & 1 : 0;
      if (!((publishes && p0 == (natural ^ 1)) || (releases && p0 == natural)))
        continue;
      // Only when the first signal depends on that data: the signallers write what the waiter
      // reads for it (publish), or use what the waiter overwrites before it (release). A
      // one-time handshake signalled before the data exists follows no ring convention.
      bool depends = false;
      for (std::size_t s : signallers)
        depends |= usedForSignal(ctx, roles.at(s).signals.front().steps,
                                 publishes ? g.reads : g.writes, publishes);
      if (!depends)
        continue;
      const sema::OpInfo& op = ctx.op(*first);
      std::string who = "'" + model.roles[r].name + "'";
      std::string others;
      for (std::size_t s : signallers)
        others += (others.empty() ? "'" : ", '") + model.roles[s].name + "'";
      std::string message =
          publishes
              ? who + " waits on " + name + " for parity 1 on its first visit (" +
                    ctx.context(*first) +
                    "): on a fresh barrier that is the parity of the phase before the first, "
                    "which counts as complete, so the wait passes before " +
                    others + (signallers.size() == 1 ? " signals" : " signal") + " and " + who +
                    " reads " + bufferList(model, g.reads) + " before it is written. '" + b.name +
                    "' publishes data (its waiter reads what its signallers write): by the "
                    "pipeline's phase convention its waiter observes phase n on visit n, "
                    "parity P.phase (0 on the first pass)"
              : who + " waits on " + name + " for parity 0 on its first visit (" +
                    ctx.context(*first) + "), which blocks until the first phase of " + name +
                    " completes, but " + others + " complete" +
                    (signallers.size() == 1 ? "s" : "") + " it only after using " +
                    bufferList(model, g.writes) + ", which " + who +
                    " writes after this wait: the roles wait on each other and none can "
                    "proceed. '" +
                    b.name +
                    "' releases slots (its waiter overwrites what its signallers use): by the "
                    "pipeline's phase convention a fresh release barrier counts as released, "
                    "so its waiter starts on the opposite parity (P.phase ^ 1) and the first "
                    "wait passes at once";
      // A release wait that blocks is the wait cycle itself, told at the wait that breaks
      // the convention (the simulation adds the blocked waits of the other roles as notes).
      Diagnostic* d = rep.report(publishes ? VerifyId::ParityConvention : VerifyId::WaitCycle,
                                 ctx.opRange(op), message);
      for (std::size_t s : signallers) {
        const PerRole& sp = roles.at(s);
        const Step* sig = sp.signals.front().steps.front();
        addNote(d, ctx.opRange(ctx.op(*sig)),
                "'" + model.roles[s].name + "' signals " + name + " first here (" +
                    ctx.context(*sig) + ")");
      }
      const ir::Attribute* parity = op.stmt->attribute("parity");
      if (parity && parity->value)
        setFix(d,
               publishes ? "wait for the phase the signallers complete: parity=" +
                               flippedParity(*parity->value)
                         : "start on the released phase: parity=" + flippedParity(*parity->value),
               rep.range(parity->value->id), flippedParity(*parity->value));
      addCause(ctx, d, bi, roles);
      ctx.brokenBarriers.insert(bi);
      healthy = false;
    }

    // Parity cadence and phases without a producer, per waiting role.
    for (const auto& [r, pr] : roles) {
      if (pr.waits.empty() || !healthy)
        continue;
      std::int64_t p0 = pr.waits[0].waits[0].second;
      if (p0 < 0)
        continue;
      // By pass: wait visit n observes phase pass_n (a publish wait) or pass_n - 1 (a release
      // wait, which starts on the released state).
      std::int64_t pass0 = byPass ? pr.waits[0].pass : 0;
      std::int64_t base = p0 == ((pass0 & 1) ^ 1) ? -1 : 0;
      bool stop = false;
      for (std::size_t n = 0; n < pr.waits.size() && !stop; ++n) {
        for (const auto& [step, parity] : pr.waits[n].waits) {
          if (parity < 0)
            continue;
          std::int64_t nth = byPass ? pr.waits[n].pass - pass0 : std::int64_t(n);
          std::int64_t expected = (p0 + nth) & 1;
          const sema::OpInfo& op = ctx.op(*step);
          if (parity != expected) {
            Diagnostic* d = rep.report(
                VerifyId::ParityCadence, ctx.opRange(op),
                "the " + ordinal(std::int64_t(n)) + " wait of '" + model.roles[r].name + "' on '" +
                    name + "' (" + ctx.context(*step) + ") waits for parity " +
                    std::to_string(parity) + ", but the phase it must observe has parity " +
                    std::to_string(expected) +
                    ": the parity has to flip every time the ring returns to this slot; as "
                    "written the wait passes on a stale phase (a race) or hangs");
            if (n > 0)
              addNote(d, ctx.opRange(ctx.op(*pr.waits[n - 1].waits[0].first)),
                      "the previous wait on '" + name + "' (" +
                          ctx.context(*pr.waits[n - 1].waits[0].first) + ") used parity " +
                          std::to_string(pr.waits[n - 1].waits[0].second));
            setFix(d, "derive the parity from the pipeline: parity=P.phase (consumers) or "
                      "parity=P.phase ^ 1 (producers waiting on a free-slot barrier)");
            addCause(ctx, d, bi, roles);
            ctx.brokenBarriers.insert(bi);
            stop = true;
            break;
          }
          std::int64_t phase = base + pass0 + nth;
          if (phase >= std::int64_t(rounds)) {
            std::string producers =
                summary.producers.empty() ? "no role" : join(summary.producers, ", ");
            Diagnostic* d = rep.report(
                VerifyId::DeadlockNoProducer, ctx.opRange(op),
                "'" + model.roles[r].name + "' waits for phase " + std::to_string(phase) + " of '" +
                    name + "' (" + ctx.context(*step) + "), but " + producers +
                    (summary.producers.empty()
                         ? " ever signals it: the wait never completes"
                         : " complete" + std::string(summary.producers.size() == 1 ? "s" : "") +
                               " only " + std::to_string(rounds) +
                               " phase(s) of it: the wait never completes"));
            for (const auto& [pr2, other] : roles) {
              if (other.signals.empty())
                continue;
              const Step* last = other.signals.back().steps.back();
              addNote(d, ctx.opRange(ctx.op(*last)),
                      "last signal by '" + model.roles[pr2].name + "' (" + ctx.context(*last) +
                          ")");
            }
            addNote(d, ctx.declRange(b.decl), "barrier declared here");
            ctx.brokenBarriers.insert(bi);
            stop = true;
            break;
          }
        }
      }
    }
    ctx.result.barriers.push_back(std::move(summary));
  }
}

} // namespace cake::verify::detail
