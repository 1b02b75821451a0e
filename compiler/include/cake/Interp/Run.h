// `cake run --device cpu`: a kernel executed by the semantic interpreter on the inputs of its
// workload contract and compared with the contract's reference operator. The verdict names,
// for the first wrong element of each output, the IR line that last wrote it. Shared by the
// CLI, `cake corpus` and the workbench (a library call with progress and cancel hooks).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"
#include "cake/Reference/Evaluate.h"
#include "cake/Reference/Workload.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
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

/// The error of one tile of an output: the box of elements one CTA tile wrote (see ErrorMap).
struct TileError {
  std::int64_t row0 = 0, col0 = 0; ///< first element of the box (matrix view)
  std::int64_t rows = 0, cols = 0; ///< its extent (clipped at the output's edge)
  std::int64_t mismatches = 0;     ///< elements outside the tolerance
  std::int64_t unwritten = 0;      ///< elements no operation wrote
  /// Largest |got - expected| (infinity for NaN or an unwritten element) and relative error.
  double maxAbsError = 0.0, maxRelError = 0.0;
  /// The element that explains the tile: its first wrong element, else its largest error (-1:
  /// every element exact); flat index into the output.
  std::int64_t worst = -1;
  WrittenBy writtenBy; ///< the last writer of `worst`
};

/// Per-tile error summaries of one output, for a heat map. The output is seen as a matrix (its
/// leading dimensions are the rows, its last dimension the columns); the tile extent is the box
/// most CTA tiles wrote (the last writers' (CTA, tile) groups), so a GEMM's map has one cell per
/// BM x BN tile. Memory is bounded whatever the output's size: at most kMaxTiles tiles (larger
/// grids merge neighbouring tiles, doubling the extent) and per-element errors only for outputs
/// of at most kMaxElements elements: kMaxTiles * sizeof(TileError) (about 250 B with its
/// writer's strings) + kMaxElements * (4 B + 1 bit), about 1.3 MiB per output.
struct ErrorMap {
  static constexpr std::int64_t kMaxTiles = 4096;
  static constexpr std::int64_t kMaxElements = 65536;
  std::int64_t rows = 0, cols = 0;         ///< the output as a matrix
  std::int64_t tileRows = 1, tileCols = 1; ///< tile extent
  std::int64_t gridRows = 0, gridCols = 0; ///< tiles per column / per row
  std::vector<TileError> tiles;            ///< gridRows x gridCols, row-major
  /// |got - expected| of every element, row-major (infinity for NaN or unwritten); empty when
  /// the output has more than kMaxElements elements.
  std::vector<float> elements;
  /// Elements outside the tolerance, when `elements` is kept (same order).
  std::vector<bool> wrong;
  const TileError* tileAt(std::int64_t row, std::int64_t col) const;
};

/// One element of an output as the judge saw it (input of buildErrorMap).
struct ElementError {
  double absError = 0.0; ///< infinity: NaN or never written
  double relError = 0.0;
  bool wrong = false;
  bool written = false;
  /// The (CTA, tile) group of its last writer (-1: none); elements of one group form a tile.
  std::int64_t group = -1;
};

/// Builds the tile summaries of a rows x cols output from its elements (`element(flat)`);
/// WrittenBy is left for the caller to fill from each tile's `worst`.
ErrorMap buildErrorMap(std::int64_t rows, std::int64_t cols,
                       const std::function<ElementError(std::int64_t)>& element);

struct OutputVerdict {
  std::string name;
  std::vector<std::int64_t> shape;
  double maxAbsError = 0.0, maxRelError = 0.0;
  std::int64_t mismatches = 0;
  std::optional<Mismatch> firstMismatch;
  ErrorMap map; ///< where the errors are (a heat map's data)
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

/// The GPU runner's host oracle: the kernel at its own (full) shapes bound to the contract at
/// `workloadPath` exactly as runOnCpu binds it, and the contract's reference for inputs drawn
/// elsewhere. `inputs` holds the values of every input parameter (by name); the contract's
/// derived inputs (a row-squared norm of another input) and constant inputs are recomputed in
/// place, so the caller must upload those again. nullopt with the reason in `error` (the
/// kernel refused, the contract unreadable or not matching the kernel, an input missing or of
/// the wrong size).
std::optional<ref::Expected> hostReference(const driver::Compiler& compiler,
                                           const std::string& name, const std::string& text,
                                           const std::string& workloadPath,
                                           std::map<std::string, std::vector<double>>& inputs,
                                           std::string& error);

/// JSON of a result: {correct, outputs:[{name, max_abs_error, max_rel_error, mismatches,
/// first_mismatch:{index, expected, got, written_by:{line, column, role, instance, tile}}}],
/// interleavings, wall_s, findings}.
std::string toJson(const RunResult& result);
/// Human-readable verdict (findings are printed by the caller).
std::string toText(const RunResult& result);

} // namespace cake::interp
