// `cake cost` (predicted time, bottleneck, roofline and hints of one kernel) and `cake calibrate`
// (fit the cost model's parameters to measured runs and write a calibration file).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CliSupport.h"

#include "cake/Cost/Calibrate.h"
#include "cake/Cost/CostModel.h"
#include "cake/Driver/Output.h"
#include "cake/Support/JsonSchema.h"
#include "cake/Support/StringUtil.h"
#include "cake/Target/Target.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

namespace cake::cli {

namespace {

constexpr std::size_t kMaxKernelBytes = 64u << 20;

std::optional<std::string> readKernel(const std::string& path, std::string& error) {
  if (path != "-")
    return readFile(path, error, kMaxKernelBytes);
  std::string content;
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
    content.append(buf, n);
    if (content.size() > kMaxKernelBytes) {
      error = "standard input exceeds " + std::to_string(kMaxKernelBytes) + " bytes";
      return std::nullopt;
    }
  }
  return content;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

} // namespace

// ------------------------------------------------------------------ cost
int cmdCost(const std::string& argv0, const std::vector<std::string>& all) {
  Args a = parseArgs(
      all, 1,
      {"--format", "--registry", "--targets", "--rules", "--workspace", "--calibration",
       "--workload", "--corpus"},
      {"--no-hints", "--help"});
  if (!a.error.empty())
    return usageError("cost", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("cost", format, {"text", "json"}, code))
    return code;
  if (a.positional.size() != 1)
    return usageError("cost", a.positional.empty()
                                  ? "no input file (use '-' for standard input)"
                                  : "one kernel at a time (got " +
                                        std::to_string(a.positional.size()) + " files)");
  auto compiler = loadCompiler(argv0, a, format);
  if (!compiler)
    return 2;
  const std::string& path = a.positional[0];
  std::string shown = path == "-" ? "<stdin>" : path;
  std::string error;
  auto text = readKernel(path, error);
  if (!text) {
    if (format == "json") {
      json::Writer w;
      w.beginObject().key("compiler_revision").value(compiler->revision());
      w.key("path").value(shown).key("error").value(error).endObject();
      std::cout << w.str() << "\n";
    }
    std::fprintf(stderr, "cake: error: cannot read '%s': %s\n", shown.c_str(), error.c_str());
    return 2;
  }
  // The source manager keeps the text; a second copy would only add to the peak.
  driver::CheckResult r = compiler->check(shown, std::move(*text));
  if (!r.accepted) {
    // Costing an illegal kernel is meaningless: show why it is refused.
    std::size_t blocking = 0;
    for (const Diagnostic& d : r.diagnostics)
      blocking += d.severity == Severity::Blocking;
    if (format == "json") {
      json::Writer w;
      w.beginObject().key("compiler_revision").value(compiler->revision());
      w.key("path").value(shown).key("accepted").value(false);
      w.key("predicted_us").null();
      w.key("error").value("the kernel has blocking findings; costing an illegal kernel is "
                           "meaningless");
      w.key("findings").beginArray();
      for (const Diagnostic& d : r.diagnostics)
        if (d.severity == Severity::Blocking)
          driver::writeJson(w, d, *r.sources);
      w.endArray().endObject();
      std::cout << w.str() << "\n";
    } else {
      for (const Diagnostic& d : r.diagnostics)
        if (d.severity == Severity::Blocking)
          std::fputs(driver::renderText(d, *r.sources).c_str(), stdout);
    }
    std::fprintf(stderr,
                 "cake cost: '%s' is refused (%zu blocking finding(s)); costing an illegal "
                 "kernel is meaningless\n",
                 shown.c_str(), blocking);
    return 1;
  }
  // Run-time scalar parameters: costed at the workload contract's values (--workload, else the
  // corpus case's contract), else at the end of their launch-contract range (docs/cost.md).
  std::vector<std::pair<std::string, std::int64_t>> contractValues;
  std::string scalarSource;
  if (!r.model.scalars.empty()) {
    std::string id, lookupError;
    std::string workload = findWorkload(argv0, a, path, id, lookupError);
    if (!workload.empty()) {
      verify::VerifyOptions vo = workloadScalars(workload, &contractValues);
      if (!vo.scalarValues.empty()) {
        driver::CheckResult bound = compiler->check(shown, std::string(r.sources->text(r.file)), vo);
        if (bound.accepted) {
          r = std::move(bound);
          scalarSource = "workload contract " + workload;
        }
      }
    }
  }
  cost::Options options;
  options.hints = !a.has("--no-hints");
  cost::Estimate e = cost::estimate(*compiler, r, options);
  auto scalarOrigin = [&](const sema::ScalarInfo& sc) {
    return sc.valueFromCaller ? scalarSource
                              : std::string("end of its range [") + std::to_string(sc.lo) +
                                    ", " + std::to_string(sc.hi) + "] (no contract value)";
  };
  if (format == "json") {
    json::Writer w;
    // A large kernel's report (one entry per operation) goes out as it is written.
    w.streamTo(std::cout);
    w.beginObject().key("compiler_revision").value(compiler->revision());
    w.key("path").value(shown).key("accepted").value(true);
    if (!r.model.scalars.empty()) {
      w.key("scalars").beginArray();
      for (const sema::ScalarInfo& sc : r.model.scalars) {
        w.beginObject().key("name").value(sc.name).key("value").value(sc.value);
        w.key("from").value(scalarOrigin(sc)).endObject();
      }
      w.endArray();
    }
    cost::writeJsonMembers(w, e, *r.sources);
    w.endObject();
    std::cout << w.str() << "\n";
  } else {
    for (const sema::ScalarInfo& sc : r.model.scalars)
      std::printf("run-time scalar %s = %lld (%s)\n", sc.name.c_str(),
                  static_cast<long long>(sc.value), scalarOrigin(sc).c_str());
    std::fputs(cost::renderText(e, *r.sources, shown).c_str(), stdout);
  }
  if (!e.ok) {
    std::fprintf(stderr, "cake cost: %s\n", e.error.c_str());
    return 2;
  }
  return 0;
}

// ------------------------------------------------------------------ calibrate
namespace {

struct Entry {
  std::string kernel; ///< as written
  std::string path;   ///< resolved against the measurement file
  double measuredUs = 0;
  std::string problem;
  std::map<std::string, std::int64_t> consts;
  std::map<std::string, std::int64_t> stages;
  std::string schedule;
  SourceRange kernelRange;
  SourceRange at;
};

/// The largest accepted measurement: one second per kernel launch.
constexpr double kMaxMeasuredUs = 1e6;

/// Reads `{"target"?, "measurements": [...]}` or a bare array of measurements.
std::vector<Entry> readMeasurements(const json::Value& doc, const std::string& base,
                                    std::string& target, DiagnosticEngine& diags) {
  std::vector<Entry> out;
  const json::Value* list = &doc;
  if (doc.isObject()) {
    json::ObjectReader r(doc, diags, "measurement file");
    r.allow("$comment");
    if (auto t = r.string("target", false))
      target = *t;
    list = r.field("measurements", json::Kind::Array, true);
    r.finish();
    if (!list)
      return out;
  } else if (!doc.isArray()) {
    diags.report(DiagId::DefInvalidValue, doc.range,
                 "a measurement file holds an object with \"measurements\" or an array");
    return out;
  }
  for (const json::Value& v : list->elements) {
    json::ObjectReader m(v, diags, "measurement");
    Entry e;
    e.at = v.range;
    m.allow("$comment");
    m.allow("note");
    if (auto k = m.string("kernel", true)) {
      e.kernel = *k;
      e.kernelRange = v.get("kernel")->range;
      std::filesystem::path p(*k);
      e.path =
          p.is_absolute() || base.empty() ? p.string() : (std::filesystem::path(base) / p).string();
    }
    if (auto t = m.number("measured_us", true)) {
      // One kernel launch takes microseconds to milliseconds; a second or more is a unit
      // mistake (ns, cycles) or a corrupt file, and would drag the fit and its error bound
      // (exp of the log error) to infinity.
      if (!(*t > 0) || !(*t <= kMaxMeasuredUs)) {
        char found[32];
        std::snprintf(found, sizeof found, "%g", *t);
        m.invalid(*v.get("measured_us"),
                  "\"measured_us\" must be a positive number of microseconds, finite and at "
                  "most 1e6 (1 s per kernel), found " +
                      std::string(found));
      }
      e.measuredUs = *t;
    }
    e.problem = m.string("problem", false).value_or("");
    auto ints = [&](const char* key, std::map<std::string, std::int64_t>& into) {
      const json::Value* obj = m.field(key, json::Kind::Object, false);
      if (!obj)
        return;
      for (const json::Member& mem : obj->members) {
        if (!mem.value.isNumber() || !mem.value.integer || *mem.value.integer <= 0)
          m.invalid(mem.value, "\"" + std::string(key) + "\" values must be positive integers");
        else
          into[mem.key] = *mem.value.integer;
      }
    };
    ints("consts", e.consts);
    ints("stages", e.stages);
    if (auto s =
            m.oneOf("schedule", std::array<std::string_view, 2>{"static", "persistent"}, false))
      e.schedule = *s;
    m.finish();
    if (m.ok())
      out.push_back(std::move(e));
  }
  return out;
}

void printDiagnostics(DiagnosticEngine& diags, const SourceManager& sources) {
  for (const Diagnostic& d : diags.diagnostics())
    std::fputs(driver::renderText(d, sources).c_str(), stderr);
}

} // namespace

int cmdCalibrate(const std::string& argv0, const std::vector<std::string>& all) {
  Args a = parseArgs(all, 1,
                     {"--format", "--registry", "--targets", "--rules", "--workspace",
                      "--calibration", "--target", "-o", "--output"},
                     {"--help"});
  if (!a.error.empty())
    return usageError("calibrate", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("calibrate", format, {"text", "json"}, code))
    return code;
  if (a.positional.size() != 1)
    return usageError("calibrate", "give one MEASUREMENTS.json file");
  std::string output = a.get("-o", a.get("--output"));
  auto compiler = loadCompiler(argv0, a, format);
  if (!compiler)
    return 2;
  const std::string& file = a.positional[0];
  std::string error;
  auto text = readFile(file, error, 16u << 20);
  if (!text) {
    std::fprintf(stderr, "cake: error: cannot read '%s': %s\n", file.c_str(), error.c_str());
    return 2;
  }
  SourceManager sources(&compiler->sources());
  DiagnosticEngine diags;
  FileId fid = sources.addBuffer(file, *text);
  std::string target = a.get("--target");
  std::vector<Entry> entries;
  SourceRange targetRange;
  if (auto doc = json::parse(sources.text(fid), fid, diags)) {
    std::string named;
    entries =
        readMeasurements(*doc, std::filesystem::path(file).parent_path().string(), named, diags);
    if (const json::Value* t = doc->isObject() ? doc->get("target") : nullptr)
      targetRange = t->range;
    if (target.empty())
      target = named;
  }
  // An unknown target is refused before any kernel is looked at.
  auto unknownTarget = [&](const std::string& name) {
    std::string msg = "unknown target '" + name + "'";
    if (auto guess = closestMatch(name, compiler->targets().names()))
      msg += "; did you mean '" + *guess + "'?";
    return msg + " (known: " + join(compiler->targets().names(), ", ") + ")";
  };
  if (!target.empty() && !compiler->targets().find(target)) {
    if (a.get("--target").empty() && targetRange.valid()) {
      diags.report(DiagId::DefUnknownTarget, targetRange, unknownTarget(target));
    } else {
      printDiagnostics(diags, sources);
      return usageError("calibrate", unknownTarget(target));
    }
  }
  if (diags.hasBlocking()) {
    printDiagnostics(diags, sources);
    return 2;
  }
  // Check every kernel (with its overrides) and prepare it.
  std::vector<std::unique_ptr<driver::CheckResult>> checks;
  std::vector<cost::PreparedPtr> prepared;
  std::vector<cost::Sample> samples;
  for (const Entry& e : entries) {
    std::string kerr;
    auto source = readFile(e.path, kerr, kMaxKernelBytes);
    if (!source) {
      diags.report(DiagId::DefIo, e.kernelRange, "cannot read kernel '" + e.path + "': " + kerr);
      continue;
    }
    auto r = std::make_unique<driver::CheckResult>(compiler->check(e.path, *source));
    std::string why;
    auto rewrite = [&](std::optional<std::string> next) {
      if (!next) {
        diags.report(DiagId::DefInvalidValue, e.at, "measurement of '" + e.kernel + "': " + why);
        return false;
      }
      r = std::make_unique<driver::CheckResult>(compiler->check(e.path, *next));
      return true;
    };
    if (!e.consts.empty() && !rewrite(cost::withConsts(*r, e.consts, why)))
      continue;
    bool ok = true;
    for (const auto& [pipe, stages] : e.stages)
      if (ok && !rewrite(cost::withPipelineStages(*r, pipe, stages, why)))
        ok = false;
    if (ok && !e.schedule.empty() && !rewrite(cost::withSchedule(*r, e.schedule, why)))
      ok = false;
    if (!ok)
      continue;
    if (!r->accepted) {
      Diagnostic* d = diags.report(DiagId::DefInvalidValue, e.kernelRange,
                                   "kernel '" + e.kernel +
                                       "' (with this measurement's overrides) is refused by the "
                                       "compiler; only accepted kernels can be calibrated on");
      for (const Diagnostic& f : r->diagnostics)
        if (f.severity == Severity::Blocking) {
          LineColumn lc = r->sources->lineColumn(f.range.file, f.range.begin);
          addNote(d, e.kernelRange,
                  "[" + f.code + "] at " + std::to_string(lc.line) + ":" +
                      std::to_string(lc.column) + ": " + f.message);
          break;
        }
      continue;
    }
    if (target.empty())
      target = r->model.targetName;
    if (r->model.targetName != target) {
      diags.report(DiagId::DefInvalidValue, e.kernelRange,
                   "kernel '" + e.kernel + "' targets " + r->model.targetName +
                       ", but the calibration is for " + target);
      continue;
    }
    std::string perr;
    cost::PreparedPtr p = cost::prepare(*r, perr);
    if (!p) {
      diags.report(DiagId::DefInvalidValue, e.kernelRange, "kernel '" + e.kernel + "': " + perr);
      continue;
    }
    samples.push_back({p.get(), e.measuredUs, e.problem.empty() ? r->model.name : e.problem});
    prepared.push_back(std::move(p));
    checks.push_back(std::move(r));
  }
  const target::Target* t = target.empty() ? nullptr : compiler->targets().find(target);
  if (diags.hasBlocking()) {
    printDiagnostics(diags, sources);
    return 2;
  }
  if (samples.size() < 2 || !t)
    return usageError("calibrate", "need at least two measurements of accepted kernels (got " +
                                       std::to_string(samples.size()) + ")");
  cost::Calibration start = cost::calibrationFor(*t);
  cost::FitResult fit = cost::fit(samples, start.params);
  std::string calibration = cost::calibrationFile(target, fit, samples.size(),
                                                  std::filesystem::path(file).filename().string());
  // The compiler refuses to load a calibration this poor; writing it would only move the error.
  if (!(fit.after.rmsLogError <= target::TargetSet::kMaxRmsLogError)) {
    std::fprintf(stderr,
                 "cake calibrate: the fit does not explain the measurements (rms log error %g, "
                 "at most %g is usable); check their units (microseconds per launch)\n",
                 fit.after.rmsLogError, target::TargetSet::kMaxRmsLogError);
    return 2;
  }
  if (!output.empty()) {
    std::string werr;
    if (!writeFile(output, calibration, werr)) {
      std::fprintf(stderr, "cake: error: %s\n", werr.c_str());
      return 2;
    }
  }
  auto quality = [](json::Writer& w, const cost::Quality& q) {
    w.beginObject();
    w.key("spearman").value(std::round(q.spearman * 1e6) / 1e6);
    w.key("top1_regret").value(std::round(q.top1Regret * 1e6) / 1e6);
    w.key("rms_log_error").value(std::round(q.rmsLogError * 1e6) / 1e6);
    w.key("groups").value(std::uint64_t(q.groups));
    w.endObject();
  };
  if (format == "json") {
    json::Writer w;
    w.beginObject();
    w.key("compiler_revision").value(compiler->revision());
    w.key("target").value(target);
    w.key("measurements").value(std::uint64_t(samples.size()));
    w.key("calibrated_before").value(start.calibrated);
    w.key("before");
    quality(w, fit.before);
    w.key("after");
    quality(w, fit.after);
    w.key("params").beginObject();
    for (int i = 0; i < cost::Params::kCount; ++i)
      w.key(cost::Params::name(i)).value(std::round(fit.params.at(i) * 1e6) / 1e6);
    w.endObject();
    w.key("fitted").beginArray();
    for (int i : fit.fitted)
      w.value(cost::Params::name(i));
    w.endArray();
    w.key("unidentifiable").beginArray();
    for (int i : fit.unidentifiable)
      w.value(cost::Params::name(i));
    w.endArray();
    w.key("kernels").beginArray();
    for (std::size_t i = 0; i < samples.size(); ++i) {
      w.beginObject();
      w.key("kernel").value(checks[i]->sources->name(checks[i]->file));
      w.key("problem").value(samples[i].group);
      w.key("measured_us").value(samples[i].measuredUs);
      w.key("predicted_before_us").value(std::round(fit.predictedBefore[i] * 1e3) / 1e3);
      w.key("predicted_after_us").value(std::round(fit.predictedAfter[i] * 1e3) / 1e3);
      w.endObject();
    }
    w.endArray();
    w.key("output");
    if (output.empty())
      w.null();
    else
      w.value(output);
    w.endObject();
    std::cout << w.str() << "\n";
    return 0;
  }
  std::printf("calibration of %s from %zu measurement(s), %zu problem group(s) with alternatives\n",
              target.c_str(), samples.size(), fit.after.groups);
  std::printf("                      before    after\n");
  std::printf("  rank correlation    %-8s  %s\n", fixed(fit.before.spearman, 3).c_str(),
              fixed(fit.after.spearman, 3).c_str());
  std::printf("  top-1 regret        %-8s  %s\n",
              (fixed(fit.before.top1Regret * 100, 1) + "%").c_str(),
              (fixed(fit.after.top1Regret * 100, 1) + "%").c_str());
  std::printf("  rms log error       %-8s  %s\n", fixed(fit.before.rmsLogError, 3).c_str(),
              fixed(fit.after.rmsLogError, 3).c_str());
  std::printf("parameters:\n");
  for (int i = 0; i < cost::Params::kCount; ++i) {
    bool fitted = std::find(fit.fitted.begin(), fit.fitted.end(), i) != fit.fitted.end();
    std::printf("  %-20s %10s -> %-10s%s\n", std::string(cost::Params::name(i)).c_str(),
                fixed(start.params.at(i), 4).c_str(), fixed(fit.params.at(i), 4).c_str(),
                fitted ? "" : "  (not determined by these measurements)");
  }
  std::printf("kernels (measured / predicted before / after, us):\n");
  for (std::size_t i = 0; i < samples.size(); ++i)
    std::printf("  %-40s %10s %10s %10s  [%s]\n", checks[i]->sources->name(checks[i]->file).c_str(),
                fixed(samples[i].measuredUs, 2).c_str(), fixed(fit.predictedBefore[i], 2).c_str(),
                fixed(fit.predictedAfter[i], 2).c_str(), samples[i].group.c_str());
  if (output.empty())
    std::printf("not written: use -o FILE (compiler/calibration/%s.json installs it)\n",
                target.c_str());
  else
    std::printf("wrote %s\n", output.c_str());
  return 0;
}

} // namespace cake::cli
