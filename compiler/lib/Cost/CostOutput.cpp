// JSON and text forms of a cost estimate (`cake cost`). Numbers are rounded to six significant
// digits so that the output is stable across compilers and platforms.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CostInternal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cake::cost {

namespace {

double rounded(double v) {
  if (!std::isfinite(v) || v == 0.0)
    return v == 0.0 ? 0.0 : v;
  double mag = std::pow(10.0, 5 - std::floor(std::log10(std::fabs(v))));
  return std::round(v * mag) / mag;
}

void writeRange(json::Writer& w, SourceRange r, const SourceManager& sources) {
  if (!r.valid() || !sources.contains(r.file)) {
    w.null();
    return;
  }
  LineColumn b = sources.lineColumn(r.file, r.begin);
  LineColumn e = sources.lineColumn(r.file, r.end);
  w.beginObject();
  w.key("line").value(std::int64_t(b.line)).key("column").value(std::int64_t(b.column));
  w.key("end_line").value(std::int64_t(e.line)).key("end_column").value(std::int64_t(e.column));
  w.endObject();
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string micro(double us) {
  if (us >= 1000)
    return fmt("%.1f us", us);
  if (us >= 10)
    return fmt("%.2f us", us);
  return fmt("%.3f us", us);
}

std::string where(SourceRange r, const SourceManager& sources) {
  if (!r.valid() || !sources.contains(r.file))
    return "?";
  LineColumn lc = sources.lineColumn(r.file, r.begin);
  return std::to_string(lc.line) + ":" + std::to_string(lc.column);
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& s : v)
    out += (out.empty() ? "" : sep) + s;
  return out;
}

} // namespace

void writeJson(json::Writer& w, const Estimate& e, const SourceManager& sources) {
  w.beginObject();
  writeJsonMembers(w, e, sources);
  w.endObject();
}

