// The run record: what one run of a kernel on a device produced (correctness, timing samples and
// their summary, the device and its clocks, the baseline), written by `cake-run` as JSON and read
// back by `cake run`, the workspace store and the measurements file for `cake calibrate`.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Run/Protocol.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cake::run {

/// Why a run did not produce (all of) its results; stable codes, documented in docs/runs.md.
/// The runner's exit code follows from the first error (see exitCodeFor).
struct RunError {
  std::string code; ///< e.g. "no-driver", "target-mismatch", "bundle-invalid", "incorrect"
  std::string message;
};

struct DeviceInfo {
  std::string name;                 ///< e.g. "NVIDIA H200"
  std::optional<std::string> sm;    ///< "sm_90" (what the device is), null when unknown
  std::optional<double> smClockMHz; ///< mean SM clock over the accepted samples (NVML)
  std::optional<double> defaultClockMHz;
  std::optional<double> memClockMHz;
  std::optional<std::string> driver; ///< driver version, "12.8" from cuDriverGetVersion
};

struct Baseline {
  std::string name; ///< e.g. "cublasLt bf16 (f32 compute)"
  std::optional<double> medianUs;
};

struct RunRecord {
  std::string kernel;
  std::string scheduleHash;
  std::string compilerRevision;
  std::string target;     ///< the bundle's target (sm_90a, ...)
  std::string deviceKind; ///< "gpu" or "cpu"
  std::optional<DeviceInfo> device;
  std::string workload; ///< the workload contract's id (file name) or operator
  std::optional<bool> correct;
  std::vector<RunError> errors;
  std::vector<std::string> warnings; ///< suspicions, dropped samples, fallbacks used
  std::vector<double> samplesUs;
  std::optional<Stats> stats; ///< summary of samplesUs (median_us, q1_us, ... in JSON)
  std::string timer;          ///< "cupti" or "cuda-events" (documented fallback), "" if none
  std::string stopReason;     ///< StopReason as text, "" if no timing ran
  std::optional<Baseline> baseline;
  std::optional<double> predictedUs; ///< the cost model's prediction for this kernel, if any
  int protocolVersion = kProtocolVersion;
  std::string executor; ///< where it ran: "local", "ssh://host", "slurm:partition (job N)"

  bool hasError(const std::string& code) const;
};

/// The record as a JSON document (pretty, stable key order; unfilled fields are null).
std::string toJson(const RunRecord& record, bool pretty = true);
/// Reads a record written by toJson; nullopt with `error` ("record:LINE:COL: ...") otherwise.
std::optional<RunRecord> parseRecord(const std::string& text, std::string& error);

/// Exit codes of `cake-run` (and `cake run`), documented in docs/runs.md.
enum ExitCode : int {
  kExitCorrect = 0,       ///< ran, output matched the oracle
  kExitIncorrect = 1,     ///< ran, output did not match (or a run-time failure of the kernel)
  kExitUsage = 2,         ///< bad arguments or an unreadable / invalid bundle
  kExitNoDriver = 3,      ///< no NVIDIA driver (libcuda.so.1 not found) or no device
  kExitTargetRefused = 4, ///< the device cannot run the bundle's target
  kExitExecutor = 5,      ///< the executor failed (ssh, Slurm), timed out or was cancelled
  kExitUnchecked = 6,     ///< ran without errors, but no oracle exists for the workload yet
};
/// The exit code that a record's first error maps to (kExitCorrect when none and correct).
int exitCodeFor(const RunRecord& record);

/// Compares two records' timings (both must have samples, the same kernel workload, device and
/// protocol version; otherwise Incomparable with the reason).
Comparison compareRecords(const RunRecord& candidate, const RunRecord& reference);

/// Adds a record to a measurements file for `cake calibrate` (`existing` is the file's text, or
/// empty for a new file): {"target", "measurements": [{kernel, measured_us, problem, note}]},
/// measured_us being the record's median. `kernelPath` is the kernel file as the measurements
/// file should name it (relative to the file's folder). Only a correct, timed record of the file's
/// target is added; otherwise nullopt with `error`.
std::optional<std::string> addMeasurement(const std::string& existing,
                                          const std::string& kernelPath, const RunRecord& record,
                                          std::string& error);

} // namespace cake::run
