// The compiler façade shared by the CLI, the workbench and tests: loads the run-time data
// (targets, primitives), computes the compiler revision and checks kernels.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Kernel.h"
#include "cake/Registry/Registry.h"
#include "cake/Sema/KernelModel.h"
#include "cake/Support/Diagnostic.h"
#include "cake/Target/Target.h"
#include "cake/Verify/Verifier.h"

#include <memory>
#include <string>
#include <vector>

namespace cake::driver {

/// Where the run-time data lives.
struct DataPaths {
  std::string primitives;
  std::string targets;
  std::string rules;
  /// Cost-model calibration files (`<target>.json`); empty or missing: nothing calibrated.
  std::string calibration;
};

/// Default data paths for a binary: `<exe dir>/../share/cake/...` when present (installed),
/// else the source tree the binary was built from (so approved data needs no rebuild).
DataPaths defaultDataPaths(const std::string& executablePath);
/// The bundled corpus (the folder of manifest.json) for a binary: `<exe dir>/../share/cake/corpus`
/// when installed, else the source tree's corpus/.
std::string defaultCorpusDir(const std::string& executablePath);

/// The result of checking one kernel buffer. Owns its sources (which extend the compiler's).
struct CheckResult {
  std::unique_ptr<SourceManager> sources;
  FileId file = 0;
  ir::Module module;
  sema::KernelModel model;
  std::vector<Diagnostic> diagnostics;
  /// No blocking finding.
  bool accepted = false;
  std::size_t dropped = 0;
  /// The verifier's data (empty when type checking refused the kernel).
  verify::VerifyResult verification;
};

class Compiler {
public:
  /// Loads targets then primitives. Definition problems are kept in loadDiagnostics(); the
  /// compiler is usable only when ok(). `overlay` (a workspace's head revision, see
  /// ws::Workspace::dataOverlay) is laid over the built-in files of each kind: a file with a
  /// built-in file's name replaces it, the others add definitions.
  static std::unique_ptr<Compiler> load(const DataPaths& paths, DataOverlay overlay = {});

  bool ok() const;
  const std::vector<Diagnostic>& loadDiagnostics() const { return m_loadDiagnostics; }
  const SourceManager& sources() const { return m_sources; }
  const reg::Registry& registry() const { return m_registry; }
  const target::TargetSet& targets() const { return m_targets; }
  const verify::RuleSet& rules() const { return m_rules; }
  const DataPaths& paths() const { return m_paths; }
  /// The in-memory data laid over the built-in files (empty without a workspace).
  const DataOverlay& overlay() const { return m_overlay; }

  /// Content hash of every data file (12 hex digits), the "compiler revision".
  const std::string& revision() const { return m_revision; }
  static std::string version();

  /// Parses, type-checks and (when that succeeds) verifies one buffer. Thread-safe: the
  /// compiler is immutable after load.
  CheckResult check(std::string name, std::string text,
                    const verify::VerifyOptions& options = {}) const;

private:
  Compiler() = default;
  DataPaths m_paths;
  DataOverlay m_overlay;
  SourceManager m_sources;
  target::TargetSet m_targets;
  reg::Registry m_registry;
  verify::RuleSet m_rules;
  std::vector<Diagnostic> m_loadDiagnostics;
  std::string m_revision;
};

} // namespace cake::driver