void writeJsonMembers(json::Writer& w, const Estimate& e, const SourceManager& sources) {
  w.key("kernel").value(e.kernel);
  w.key("target").value(e.target);
  w.key("calibrated").value(e.calibrated);
  w.key("calibration");
  if (e.calibrationSource.empty())
    w.null();
  else
    w.value(e.calibrationSource);
  if (!e.ok) {
    w.key("predicted_us").null();
    w.key("bounds_us").null();
    w.key("bottleneck").null();
    w.key("error").value(e.error);
    return;
  }
  w.key("predicted_us").value(rounded(e.predictedUs));
  w.key("bounds_us").beginArray().value(rounded(e.loUs)).value(rounded(e.hiUs)).endArray();
  w.key("cta_us").value(rounded(e.ctaUs));
  w.key("bottleneck").value(e.bottleneck);
  w.key("attribution").beginObject();
  w.key("resource").value(e.bottleneckResource);
  w.key("detail").value(e.bottleneckDetail);
  w.key("ops").beginArray();
  for (std::size_t i : e.bottleneckOps) {
    const OpCost& oc = e.perOp[i];
    w.beginObject();
    w.key("op").value(std::uint64_t(oc.op)).key("primitive").value(oc.primitive);
    w.key("range");
    writeRange(w, oc.range, sources);
    w.key("share").value(rounded(oc.share));
    w.key("time_share").value(rounded(oc.timeShare));
    w.endObject();
  }
  w.endArray();
  w.key("roles").beginArray();
  for (const std::string& r : e.bottleneckRoles)
    w.value(r);
  w.endArray();
  w.endObject();
  w.key("terms").beginArray();
  for (const Term& t : e.terms) {
    w.beginObject().key("resource").value(t.resource).key("us").value(rounded(t.us));
    w.key("utilisation").value(rounded(t.utilisation)).endObject();
  }
  w.endArray();
  const Launch& L = e.launch;
  w.key("launch").beginObject();
  w.key("ctas").value(L.ctas).key("sm_count").value(L.smCount).key("active_sms").value(L.activeSms);
  w.key("persistent").value(L.persistent);
  w.key("residency").value(L.residency).key("residency_binding").value(L.residencyBinding);
  w.key("ctas_per_sm").value(L.ctasPerSm).key("concurrent_ctas_per_sm").value(L.concurrent);
  w.key("waves").value(L.waves);
  w.key("tiles_per_cta").value(L.tilesPerCta).key("tiles_analysed").value(L.tilesAnalysed);
  w.key("raster").value(L.raster).key("swizzle").value(L.swizzle);
  w.key("tiles_in_flight").value(L.tilesInFlight);
  w.key("hbm_bytes").value(rounded(L.hbmOrderBytes));
  w.key("hbm_compulsory_bytes").value(rounded(L.hbmCompulsoryBytes));
  w.endObject();
  w.key("per_op").beginArray();
  for (const OpCost& oc : e.perOp) {
    w.beginObject();
    w.key("op").value(std::uint64_t(oc.op)).key("primitive").value(oc.primitive);
    w.key("roles").beginArray();
    for (const std::string& r : oc.roles)
      w.value(r);
    w.endArray();
    w.key("range");
    writeRange(w, oc.range, sources);
    w.key("class").value(oc.costClass).key("pipe").value(oc.pipe);
    w.key("executions_per_cta").value(rounded(oc.executionsPerCta));
    w.key("flops").value(rounded(oc.flops));
    w.key("instructions").value(rounded(oc.instructions));
    w.key("bytes").beginObject();
    w.key("hbm").value(rounded(oc.bytes.hbm)).key("l2").value(rounded(oc.bytes.l2));
    w.key("smem").value(rounded(oc.bytes.smem)).key("tmem").value(rounded(oc.bytes.tmem));
    w.key("registers").value(rounded(oc.bytes.reg));
    w.endObject();
    w.key("pipe_us").value(rounded(oc.pipeUs)).key("stall_us").value(rounded(oc.stallUs));
    w.key("caused_us").value(rounded(oc.causedUs));
    w.key("share").value(rounded(oc.share));
    w.key("time_share").value(rounded(oc.timeShare)).key("time_us").value(rounded(oc.timeUs));
    w.endObject();
  }
  w.endArray();
  w.key("per_role").beginArray();
  for (const RoleCost& rc : e.perRole) {
    w.beginObject();
    w.key("role").value(rc.name).key("warps").value(rc.warps);
    w.key("busy_us").value(rounded(rc.busyUs)).key("stall_us").value(rounded(rc.stallUs));
    w.key("stalls").beginObject();
    for (const auto& [cause, us] : rc.stalls)
      w.key(cause).value(rounded(us));
    w.endObject();
    w.key("critical").value(rc.critical);
    w.endObject();
  }
  w.endArray();
  w.key("pipelines").beginArray();
  for (const PipelineCost& pc : e.pipelines) {
    w.beginObject();
    w.key("pipeline").value(pc.name).key("stages").value(pc.stages);
    w.key("producers").beginArray();
    for (const std::string& r : pc.producers)
      w.value(r);
    w.endArray();
    w.key("consumers").beginArray();
    for (const std::string& r : pc.consumers)
      w.value(r);
    w.endArray();
    w.key("producer_latency_us").value(rounded(pc.producerLatencyUs));
    w.key("consumer_stage_us").value(rounded(pc.consumerStageUs));
    w.key("consumer_wait_us").value(rounded(pc.consumerWaitUs));
    w.key("producer_wait_us").value(rounded(pc.producerWaitUs));
    w.key("fill_us").value(rounded(pc.fillUs));
    w.key("drain_us").value(rounded(pc.drainUs));
    w.key("latency_exposed").value(pc.latencyExposed);
    w.endObject();
  }
  w.endArray();
  const Roofline& rf = e.roofline;
  w.key("roofline").beginObject();
  w.key("flops").value(rounded(rf.flops)).key("tensor_flops").value(rounded(rf.tensorFlops));
  w.key("hbm_bytes").value(rounded(rf.hbmBytes)).key("l2_bytes").value(rounded(rf.l2Bytes));
  w.key("arithmetic_intensity").value(rounded(rf.intensity));
  w.key("ridge_intensity").value(rounded(rf.ridge));
  w.key("regime").value(rf.regime);
  w.key("achieved_tflops").value(rounded(rf.achievedTflops));
  w.key("peak_tflops").value(rounded(rf.peakTflops)).key("peak_dtype").value(rf.peakDtype);
  w.key("attainable_tflops").value(rounded(rf.attainableTflops));
  w.key("achieved_hbm_gbps").value(rounded(rf.achievedGbps));
  w.key("peak_hbm_gbps").value(rounded(rf.peakHbmGbps));
  w.endObject();
  w.key("hints").beginArray();
  for (const Hint& h : e.hints) {
    w.beginObject();
    w.key("decision").value(h.decision).key("from").value(h.from).key("to").value(h.to);
    w.key("message").value(h.message);
    w.key("predicted_us").value(rounded(h.predictedUs)).key("gain").value(rounded(h.gain));
    w.key("range");
    writeRange(w, h.range, sources);
    w.key("edits").beginArray();
    for (const TextEdit& ed : h.edits) {
      w.beginObject().key("range");
      writeRange(w, ed.range, sources);
      w.key("replacement").value(ed.replacement).endObject();
    }
    w.endArray();
    w.endObject();
  }
  w.endArray();
  w.key("variants_tried").beginArray();
  for (const VariantTried& v : e.variants) {
    w.beginObject().key("decision").value(v.decision).key("from").value(v.from);
    w.key("to").value(v.to).key("outcome").value(v.outcome);
    w.key("predicted_us");
    if (v.predictedUs > 0)
      w.value(rounded(v.predictedUs));
    else
      w.null();
    w.endObject();
  }
  w.endArray();
  w.key("params").beginObject();
  for (int i = 0; i < Params::kCount; ++i)
    w.key(Params::name(i)).value(rounded(e.params.at(i)));
  w.endObject();
  w.key("notes").beginArray();
  for (const std::string& n : e.notes)
    w.value(n);
  w.endArray();
}

