// The run bundle: the folder `cake run` builds and hands to an executor, and `cake-run` reads —
// the kernel image (cubin or PTX), the lowering metadata (`cake lower --emit metadata`), the
// workload contract, the kernel source and a manifest naming them with their SHA-256. Reading
// validates everything the runner relies on, so a bad bundle is a located message, not a crash.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cake::run {

constexpr int kBundleVersion = 1;

/// A global tensor the kernel takes (a `param` declaration).
struct BundleBuffer {
  std::string name;
  std::string dtype; ///< bf16, f16, f32, fp8e4m3, ...
  std::vector<std::int64_t> shape;
  std::string role; ///< input | output | state
  std::int64_t align = 0;
  std::int64_t bytes() const;
};

/// A TMA tensor map to encode with cuTensorMapEncodeTiled (from the lowering metadata).
struct BundleTensorMap {
  std::string name;
  std::string source; ///< the buffer it describes
  std::string dtype;
  std::vector<std::int64_t> globalDims;    ///< innermost first
  std::vector<std::int64_t> globalStrides; ///< bytes, dims 1..
  std::vector<std::int64_t> box;
  std::string swizzle; ///< none | 32B | 64B | 128B
};

/// One kernel parameter, in signature order.
struct BundleParam {
  std::string name;
  /// Scalar: a run-time scalar parameter passed by value (an i32 `value`, the workload
  /// contract's).
  enum class Kind { Global, TensorMap, Scalar } kind = Kind::Global;
  std::int32_t value = 0;
};

struct Launch {
  std::int64_t threads = 0;   ///< CTA size (x)
  std::int64_t tileCount = 0; ///< grid size for a static schedule
  bool persistent = false;    ///< grid = min(tileCount, SM count of the device)
  std::int64_t cluster[3] = {1, 1, 1};
  std::int64_t smemBytes = 0; ///< dynamic shared memory
  bool pdl = false;           ///< programmatic dependent launch attribute
};

struct Bundle {
  std::string dir;
  std::string kernel; ///< kernel name (= entry symbol)
  std::string target; ///< sm_80, sm_90a, sm_100a
  std::string device; ///< "gpu" or "cpu"
  std::string scheduleHash;
  std::string compilerRevision;
  std::string image;     ///< file name inside dir
  std::string imageKind; ///< "cubin" or "ptx"
  std::string source;    ///< kernel source file name inside dir ("" when absent)
  std::string workloadId;
  std::string workloadText; ///< the contract, verbatim
  double rtol = 0, atol = 0;
  /// The cost model's prediction and roofline bound (µs) when `cake run` could cost the kernel:
  /// the record carries the prediction; a median below the bound is flagged as suspicious.
  std::optional<double> predictedUs, rooflineUs;
  std::vector<BundleBuffer> buffers;
  std::vector<BundleParam> params;
  std::vector<BundleTensorMap> tensorMaps;
  Launch launch;

  const BundleBuffer* buffer(const std::string& name) const;
};

/// Reads and validates the bundle in `dir` (manifest.json, every named file present with the
/// recorded SHA-256, metadata and manifest consistent). nullopt with `error` otherwise.
std::optional<Bundle> readBundle(const std::string& dir, std::string& error);

/// Bytes of one element of `dtype` (0 for an unknown name).
std::int64_t dtypeBytes(const std::string& dtype);

/// A compute capability: sm_90a is {9, 0, true}.
struct Capability {
  int major = 0, minor = 0;
  bool archSpecific = false; ///< the "a" suffix: runs only on exactly this capability
};
/// Parses "sm_90a", "sm_80", "sm_100a"; nullopt otherwise.
std::optional<Capability> parseTarget(const std::string& target);
/// The target a cubin (ELF) was built for, from e_flags of its header; nullopt with `error` when
/// the bytes are not a CUDA ELF image.
std::optional<Capability> cubinTarget(const std::string& bytes, std::string& error);
/// Why a device of capability major.minor cannot run code built for `target`, or nullopt when it
/// can. A cubin (SASS) runs on the same major with minor >= (not across majors); an
/// arch-specific one (sm_90a, sm_100a) only on exactly that capability. PTX is JIT-compiled and
/// runs on any device of at least its capability unless arch-specific.
std::optional<std::string> cannotRun(const Capability& target, int deviceMajor, int deviceMinor,
                                     bool isPtx);

} // namespace cake::run
