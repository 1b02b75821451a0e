// The corpus gate: every manifest case checked, costed and lowered in parallel with a given
// compiler, the observations compared with the manifest's expectations and with a baseline
// report, and the explicit, recorded act that accepts a case's change into the baseline.
// Proposals run it twice (built-in compiler, compiler with the proposal's overlay); `cake gate`
// is its command line. See docs/corpus.md.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"
#include "cake/Driver/Manifest.h"
#include "cake/Support/Diagnostic.h"
#include "cake/Support/Json.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cake::gate {

/// Relative change of a predicted time that counts as a changed prediction. The cost model is
/// deterministic, so any real change is far above it; the slack only absorbs the last bit of a
/// floating-point result computed by another build of the same code.
constexpr double kPredictionTolerance = 1e-9;

/// ptxas's verdict on a case's PTX (the in-process LLVM path).
struct PtxasVerdict {
  bool accepted = false;          ///< ptxas assembled it and nothing contradicts the IR
  std::vector<std::string> codes; ///< finding codes of the evidence (sorted)
};

/// What the gate saw for one case with one compiler.
struct Observation {
  bool accepted = false;
  /// Finding codes of the check, sorted (duplicates kept), so reports diff cleanly.
  std::vector<std::string> codes;
  /// Predicted time of an accepted kernel (cost model, no hints); nullopt when refused or
  /// when the model cannot cost it (`costError`).
  std::optional<double> predictedUs;
  std::string costError;
  /// The cost model's bottleneck class of the prediction (empty without one). Not part of
  /// the report: reports and their deltas stay as they were.
  std::string bottleneck;
  /// The kernel's `target=` (informational, not part of the report either).
  std::string target;
  /// Per emit path: "sha256:<64 hex>" of the generated text, the finding code when lowering
  /// failed (e.g. "hw-lowering-unsupported"), or empty when the kernel is refused.
  std::string metadata, ptx, cuda;
  /// Present when ptxas was asked for and the case has PTX.
  std::optional<PtxasVerdict> ptxas;
};

struct CaseReport {
  std::string id;
  std::string path; ///< as written in the manifest
  driver::CorpusCase expected;
  Observation observed;
  bool matched = false;
  std::string problem; ///< why it does not match its expectation (empty when matched)
};

/// One changed aspect of one case against the baseline.
struct Delta {
  std::string id;
  /// "case" (missing or new), "verdict", "codes", "prediction", "metadata", "ptx", "cuda",
  /// "ptxas".
  std::string aspect;
  std::string before, after; ///< compact JSON values of the aspect
  bool accepted = false;     ///< its case is named in compareWithBaseline's `accept`: reported,
                             ///< not a failure
};

/// One recorded `cake gate --accept` act.
struct AcceptAct {
  std::string time; ///< UTC, ISO 8601
  std::string actor;
  std::string comment;
  std::string compilerRevision; ///< of the observation that was accepted
  std::vector<std::string> cases;
  /// The accepted deltas, as they were when the act was done.
  std::vector<Delta> deltas;
};

/// Whether the run asked ptxas: not asked, asked and run, asked but ptxas was not found.
enum class PtxasMode { Off, Ran, Unavailable };

struct GateReport {
  std::string compilerRevision;
  PtxasMode ptxas = PtxasMode::Off;
  std::string manifest;          ///< the manifest path the run read (informational)
  std::vector<CaseReport> cases; ///< sorted by id
  std::vector<Delta> delta;      ///< by id, aspects in Delta's order; empty without a baseline
  bool hasBaseline = false;
  /// History of accept acts, carried over from the baseline.
  std::vector<AcceptAct> acceptedChanges;

  std::size_t mismatched() const;
  std::size_t unexpectedDeltas() const;
  /// Every case matches its expectation and every delta is accepted.
  bool pass() const { return mismatched() == 0 && unexpectedDeltas() == 0; }
  const CaseReport* find(const std::string& id) const;
};

struct GateOptions {
  /// Worker threads; 0: std::thread::hardware_concurrency().
  unsigned jobs = 0;
  /// Assemble each case's PTX with ptxas (when the tool exists).
  bool ptxas = false;
  double ptxasTimeoutSeconds = 60;
  std::string cudaHome;
};

/// The deltas grouped as a reviewer reads them (the `gate` object of a proposal evaluation):
/// case ids, sorted, each at most once per group.
struct DeltaSummary {
  std::vector<std::string> newlyAccepted;      ///< verdict refused → accepted
  std::vector<std::string> newlyRejected;      ///< verdict accepted → refused
  std::vector<std::string> changedFindings;    ///< finding codes
  std::vector<std::string> changedPredictions; ///< predicted time
  std::vector<std::string> changedCode;        ///< metadata, PTX, CUDA digest or ptxas verdict
  std::vector<std::string> missingCases, newCases;
};
DeltaSummary summarize(const std::vector<Delta>& delta);

/// Runs every case of `manifest` with `compiler` (immutable, shared by the workers). A case
/// whose file cannot be read, or whose lowering fails, is an observation, never an exception.
GateReport runGate(const driver::Compiler& compiler, const driver::Manifest& manifest,
                   const GateOptions& options = {});

/// The gate's observation of one kernel text (check, cost without hints, metadata, PTX and
/// CUDA digests; ptxas when options.ptxas and the tool exists). `name` labels the source and
/// enters the digests (PTX `.file`, the CUDA header). Thread-safe like Compiler::check;
/// campaign import assesses candidates with it.
Observation observeKernel(const driver::Compiler& compiler, const std::string& name,
                          std::string text, const GateOptions& options = {});

/// Fills `current.delta` against `baseline` and carries its accept history over. The deltas of
/// the cases named in `accept` are marked accepted: listed, not failing the gate (what a
/// proposal's approval with explicitly accepted changes uses).
void compareWithBaseline(GateReport& current, const GateReport& baseline,
                         const std::set<std::string>& accept = {});

/// The report as JSON ({compiler_revision, manifest, cases, delta, accepted_changes, summary}).
std::string toJson(const GateReport& report);
/// One line per case, then the delta table and a summary line.
std::string toText(const GateReport& report);

/// Reads a report written by toJson(); located def-* findings in `diags` (the text registered
/// in `sources` as `name`) and nullopt when it is malformed.
std::optional<GateReport> readReport(const std::string& name, std::string text,
                                     SourceManager& sources, DiagnosticEngine& diags);

/// Records an accept act elsewhere too (the workspace store's audit log); false with `error`
/// aborts the act before the baseline changes.
using GateRecorder = std::function<bool(const AcceptAct& act, std::string& error)>;

/// The explicit accept act: rewrites the baseline entries of exactly `cases` from `current`
/// (a case missing from `current` is removed from the baseline, a new one added) and appends
/// the act to the baseline's history. Refused (false, `error`) when actor or comment is empty,
/// a case has no delta against the baseline, or the recorder fails. Manifest expectations are
/// never touched: a case that does not match its manifest still fails the gate.
bool acceptChanges(GateReport& baseline, const GateReport& current,
                   const std::vector<std::string>& cases, const std::string& actor,
                   const std::string& comment, const GateRecorder& recorder, std::string& error,
                   std::string time = {});

} // namespace cake::gate
