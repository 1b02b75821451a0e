// Reference operators: straightforward double-precision definitions, matrix products through
// OpenBLAS so that the oracle is an independent, well-tested implementation.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Reference/Operators.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace cake::ref {

void gemmNT(std::span<const double> a, std::span<const double> b, std::span<double> c,
            std::int64_t m, std::int64_t n, std::int64_t k) {
  if (m <= 0 || n <= 0)
    return;
  if (k <= 0) {
    std::fill(c.begin(), c.begin() + m * n, 0.0);
    return;
  }
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(m),
              static_cast<blasint>(n), static_cast<blasint>(k), 1.0, a.data(),
              static_cast<blasint>(k), b.data(), static_cast<blasint>(k), 0.0, c.data(),
              static_cast<blasint>(n));
}

void gemmBlockScaled(std::span<const double> a, std::span<const double> b,
                     std::span<const double> sa, std::span<const double> sb, std::span<double> c,
                     std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t kb,
                     std::int64_t nb) {
  if (m <= 0 || n <= 0)
    return;
  std::fill(c.begin(), c.begin() + m * n, 0.0);
  if (k <= 0 || kb <= 0 || nb <= 0 || k % kb != 0 || n % nb != 0)
    return;
  std::int64_t bk = k / kb, bn = n / nb;
  // One plain GEMM per K block, then scaled into C: the promotion the kernel performs.
  std::vector<double> ab(std::size_t(m * bk)), bb(std::size_t(n * bk)), part(std::size_t(m * n));
  for (std::int64_t q = 0; q < kb; ++q) {
    for (std::int64_t i = 0; i < m; ++i)
      std::copy_n(a.begin() + i * k + q * bk, bk, ab.begin() + i * bk);
    for (std::int64_t j = 0; j < n; ++j)
      std::copy_n(b.begin() + j * k + q * bk, bk, bb.begin() + j * bk);
    gemmNT(ab, bb, part, m, n, bk);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j)
        c[i * n + j] += sa[i * kb + q] * sb[(j / bn) * kb + q] * part[i * n + j];
  }
}

double gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

void biasGelu(std::span<const double> x, std::span<const double> bias, std::span<double> y,
              std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      y[i * n + j] = gelu(x[i * n + j] + bias[j]);
}

void rowSoftmax(std::span<const double> x, std::span<double> y, std::int64_t rows,
                std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const double* in = x.data() + r * cols;
    double* out = y.data() + r * cols;
    double mx = -std::numeric_limits<double>::infinity();
    for (std::int64_t c = 0; c < cols; ++c)
      mx = std::max(mx, in[c]);
    double sum = 0.0;
    for (std::int64_t c = 0; c < cols; ++c)
      sum += out[c] = std::exp(in[c] - mx);
    for (std::int64_t c = 0; c < cols; ++c)
      out[c] /= sum;
  }
}

void rmsnorm(std::span<const double> x, std::span<const double> w, std::span<double> y,
             std::int64_t rows, std::int64_t hidden, double eps) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const double* in = x.data() + r * hidden;
    double sq = 0.0;
    for (std::int64_t c = 0; c < hidden; ++c)
      sq += in[c] * in[c];
    double rstd = 1.0 / std::sqrt(sq / static_cast<double>(hidden) + eps);
    for (std::int64_t c = 0; c < hidden; ++c)
      y[r * hidden + c] = in[c] * rstd * w[c];
  }
}

void attentionFwd(std::span<const double> q, std::span<const double> k, std::span<const double> v,
                  std::span<double> o, std::int64_t rows, std::int64_t d, std::int64_t seq,
                  double scale, bool causal) {
  attentionFwdLse(q, k, v, o, {}, rows, d, seq, scale, causal);
}

void attentionFwdLse(std::span<const double> q, std::span<const double> k,
                     std::span<const double> v, std::span<double> o, std::span<double> lse,
                     std::int64_t rows, std::int64_t d, std::int64_t seq, double scale,
                     bool causal) {
  if (seq <= 0)
    return;
  std::vector<double> s(static_cast<std::size_t>(seq * seq));
  for (std::int64_t base = 0; base + seq <= rows; base += seq) {
    const std::size_t off = static_cast<std::size_t>(base * d);
    gemmNT(q.subspan(off), k.subspan(off), s, seq, seq, d);
    for (std::int64_t i = 0; i < seq; ++i) {
      double* row = s.data() + i * seq;
      std::int64_t last = causal ? i + 1 : seq;
      double mx = -std::numeric_limits<double>::infinity();
      for (std::int64_t j = 0; j < last; ++j)
        mx = std::max(mx, row[j] * scale);
      double sum = 0.0;
      for (std::int64_t j = 0; j < seq; ++j) {
        row[j] = j < last ? std::exp(row[j] * scale - mx) : 0.0;
        sum += row[j];
      }
      if (!lse.empty())
        lse[static_cast<std::size_t>(base + i)] =
            sum > 0 ? mx + std::log(sum) : -std::numeric_limits<double>::infinity();
      for (std::int64_t j = 0; j < seq; ++j)
        row[j] = sum > 0 ? row[j] / sum : 0.0;
    }
    // O = P V: V is [seq, d] row-major, so this is a plain NN product.
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(seq),
                static_cast<blasint>(d), static_cast<blasint>(seq), 1.0, s.data(),
                static_cast<blasint>(seq), v.data() + off, static_cast<blasint>(d), 0.0,
                o.data() + off, static_cast<blasint>(d));
  }
}

