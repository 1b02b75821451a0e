// The runner's device-independent parts: records from bundles, seeded inputs, dtype encoding,
// the tolerance check, and the CPU device hook.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Run/Runner.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <regex>

#include "RunJson.h"

namespace cake::run {

RunRecord recordFor(const Bundle& b) {
  RunRecord r;
  r.kernel = b.kernel;
  r.scheduleHash = b.scheduleHash;
  r.compilerRevision = b.compilerRevision;
  r.target = b.target;
  r.deviceKind = b.device;
  r.workload = b.workloadId;
  r.predictedUs = b.predictedUs;
  return r;
}

std::vector<double> generateInputs(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v(count);
  for (double& x : v) {
    std::uint64_t r = rng();
    if ((r & 3) != 0) { // three in four are zero
      x = 0;
      continue;
    }
    double magnitude = 0.5 * static_cast<double>(((r >> 2) & 3) + 1); // 0.5, 1, 1.5, 2
    x = (r >> 4) & 1 ? -magnitude : magnitude;
  }
  return v;
}

namespace {

std::uint16_t toBf16(float f) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  if (std::isnan(f))
    return 0x7fc0;
  u += 0x7fff + ((u >> 16) & 1); // round to nearest even
  return static_cast<std::uint16_t>(u >> 16);
}

float fromBf16(std::uint16_t h) {
  return std::bit_cast<float>(std::uint32_t(h) << 16);
}

std::uint16_t toF16(float f) {
  if (std::isnan(f))
    return 0x7e00;
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000);
  float a = std::fabs(f);
  if (a >= 65520.0f)
    return sign | 0x7c00;
  if (a < 6.103515625e-05f) // subnormal: multiples of 2^-24
    return sign | static_cast<std::uint16_t>(std::nearbyint(a * 16777216.0f));
  int e;
  float m = std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  auto mant = static_cast<std::uint32_t>(std::nearbyint((m * 2 - 1) * 1024));
  if (mant == 1024) {
    mant = 0;
    ++e;
  }
  return sign | static_cast<std::uint16_t>((e - 1 + 15) << 10) | static_cast<std::uint16_t>(mant);
}

float fromF16(std::uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float s = h & 0x8000 ? -1.0f : 1.0f;
  if (e == 0)
    return s * std::ldexp(static_cast<float>(m), -24);
  if (e == 31)
    return m ? std::numeric_limits<float>::quiet_NaN() : s * INFINITY;
  return s * std::ldexp(1.0f + static_cast<float>(m) / 1024.0f, e - 15);
}

/// fp8 with `eb` exponent bits and `mb` mantissa bits (e4m3: bias 7, no infinities, NaN 0x7f;
/// e5m2: bias 15, IEEE-like). Only the exact values the generator makes and NaN are needed
/// on the way in; decoding is complete.
float fromFp8(std::uint8_t b, int eb, int mb) {
  int bias = (1 << (eb - 1)) - 1;
  int e = (b >> mb) & ((1 << eb) - 1), m = b & ((1 << mb) - 1);
  float s = b & 0x80 ? -1.0f : 1.0f;
  if (eb == 4 && e == 15 && m == 7)
    return std::numeric_limits<float>::quiet_NaN();
  if (eb == 5 && e == 31)
    return m ? std::numeric_limits<float>::quiet_NaN() : s * INFINITY;
  if (e == 0)
    return s * std::ldexp(static_cast<float>(m), 1 - bias - mb);
  return s * std::ldexp(1.0f + static_cast<float>(m) / static_cast<float>(1 << mb), e - bias);
}

std::uint8_t toFp8(float f, int eb, int mb) {
  if (std::isnan(f))
    return eb == 4 ? 0x7f : 0x7e;
  // Exhaustive nearest search over the 128 magnitudes: small and obviously right.
  std::uint8_t sign = std::signbit(f) ? 0x80 : 0;
  float a = std::fabs(f);
  std::uint8_t best = 0;
  float bestErr = INFINITY;
  for (int code = 0; code < 128; ++code) {
    float v = fromFp8(static_cast<std::uint8_t>(code), eb, mb);
    if (std::isnan(v) || std::isinf(v))
      continue;
    float err = std::fabs(v - a);
    if (err < bestErr) {
      bestErr = err;
      best = static_cast<std::uint8_t>(code);
    }
  }
  return sign | best;
}

template <class T> void put(std::string& bytes, std::size_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}
template <class T> T get(const std::string& bytes, std::size_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

} // namespace

bool encode(const std::vector<double>& values, const std::string& dtype, std::string& bytes) {
  std::int64_t w = dtypeBytes(dtype);
  if (w == 0)
    return false;
  bytes.assign(values.size() * static_cast<std::size_t>(w), '\0');
  for (std::size_t i = 0; i < values.size(); ++i) {
    double x = values[i];
    auto f = static_cast<float>(x);
    if (dtype == "f32" || dtype == "tf32")
      put(bytes, i, f);
    else if (dtype == "f64")
      put(bytes, i, x);
    else if (dtype == "bf16")
      put(bytes, i, toBf16(f));
    else if (dtype == "f16")
      put(bytes, i, toF16(f));
    else if (dtype == "fp8e4m3" || dtype == "f8e4m3" || dtype == "e4m3")
      put(bytes, i, toFp8(f, 4, 3));
    else if (dtype == "fp8e5m2" || dtype == "f8e5m2" || dtype == "e5m2")
      put(bytes, i, toFp8(f, 5, 2));
    else if (dtype == "i8")
      put(bytes, i, static_cast<std::int8_t>(std::lround(x)));
    else if (dtype == "u8")
      put(bytes, i, static_cast<std::uint8_t>(std::lround(x)));
    else if (dtype == "i32")
      put(bytes, i, static_cast<std::int32_t>(std::lround(x)));
    else if (dtype == "u32")
      put(bytes, i, static_cast<std::uint32_t>(std::lround(x)));
    else
      return false;
  }
  return true;
}

