// Kernel durations from CUPTI activity records, the primary timer of the GPU runner's protocol
// (docs/runs.md); libcupti is loaded at run time, like the driver, so nothing links against it.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cake::run::detail {

/// One timer per process (CUPTI's activity callbacks are process-wide).
class CuptiTimer {
public:
  CuptiTimer() = default;
  CuptiTimer(const CuptiTimer&) = delete;
  CuptiTimer& operator=(const CuptiTimer&) = delete;
  ~CuptiTimer();

  /// Loads libcupti (the first of `libraries` that loads) and enables kernel activity records;
  /// false with the reason in `error` (the caller then times with CUDA events and says so).
  bool start(const std::vector<std::string>& libraries, std::string& error);
  bool active() const { return m_lib != nullptr; }

  /// Flushes the records and returns the GPU time in µs spanned by the kernels that completed
  /// since the previous call: from the earliest start to the latest end (a cuBLAS call of several
  /// kernels is one span; memcpy and memset records are not kernels). nullopt with `error` when
  /// CUPTI dropped records (the protocol then fails the run) or no kernel record arrived.
  std::optional<double> take(std::string& error);

private:
  void* m_lib = nullptr;
};

/// The libcupti names tried by default: the versioned sonames, then the toolkit's locations.
std::vector<std::string> defaultCuptiLibraries();

} // namespace cake::run::detail
