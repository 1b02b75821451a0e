// The corpus gate's report: JSON (written and read back as a baseline) and text.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Gate/Gate.h"

#include "cake/Support/JsonSchema.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <set>

namespace cake::gate {

namespace {

constexpr std::array<std::string_view, 3> kPtxasModes = {"off", "ran", "unavailable"};
constexpr std::array<std::string_view, 8> kAspects = {"case",     "verdict", "codes", "prediction",
                                                      "metadata", "ptx",     "cuda",  "ptxas"};

/// Writes a list of strings (codes or case ids).
void writeCodes(json::Writer& w, const std::vector<std::string>& codes) {
  w.beginArray();
  for (const std::string& c : codes)
    w.value(c);
  w.endArray();
}

void writeOptString(json::Writer& w, const std::string& s) {
  if (s.empty())
    w.null();
  else
    w.value(s);
}

void writeDelta(json::Writer& w, const Delta& d) {
  w.beginObject();
  w.key("id").value(d.id);
  w.key("aspect").value(d.aspect);
  w.key("before").raw(d.before);
  w.key("after").raw(d.after);
  w.key("accepted").value(d.accepted);
  w.endObject();
}

void writeCase(json::Writer& w, const CaseReport& c) {
  w.beginObject();
  w.key("id").value(c.id);
  w.key("path").value(c.path);
  w.key("matched").value(c.matched);
  w.key("problem");
  writeOptString(w, c.problem);
  w.key("expected").beginObject();
  w.key("accepted").value(c.expected.accepted);
  w.key("codes");
  writeCodes(w, c.expected.codes);
  w.endObject();
  const Observation& o = c.observed;
  w.key("observed").beginObject();
  w.key("accepted").value(o.accepted);
  w.key("codes");
  writeCodes(w, o.codes);
  w.key("predicted_us");
  if (o.predictedUs)
    w.value(*o.predictedUs);
  else
    w.null();
  w.key("cost_error");
  writeOptString(w, o.costError);
  w.key("digests").beginObject();
  w.key("metadata");
  writeOptString(w, o.metadata);
  w.key("ptx");
  writeOptString(w, o.ptx);
  w.key("cuda");
  writeOptString(w, o.cuda);
  w.endObject();
  w.key("ptxas");
  if (o.ptxas) {
    w.beginObject().key("accepted").value(o.ptxas->accepted).key("codes");
    writeCodes(w, o.ptxas->codes);
    w.endObject();
  } else {
    w.null();
  }
  w.endObject();
  w.endObject();
}

// ---------------------------------------------------------------- reading

/// Reads an optional string that may be null (null and absent read as empty).
std::string nullableString(json::ObjectReader& r, std::string_view key) {
  r.allow(key);
  const json::Value* v = r.object().get(key);
  if (!v || v->isNull())
    return {};
  if (!v->isString()) {
    r.invalid(*v, "\"" + std::string(key) + "\" must be a string or null");
    return {};
  }
  return v->string;
}

std::string compact(const json::Value& v) {
  json::Writer w(false);
  w.value(v);
  return w.take();
}

std::optional<Delta> readDelta(const json::Value& v, DiagnosticEngine& diags) {
  json::ObjectReader r(v, diags, "delta");
  Delta d;
  d.id = r.string("id", true).value_or("");
  d.aspect = r.oneOf("aspect", kAspects, true).value_or("");
  r.allow("before");
  r.allow("after");
  const json::Value* before = v.get("before");
  const json::Value* after = v.get("after");
  if (!before || !after) {
    r.invalid(v, "a delta needs \"before\" and \"after\"");
  } else {
    d.before = compact(*before);
    d.after = compact(*after);
  }
  d.accepted = r.boolean("accepted", true).value_or(false);
  r.finish();
  if (!r.ok())
    return std::nullopt;
  return d;
}

std::optional<CaseReport> readCase(const json::Value& v, DiagnosticEngine& diags) {
  json::ObjectReader r(v, diags, "gate case");
  CaseReport c;
  c.id = r.string("id", true).value_or("");
  c.path = r.string("path", true).value_or("");
  c.matched = r.boolean("matched", true).value_or(false);
  c.problem = nullableString(r, "problem");
  c.expected.id = c.id;
  c.expected.path = c.path;
  if (const json::Value* e = r.field("expected", json::Kind::Object, true)) {
    json::ObjectReader ex(*e, diags, "\"expected\"");
    c.expected.accepted = ex.boolean("accepted", true).value_or(true);
    c.expected.codes = ex.stringList("codes", true);
    ex.finish();
    if (!ex.ok())
      r.fail();
  }
  if (const json::Value* ob = r.field("observed", json::Kind::Object, true)) {
    json::ObjectReader o(*ob, diags, "\"observed\"");
    Observation& out = c.observed;
    out.accepted = o.boolean("accepted", true).value_or(false);
    out.codes = o.stringList("codes", true);
    o.allow("predicted_us");
    if (const json::Value* p = ob->get("predicted_us"); p && !p->isNull()) {
      if (p->isNumber())
        out.predictedUs = p->number;
      else
        o.invalid(*p, "\"predicted_us\" must be a number or null");
    }
    out.costError = nullableString(o, "cost_error");
    if (const json::Value* d = o.field("digests", json::Kind::Object, true)) {
      json::ObjectReader dr(*d, diags, "\"digests\"");
      out.metadata = nullableString(dr, "metadata");
      out.ptx = nullableString(dr, "ptx");
      out.cuda = nullableString(dr, "cuda");
      dr.finish();
      if (!dr.ok())
        o.fail();
    }
    o.allow("ptxas");
    if (const json::Value* p = ob->get("ptxas"); p && !p->isNull()) {
      json::ObjectReader pr(*p, diags, "\"ptxas\"");
      PtxasVerdict pv;
      pv.accepted = pr.boolean("accepted", true).value_or(false);
      pv.codes = pr.stringList("codes", true);
      pr.finish();
      if (pr.ok())
        out.ptxas = std::move(pv);
      else
        o.fail();
    }
    o.finish();
    if (!o.ok())
      r.fail();
  }
  r.finish();
  if (!r.ok())
    return std::nullopt;
  return c;
}

std::optional<AcceptAct> readAct(const json::Value& v, DiagnosticEngine& diags) {
  json::ObjectReader r(v, diags, "accepted change");
  AcceptAct a;
  a.time = r.string("time", true).value_or("");
  a.actor = r.string("actor", true).value_or("");
  a.comment = r.string("comment", true).value_or("");
  a.compilerRevision = r.string("compiler_revision", true).value_or("");
  a.cases = r.stringList("cases", true);
  if (const json::Value* list = r.field("deltas", json::Kind::Array, true))
    for (const json::Value& d : list->elements) {
      if (auto delta = readDelta(d, diags))
        a.deltas.push_back(std::move(*delta));
      else
        r.fail();
    }
  r.finish();
  if (!r.ok())
    return std::nullopt;
  return a;
}

std::string shortValue(const std::string& json) {
  // `"sha256:<64 hex>"` → `sha256:<12 hex>`; other strings without their quotes.
  std::string s = json;
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"')
    s = s.substr(1, s.size() - 2);
  if (s.rfind("sha256:", 0) == 0 && s.size() > 19)
    s = s.substr(0, 19);
  return s;
}

std::string shortDigest(const std::string& d) {
  if (d.empty())
    return "-";
  return d.rfind("sha256:", 0) == 0 ? d.substr(7, 12) : d;
}

} // namespace

std::string toJson(const GateReport& report) {
  json::Writer w;
  w.beginObject();
  w.key("compiler_revision").value(report.compilerRevision);
  w.key("ptxas").value(kPtxasModes[static_cast<std::size_t>(report.ptxas)]);
  w.key("cases").beginArray();
  for (const CaseReport& c : report.cases)
    writeCase(w, c);
  w.endArray();
  w.key("delta").beginArray();
  for (const Delta& d : report.delta)
    writeDelta(w, d);
  w.endArray();
  w.key("accepted_changes").beginArray();
  for (const AcceptAct& a : report.acceptedChanges) {
    w.beginObject();
    w.key("time").value(a.time);
    w.key("actor").value(a.actor);
    w.key("comment").value(a.comment);
    w.key("compiler_revision").value(a.compilerRevision);
    w.key("cases");
    writeCodes(w, a.cases);
    w.key("deltas").beginArray();
    for (const Delta& d : a.deltas)
      writeDelta(w, d);
    w.endArray();
    w.endObject();
  }
  w.endArray();
  std::size_t unexpected = report.unexpectedDeltas();
  w.key("summary").beginObject();
  w.key("cases").value(static_cast<std::uint64_t>(report.cases.size()));
  w.key("mismatched").value(static_cast<std::uint64_t>(report.mismatched()));
  w.key("baseline").value(report.hasBaseline);
  w.key("deltas").value(static_cast<std::uint64_t>(report.delta.size()));
  w.key("accepted_deltas").value(static_cast<std::uint64_t>(report.delta.size() - unexpected));
  w.key("unexpected_deltas").value(static_cast<std::uint64_t>(unexpected));
  w.key("pass").value(report.pass());
  DeltaSummary groups = summarize(report.delta);
  w.key("changes").beginObject();
  w.key("newly_accepted");
  writeCodes(w, groups.newlyAccepted);
  w.key("newly_rejected");
  writeCodes(w, groups.newlyRejected);
  w.key("changed_findings");
  writeCodes(w, groups.changedFindings);
  w.key("changed_predictions");
  writeCodes(w, groups.changedPredictions);
  w.key("changed_code");
  writeCodes(w, groups.changedCode);
  w.key("missing_cases");
  writeCodes(w, groups.missingCases);
  w.key("new_cases");
  writeCodes(w, groups.newCases);
  w.endObject();
  w.endObject();
  w.endObject();
  return w.take() + "\n";
}

std::string toText(const GateReport& report) {
  // The id column fits the longest id (at least 30), so columns line up on any corpus.
  std::size_t width = 30;
  for (const CaseReport& c : report.cases)
    width = std::max(width, c.id.size());
  for (const Delta& d : report.delta)
    width = std::max(width, d.id.size());
  auto pad = [](std::string s, std::size_t w) {
    if (s.size() < w)
      s.append(w - s.size(), ' ');
    return s;
  };
  std::string out;
  char number[64];
  for (const CaseReport& c : report.cases) {
    const Observation& o = c.observed;
    out += pad(c.matched ? "ok" : "FAIL", 4) + " " + pad(c.id, width) + " " +
           pad(o.accepted ? "accepted" : "refused", 8) + " ";
    if (o.predictedUs) {
      std::snprintf(number, sizeof number, "%12.3f us", *o.predictedUs);
      out += number;
    } else {
      out += std::string(15, ' ');
    }
    if (!o.metadata.empty())
      out += "  metadata " + shortDigest(o.metadata) + "  ptx " + shortDigest(o.ptx) + "  cuda " +
             shortDigest(o.cuda);
    if (o.ptxas)
      out += std::string("  ptxas ") + (o.ptxas->accepted ? "ok" : "REFUSED");
    if (!c.matched)
      out += "  -- " + c.problem;
    out += "\n";
  }
  std::size_t unexpected = report.unexpectedDeltas();
  if (report.hasBaseline && report.delta.empty())
    out += "no change against the baseline\n";
  if (report.hasBaseline && !report.delta.empty()) {
    out += "delta against the baseline: " + std::to_string(report.delta.size()) + " change(s), " +
           std::to_string(unexpected) + " unexpected\n";
    out +=
        "  " + pad("CASE", width) + " " + pad("ASPECT", 10) + " " + pad("BEFORE", 24) + " AFTER\n";
    for (const Delta& d : report.delta)
      out += "  " + pad(d.id, width) + " " + pad(d.aspect, 10) + " " +
             pad(shortValue(d.before), 24) + " " + pad(shortValue(d.after), 24) + " " +
             (d.accepted ? "accepted" : "UNEXPECTED") + "\n";
  }
  if (report.ptxas == PtxasMode::Unavailable)
    out += "ptxas was asked for but not found: no ptxas verdicts\n";
  out += std::to_string(report.cases.size()) + " case(s), " + std::to_string(report.mismatched()) +
         " not matching the manifest, " + std::to_string(unexpected) +
         " unexpected change(s): " + (report.pass() ? "pass" : "FAIL") + "\n";
  return out;
}

std::optional<GateReport> readReport(const std::string& name, std::string text,
                                     SourceManager& sources, DiagnosticEngine& diags) {
  FileId f = sources.addBuffer(name, std::move(text));
  auto doc = json::parse(sources.text(f), f, diags);
  if (!doc)
    return std::nullopt;
  json::ObjectReader r(*doc, diags, "gate report");
  GateReport report;
  report.compilerRevision = r.string("compiler_revision", true).value_or("");
  if (auto mode = r.oneOf("ptxas", kPtxasModes, false))
    report.ptxas = static_cast<PtxasMode>(std::find(kPtxasModes.begin(), kPtxasModes.end(), *mode) -
                                          kPtxasModes.begin());
  // The baseline's own comparison and summary are recomputed, never trusted.
  r.allow("delta");
  r.allow("summary");
  std::set<std::string> ids;
  if (const json::Value* list = r.field("cases", json::Kind::Array, true))
    for (const json::Value& v : list->elements) {
      auto c = readCase(v, diags);
      if (!c) {
        r.fail();
        continue;
      }
      if (!ids.insert(c->id).second) {
        diags.report(DiagId::DefDuplicate, v.get("id")->range,
                     "case id '" + c->id + "' is used twice");
        r.fail();
        continue;
      }
      report.cases.push_back(std::move(*c));
    }
  if (const json::Value* list = r.field("accepted_changes", json::Kind::Array, false))
    for (const json::Value& v : list->elements) {
      if (auto a = readAct(v, diags))
        report.acceptedChanges.push_back(std::move(*a));
      else
        r.fail();
    }
  r.finish();
  if (!r.ok() || diags.hasBlocking())
    return std::nullopt;
  std::sort(report.cases.begin(), report.cases.end(),
            [](const CaseReport& a, const CaseReport& b) { return a.id < b.id; });
  return report;
}

} // namespace cake::gate
