// Evaluating a proposal in a sandboxed compiler: its examples, then the corpus gate with and
// without it, summarised as the deltas a reviewer reads, and the report's JSON and text.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Proposal/Proposal.h"

#include "cake/Driver/Output.h"
#include "cake/Interp/Semantics.h"
#include "cake/Lower/Lowering.h"
#include "cake/LowerLLVM/LlvmBackend.h"
#include "cake/Support/Json.h"

#include <algorithm>

namespace cake::proposal {

namespace {

void runExample(const driver::Compiler& base, const driver::Compiler& with, const Example& e,
                ExampleResult& out) {
  out.path = e.path;
  out.positive = e.positive;
  out.acceptedWithout = base.check(e.path, e.content).accepted;
  driver::CheckResult r = with.check(e.path, e.content);
  out.accepted = r.accepted;
  for (const Diagnostic& d : r.diagnostics)
    out.codes.push_back(d.code);
  std::sort(out.codes.begin(), out.codes.end());
  if (!e.positive) {
    if (r.accepted)
      out.problem = "a negative example must be refused; it was accepted";
    return;
  }
  if (!r.accepted) {
    out.problem = "a positive example must be accepted; it was refused";
    return;
  }
  lower::LoweredKernel lk =
      lower::lowerKernel(r.module, r.model, with.registry(), *r.sources, e.path);
  bool lowered = lk.ok && lower::llvmSupportsTarget(lk.program.target) &&
                 lower::emitLlvm(lk.program, lower::LlvmOptions{}).ok;
  out.lowered = lowered;
  if (!lowered)
    out.problem = "accepted, but does not lower to PTX";
}

void writeIds(json::Writer& w, std::string_view key, const std::vector<std::string>& ids) {
  w.key(key).beginArray();
  for (const std::string& id : ids)
    w.value(id);
  w.endArray();
}

} // namespace

Evaluation evaluateProposal(const Proposal& proposal, const driver::DataPaths& paths,
                            const DataOverlay& workspace, const driver::Manifest* manifest,
                            const gate::GateOptions& options) {
  Evaluation ev;
  ev.proposalHash = proposal.hash.empty() ? proposalHash(proposal) : proposal.hash;
  auto base = driver::Compiler::load(paths, workspace);
  auto with = driver::Compiler::load(paths, proposalOverlay(proposal, workspace));
  ev.baseRevision = base->revision();
  ev.revision = with->revision();
  // Findings of the base data are not the proposal's; those that only the proposal brings are.
  for (const Diagnostic& d : with->loadDiagnostics()) {
    if (d.severity != Severity::Blocking && d.severity != Severity::Report)
      continue;
    ev.findingsText.push_back(driver::renderText(d, with->sources()));
    // As the CLI's definition findings: the file beside the finding (its range has none).
    json::Writer w(false);
    w.beginObject();
    w.key("path").value(with->sources().contains(d.range.file) ? with->sources().name(d.range.file)
                                                               : std::string());
    w.key("finding");
    driver::writeJson(w, d, with->sources());
    w.endObject();
    ev.findingsJson.push_back(w.take());
  }
  ev.valid = base->ok() && with->ok();
  if (!ev.valid) {
    ev.verdict = "invalid";
    return ev;
  }
  // Whether the proposed primitives run on the CPU (their semantics come from the data).
  for (const DefinitionFile& f : proposal.files) {
    if (f.kind != Kind::Primitive)
      continue;
    DiagnosticEngine quiet;
    auto doc = json::parse(f.content, 0, quiet);
    const json::Value* name = doc ? doc->get("name") : nullptr;
    const reg::Primitive* prim =
        name && name->isString() ? with->registry().find(name->string) : nullptr;
    if (!prim)
      continue;
    interp::CpuSemanticsInfo cpu = interp::cpuSemantics(*prim);
    ev.cpuSemantics.push_back({prim->name, std::string(interp::toString(cpu.kind)), cpu.text});
  }
  bool examplesOk = true;
  for (const Example& e : proposal.examples) {
    ExampleResult res;
    runExample(*base, *with, e, res);
    examplesOk = examplesOk && res.ok();
    ev.examples.push_back(std::move(res));
  }
  if (manifest) {
    gate::GateReport before = gate::runGate(*base, *manifest, options);
    gate::GateReport after = gate::runGate(*with, *manifest, options);
    gate::compareWithBaseline(after, before);
    ev.gate = gate::summarize(after.delta);
    ev.mismatchedBefore = before.mismatched();
    ev.mismatchedAfter = after.mismatched();
    ev.gateRan = true;
  }
  if (!examplesOk)
    ev.verdict = "examples-fail";
  else if (!ev.gate.newlyRejected.empty() || ev.mismatchedAfter > ev.mismatchedBefore)
    ev.verdict = "regressions";
  else
    ev.verdict = "clean";
  return ev;
}

std::string toJson(const Evaluation& ev) {
  json::Writer w;
  w.beginObject();
  w.key("proposal_hash").value(ev.proposalHash);
  w.key("valid").value(ev.valid);
  w.key("base_revision").value(ev.baseRevision);
  w.key("revision").value(ev.revision);
  w.key("findings").beginArray();
  for (const std::string& f : ev.findingsJson)
    w.raw(f);
  w.endArray();
  w.key("examples").beginArray();
  for (const ExampleResult& e : ev.examples) {
    w.beginObject();
    w.key("path").value(e.path);
    w.key("expected").value(e.positive ? "accepted" : "refused");
    w.key("observed").value(e.accepted ? "accepted" : "refused");
    w.key("observed_without_proposal").value(e.acceptedWithout ? "accepted" : "refused");
    writeIds(w, "codes", e.codes);
    if (e.lowered)
      w.key("lowered_to_ptx").value(*e.lowered);
    w.key("ok").value(e.ok());
    if (!e.ok())
      w.key("problem").value(e.problem);
    w.endObject();
  }
  w.endArray();
  w.key("gate");
  if (!ev.gateRan) {
    w.null();
  } else {
    w.beginObject();
    writeIds(w, "newly_accepted", ev.gate.newlyAccepted);
    writeIds(w, "newly_rejected", ev.gate.newlyRejected);
    writeIds(w, "changed_findings", ev.gate.changedFindings);
    writeIds(w, "changed_predictions", ev.gate.changedPredictions);
    writeIds(w, "changed_code", ev.gate.changedCode);
    w.key("mismatched_before").value(static_cast<std::uint64_t>(ev.mismatchedBefore));
    w.key("mismatched_after").value(static_cast<std::uint64_t>(ev.mismatchedAfter));
    w.endObject();
  }
  w.key("cpu_semantics").beginArray();
  for (const Evaluation::CpuRow& c : ev.cpuSemantics)
    w.beginObject()
        .key("primitive")
        .value(c.primitive)
        .key("kind")
        .value(c.kind)
        .key("text")
        .value(c.text)
        .endObject();
  w.endArray();
  w.key("verdict").value(ev.verdict);
  w.endObject();
  std::string out = w.take();
  out += '\n';
  return out;
}

std::string toText(const Evaluation& ev) {
  std::string out = "proposal " + ev.proposalHash + ": " + ev.verdict + "\n";
  for (const std::string& f : ev.findingsText)
    out += f;
  for (const ExampleResult& e : ev.examples) {
    out += "  example " + e.path + ": expected " + (e.positive ? "accepted" : "refused") +
           ", observed " + (e.accepted ? "accepted" : "refused") + (e.ok() ? " ok" : " FAIL");
    if (!e.ok())
      out += " (" + e.problem + ")";
    out += "\n";
  }
  for (const Evaluation::CpuRow& c : ev.cpuSemantics)
    out += "  cpu " + c.primitive + ": " + c.text + "\n";
  if (ev.gateRan) {
    auto line = [&](const char* what, const std::vector<std::string>& ids) {
      out += std::string("  gate ") + what + ":";
      for (const std::string& id : ids)
        out += " " + id;
      out += ids.empty() ? " none\n" : "\n";
    };
    line("newly accepted", ev.gate.newlyAccepted);
    line("newly rejected", ev.gate.newlyRejected);
    line("changed findings", ev.gate.changedFindings);
    line("changed predictions", ev.gate.changedPredictions);
    line("changed code", ev.gate.changedCode);
  }
  return out;
}

} // namespace cake::proposal
