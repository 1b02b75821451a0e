// The corpus gate's run (a small thread pool over the manifest cases), the comparison with a
// baseline report and the recorded accept act.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Gate/Gate.h"

#include "cake/Cost/CostModel.h"
#include "cake/Lower/CudaEmitter.h"
#include "cake/Lower/Lowering.h"
#include "cake/Lower/Toolchain.h"
#include "cake/LowerLLVM/LlvmBackend.h"
#include "cake/Support/Sha256.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <ctime>
#include <exception>
#include <map>
#include <thread>

namespace cake::gate {

namespace {

constexpr std::size_t kMaxKernelBytes = 64u << 20;

std::string digest(std::string_view text) {
  return "sha256:" + sha256Hex(text);
}

std::vector<std::string> sortedCodes(const std::vector<Diagnostic>& findings) {
  std::vector<std::string> codes;
  codes.reserve(findings.size());
  for (const Diagnostic& d : findings)
    codes.push_back(d.code);
  std::sort(codes.begin(), codes.end());
  return codes;
}

/// The code a failed lowering is recorded as: its first blocking finding.
std::string failureCode(const std::vector<Diagnostic>& findings) {
  for (const Diagnostic& d : findings)
    if (d.severity == Severity::Blocking)
      return d.code;
  return std::string(lower::code(lower::LowerId::LoweringUnsupported));
}

/// Lowers an accepted kernel on its target and fills the digests (and ptxas's verdict).
void observeLowering(const driver::Compiler& compiler, const driver::CheckResult& r,
                     const driver::CorpusCase& c, const GateOptions& options, bool ptxas,
                     Observation& o) {
  // The case's manifest path names the source, so digests do not depend on where the corpus
  // lies (PTX `.file` lines, the CUDA header).
  lower::LoweredKernel lk =
      lower::lowerKernel(r.module, r.model, compiler.registry(), *r.sources, c.path);
  if (!lk.ok) {
    o.metadata = o.ptx = o.cuda = failureCode(lk.findings);
    return;
  }
  json::Writer w;
  lower::writeJson(w, lk.metadata);
  o.metadata = digest(w.str());
  // Provenance without version and revision: a data change that leaves the generated code
  // alone (a new rule, a calibration) must not look like changed code.
  o.cuda = digest(lower::emitCuda(lk.program, lk.metadata, {c.path, "gate", "gate"}));
  const std::string& target = lk.program.target;
  if (!lower::llvmSupportsTarget(target)) {
    o.ptx = std::string(lower::code(lower::LowerId::LoweringUnsupported));
    return;
  }
  lower::LlvmResult res = lower::emitLlvm(lk.program, lower::LlvmOptions{});
  if (!res.ok) {
    o.ptx = std::string(lower::code(lower::LowerId::LoweringUnsupported));
    return;
  }
  o.ptx = digest(res.ptx);
  if (!ptxas)
    return;
  lower::EvidenceContext ctx;
  ctx.module = &r.module;
  ctx.model = &r.model;
  ctx.metadata = &lk.metadata;
  ctx.timeoutSeconds = options.ptxasTimeoutSeconds;
  ctx.cudaHome = options.cudaHome;
  lower::Evidence ev = lower::ptxasEvidence(res.ptx, target, ctx);
  PtxasVerdict v;
  v.codes = sortedCodes(ev.findings);
  v.accepted = ev.ok && std::none_of(ev.findings.begin(), ev.findings.end(), [](const auto& d) {
                 return d.severity == Severity::Blocking;
               });
  o.ptxas = std::move(v);
}

/// The observation of one kernel text (check, cost, lowering digests); the findings of its
/// check are handed back when `findings` is given.
Observation observeChecked(const driver::Compiler& compiler, const std::string& name,
                           std::string text, const GateOptions& options, bool ptxas,
                           std::vector<Diagnostic>* findings) {
  driver::CheckResult r = compiler.check(name, std::move(text));
  Observation o;
  o.accepted = r.accepted;
  o.codes = sortedCodes(r.diagnostics);
  if (r.module.kernel)
    o.target = r.module.kernel->target();
  if (findings)
    *findings = r.diagnostics;
  if (!r.accepted)
    return o;
  cost::Options co;
  co.hints = false; // the prediction does not depend on the what-if search
  cost::Estimate e = cost::estimate(compiler, r, co);
  if (e.ok) {
    o.predictedUs = e.predictedUs;
    o.bottleneck = e.bottleneck;
  } else {
    o.costError = e.error;
  }
  driver::CorpusCase c;
  c.path = name;
  observeLowering(compiler, r, c, options, ptxas, o);
  return o;
}

CaseReport runCase(const driver::Compiler& compiler, const driver::Manifest& manifest,
                   const driver::CorpusCase& c, const GateOptions& options, bool ptxas) {
  CaseReport out;
  out.id = c.id;
  out.path = c.path;
  out.expected = c;
  std::string error;
  auto text = readFile(manifest.kernelPath(c), error, kMaxKernelBytes);
  if (!text) {
    // The manifest path, not the resolved one: reports stay independent of the corpus's place.
    out.problem = "cannot read '" + c.path + "': " + error;
    return out;
  }
  std::vector<Diagnostic> findings;
  out.observed = observeChecked(compiler, c.path, std::move(*text), options, ptxas, &findings);
  out.problem = driver::expectationProblem(c, out.observed.accepted, findings);
  out.matched = out.problem.empty();
  return out;
}

std::string quoted(const std::string& s) {
  return s.empty() ? "null" : json::quote(s);
}

std::string codesJson(const std::vector<std::string>& codes) {
  json::Writer w(false);
  w.beginArray();
  for (const std::string& c : codes)
    w.value(c);
  w.endArray();
  return w.take();
}

std::string predictionJson(const std::optional<double>& us) {
  if (!us)
    return "null";
  json::Writer w(false);
  w.value(*us);
  return w.take();
}

std::string ptxasJson(const PtxasVerdict& v) {
  return std::string("{\"accepted\":") + (v.accepted ? "true" : "false") +
         ",\"codes\":" + codesJson(v.codes) + "}";
}

bool predictionChanged(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b)
    return a.has_value() != b.has_value();
  double scale = std::max(std::fabs(*a), std::fabs(*b));
  return std::fabs(*a - *b) > kPredictionTolerance * scale;
}

/// The changed aspects of one case present on both sides, in a fixed order.
void compareCase(const CaseReport& before, const CaseReport& after, std::vector<Delta>& out) {
  const Observation& b = before.observed;
  const Observation& a = after.observed;
  auto add = [&](const char* aspect, std::string x, std::string y) {
    out.push_back({after.id, aspect, std::move(x), std::move(y), false});
  };
  if (b.accepted != a.accepted)
    add("verdict", b.accepted ? "\"accepted\"" : "\"refused\"",
        a.accepted ? "\"accepted\"" : "\"refused\"");
  if (b.codes != a.codes)
    add("codes", codesJson(b.codes), codesJson(a.codes));
  if (predictionChanged(b.predictedUs, a.predictedUs))
    add("prediction", predictionJson(b.predictedUs), predictionJson(a.predictedUs));
  if (b.metadata != a.metadata)
    add("metadata", quoted(b.metadata), quoted(a.metadata));
  if (b.ptx != a.ptx)
    add("ptx", quoted(b.ptx), quoted(a.ptx));
  if (b.cuda != a.cuda)
    add("cuda", quoted(b.cuda), quoted(a.cuda));
  // ptxas is compared only when both runs asked for it: a baseline made without --ptxas says
  // nothing about ptxas.
  if (b.ptxas && a.ptxas &&
      (b.ptxas->accepted != a.ptxas->accepted || b.ptxas->codes != a.ptxas->codes))
    add("ptxas", ptxasJson(*b.ptxas), ptxasJson(*a.ptxas));
}

std::string utcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool blank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char ch) { return std::isspace(ch); });
}

} // namespace

