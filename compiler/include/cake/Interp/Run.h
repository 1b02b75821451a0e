// `cake run --device cpu`: a kernel executed by the semantic interpreter on the inputs of its
// workload contract and compared with the contract's reference operator. The verdict names,
// for the first wrong element of each output, the IR line that last wrote it. Shared by the
// CLI, `cake corpus` and the workbench (a library call with progress and cancel hooks).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"
#include "cake/Reference/Workload.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cake::interp {

struct RunOptions {
  bool smallShapes = true;
  /// Overrides the contract's seed when set.
  std::optional<std::uint64_t> seed;
  /// Interleavings: the first completes asynchronous operations eagerly, the others are
  /// seeded random schedules.
  int interleavings = 3;
  /// Refuse (hw-cpu-run-too-large) when the estimate is above this many bytes; 0: a quarter
  /// of physical memory.
  std::uint64_t maxMemoryBytes = 0;
  /// Set from another thread to stop between CTAs (the workbench's cancel): the result then
  /// has `cancelled` set and no verdict.
  const std::atomic<bool>* cancel = nullptr;
  /// Called after every CTA of every interleaving with the fraction done (0..1], on the
  /// running thread.
  std::function<void(double)> progress;
};

/// Where the last write of an element came from.
struct WrittenBy {
  bool known = false; ///< false: the element was never written
  std::uint32_t line = 0, column = 0;
  SourceRange range;
  std::string op;
  std::string role;
  std::string instance; ///< "thread 37", "warp 1", "warpgroup 0", "role"
  std::int64_t cta = 0;
  std::vector<std::int64_t> tile;
};

struct Mismatch {
  std::vector<std::int64_t> index;
  std::int64_t flatIndex = 0;
  double expected = 0.0, got = 0.0;
  WrittenBy writtenBy;
};

struct OutputVerdict {
  std::string name;
  std::vector<std::int64_t> shape;
  double maxAbsError = 0.0, maxRelError = 0.0;
  std::int64_t mismatches = 0;
  std::optional<Mismatch> firstMismatch;
  /// |got - expected| of every element, row-major (a heat map's data; infinity for NaN).
  std::vector<float> absError;
};

struct RunResult {
  /// The checked kernel actually run (small shapes applied); owns the sources every finding
  /// points into (the kernel and the contract).
  driver::CheckResult kernel;
  bool ran = false;     ///< the interpreter ran to the end (false: findings say why)
  bool correct = false; ///< ran, every output within tolerance, interleavings agree
  bool cancelled = false; ///< stopped through RunOptions::cancel
  std::vector<OutputVerdict> outputs;
  int interleavings = 0;
  double wallSeconds = 0.0;
  std::uint64_t memoryEstimate = 0;
  std::vector<Diagnostic> findings;
};

/// Runs `text` (a kernel named `name`) against the contract at `workloadPath`.
RunResult runOnCpu(const driver::Compiler& compiler, const std::string& name,
                   const std::string& text, const std::string& workloadPath,
                   const RunOptions& options = {});

/// JSON of a result: {correct, outputs:[{name, max_abs_error, max_rel_error, mismatches,
/// first_mismatch:{index, expected, got, written_by:{line, column, role, instance, tile}}}],
/// interleavings, wall_s, findings}.
std::string toJson(const RunResult& result);
/// Human-readable verdict (findings are printed by the caller).
std::string toText(const RunResult& result);

} // namespace cake::interp
