// The run record: JSON writing and reading, exit codes and record comparison.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Run/Record.h"

#include "RunJson.h"
#include "cake/Support/Diagnostic.h"
#include "cake/Support/SourceManager.h"

#include <algorithm>

namespace cake::run {

namespace detail {

std::optional<json::Value> parseJson(const std::string& text, const std::string& name,
                                     std::string& error) {
  SourceManager sources;
  FileId file = sources.addBuffer(name, text);
  DiagnosticEngine diags;
  auto v = json::parse(sources.text(file), file, diags);
  if (!v) {
    if (!diags.diagnostics().empty()) {
      const Diagnostic& d = diags.diagnostics().front();
      LineColumn lc = sources.lineColumn(file, d.range.begin);
      error =
          name + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": " + d.message;
    } else {
      error = name + ": not a JSON document";
    }
  }
  return v;
}

std::optional<std::string> str(const json::Value& obj, const char* key) {
  const json::Value* v = obj.get(key);
  return v && v->isString() ? std::optional<std::string>(v->string) : std::nullopt;
}

std::optional<double> num(const json::Value& obj, const char* key) {
  const json::Value* v = obj.get(key);
  return v && v->isNumber() ? std::optional<double>(v->number) : std::nullopt;
}

std::optional<std::int64_t> integer(const json::Value& obj, const char* key) {
  const json::Value* v = obj.get(key);
  return v && v->isNumber() && v->integer ? v->integer : std::nullopt;
}

std::optional<bool> boolean(const json::Value& obj, const char* key) {
  const json::Value* v = obj.get(key);
  return v && v->isBool() ? std::optional<bool>(v->boolean) : std::nullopt;
}

} // namespace detail

using namespace detail;

bool RunRecord::hasError(const std::string& code) const {
  return std::any_of(errors.begin(), errors.end(),
                     [&](const RunError& e) { return e.code == code; });
}

namespace {

template <class T> void optional(json::Writer& w, const char* key, const std::optional<T>& v) {
  w.key(key);
  if (v)
    w.value(*v);
  else
    w.null();
}

void text(json::Writer& w, const char* key, const std::string& v) {
  w.key(key);
  if (v.empty())
    w.null();
  else
    w.value(v);
}

} // namespace

std::string toJson(const RunRecord& r, bool pretty) {
  json::Writer w(pretty);
  w.beginObject();
  w.key("kernel").value(r.kernel);
  text(w, "schedule_hash", r.scheduleHash);
  text(w, "compiler_revision", r.compilerRevision);
  text(w, "target", r.target);
  text(w, "device_kind", r.deviceKind);
  w.key("device");
  if (r.device) {
    w.beginObject();
    w.key("name").value(r.device->name);
    optional(w, "sm", r.device->sm);
    w.key("clocks").beginObject();
    optional(w, "sm_mhz", r.device->smClockMHz);
    optional(w, "default_sm_mhz", r.device->defaultClockMHz);
    optional(w, "mem_mhz", r.device->memClockMHz);
    w.endObject();
    optional(w, "driver", r.device->driver);
    w.endObject();
  } else {
    w.null();
  }
  text(w, "workload", r.workload);
  optional(w, "correct", r.correct);
  w.key("errors").beginArray();
  for (const RunError& e : r.errors) {
    w.beginObject();
    w.key("code").value(e.code);
    w.key("message").value(e.message);
    w.endObject();
  }
  w.endArray();
  w.key("warnings").beginArray();
  for (const std::string& s : r.warnings)
    w.value(s);
  w.endArray();
  w.key("samples_us").beginArray();
  for (double s : r.samplesUs)
    w.value(s);
  w.endArray();
  auto stat = [&](const char* key, double Stats::*field) {
    w.key(key);
    if (r.stats && r.stats->n > 0)
      w.value((*r.stats).*field);
    else
      w.null();
  };
  stat("median_us", &Stats::median);
  stat("q1_us", &Stats::q1);
  stat("q3_us", &Stats::q3);
  stat("min_us", &Stats::min);
  stat("rsd", &Stats::rsd);
  w.key("n").value(static_cast<std::uint64_t>(r.samplesUs.size()));
  text(w, "timer", r.timer);
  text(w, "stop_reason", r.stopReason);
  w.key("protocol_version").value(r.protocolVersion);
  w.key("baseline");
  if (r.baseline) {
    w.beginObject();
    w.key("name").value(r.baseline->name);
    optional(w, "median_us", r.baseline->medianUs);
    w.endObject();
  } else {
    w.null();
  }
  optional(w, "predicted_us", r.predictedUs);
  text(w, "executor", r.executor);
  w.endObject();
  return w.take();
}

std::optional<RunRecord> parseRecord(const std::string& text, std::string& error) {
  auto doc = parseJson(text, "record", error);
  if (!doc)
    return std::nullopt;
  if (!doc->isObject()) {
    error = "record: not a JSON object";
    return std::nullopt;
  }
  RunRecord r;
  auto kernel = str(*doc, "kernel");
  auto version = integer(*doc, "protocol_version");
  const json::Value* samples = doc->get("samples_us");
  const json::Value* errors = doc->get("errors");
  if (!kernel || !version || !samples || !samples->isArray() || !errors || !errors->isArray()) {
    error = "record: missing \"kernel\", \"protocol_version\", \"samples_us\" or \"errors\"";
    return std::nullopt;
  }
  r.kernel = *kernel;
  r.protocolVersion = static_cast<int>(*version);
  r.scheduleHash = str(*doc, "schedule_hash").value_or("");
  r.compilerRevision = str(*doc, "compiler_revision").value_or("");
  r.target = str(*doc, "target").value_or("");
  r.deviceKind = str(*doc, "device_kind").value_or("");
  r.workload = str(*doc, "workload").value_or("");
  r.correct = boolean(*doc, "correct");
  r.timer = str(*doc, "timer").value_or("");
  r.stopReason = str(*doc, "stop_reason").value_or("");
  r.executor = str(*doc, "executor").value_or("");
  if (const json::Value* d = doc->get("device"); d && d->isObject()) {
    DeviceInfo dev;
    dev.name = str(*d, "name").value_or("");
    dev.sm = str(*d, "sm");
    dev.driver = str(*d, "driver");
    if (const json::Value* c = d->get("clocks"); c && c->isObject()) {
      dev.smClockMHz = num(*c, "sm_mhz");
      dev.defaultClockMHz = num(*c, "default_sm_mhz");
      dev.memClockMHz = num(*c, "mem_mhz");
    }
    r.device = dev;
  }
  for (const json::Value& e : errors->elements) {
    if (!e.isObject() || !str(e, "code")) {
      error = "record: an error without a \"code\"";
      return std::nullopt;
    }
    r.errors.push_back({*str(e, "code"), str(e, "message").value_or("")});
  }
  if (const json::Value* ws = doc->get("warnings"); ws && ws->isArray())
    for (const json::Value& s : ws->elements)
      if (s.isString())
        r.warnings.push_back(s.string);
  for (const json::Value& s : samples->elements) {
    if (!s.isNumber() || !(s.number >= 0)) {
      error = "record: \"samples_us\" holds a value that is not a non-negative number";
      return std::nullopt;
    }
    r.samplesUs.push_back(s.number);
  }
  // The summary is recomputed from the samples, never trusted from the file.
  if (!r.samplesUs.empty())
    r.stats = summarize(r.samplesUs);
  if (const json::Value* b = doc->get("baseline"); b && b->isObject())
    r.baseline = Baseline{str(*b, "name").value_or(""), num(*b, "median_us")};
  r.predictedUs = num(*doc, "predicted_us");
  return r;
}

int exitCodeFor(const RunRecord& record) {
  for (const RunError& e : record.errors) {
    if (e.code == "no-driver" || e.code == "no-device")
      return kExitNoDriver;
    if (e.code == "target-mismatch")
      return kExitTargetRefused;
    if (e.code == "bundle-invalid")
      return kExitUsage;
    if (e.code == "executor-failed" || e.code == "timeout" || e.code == "cancelled")
      return kExitExecutor;
  }
  if (!record.errors.empty())
    return kExitIncorrect;
  if (!record.correct)
    return kExitUnchecked;
  return *record.correct ? kExitCorrect : kExitIncorrect;
}

Comparison compareRecords(const RunRecord& candidate, const RunRecord& reference) {
  Comparison c;
  if (candidate.protocolVersion != reference.protocolVersion) {
    c.why = "protocol versions differ (" + std::to_string(candidate.protocolVersion) + " vs " +
            std::to_string(reference.protocolVersion) + ")";
    return c;
  }
  std::string dc = candidate.device ? candidate.device->name : "";
  std::string dr = reference.device ? reference.device->name : "";
  if (dc != dr) {
    c.why = "devices differ ('" + dc + "' vs '" + dr + "')";
    return c;
  }
  if (candidate.workload != reference.workload) {
    c.why = "workloads differ ('" + candidate.workload + "' vs '" + reference.workload + "')";
    return c;
  }
  if (!candidate.correct.value_or(false) || !reference.correct.value_or(false)) {
    c.why = "a record is not a correct run";
    return c;
  }
  return compareTimes(summarize(candidate.samplesUs), summarize(reference.samplesUs));
}

} // namespace cake::run