std::size_t GateReport::mismatched() const {
  return static_cast<std::size_t>(
      std::count_if(cases.begin(), cases.end(), [](const CaseReport& c) { return !c.matched; }));
}

std::size_t GateReport::unexpectedDeltas() const {
  return static_cast<std::size_t>(
      std::count_if(delta.begin(), delta.end(), [](const Delta& d) { return !d.accepted; }));
}

const CaseReport* GateReport::find(const std::string& id) const {
  auto it =
      std::find_if(cases.begin(), cases.end(), [&](const CaseReport& c) { return c.id == id; });
  return it != cases.end() ? &*it : nullptr;
}

GateReport runGate(const driver::Compiler& compiler, const driver::Manifest& manifest,
                   const GateOptions& options) {
  GateReport report;
  report.compilerRevision = compiler.revision();
  report.manifest = manifest.path;
  bool ptxas = options.ptxas && lower::findCudaTool("ptxas", options.cudaHome).has_value();
  report.ptxas = !options.ptxas ? PtxasMode::Off : ptxas ? PtxasMode::Ran : PtxasMode::Unavailable;
  const std::vector<driver::CorpusCase>& cases = manifest.cases;
  report.cases.resize(cases.size());
  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, cases.size()));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < cases.size();) {
      try {
        report.cases[i] = runCase(compiler, manifest, cases[i], options, ptxas);
      } catch (const std::exception& e) {
        // One case's internal error is that case's observation, not the end of the run.
        CaseReport& c = report.cases[i];
        c = CaseReport{};
        c.id = cases[i].id;
        c.path = cases[i].path;
        c.expected = cases[i];
        c.problem = std::string("internal error: ") + e.what();
      }
    }
  };
  std::vector<std::thread> workers;
  for (unsigned k = 1; k < jobs; ++k)
    workers.emplace_back(work);
  work();
  for (std::thread& t : workers)
    t.join();
  std::sort(report.cases.begin(), report.cases.end(),
            [](const CaseReport& a, const CaseReport& b) { return a.id < b.id; });
  return report;
}