std::string renderText(const Estimate& e, const SourceManager& sources, const std::string& path) {
  std::string out;
  std::string label = e.calibrated ? "calibrated (" + e.calibrationSource + ")"
                                   : "not calibrated (datasheet peaks, estimated latencies)";
  if (!e.ok) {
    out += path + ": " + e.kernel + " (" + e.target + "): no estimate: " + e.error + "\n";
    return out;
  }
  out += path + ": " + e.kernel + " (" + e.target + "): predicted " + micro(e.predictedUs) +
         ", bounds [" + micro(e.loUs) + ", " + micro(e.hiUs) + "]; " + label + "\n";
  out += "  bottleneck: " + e.bottleneck + " (" + e.bottleneckResource +
         "): " + e.bottleneckDetail + "\n";
  for (std::size_t i : e.bottleneckOps) {
    const OpCost& oc = e.perOp[i];
    // The attribution is a share of the bottleneck resource; the time share (graph badges,
    // the workbench's per-op bars) is named next to it so that the two never read as one.
    out += "    " + fmt("%5.1f%%", oc.share * 100) + "  " + where(oc.range, sources) + " " +
           oc.primitive + " (" + join(oc.roles.items(), ", ") + ") [of " +
           e.bottleneckResource + "; " + fmt("%.1f%%", oc.timeShare * 100) +
           " of the predicted time]\n";
  }
  const Launch& L = e.launch;
  out += "  launch: " + std::to_string(L.ctas) + " CTAs" + (L.persistent ? " (persistent)" : "") +
         " on " + std::to_string(L.smCount) + " SMs; " + std::to_string(L.concurrent) +
         " resident per SM (residency " + std::to_string(L.residency) + ", " + L.residencyBinding +
         "); " + std::to_string(L.waves) + " wave(s); " + std::to_string(L.tilesPerCta) +
         " tile(s) per CTA; one CTA " + micro(e.ctaUs) + "\n";
  out += "  tile order: raster " + L.raster + ", swizzle " + std::to_string(L.swizzle) + "; " +
         std::to_string(L.tilesInFlight) + " tiles in flight; HBM " +
         fmt("%.1f MB", L.hbmOrderBytes / 1e6) + " (compulsory " +
         fmt("%.1f MB", L.hbmCompulsoryBytes / 1e6) + ", L2 reuse of the order " +
         fmt("%.0f%%", L.hbmOrderBytes > 0 ? 100.0 * L.hbmCompulsoryBytes / L.hbmOrderBytes
                                           : 100.0) +
         ")\n";
  out += "  time per operation (share of the predicted time, busiest SM):";
  {
    std::vector<const OpCost*> top;
    for (const OpCost& oc : e.perOp)
      if (oc.timeShare >= 0.005)
        top.push_back(&oc);
    std::stable_sort(top.begin(), top.end(),
                     [](const OpCost* a, const OpCost* b) { return a->timeShare > b->timeShare; });
    if (top.size() > 5)
      top.resize(5);
    for (const OpCost* oc : top)
      out += " " + where(oc->range, sources) + " " + oc->primitive + " " +
             fmt("%.1f%%", oc->timeShare * 100) + " (" + micro(oc->timeUs) + ");";
    if (top.empty())
      out += " none;";
    out.back() = '\n';
  }
  out += "  terms:";
  for (const Term& t : e.terms)
    out += " " + t.resource + " " + micro(t.us) + fmt(" (%.0f%%)", t.utilisation * 100) + ";";
  out.back() = '\n';
  const Roofline& rf = e.roofline;
  out += "  roofline: " + fmt("%.1f", rf.intensity) + " flop/B (ridge " + fmt("%.0f", rf.ridge) +
         ", " + rf.regime + " side); " + fmt("%.1f", rf.achievedTflops) + " of " +
         fmt("%.1f", rf.peakTflops) + " TFLOP/s (" + rf.peakDtype + "); HBM " +
         fmt("%.0f", rf.achievedGbps) + " of " + fmt("%.0f", rf.peakHbmGbps) + " GB/s\n";
  out += "  roles (per CTA):\n";
  for (const RoleCost& rc : e.perRole) {
    out += "    " + rc.name + (rc.critical ? "*" : "") + ": " + std::to_string(rc.warps) +
           " warps, busy " + micro(rc.busyUs) + ", waiting " + micro(rc.stallUs);
    std::size_t shown = 0;
    for (const auto& [cause, us] : rc.stalls) {
      if (shown++ == 3)
        break;
      out += (shown == 1 ? " (" : ", ") + cause + " " + micro(us);
    }
    out += shown ? ")\n" : "\n";
  }
  for (const PipelineCost& pc : e.pipelines)
    out += "  pipeline " + pc.name + ": " + std::to_string(pc.stages) + " stages, " +
           join(pc.producers, ",") + " -> " + join(pc.consumers, ",") + ", producer latency " +
           micro(pc.producerLatencyUs) + ", consumer stage " + micro(pc.consumerStageUs) +
           ", consumers waited " + micro(pc.consumerWaitUs) +
           (pc.latencyExposed ? " (latency exposed)" : " (latency hidden)") + "\n";
  for (const Hint& h : e.hints)
    out += path + ":" + where(h.range, sources) + ": hint: " + h.message + "\n";
  for (const VariantTried& v : e.variants)
    if (v.outcome != "hint")
      out += "  tried " + v.decision + " " + v.from + " -> " + v.to + ": " + v.outcome +
             (v.predictedUs > 0 ? " (" + micro(v.predictedUs) + ")" : std::string()) + "\n";
  if (e.hints.empty() && e.hintsSearched)
    out += "  no hint: no what-if variant of the pipeline depths or the grid schedule is "
           "predicted at least 2% faster\n";
  for (const std::string& n : e.notes)
    out += "  note: " + n + "\n";
  return out;
}

} // namespace cake::cost
