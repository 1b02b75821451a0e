// GPU targets as data: limits, machine parameters, tensor throughput and instruction/sync
// features, each fact with its citation. Targets match exactly; there is no fallback.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Types.h"
#include "cake/Support/DataFiles.h"
#include "cake/Support/Diagnostic.h"
#include "cake/Support/Json.h"

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cake::target {

/// A value with the citation it comes from ("NVIDIA H100 datasheet", "PTX ISA 8.5 §9.7.9").
template <typename T> struct Fact {
  T value{};
  std::string source;
  SourceRange range;
};

/// Names every target file must define (and no others), so that analyses can rely on them.
std::span<const std::string_view> limitKeys();
std::span<const std::string_view> machineKeys();
std::span<const std::string_view> featureKeys();
/// Keys of the optional "timing" section (latencies and per-SM rates of the cost model); when a
/// target has the section it states every key.
std::span<const std::string_view> timingKeys();
/// Parameters a calibration ("params" of compiler/calibration/<target>.json) may set.
std::span<const std::string_view> calibrationKeys();

struct Target {
  std::string name;              ///< exact target, e.g. sm_90a
  std::string gpu;               ///< product, e.g. NVIDIA H100 SXM5 80GB
  std::string computeCapability; ///< e.g. 9.0a
  std::string ptxIsa;            ///< minimum PTX ISA version for this target, e.g. 8.0
  std::map<std::string, Fact<std::int64_t>, std::less<>> limits;
  std::map<std::string, Fact<double>, std::less<>> machine;
  /// Dense tensor-core throughput in TFLOP/s (TOP/s for integers) per input dtype.
  std::map<std::string, Fact<double>, std::less<>> tensorTflops;
  std::map<std::string, Fact<bool>, std::less<>> features;
  std::vector<ir::Space> spaces;
  std::vector<ir::DType> dtypes;
  /// Latencies and per-SM rates for the cost model (section "timing"); empty when the target
  /// file has none (the cost model then refuses to estimate the target).
  std::map<std::string, Fact<double>, std::less<>> timing;
  /// Fitted cost-model parameters; null when the target is not calibrated.
  json::Value calibration;
  /// The file `calibration` came from (this target file or a calibration file); empty when null.
  std::string calibrationPath;
  std::string path;
  FileId file = 0;
  SourceRange nameRange;

  std::int64_t limit(std::string_view key) const;
  double machineValue(std::string_view key) const;
  /// A "timing" fact, or 0 when the target has no timing section.
  double timingValue(std::string_view key) const;
  bool hasFeature(std::string_view feature) const;
  bool hasSpace(ir::Space space) const;
  bool hasDType(ir::DType dtype) const;
  bool calibrated() const { return !calibration.isNull(); }
};

/// Every target file of a directory.
class TargetSet {
public:
  /// Loads `dir/*.json` in name order. Malformed files produce located def-* findings and are
  /// skipped; the returned set holds the valid ones.
  /// `overlay` (a workspace's approved targets) replaces or adds files (applyOverlay).
  static TargetSet load(const std::string& dir, SourceManager& sources, DiagnosticEngine& diags,
                        const std::vector<OverlayFile>& overlay = {});
  /// Parses one target document (used by load and by tests).
  static std::unique_ptr<Target> parse(const std::string& path, FileId file,
                                       SourceManager& sources, DiagnosticEngine& diags);

  const Target* find(std::string_view name) const;
  std::vector<std::string> names() const;
  const std::vector<std::unique_ptr<Target>>& all() const { return m_targets; }
  /// (path, content) of every file read, for the compiler revision hash.
  const std::vector<std::pair<std::string, std::string>>& sources() const { return m_sources; }

  /// Attaches the calibration files `dir/<target>.json` (cost-model parameters fitted by
  /// `cake calibrate`) to their targets. A missing directory means "nothing calibrated";
  /// malformed files get located def-* findings and are not attached. `overlay` (a workspace's
  /// approved calibrations) replaces or adds files (applyOverlay).
  void loadCalibrations(const std::string& dir, SourceManager& sources, DiagnosticEngine& diags,
                        const std::vector<OverlayFile>& overlay = {});
  /// The largest fit error a calibration may carry: predictions off by e^5 (about 150x) on
  /// average explain nothing, and the cost bounds (spread exp(2 * error)) would overflow.
  static constexpr double kMaxRmsLogError = 5.0;
  /// Validates one calibration object (a calibration file, or a target's inline "calibration").
  static bool checkCalibration(const json::Value& doc, DiagnosticEngine& diags,
                               std::string_view context);
  /// (file name, content) of every calibration file read, for the compiler revision hash.
  const std::vector<std::pair<std::string, std::string>>& calibrationSources() const {
    return m_calibrationSources;
  }

private:
  std::vector<std::unique_ptr<Target>> m_targets;
  std::vector<std::pair<std::string, std::string>> m_sources;
  std::vector<std::pair<std::string, std::string>> m_calibrationSources;
};

} // namespace cake::target
