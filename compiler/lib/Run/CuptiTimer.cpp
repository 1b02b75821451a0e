// CUPTI activity-record timing (see CuptiTimer.h). Built with the CUPTI headers when cuda.h is
// present; otherwise `start` says the runner was built without them.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CuptiTimer.h"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <limits>
#include <mutex>

#ifdef CAKE_HAVE_CUDA_H
#include <cupti_activity.h>
#endif

namespace cake::run::detail {

std::vector<std::string> defaultCuptiLibraries() {
  return {"libcupti.so.13",
          "libcupti.so.12",
          "libcupti.so",
          "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
          "/usr/local/cuda/lib64/libcupti.so",
          "/usr/local/cuda/lib/libcupti.so"};
}

#ifndef CAKE_HAVE_CUDA_H

CuptiTimer::~CuptiTimer() = default;

bool CuptiTimer::start(const std::vector<std::string>&, std::string& error) {
  error = "this cake-run was built without the CUPTI headers";
  return false;
}

std::optional<double> CuptiTimer::take(std::string& error) {
  error = "CUPTI is not available";
  return std::nullopt;
}

#else

namespace {

/// The entry points, resolved with dlsym.
struct Api {
  decltype(&::cuptiActivityRegisterCallbacks) registerCallbacks = nullptr;
  decltype(&::cuptiActivityEnable) enable = nullptr;
  decltype(&::cuptiActivityDisable) disable = nullptr;
  decltype(&::cuptiActivityFlushAll) flushAll = nullptr;
  decltype(&::cuptiActivityGetNextRecord) nextRecord = nullptr;
  decltype(&::cuptiActivityGetNumDroppedRecords) dropped = nullptr;
};

/// What the callbacks (plain function pointers, called on CUPTI's threads) fill.
struct Collected {
  std::mutex mutex;
  Api api;
  std::uint64_t first = std::numeric_limits<std::uint64_t>::max(), last = 0;
  std::size_t kernels = 0, dropped = 0;
};

Collected& collected() {
  static Collected c;
  return c;
}

constexpr std::size_t kBufferBytes = 1u << 20;

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *maxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer, size_t,
                              size_t validSize) {
  Collected& c = collected();
  std::lock_guard<std::mutex> lock(c.mutex);
  CUpti_Activity* record = nullptr;
  while (buffer && c.api.nextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
        record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
      continue;
    // start and end sit at the same offsets in every CUpti_ActivityKernelN version.
    auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    if (k->end <= k->start)
      continue;
    c.first = std::min<std::uint64_t>(c.first, k->start);
    c.last = std::max<std::uint64_t>(c.last, k->end);
    ++c.kernels;
  }
  std::size_t dropped = 0;
  if (c.api.dropped(context, streamId, &dropped) == CUPTI_SUCCESS)
    c.dropped += dropped;
  std::free(buffer);
}

template <typename F> bool resolve(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(::dlsym(lib, name));
  return f != nullptr;
}

} // namespace

CuptiTimer::~CuptiTimer() {
  if (!m_lib)
    return;
  Collected& c = collected();
  c.api.flushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  c.api.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  // libcupti stays loaded: its threads may still run after the last flush.
}

bool CuptiTimer::start(const std::vector<std::string>& libraries, std::string& error) {
  void* lib = nullptr;
  for (const std::string& name : libraries)
    if ((lib = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)))
      break;
  if (!lib) {
    const char* e = ::dlerror();
    error = std::string("libcupti cannot be loaded") + (e ? std::string(": ") + e : "");
    return false;
  }
  Collected& c = collected();
  Api& a = c.api;
  if (!resolve(lib, "cuptiActivityRegisterCallbacks", a.registerCallbacks) ||
      !resolve(lib, "cuptiActivityEnable", a.enable) ||
      !resolve(lib, "cuptiActivityDisable", a.disable) ||
      !resolve(lib, "cuptiActivityFlushAll", a.flushAll) ||
      !resolve(lib, "cuptiActivityGetNextRecord", a.nextRecord) ||
      !resolve(lib, "cuptiActivityGetNumDroppedRecords", a.dropped)) {
    error = "libcupti lacks the activity API";
    return false;
  }
  if (CUptiResult rc = a.registerCallbacks(bufferRequested, bufferCompleted); rc != CUPTI_SUCCESS) {
    error = "cuptiActivityRegisterCallbacks failed (" + std::to_string(int(rc)) + ")";
    return false;
  }
  // CONCURRENT_KERNEL: kernel records without serialising kernels (KERNEL would serialise).
  if (CUptiResult rc = a.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); rc != CUPTI_SUCCESS) {
    error = "cuptiActivityEnable(CONCURRENT_KERNEL) failed (" + std::to_string(int(rc)) +
            "; another profiler may hold CUPTI)";
    return false;
  }
  m_lib = lib;
  std::string ignored;
  take(ignored); // start from an empty window
  return true;
}

std::optional<double> CuptiTimer::take(std::string& error) {
  Collected& c = collected();
  c.api.flushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(c.mutex);
  std::optional<double> span;
  if (c.dropped)
    error = std::to_string(c.dropped) + " CUPTI activity record(s) dropped";
  else if (!c.kernels)
    error = "no CUPTI kernel record arrived for the sample";
  else
    span = double(c.last - c.first) / 1000.0; // ns -> µs
  c.first = std::numeric_limits<std::uint64_t>::max();
  c.last = 0;
  c.kernels = 0;
  c.dropped = 0;
  return span;
}

#endif // CAKE_HAVE_CUDA_H

} // namespace cake::run::detail
