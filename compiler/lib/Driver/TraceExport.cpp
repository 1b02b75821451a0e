// JSON and Chrome-trace export of the verifier's event trace and summaries.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Driver/TraceExport.h"

#include "cake/Verify/SmemFootprint.h"

namespace cake::driver {

namespace {

std::uint32_t lineOf(const CheckResult& r, std::size_t op) {
  const auto& ops = r.model.ops;
  if (op >= ops.size())
    return 0;
  SourceRange range = r.module.sourceMap.range(ops[op].stmt->id);
  return r.sources->contains(range.file) ? r.sources->lineColumn(range.file, range.begin).line : 0;
}

} // namespace

void writeAnalysisJson(json::Writer& w, const CheckResult& r, std::size_t maxEvents) {
  const sema::KernelModel& m = r.model;
  const verify::VerifyResult& v = r.verification;
  w.beginObject();
  w.key("kernel").value(m.name);
  w.key("target").value(m.targetName);
  w.key("verified").value(v.ran);
  w.key("roles").beginArray();
  for (const sema::RoleInfo& role : m.roles) {
    w.beginObject().key("name").value(role.name);
    w.key("warps").beginArray().value(role.warpBegin).value(role.warpEnd).endArray();
    w.key("registers");
    if (role.registers)
      w.value(*role.registers);
    else
      w.null();
    w.endObject();
  }
  w.endArray();
  w.key("ctas").value(v.ctas);
  w.key("tiles_per_cta").value(v.tilesPerCta);
  w.key("tiles_analysed").value(v.tilesAnalysed);
  w.key("bound_reached").value(v.boundReached);
  w.key("deadlock").value(v.deadlock);
  // Where each role is stuck when no role can move: the wait, iteration and parity the
  // findings name.
  w.key("blocked").beginArray();
  for (const verify::BlockedRole& b : v.blocked) {
    w.beginObject();
    w.key("role").value(m.roles[b.role].name);
    w.key("op").value(m.ops[b.op].primitive->name);
    w.key("line").value(lineOf(r, b.op));
    w.key("context").value(b.context);
    if (!b.barrier.empty())
      w.key("barrier").value(b.barrier);
    if (b.element >= 0)
      w.key("slot").value(b.element);
    if (b.parity >= 0)
      w.key("parity").value(b.parity).key("phase").value(b.phase);
    w.endObject();
  }
  w.endArray();
  w.key("events").beginArray();
  std::size_t n = std::min(maxEvents, v.trace.size());
  for (std::size_t i = 0; i < n; ++i) {
    const verify::TraceEvent& e = v.trace[i];
    w.beginObject();
    w.key("kind").value(verify::toString(e.kind));
    w.key("time").value(static_cast<std::uint64_t>(e.time));
    if (e.start != e.time)
      w.key("start").value(static_cast<std::uint64_t>(e.start));
    w.key("role").value(m.roles[e.role].name);
    w.key("op").value(m.ops[e.op].primitive->name);
    w.key("line").value(lineOf(r, e.op));
    if (std::string_view barrier = v.trace.barrier(e); !barrier.empty()) {
      w.key("barrier").value(barrier);
      if (e.element >= 0)
        w.key("slot").value(e.element);
    }
    if (e.phase >= 0 || e.kind == verify::TraceEvent::Kind::Wait)
      w.key("phase").value(e.phase);
    if (e.parity >= 0)
      w.key("parity").value(e.parity);
    if (e.amount)
      w.key("amount").value(e.amount);
    if (e.cause >= 0)
      w.key("released_by").value(e.cause);
    w.key("context").value(v.trace.context(e));
    w.endObject();
  }
  w.endArray();
  w.key("events_omitted").value(static_cast<std::uint64_t>(v.trace.size() - n));
  w.key("barriers").beginArray();
  for (const verify::BarrierSummary& b : v.barriers) {
    w.beginObject();
    w.key("name").value(b.name).key("slot").value(b.element).key("count").value(b.count);
    w.key("phases_completed").value(b.phasesCompleted);
    w.key("arrivals_per_phase").value(b.arrivalsPerPhase);
    w.key("expect_tx_per_phase").value(b.expectTxPerPhase);
    w.key("delivered_tx_per_phase").value(b.deliveredTxPerPhase);
    w.key("producers").beginArray();
    for (const std::string& p : b.producers)
      w.value(p);
    w.endArray();
    w.key("waiters").beginArray();
    for (const std::string& p : b.waiters)
      w.value(p);
    w.endArray();
    w.endObject();
  }
  w.endArray();
  const verify::ResourceSummary& res = v.resources;
  w.key("resources").beginObject();
  w.key("smem_buffers").value(res.smemBuffers).key("smem_barriers").value(res.smemBarriers);
  w.key("smem_total").value(res.smemTotal).key("smem_limit").value(res.smemLimit);
  // Per CTA, like smem_total; residency counts smem_total + smem_reserved per CTA of smem_per_sm.
  const verify::SmemFootprint smem = verify::smemFootprint(r.model);
  w.key("smem_reserved").value(smem.reserved).key("smem_per_sm").value(smem.perSm);
  w.key("tmem_columns").value(res.tmemColumns).key("threads").value(res.threads);
  w.key("launch_registers").value(res.launchRegisters);
  w.key("residency").value(res.residency).key("binding").value(res.binding);
  w.key("bounds").beginArray();
  for (const verify::ResidencyBound& b : res.bounds)
    w.beginObject().key("resource").value(b.resource).key("ctas_per_sm").value(b.ctasPerSm)
        .key("detail").value(b.detail).endObject();
  w.endArray();
  w.endObject();
  w.endObject();
}

std::string toChromeTrace(const CheckResult& r, std::size_t maxEvents) {
  const sema::KernelModel& m = r.model;
  const auto& trace = r.verification.trace;
  // One logical step = 1 microsecond on the trace's clock (the timeline has no real durations
  // until the cost model supplies them).
  json::Writer w(false);
  w.beginObject();
  w.key("displayTimeUnit").value("ns");
  w.key("traceEvents").beginArray();
  w.beginObject().key("ph").value("M").key("pid").value(1).key("name").value("process_name");
  w.key("args").beginObject().key("name").value("CTA 0 of " + m.name).endObject().endObject();
  for (std::size_t i = 0; i < m.roles.size(); ++i) {
    w.beginObject().key("ph").value("M").key("pid").value(1).key("tid").value(static_cast<std::uint64_t>(i));
    w.key("name").value("thread_name").key("args").beginObject();
    w.key("name").value(m.roles[i].name + " (warps " + std::to_string(m.roles[i].warpBegin) + ".." +
                        std::to_string(m.roles[i].warpEnd) + ")");
    w.endObject().endObject();
  }
  std::size_t n = std::min(maxEvents, trace.size());
  for (std::size_t i = 0; i < n; ++i) {
    const verify::TraceEvent& e = trace[i];
    std::uint64_t tid = e.role;
    const std::string& op = m.ops[e.op].primitive->name;
    const std::string barrier(trace.barrier(e));
    switch (e.kind) {
    case verify::TraceEvent::Kind::Issue:
      w.beginObject().key("ph").value("X").key("pid").value(1).key("tid").value(tid);
      w.key("name").value(op).key("cat").value(m.ops[e.op].primitive->category);
      w.key("ts").value(static_cast<std::uint64_t>(e.time)).key("dur").value(1);
      w.key("args").beginObject().key("line").value(lineOf(r, e.op)).key("context").value(trace.context(e)).endObject();
      w.endObject();
      break;
    case verify::TraceEvent::Kind::Wait:
    case verify::TraceEvent::Kind::Sync: {
      std::string name = (e.kind == verify::TraceEvent::Kind::Wait ? "wait " : "sync ") + barrier +
                         (e.element >= 0 ? "[" + std::to_string(e.element) + "]" : "");
      w.beginObject().key("ph").value("X").key("pid").value(1).key("tid").value(tid);
      w.key("name").value(name).key("cat").value("barrier");
      w.key("ts").value(static_cast<std::uint64_t>(e.start));
      w.key("dur").value(static_cast<std::uint64_t>(std::max<std::uint64_t>(1, e.time - e.start)));
      w.key("args").beginObject().key("phase").value(e.phase).key("parity").value(e.parity)
          .key("context").value(trace.context(e)).endObject();
      w.endObject();
      if (e.kind == verify::TraceEvent::Kind::Wait && e.cause >= 0 &&
          std::size_t(e.cause) < n) {
        // Flow arrow from the arrival that completed the phase to this wait.
        const verify::TraceEvent& c = trace[std::size_t(e.cause)];
        std::string id = std::to_string(i);
        w.beginObject().key("ph").value("s").key("pid").value(1);
        w.key("tid").value(static_cast<std::uint64_t>(c.role)).key("ts").value(static_cast<std::uint64_t>(c.time));
        w.key("name").value("phase " + std::to_string(e.phase) + " of " + barrier);
        w.key("cat").value("barrier").key("id").value(id).endObject();
        w.beginObject().key("ph").value("f").key("bp").value("e").key("pid").value(1);
        w.key("tid").value(tid).key("ts").value(static_cast<std::uint64_t>(e.time));
        w.key("name").value("phase " + std::to_string(e.phase) + " of " + barrier);
        w.key("cat").value("barrier").key("id").value(id).endObject();
      }
      break;
    }
    default: {
      w.beginObject().key("ph").value("i").key("s").value("t").key("pid").value(1).key("tid").value(tid);
      w.key("name").value(std::string(verify::toString(e.kind)) + " " + barrier +
                          (e.element >= 0 ? "[" + std::to_string(e.element) + "]" : ""));
      w.key("cat").value("barrier").key("ts").value(static_cast<std::uint64_t>(e.time));
      w.key("args").beginObject().key("phase").value(e.phase).key("amount").value(e.amount).endObject();
      w.endObject();
      break;
    }
    }
  }
  w.endArray();
  w.endObject();
  return w.take();
}

} // namespace cake::driver
