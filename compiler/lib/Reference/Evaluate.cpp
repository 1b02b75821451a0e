// The operator dispatch and the element judge shared by the CPU interpreter and the GPU
// runner's host oracle (see Evaluate.h).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Reference/Evaluate.h"
#include "cake/Reference/Operators.h"

#include <cmath>
#include <limits>

namespace cake::ref {

OperatorOutputs evaluate(std::string_view op, const std::map<std::string, SlotData>& slots,
                         const std::map<std::string, double>& attrs) {
  OperatorOutputs r;
  auto in = [&](const char* slot) -> std::span<const double> { return slots.at(slot).values; };
  auto shape = [&](const char* slot) -> const std::vector<std::int64_t>& {
    return slots.at(slot).shape;
  };
  auto out = [&](const char* slot) -> std::vector<double>& {
    std::int64_t n = 1;
    for (std::int64_t d : shape(slot))
      n *= d;
    auto& v = r.bySlot[slot];
    v.assign(std::size_t(std::max<std::int64_t>(0, n)), 0.0);
    return v;
  };
  auto attr = [&](const char* name, double fallback) {
    auto it = attrs.find(name);
    return it != attrs.end() ? it->second : fallback;
  };
  if (op == "gemm") {
    auto& a = shape("A");
    auto& b = shape("B");
    gemmNT(in("A"), in("B"), out("C"), a[0], b[0], a[1]);
  } else if (op == "gemm_blockscale") {
    auto& a = shape("A");
    auto& b = shape("B");
    auto& sb = shape("SB");
    gemmBlockScaled(in("A"), in("B"), in("SA"), in("SB"), out("C"), a[0], b[0], a[1], sb[1], sb[0]);
  } else if (op == "bias_gelu") {
    auto& x = shape("X");
    biasGelu(in("X"), in("Bias"), out("Y"), x[0], x[1]);
  } else if (op == "row_softmax") {
    auto& x = shape("X");
    rowSoftmax(in("X"), out("Y"), x[0], x[1]);
  } else if (op == "rmsnorm") {
    auto& x = shape("X");
    rmsnorm(in("X"), in("W"), out("Y"), x[0], x[1], attr("eps", 1e-6));
  } else if (op == "attention_fwd" || op == "attention_fwd_lse") {
    auto& q = shape("Q");
    double seq = attr("seq", double(q[0]));
    double scale = attr("scale", 1.0 / std::sqrt(double(q[1])));
    bool causal = attr("causal", 0.0) != 0.0;
    std::vector<double>& o = out("O");
    if (op == "attention_fwd_lse")
      attentionFwdLse(in("Q"), in("K"), in("V"), o, out("LSE"), q[0], q[1], std::int64_t(seq),
                      scale, causal);
    else
      attentionFwd(in("Q"), in("K"), in("V"), o, q[0], q[1], std::int64_t(seq), scale, causal);
  } else if (op == "attention_decode_split") {
    auto& q = shape("Q");
    auto& k = shape("K");
    std::int64_t group = std::int64_t(attr("group", double(q[0])));
    std::int64_t heads = group > 0 ? q[0] / group : 0;
    std::int64_t kvMax = heads > 0 ? k[0] / heads : 0;
    attentionDecodeSplit(in("Q"), in("K"), in("V"), out("O"), out("LSE"), heads, group, q[1],
                         kvMax, std::int64_t(attr("kv_len", double(kvMax))),
                         std::int64_t(attr("block", 1.0)), std::int64_t(attr("splits", 1.0)),
                         attr("scale", 1.0 / std::sqrt(double(q[1]))));
  } else if (op == "kmeans_assign") {
    auto& x = shape("X");
    auto& c = shape("C");
    std::int64_t batches = std::int64_t(attr("batches", 1.0));
    r.centroids = c[0] / batches;
    r.distances = kmeansDistances(in("X"), in("C"), batches, x[0] / batches, r.centroids, x[1]);
    out("Idx") = kmeansAssign(r.distances, x[0], r.centroids);
  }
  return r;
}

EvaluationCost evaluationCost(std::string_view op,
                              const std::map<std::string, std::vector<std::int64_t>>& shapes,
                              const std::map<std::string, double>& attrs) {
  EvaluationCost c;
  auto elems = [&](const char* slot) {
    auto it = shapes.find(slot);
    double n = 1;
    if (it == shapes.end())
      return 0.0;
    for (std::int64_t d : it->second)
      n *= double(d);
    return n;
  };
  for (const auto& [slot, shape] : shapes) {
    double n = 1;
    for (std::int64_t d : shape)
      n *= double(d);
    c.bytes += n * 8;
  }
  auto dim = [&](const char* slot, std::size_t i) {
    auto it = shapes.find(slot);
    return it != shapes.end() && i < it->second.size() ? double(it->second[i]) : 0.0;
  };
  auto attr = [&](const char* name, double fallback) {
    auto it = attrs.find(name);
    return it != attrs.end() ? it->second : fallback;
  };
  if (op == "gemm" || op == "gemm_blockscale") {
    c.work = dim("A", 0) * dim("B", 0) * dim("A", 1);
  } else if (op == "attention_fwd" || op == "attention_fwd_lse") {
    double rows = dim("Q", 0), d = dim("Q", 1), seq = attr("seq", rows);
    c.work = rows * seq * d * 2;
    c.bytes += seq * 8 * 2; // one row of scores and probabilities at a time
  } else if (op == "attention_decode_split") {
    double rows = dim("Q", 0), d = dim("Q", 1), len = attr("kv_len", 0.0);
    c.work = rows * len * d * 2;
  } else if (op == "kmeans_assign") {
    double points = dim("X", 0), d = dim("X", 1), batches = attr("batches", 1.0);
    double centroids = batches > 0 ? dim("C", 0) / batches : 0.0;
    c.work = points * centroids * d;
    c.bytes += points * centroids * 8 * 2; // the distance matrix and its argmin pass
  } else {
    c.work = elems("X") * 4;
  }
  return c;
}

ElementJudgement judgeElement(const OutputSpec* spec, double got, double expected,
                              std::size_t element, std::span<const double> distances,
                              std::int64_t centroids) {
  ElementJudgement j;
  if (spec && spec->compare == "argmin") {
    std::int64_t gi = std::int64_t(got);
    bool valid = std::isfinite(got) && got == double(gi) && gi >= 0 && gi < centroids;
    std::size_t row = element * std::size_t(centroids);
    double dmin = distances[row + std::size_t(expected)];
    double dg = valid ? distances[row + std::size_t(gi)] : std::numeric_limits<double>::infinity();
    j.absError = dg - dmin;
    j.ok = valid && j.absError <= spec->atol + spec->rtol * std::fabs(dmin);
  } else if (std::isinf(expected) && got == expected) {
    // The same infinity (an empty split's LSE = -inf): exact, where got - expected is NaN.
    j.absError = 0.0;
    j.ok = true;
  } else {
    j.absError = std::fabs(got - expected);
    double tol = spec ? spec->atol + spec->rtol * std::fabs(expected) : 0.0;
    j.ok = j.absError <= tol; // false for NaN: an element never written is wrong
    if (std::isfinite(j.absError) || !j.ok) {
      double rel = expected != 0.0 ? j.absError / std::fabs(expected)
                                   : (j.absError > 0 ? j.absError : 0.0);
      j.relError = rel;
      j.hasRelError = true;
    }
  }
  if (std::isnan(j.absError))
    j.absError = std::numeric_limits<double>::infinity();
  return j;
}

} // namespace cake::ref