void compareWithBaseline(GateReport& current, const GateReport& baseline,
                         const std::set<std::string>& accept) {
  current.hasBaseline = true;
  current.delta.clear();
  current.acceptedChanges = baseline.acceptedChanges;
  std::map<std::string, const CaseReport*> before, after;
  for (const CaseReport& c : baseline.cases)
    before[c.id] = &c;
  for (const CaseReport& c : current.cases)
    after[c.id] = &c;
  std::set<std::string> ids;
  for (const auto& [id, c] : before)
    ids.insert(id);
  for (const auto& [id, c] : after)
    ids.insert(id);
  for (const std::string& id : ids) {
    auto b = before.find(id);
    auto a = after.find(id);
    if (a == after.end())
      current.delta.push_back({id, "case", "\"present\"", "\"missing\"", false});
    else if (b == before.end())
      current.delta.push_back({id, "case", "\"absent\"", "\"present\"", false});
    else
      compareCase(*b->second, *a->second, current.delta);
  }
  for (Delta& d : current.delta)
    d.accepted = accept.count(d.id) != 0;
}

DeltaSummary summarize(const std::vector<Delta>& delta) {
  DeltaSummary s;
  auto add = [](std::vector<std::string>& to, const std::string& id) {
    if (to.empty() || to.back() != id) // deltas come sorted by id
      to.push_back(id);
  };
  for (const Delta& d : delta) {
    if (d.aspect == "case")
      add(d.after == "\"missing\"" ? s.missingCases : s.newCases, d.id);
    else if (d.aspect == "verdict")
      add(d.after == "\"accepted\"" ? s.newlyAccepted : s.newlyRejected, d.id);
    else if (d.aspect == "codes")
      add(s.changedFindings, d.id);
    else if (d.aspect == "prediction")
      add(s.changedPredictions, d.id);
    else
      add(s.changedCode, d.id);
  }
  return s;
}

bool acceptChanges(GateReport& baseline, const GateReport& current,
                   const std::vector<std::string>& cases, const std::string& actor,
                   const std::string& comment, const GateRecorder& recorder, std::string& error,
                   std::string time) {
  if (blank(actor) || blank(comment)) {
    error = "accepting a change is a recorded act: give who (--actor) and why (--comment)";
    return false;
  }
  if (cases.empty()) {
    error = "name the case(s) whose change is accepted";
    return false;
  }
  std::set<std::string> named(cases.begin(), cases.end());
  GateReport compared = current;
  compareWithBaseline(compared, baseline, named);
  AcceptAct act;
  act.time = time.empty() ? utcNow() : std::move(time);
  act.actor = actor;
  act.comment = comment;
  act.compilerRevision = current.compilerRevision;
  act.cases.assign(named.begin(), named.end());
  for (const std::string& id : named) {
    if (!current.find(id) && !baseline.find(id)) {
      error = "case '" + id + "' is neither in the baseline nor in this run";
      return false;
    }
    bool changed = false;
    for (const Delta& d : compared.delta)
      if (d.id == id) {
        act.deltas.push_back(d);
        changed = true;
      }
    if (!changed) {
      error = "case '" + id + "' has no change against the baseline; nothing to accept";
      return false;
    }
  }
  if (recorder && !recorder(act, error)) {
    if (error.empty())
      error = "the accept act could not be recorded";
    return false;
  }
  std::vector<CaseReport> kept;
  for (CaseReport& c : baseline.cases)
    if (!named.count(c.id))
      kept.push_back(std::move(c));
  for (const std::string& id : named)
    if (const CaseReport* c = current.find(id))
      kept.push_back(*c);
  std::sort(kept.begin(), kept.end(),
            [](const CaseReport& a, const CaseReport& b) { return a.id < b.id; });
  baseline.cases = std::move(kept);
  baseline.delta.clear();
  baseline.acceptedChanges.push_back(std::move(act));
  return true;
}

Observation observeKernel(const driver::Compiler& compiler, const std::string& name,
                          std::string text, const GateOptions& options) {
  bool ptxas = options.ptxas && lower::findCudaTool("ptxas", options.cudaHome).has_value();
  return observeChecked(compiler, name, std::move(text), options, ptxas, nullptr);
}

} // namespace cake::gate