bool decode(const std::string& bytes, const std::string& dtype, std::vector<double>& values) {
  std::int64_t w = dtypeBytes(dtype);
  if (w == 0 || bytes.size() % static_cast<std::size_t>(w))
    return false;
  std::size_t n = bytes.size() / static_cast<std::size_t>(w);
  values.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (dtype == "f32" || dtype == "tf32")
      values[i] = get<float>(bytes, i);
    else if (dtype == "f64")
      values[i] = get<double>(bytes, i);
    else if (dtype == "bf16")
      values[i] = fromBf16(get<std::uint16_t>(bytes, i));
    else if (dtype == "f16")
      values[i] = fromF16(get<std::uint16_t>(bytes, i));
    else if (dtype == "fp8e4m3" || dtype == "f8e4m3" || dtype == "e4m3")
      values[i] = fromFp8(get<std::uint8_t>(bytes, i), 4, 3);
    else if (dtype == "fp8e5m2" || dtype == "f8e5m2" || dtype == "e5m2")
      values[i] = fromFp8(get<std::uint8_t>(bytes, i), 5, 2);
    else if (dtype == "i8")
      values[i] = get<std::int8_t>(bytes, i);
    else if (dtype == "u8")
      values[i] = get<std::uint8_t>(bytes, i);
    else if (dtype == "i32")
      values[i] = get<std::int32_t>(bytes, i);
    else if (dtype == "u32")
      values[i] = get<std::uint32_t>(bytes, i);
    else
      return false;
  }
  return true;
}

namespace {

/// The element loop both checks share: `judge(i)` gives element i's verdict; sizes that differ
/// fail the missing elements, NaN counts as never written.
template <typename Judge>
CheckResult checkElements(const std::vector<double>& out, std::size_t refSize, Judge judge) {
  CheckResult c;
  std::size_t n = std::min(out.size(), refSize);
  c.checked = n;
  if (out.size() != refSize) {
    c.failed = std::max(out.size(), refSize) - n;
    c.firstBad = n;
  }
  bool first = c.failed == 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(out[i]))
      ++c.nans; // outputs are NaN-filled before the launch: NaN means not written
    ref::ElementJudgement j = judge(i);
    if (std::isfinite(j.absError))
      c.maxAbsError = std::max(c.maxAbsError, j.absError);
    if (j.ok)
      continue;
    if (first) {
      c.firstBad = i;
      first = false;
    }
    ++c.failed;
  }
  return c;
}

} // namespace

CheckResult checkClose(const std::vector<double>& out, const std::vector<double>& ref, double rtol,
                       double atol) {
  ref::OutputSpec spec;
  spec.rtol = rtol;
  spec.atol = atol;
  return checkElements(out, ref.size(), [&](std::size_t i) {
    return ref::judgeElement(&spec, out[i], ref[i], i, {}, 0);
  });
}

CheckResult checkExpected(const std::vector<double>& out, const ref::ExpectedOutput& expected,
                          const ref::Expected& all) {
  return checkElements(out, expected.values.size(), [&](std::size_t i) {
    return ref::judgeElement(&expected.spec, out[i], expected.values[i], i, all.distances,
                             all.centroids);
  });
}

namespace {
HostOracle& oracleSlot() {
  static HostOracle oracle;
  return oracle;
}
} // namespace

void setHostOracle(HostOracle oracle) {
  oracleSlot() = std::move(oracle);
}

const HostOracle& hostOracle() {
  return oracleSlot();
}

std::optional<GemmContract> gemmContract(const Bundle& b) {
  std::string error;
  auto doc = detail::parseJson(b.workloadText, "workload", error);
  if (!doc || !doc->isObject())
    return std::nullopt;
  std::string op = detail::str(*doc, "operator").value_or("");
  static const std::regex re(
      R"(^\s*(\w+)\[m, n\] = sum_k (\w+)\[m, k\] \* (\w+)\[(n, k|k, n)\](\s*|\s+\(.*\))$)");
  std::smatch mm;
  if (!std::regex_match(op, mm, re))
    return std::nullopt;
  GemmContract g{mm[2], mm[3], mm[1]};
  g.bKN = mm[4] == "k, n";
  const BundleBuffer *A = b.buffer(g.a), *B = b.buffer(g.b), *C = b.buffer(g.c);
  if (!A || !B || !C || A->shape.size() != 2 || B->shape.size() != 2 || C->shape.size() != 2)
    return std::nullopt;
  g.m = A->shape[0];
  g.k = A->shape[1];
  g.n = B->shape[g.bKN ? 1 : 0];
  if (B->shape[g.bKN ? 0 : 1] != g.k || C->shape[0] != g.m || C->shape[1] != g.n ||
      A->dtype != B->dtype)
    return std::nullopt;
  return g;
}

namespace {
CpuDevice& cpuDevice() {
  static CpuDevice device;
  return device;
}
} // namespace

void setCpuDevice(CpuDevice device) {
  cpuDevice() = std::move(device);
}

RunRecord runOnCpu(const Bundle& bundle, const RunnerOptions& options) {
  if (cpuDevice())
    return cpuDevice()(bundle, options);
  RunRecord r = recordFor(bundle);
  r.errors.push_back({"no-cpu-device", "this cake-run has no CPU device (the CPU interpreter is "
                                       "not linked in); run the bundle with --device gpu"});
  return r;
}

} // namespace cake::run
