// The corpus manifest (corpus/manifest.json): every case with its kernel, workload contract and
// expected verdict, read with located findings, and the judgement of a check against it. Shared
// by `cake corpus`, `cake gate` and the tests.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"
#include "cake/Support/Diagnostic.h"
#include "cake/Support/SourceManager.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cake::driver {

/// One manifest case: the kernel (relative to the manifest's folder) and what a check must say.
struct CorpusCase {
  std::string id;
  std::string path;               ///< as written, relative to the manifest's folder
  std::string workload;           ///< workload contract, relative; empty when none
  bool accepted = true;           ///< expected verdict
  std::vector<std::string> codes; ///< findings the check must report
  /// `expect.run`: the verdict of `cake run --device cpu --shapes small` (unset: not run).
  std::optional<bool> runCorrect;
  /// `expect.run.written_by_line`: the line that must have written the first wrong element
  /// (0: not checked).
  std::int64_t runLine = 0;
};

struct Manifest {
  std::string path;    ///< the manifest file
  std::string baseDir; ///< its folder; case paths are relative to it
  std::vector<CorpusCase> cases;

  /// The case's kernel file on disk.
  std::string kernelPath(const CorpusCase& c) const;
};

/// Reads a manifest file, or `DIR/manifest.json` when `path` is a folder. Schema problems
/// (missing or mistyped fields, duplicate ids, invalid workload contracts) are located def-*
/// findings in `diags` (files registered in `sources`); nullopt when any is blocking.
std::optional<Manifest> loadManifest(const std::string& path, SourceManager& sources,
                                     DiagnosticEngine& diags);

/// The workload contract of the manifest case (manifest file or corpus folder `corpus`) whose
/// kernel is the file `kernelPath` (compared as canonical paths): the contract's path, with the
/// case id in `id`. Empty, with the reason in `error`, when no case names that file with a
/// contract. Shared by `cake run` and the workbench's Run on CPU.
std::string findCaseWorkload(const std::string& corpus, const std::string& kernelPath,
                             std::string& id, std::string& error);

/// Why a check does not match the case's expectation; empty when it matches. A blocking finding
/// the case does not list, a listed finding not reported, or the wrong verdict.
std::string expectationProblem(const CorpusCase& c, bool accepted,
                               const std::vector<Diagnostic>& findings);

} // namespace cake::driver
