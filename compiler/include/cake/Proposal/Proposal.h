// Proposals: an untrusted folder (proposal.json, definition files, example kernels) read with
// size and path limits, identified by the hash of its exact content, and evaluated in a
// sandboxed compiler (built-ins + workspace overlay + the proposal) with its examples and the
// corpus gate run with and without it. Never touches the live registry. See docs/proposals.md.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"
#include "cake/Driver/Manifest.h"
#include "cake/Gate/Gate.h"
#include "cake/Support/DataFiles.h"
#include "cake/Support/Diagnostic.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace cake::proposal {

/// What a definition file defines (also the proposal's kind); each kind has a folder
/// ("primitives", "rules", "calibration", "targets") inside the proposal.
enum class Kind { Primitive, Rule, Calibration, Target };
/// "primitive", "rule", "calibration", "target".
std::string_view toString(Kind kind);
std::optional<Kind> kindFromString(std::string_view text);
/// The folder of the kind inside a proposal and the built-in data directory it overlays.
std::string_view kindDirectory(Kind kind);

/// Limits on untrusted content.
struct Limits {
  std::size_t maxFileBytes = 256u << 10; ///< any one file
  std::size_t maxTotalBytes = 1u << 20;  ///< all files together
  std::size_t maxFiles = 64;
};

struct Author {
  std::string kind; ///< "agent" or "human"
  std::string name;
  std::string model, run; ///< optional
};

struct DefinitionFile {
  Kind kind = Kind::Primitive;
  std::string path; ///< relative to the proposal folder ("primitives/elementwise/x.json")
  std::string name; ///< relative to the kind's folder ("elementwise/x.json")
  std::string content;
};

struct Example {
  std::string path; ///< relative to the proposal folder
  bool positive = true;
  std::string content;
};

struct Proposal {
  std::string dir; ///< the folder as given
  Kind kind = Kind::Primitive;
  std::string title;
  Author author;
  std::string motivation;
  std::vector<std::string> evidence; ///< each entry as compact JSON
  std::vector<DefinitionFile> files; ///< sorted by path
  std::vector<Example> examples;     ///< sorted by path
  std::string manifestText;          ///< proposal.json as read
  std::string hash;                  ///< proposalHash()
};

/// Reads the proposal folder `dir`. Every problem is a located prop-* finding in `diags` (files
/// registered in `sources` under "<dir>/<relative path>"); nullopt when any was reported.
std::optional<Proposal> loadProposal(const std::string& dir, SourceManager& sources,
                                     DiagnosticEngine& diags, const Limits& limits = {});

/// Lower-case hex SHA-256 over the canonical list of the proposal's files (proposal.json, the
/// definition files, the examples), sorted by relative path, each as path, size and content.
std::string proposalHash(const Proposal& proposal);

/// The proposal's definition files as a compiler overlay laid over `base` (a workspace head):
/// labelled with their path inside the folder, so findings point at the proposal's files.
DataOverlay proposalOverlay(const Proposal& proposal, DataOverlay base = {});

struct ExampleResult {
  std::string path;
  bool positive = true;
  bool accepted = false;          ///< with the proposal
  bool acceptedWithout = false;   ///< without it (built-ins + workspace)
  std::vector<std::string> codes; ///< finding codes with the proposal, sorted
  std::optional<bool> lowered;    ///< positive examples: PTX through the LLVM path
  std::string problem;            ///< why it is not ok (empty when ok)
  bool ok() const { return problem.empty(); }
};

struct Evaluation {
  std::string proposalHash;
  std::string baseRevision, revision; ///< compiler revisions without and with the proposal
  bool valid = false;
  /// Load findings of the sandboxed compiler (rendered: text lines and JSON objects).
  std::vector<std::string> findingsText, findingsJson;
  std::vector<ExampleResult> examples;
  bool gateRan = false;
  gate::DeltaSummary gate;
  std::size_t mismatchedBefore = 0, mismatchedAfter = 0;
  /// "invalid", "examples-fail", "regressions" or "clean".
  std::string verdict;
  /// Per primitive the proposal defines: whether the CPU interpreter can run it (`cake run
  /// --device cpu` and the corpus's CPU runs) and from where: name, kind ("semantic form",
  /// "expansion", "builtin", "none") and a one-line description.
  struct CpuRow {
    std::string primitive, kind, text;
  };
  std::vector<CpuRow> cpuSemantics;
};

/// Evaluates `proposal` on top of `workspace` (the head overlay; empty for built-ins only).
/// With a `manifest`, the corpus gate runs with and without the proposal. Never throws on bad
/// proposal content: an unloadable definition makes the evaluation invalid.
Evaluation evaluateProposal(const Proposal& proposal, const driver::DataPaths& paths,
                            const DataOverlay& workspace, const driver::Manifest* manifest,
                            const gate::GateOptions& options = {});

/// {proposal_hash, valid, findings, examples, gate, verdict, ...}.
std::string toJson(const Evaluation& evaluation);
std::string toText(const Evaluation& evaluation);

} // namespace cake::proposal
