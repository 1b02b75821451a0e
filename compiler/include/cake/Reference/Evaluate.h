// One entry to the reference operators for both oracles: the CPU interpreter's verdict and the
// GPU runner's host check evaluate the contract's operator through `evaluate` and judge every
// output element through `judgeElement`, so the two can never disagree on what "correct" is.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Reference/Workload.h"

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cake::ref {

/// The values and shape of one operator slot (row-major).
struct SlotData {
  std::vector<std::int64_t> shape;
  std::span<const double> values;
};

/// The operator's outputs by slot name (unrounded, in double), and for kmeans_assign the
/// squared distances the argmin comparison judges with.
struct OperatorOutputs {
  std::map<std::string, std::vector<double>> bySlot;
  std::vector<double> distances;
  std::int64_t centroids = 0;
};

/// Evaluates operator `op` (one of operators()) on `slots` (every slot of the operator: inputs
/// with their values, outputs with their shapes) and the numeric attributes. The slots' shapes
/// must already satisfy the operator's shape rules (the interpreter's and the runner's binding
/// check them); an unknown operator gives no outputs.
OperatorOutputs evaluate(std::string_view op, const std::map<std::string, SlotData>& slots,
                         const std::map<std::string, double>& attrs);

/// The verdict on one output element.
struct ElementJudgement {
  bool ok = false;
  double absError = 0.0; ///< |got - expected|, or the distance excess for argmin; inf for NaN
  double relError = 0.0; ///< absError / |expected| (absError when expected is 0); NaN for NaN
  bool hasRelError = false;
};

/// Judges element `element` of an output: "value" comparison |got - expected| <= atol + rtol
/// |expected| (NaN, an element never written, always fails), or "argmin" (kmeans: `got` must be
/// a valid centroid index whose distance is within the tolerance of the minimum's; `distances`
/// is [points, centroids]). `spec` null: exact comparison.
ElementJudgement judgeElement(const OutputSpec* spec, double got, double expected,
                              std::size_t element, std::span<const double> distances,
                              std::int64_t centroids);

/// What an output must be: its reference values (rounded to its dtype) and how it is judged.
struct ExpectedOutput {
  std::string name; ///< the kernel parameter
  std::vector<double> values;
  OutputSpec spec;
};

/// Every output's expectation for one set of inputs (the GPU runner's host oracle).
struct Expected {
  std::vector<ExpectedOutput> outputs;
  std::vector<double> distances; ///< kmeans_assign: [points, centroids]
  std::int64_t centroids = 0;
  /// Non-empty when the reference was not evaluated because of its size (why, with the
  /// estimate): the caller falls back to a weaker check and says so.
  std::string skipped;
};

/// Memory (bytes) and work (multiply-adds) of evaluating `op` on slots of these shapes: the
/// inputs and outputs in double plus the operator's temporaries (attention's score rows,
/// kmeans' distance matrix).
struct EvaluationCost {
  double bytes = 0.0;
  double work = 0.0;
};
EvaluationCost evaluationCost(std::string_view op,
                              const std::map<std::string, std::vector<std::int64_t>>& shapes,
                              const std::map<std::string, double>& attrs);

} // namespace cake::ref