namespace cake::run {

std::optional<std::string> addMeasurement(const std::string& existing,
                                          const std::string& kernelPath, const RunRecord& r,
                                          std::string& error) {
  if (!r.correct.value_or(false) || !r.errors.empty()) {
    error = "only a correct run is a measurement (this record is " +
            std::string(!r.errors.empty() ? r.errors.front().code : "not checked") + ")";
    return std::nullopt;
  }
  if (r.samplesUs.empty()) {
    error = "the record has no timing samples";
    return std::nullopt;
  }
  std::string target = r.target;
  std::optional<json::Value> doc;
  if (!existing.empty()) {
    doc = detail::parseJson(existing, "measurements", error);
    if (!doc)
      return std::nullopt;
    const json::Value* list = doc->isObject() ? doc->get("measurements") : nullptr;
    if (!list || !list->isArray()) {
      error = "the measurements file is not {\"measurements\": [...]}";
      return std::nullopt;
    }
    if (auto t = detail::str(*doc, "target"); t && *t != r.target) {
      error = "the measurements file is for " + *t + ", the run for " + r.target;
      return std::nullopt;
    }
  }
  json::Writer w;
  w.beginObject();
  w.key("$comment")
      .value("Measured runs for `cake calibrate` (written by `cake run "
             "--measurements`). SPDX-License-Identifier: GPL-3.0-or-later");
  w.key("target").value(target);
  w.key("measurements").beginArray();
  if (doc)
    for (const json::Value& e : doc->get("measurements")->elements)
      w.value(e);
  w.beginObject();
  w.key("kernel").value(kernelPath);
  w.key("measured_us").value(summarize(r.samplesUs).median);
  w.key("problem").value(r.workload.empty() ? r.kernel : r.workload);
  std::string note = (r.device ? r.device->name : std::string("?")) + ", schedule " +
                     r.scheduleHash + ", n=" + std::to_string(r.samplesUs.size()) + ", " +
                     (r.executor.empty() ? std::string("local") : r.executor);
  w.key("note").value(note);
  w.endObject();
  w.endArray();
  w.endObject();
  return w.take() + "\n";
}

} // namespace cake::run
