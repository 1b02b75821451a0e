// Executable workload contracts (corpus/workloads/*.json, docs/workloads.md): the operator a
// kernel must compute, how its inputs are drawn, the tolerance of each output and the small
// shapes, read with located def-* findings. Shared by `cake corpus`, `cake run` and the GPU
// runner.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Support/Diagnostic.h"
#include "cake/Support/SourceManager.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake::ref {

/// One slot of an operator: its name, whether it is an output, and its rank.
struct OperatorSlot {
  std::string_view name;
  bool output = false;
  std::size_t rank = 2;
};

/// An operator the references know: its slots and the attributes it reads.
struct OperatorInfo {
  std::string_view name;
  std::vector<OperatorSlot> params; ///< its slots (not "slots": a Qt macro)
  std::vector<std::string_view> attributes; ///< optional numeric attributes
};

/// Every operator of the references (gemm, bias_gelu, row_softmax, rmsnorm, attention_fwd,
/// kmeans_assign).
const std::vector<OperatorInfo>& operators();
const OperatorInfo* findOperator(std::string_view name);

/// How one input parameter is drawn.
struct InputSpec {
  enum class Dist : std::uint8_t { Normal, Uniform, RowSquaredNorm, Constant };
  std::string param;
  Dist dist = Dist::Normal;
  double a = 0.0; ///< mean (normal), low (uniform), value (constant)
  double b = 1.0; ///< standard deviation (normal), high (uniform)
  std::string of; ///< RowSquaredNorm: the parameter whose rows are measured
  SourceRange range;
};

/// How one output is judged.
struct OutputSpec {
  std::string param;
  double rtol = 0.0;
  double atol = 0.0;
  /// "value" (|got - expected| <= atol + rtol |expected|) or "argmin" (kmeans: the chosen
  /// index's distance within rtol of the minimum distance).
  std::string compare = "value";
  SourceRange range;
};

struct Binding {
  std::string slot;
  std::string param;
  SourceRange range;
};

struct ConstValue {
  std::string name;
  std::int64_t value = 0;
  SourceRange range;
};

struct AttrValue {
  std::string name;
  double number = 0.0;
  std::string constName; ///< set when the value names a kernel const
  SourceRange range;
};

struct DTypeEntry {
  std::string name;
  std::string dtype;
  SourceRange range;
};

/// A workload contract with its executable "run" section.
struct Workload {
  std::string path;
  FileId file = 0;
  std::string target;
  std::vector<ConstValue> shapes; ///< full shapes (the contract's "shapes")
  std::vector<DTypeEntry> dtypes; ///< the contract's "dtypes" (names are params or roles)
  double rtol = 0.0, atol = 0.0;  ///< the contract-wide tolerance
  bool runnable = false;          ///< has a "run" section
  std::string op;
  SourceRange opRange;
  std::vector<Binding> params;     ///< operator slot -> kernel parameter
  std::vector<AttrValue> attrs;    ///< operator attributes
  std::vector<InputSpec> inputs;   ///< by kernel parameter
  std::vector<OutputSpec> outputs; ///< by kernel parameter
  std::uint64_t seed = 0;
  std::vector<ConstValue> small; ///< const rewrites of `--shapes small`
  /// Values of the kernel's run-time scalar parameters (`run.scalars`, full shapes) and
  /// `run.small_scalars` (with `--shapes small`; default: `scalars`); docs/workloads.md.
  std::vector<ConstValue> scalars;
  std::vector<ConstValue> smallScalars;
  SourceRange runRange;

  const Binding* binding(std::string_view slot) const;
  const AttrValue* attr(std::string_view name) const;
};

/// Reads and validates a contract file (registered in `sources`): schema problems are located
/// def-* findings in `diags`; nullopt when any is blocking.
std::optional<Workload> loadWorkload(const std::string& path, SourceManager& sources,
                                     DiagnosticEngine& diags);

} // namespace cake::ref
