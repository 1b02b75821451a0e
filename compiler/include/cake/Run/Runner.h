// The runner behind `cake-run`: runs a validated bundle on a device and returns its record.
// The GPU path loads the CUDA driver at run time (dlopen "libcuda.so.1"), so the runner builds
// and reports cleanly on machines without one; cuBLAS and NVML are loaded the same way.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Run/Bundle.h"
#include "cake/Reference/Evaluate.h"
#include "cake/Run/Record.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cake::run {

struct RunnerOptions {
  ProtocolLimits limits;
  std::uint64_t seed = 0x5eedcafe;
  std::string libcuda = "libcuda.so.1"; ///< a seam for tests: a missing library
  int deviceOrdinal = 0;
  bool timing = true; ///< false: check correctness only
  /// Time with CUPTI activity records when libcupti loads (false, or not loadable: CUDA events,
  /// the documented fallback, with a warning).
  bool cupti = true;
  /// libcupti names or paths to try; empty: the versioned sonames and the toolkit's locations.
  std::vector<std::string> libcupti;
  /// CPU device only: run the contract's small shapes (false: its full shapes). A GPU run always
  /// runs the kernel's own shapes.
  bool cpuSmallShapes = true;
};

/// The record of a run the runner could not start: kernel, target, hashes from the bundle.
RunRecord recordFor(const Bundle& bundle);

/// Runs `bundle` on the GPU (docs/runs.md). Never throws; every failure is an error in the
/// record: "no-driver" when libcuda.so.1 cannot be loaded, "no-device", "target-mismatch" when
/// the device cannot run the image, "cuda-error" with the failing call, "incorrect".
RunRecord runOnGpu(const Bundle& bundle, const RunnerOptions& options);

/// The CPU device: set by the CPU interpreter when it is linked in (see docs/runs.md, "CPU
/// device"); until then CPU bundles get a "no-cpu-device" record.
using CpuDevice = std::function<RunRecord(const Bundle&, const RunnerOptions&)>;
void setCpuDevice(CpuDevice device);
RunRecord runOnCpu(const Bundle& bundle, const RunnerOptions& options);

/// The host oracle of a GPU run whose workload has no cuBLAS check (anything but a plain GEMM,
/// or a GEMM without cuBLAS): the contract's reference operator evaluated on the host for the
/// inputs the runner drew (by parameter name). It may rewrite inputs the contract derives from
/// others or fixes (the runner uploads them again). Set by `cake-run` (the CPU interpreter's
/// binding of contract and kernel, interp::hostReference); unset, such a run only checks that
/// every output element was written.
using HostOracle = std::function<std::optional<ref::Expected>(
    const Bundle&, std::map<std::string, std::vector<double>>& inputs, std::string& error)>;
void setHostOracle(HostOracle oracle);
const HostOracle& hostOracle();

/// Seeded input values: about 75 % zeros, the rest in {±0.5, ±1, ±1.5, ±2}, exact in every
/// dtype down to fp8 so that a structural bug gives a large error, not rounding noise.
std::vector<double> generateInputs(std::size_t count, std::uint64_t seed);
/// Encodes `values` as `dtype` (little-endian bytes); false for a dtype it cannot write.
bool encode(const std::vector<double>& values, const std::string& dtype, std::string& bytes);
/// Decodes `dtype` bytes; NaN stays NaN.
bool decode(const std::string& bytes, const std::string& dtype, std::vector<double>& values);

/// A GEMM workload the runner can check with cuBLAS: the contract's operator is
/// `C[m, n] = sum_k A[m, k] * B[n, k]` (B given N x K) or `... * B[k, n]` (B given K x N), all
/// row-major, optionally followed by a parenthesised comment, and the bundle's buffers have the
/// matching 2-D shapes with A and B of one dtype.
struct GemmContract {
  std::string a, b, c;
  std::int64_t m = 0, n = 0, k = 0;
  bool bKN = false; ///< B is K x N
};
std::optional<GemmContract> gemmContract(const Bundle& bundle);

/// Element-wise check against a reference: |x - r| <= atol + rtol * |r|, NaN always fails.
struct CheckResult {
  std::size_t checked = 0, failed = 0, nans = 0;
  double maxAbsError = 0;
  std::size_t firstBad = 0; ///< index of the first failing element
  bool ok() const { return failed == 0 && checked > 0; }
};
CheckResult checkClose(const std::vector<double>& out, const std::vector<double>& ref, double rtol,
                       double atol);
/// Judges an output against the host oracle's expectation, element by element with
/// ref::judgeElement (value or argmin comparison, as the CPU verdict judges).
CheckResult checkExpected(const std::vector<double>& out, const ref::ExpectedOutput& expected,
                          const ref::Expected& all);

} // namespace cake::run
