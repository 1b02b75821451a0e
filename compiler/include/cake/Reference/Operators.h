// Reference operators in double precision (the oracle of `cake run` and of the GPU runner):
// row-major dense tensors, inputs already rounded to their contract dtypes. GEMMs go through
// OpenBLAS (cblas_dgemm).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace cake::ref {

/// C[m, n] = sum_k A[m, k] * B[n, k] (B stored [N, K], "NT"); C is overwritten.
void gemmNT(std::span<const double> a, std::span<const double> b, std::span<double> c,
            std::int64_t m, std::int64_t n, std::int64_t k);

/// Block-scaled GEMM (DeepGEMM's FP8 GEMM with fine-grained scaling): K in `kb` blocks of
/// k / kb channels, N in `nb` blocks of n / nb; C[m, n] = sum over blocks q of
/// sa[m, q] * sb[n / (n / nb), q] * sum_{k in block q} A[m, k] * B[n, k]. sa is [M, kb], sb
/// [nb, kb]; C is overwritten. kb must divide k and nb must divide n.
void gemmBlockScaled(std::span<const double> a, std::span<const double> b,
                     std::span<const double> sa, std::span<const double> sb, std::span<double> c,
                     std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t kb,
                     std::int64_t nb);
/// Exact (erf) GELU: x * Phi(x).
double gelu(double x);

/// Y[m, n] = gelu(X[m, n] + bias[n]).
void biasGelu(std::span<const double> x, std::span<const double> bias, std::span<double> y,
              std::int64_t m, std::int64_t n);

/// Y[r, :] = softmax(X[r, :]).
void rowSoftmax(std::span<const double> x, std::span<double> y, std::int64_t rows,
                std::int64_t cols);

/// Y[r, :] = X[r, :] / sqrt(mean(X[r, :]^2) + eps) * W.
void rmsnorm(std::span<const double> x, std::span<const double> w, std::span<double> y,
             std::int64_t rows, std::int64_t hidden, double eps);

/// O = softmax(scale * Q K^T [+ causal mask]) V for each block of `seq` consecutive rows
/// (heads stacked along the rows of [rows, d] tensors).
void attentionFwd(std::span<const double> q, std::span<const double> k, std::span<const double> v,
                  std::span<double> o, std::int64_t rows, std::int64_t d, std::int64_t seq,
                  double scale, bool causal);
/// attentionFwd that also writes the natural-log log-sum-exp of every query row's scaled
/// scores (`lse`, one value per row of q; -inf for a row whose keys are all masked), as
/// FlashAttention's forward pass returns it for the backward pass.
void attentionFwdLse(std::span<const double> q, std::span<const double> k,
                     std::span<const double> v, std::span<double> o, std::span<double> lse,
                     std::int64_t rows, std::int64_t d, std::int64_t seq, double scale,
                     bool causal);

/// Split-KV decode attention (FlashDecoding / FlashInfer's BatchDecode with KV partitions):
/// `heads` KV heads, each with `group` query rows (Q is [heads * group, d]) and a cache of
/// `kvMax` rows (K, V are [heads * kvMax, d]) of which the first `kvLen` are valid. The keys
/// are cut into `splits` chunks of cdiv(cdiv(kvLen, block), splits) blocks of `block` keys;
/// split s writes the attention of every query row over its chunk alone (O normalised within
/// the chunk, LSE its natural-log log-sum-exp; O = 0, LSE = -inf for an empty chunk) at row
/// (s * heads + h) * group + r of O [splits * heads * group, d] and LSE.
void attentionDecodeSplit(std::span<const double> q, std::span<const double> k,
                          std::span<const double> v, std::span<double> o, std::span<double> lse,
                          std::int64_t heads, std::int64_t group, std::int64_t d,
                          std::int64_t kvMax, std::int64_t kvLen, std::int64_t block,
                          std::int64_t splits, double scale);

/// Squared distances dist[b * n + i, j] = ||X[b * n + i] - C[b * kc + j]||^2 for `batches`
/// batches of n points and kc centroids of dimension d; returns [batches * n, kc].
std::vector<double> kmeansDistances(std::span<const double> x, std::span<const double> c,
                                    std::int64_t batches, std::int64_t n, std::int64_t kc,
                                    std::int64_t d);

/// Index of the nearest centroid of each point (ties: the smaller index).
std::vector<double> kmeansAssign(std::span<const double> distances, std::int64_t points,
                                 std::int64_t kc);

} // namespace cake::ref