void attentionDecodeSplit(std::span<const double> q, std::span<const double> k,
                          std::span<const double> v, std::span<double> o, std::span<double> lse,
                          std::int64_t heads, std::int64_t group, std::int64_t d,
                          std::int64_t kvMax, std::int64_t kvLen, std::int64_t block,
                          std::int64_t splits, double scale) {
  if (block <= 0 || splits <= 0 || kvLen < 0)
    return;
  kvLen = std::min(kvLen, kvMax);
  const std::int64_t blocks = (kvLen + block - 1) / block;
  const std::int64_t chunk = (blocks + splits - 1) / splits * block; // keys per split
  std::vector<double> p(static_cast<std::size_t>(std::max<std::int64_t>(1, chunk)));
  for (std::int64_t sp = 0; sp < splits; ++sp) {
    const std::int64_t k0 = std::min(sp * chunk, kvLen), k1 = std::min((sp + 1) * chunk, kvLen);
    for (std::int64_t h = 0; h < heads; ++h)
      for (std::int64_t r = 0; r < group; ++r) {
        const std::size_t qi = static_cast<std::size_t>((h * group + r) * d);
        const std::size_t out = static_cast<std::size_t>((sp * heads + h) * group + r);
        double mx = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = k0; j < k1; ++j) {
          const std::size_t ki = static_cast<std::size_t>((h * kvMax + j) * d);
          double dot = 0.0;
          for (std::int64_t e = 0; e < d; ++e)
            dot += q[qi + std::size_t(e)] * k[ki + std::size_t(e)];
          p[std::size_t(j - k0)] = dot * scale;
          mx = std::max(mx, dot * scale);
        }
        double sum = 0.0;
        for (std::int64_t j = k0; j < k1; ++j) {
          p[std::size_t(j - k0)] = std::exp(p[std::size_t(j - k0)] - mx);
          sum += p[std::size_t(j - k0)];
        }
        lse[out] = sum > 0 ? mx + std::log(sum) : -std::numeric_limits<double>::infinity();
        for (std::int64_t e = 0; e < d; ++e) {
          double acc = 0.0;
          for (std::int64_t j = k0; j < k1; ++j)
            acc += p[std::size_t(j - k0)] * v[static_cast<std::size_t>((h * kvMax + j) * d + e)];
          o[out * std::size_t(d) + std::size_t(e)] = sum > 0 ? acc / sum : 0.0;
        }
      }
  }
}

std::vector<double> kmeansDistances(std::span<const double> x, std::span<const double> c,
                                    std::int64_t batches, std::int64_t n, std::int64_t kc,
                                    std::int64_t d) {
  std::vector<double> dist(static_cast<std::size_t>(batches * n * kc));
  for (std::int64_t b = 0; b < batches; ++b) {
    auto xb = x.subspan(static_cast<std::size_t>(b * n * d));
    auto cb = c.subspan(static_cast<std::size_t>(b * kc * d));
    std::span<double> db(dist.data() + b * n * kc, static_cast<std::size_t>(n * kc));
    gemmNT(xb, cb, db, n, kc, d);
    for (std::int64_t i = 0; i < n; ++i) {
      double xn = 0.0;
      for (std::int64_t e = 0; e < d; ++e)
        xn += xb[i * d + e] * xb[i * d + e];
      for (std::int64_t j = 0; j < kc; ++j) {
        double cn = 0.0;
        for (std::int64_t e = 0; e < d; ++e)
          cn += cb[j * d + e] * cb[j * d + e];
        db[i * kc + j] = xn + cn - 2.0 * db[i * kc + j];
      }
    }
  }
  return dist;
}

std::vector<double> kmeansAssign(std::span<const double> distances, std::int64_t points,
                                 std::int64_t kc) {
  std::vector<double> idx(static_cast<std::size_t>(points));
  for (std::int64_t i = 0; i < points; ++i) {
    std::int64_t best = 0;
    for (std::int64_t j = 1; j < kc; ++j)
      if (distances[i * kc + j] < distances[i * kc + best])
        best = j;
    idx[i] = static_cast<double>(best);
  }
  return idx;
}

} // namespace cake::ref
