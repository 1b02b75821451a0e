// The cost model: predicted kernel time with bounds, the bottleneck attributed to operations and
// roles, roofline coordinates and what-if hints, computed from a checked kernel and the cited
// facts of its exact target (docs/cost.md has the equations).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"
#include "cake/Support/Json.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake::cost {

/// The calibratable parameters: multipliers of the target's cited facts plus the fixed
/// per-launch overhead. Uncalibrated targets use efficiency 1 (datasheet peaks), latency scale 1
/// (the target's estimated latencies) and the target's launch-overhead estimate.
struct Params {
  double tensorEfficiency = 1.0; ///< achieved / datasheet tensor-core throughput
  double hbmEfficiency = 1.0;    ///< achieved / datasheet HBM bandwidth
  double l2Efficiency = 1.0;     ///< achieved / estimated L2 bandwidth
  double smemEfficiency = 1.0;   ///< achieved / nominal shared-memory bandwidth
  double aluEfficiency = 1.0;    ///< CUDA-core (ALU and SFU) throughput
  double tmemEfficiency = 1.0;   ///< tensor-memory load/store throughput
  double latencyScale = 1.0;     ///< multiplies every latency fact
  double launchOverheadUs = 0.0; ///< fixed cost per launch
  /// Root-mean-square log error of the fit that produced these parameters (0: not fitted).
  double rmsLogError = 0.0;

  static constexpr int kCount = 8; ///< fittable parameters (rmsLogError is not one)
  double& at(int i);
  double at(int i) const;
  /// The calibration-file key of parameter i (target::calibrationKeys() order).
  static std::string_view name(int i);
};

/// The parameters of a target: its calibration when it has one, otherwise the defaults.
struct Calibration {
  Params params;
  bool calibrated = false;
  std::string source; ///< calibration file, or empty
};
Calibration calibrationFor(const target::Target& target);

/// A replacement of one source range of the kernel text (what-if rewrites, hint edits).
struct TextEdit {
  SourceRange range;
  std::string replacement;
};

/// Bytes moved per memory level (kernel totals).
struct LevelBytes {
  double hbm = 0, l2 = 0, smem = 0, tmem = 0, reg = 0;
};

struct OpCost {
  std::size_t op = 0; ///< index into KernelModel::ops
  std::string primitive;
  SharedList<std::string> roles;
  SourceRange range;
  std::string costClass;       ///< the primitive's cost class (tensor, tma, global_memory, ...)
  std::string pipe;            ///< tensor, global, smem, alu, sfu, tmem or none
  double executionsPerCta = 0; ///< executions by the busiest CTA (all its roles)
  double flops = 0;            ///< kernel total, flop-unit work
  double instructions = 0;     ///< kernel total, instr-unit work
  LevelBytes bytes;            ///< kernel totals
  double pipeUs = 0;           ///< busy time of its pipe on the busiest SM
  double stallUs = 0;          ///< waiting at this operation (all roles) on the busiest SM
  double causedUs = 0; ///< waiting of the critical role caused by it (its data, its completion)
  /// Its share of the bottleneck resource (Estimate::bottleneckResource): of the HBM or L2
  /// bytes, of the bottleneck pipe's busy time, or of the critical role's waiting. The CLI's
  /// attribution; not a share of the time.
  double share = 0;
  /// Its share of the predicted time: pipe time plus caused waiting over the sum of those of
  /// all operations. The one per-op time figure every view shows (graph badges, performance
  /// bars, `cake cost`).
  double timeShare = 0;
  double timeUs = 0; ///< timeShare x the predicted time without the launch overhead (≤ it)
};

struct RoleCost {
  std::string name;
  std::int64_t warps = 0;
  double busyUs = 0;  ///< per CTA: issuing and executing its operations
  double stallUs = 0; ///< per CTA: waiting (barriers, rendezvous, latencies)
  /// Waiting per cause ("barrier full", "sync cta", "latency ld.global", "async wgmma"), per CTA.
  std::vector<std::pair<std::string, double>> stalls;
  bool critical = false; ///< paces the CTA (ends last with the least waiting on other roles)
};

/// Producer/consumer timing of one pipeline (roles that fill and drain its stages).
struct PipelineCost {
  std::string name;
  std::int64_t stages = 1;
  std::vector<std::string> producers, consumers;
  double producerLatencyUs = 0; ///< producer issue to stage full (copy latency + transfer)
  double consumerStageUs = 0;   ///< consumer time per stage, waiting excluded
  double consumerWaitUs = 0;    ///< per CTA: consumers waiting for full stages
  double producerWaitUs = 0;    ///< per CTA: producers waiting for free stages
  double fillUs = 0;            ///< first stage: issue to full
  double drainUs = 0;           ///< last full stage to the end of the CTA's work
  bool latencyExposed = false;  ///< consumers wait in steady state
};

/// One term of the time model with its utilisation of the predicted time.
struct Term {
  std::string resource; ///< tensor, hbm, l2, smem, tmem, alu, sfu, latency
  double us = 0;
  double utilisation = 0;
};

struct Roofline {
  double flops = 0, tensorFlops = 0, hbmBytes = 0, l2Bytes = 0;
  double intensity = 0;      ///< flops / HBM byte
  double achievedTflops = 0; ///< flops / predicted time
  double peakTflops = 0;     ///< tensor peak of the dominant dtype, or the FP32 peak
  std::string peakDtype;
  double peakHbmGbps = 0;
  double ridge = 0;            ///< intensity where the roofs meet
  double attainableTflops = 0; ///< min(peak, intensity x bandwidth)
  double achievedGbps = 0;     ///< HBM bytes / predicted time
  std::string regime;          ///< memory or compute (side of the ridge)
};

struct Launch {
  std::int64_t ctas = 0, smCount = 0, activeSms = 0;
  std::int64_t residency = 0;   ///< CTAs per SM the resources allow
  std::string residencyBinding; ///< the binding resource
  std::int64_t ctasPerSm = 0;   ///< CTAs of the busiest SM
  std::int64_t concurrent = 0;  ///< of those, resident at once
  std::int64_t waves = 0;       ///< ceil(ctas / (SMs x residency))
  std::int64_t tilesPerCta = 0, tilesAnalysed = 0;
  bool persistent = false;
  /// Tile order (docs/cost.md, "Tile order and L2 reuse"): raster dimension and group swizzle.
  std::string raster = "m";
  std::int64_t swizzle = 1;
  /// Tiles in flight at once (one wave of the rasterised order): their distinct A row blocks and
  /// B column blocks are what L2 must hold and what HBM delivers once per wave.
  std::int64_t tilesInFlight = 0;
  /// HBM bytes of the order-aware estimate and of the compulsory lower bound (each global byte
  /// once): the difference is what the order fails to reuse through L2.
  double hbmOrderBytes = 0, hbmCompulsoryBytes = 0;
};

/// A non-blocking suggestion: an IR decision to change and the predicted effect.
struct Hint {
  std::string decision; ///< e.g. "pipeline ring stages"
  std::string from, to;
  std::string message;
  double predictedUs = 0;
  double gain = 0;   ///< relative time saved (0.18 = 18% faster)
  SourceRange range; ///< where the decision is written
  std::vector<TextEdit> edits;
};

/// A what-if variant the hint search re-checked and re-costed.
struct VariantTried {
  std::string decision, from, to;
  std::string outcome;    ///< "refused by the verifier", "no gain", "hint"
  double predictedUs = 0; ///< 0 when refused
};

/// The predicted interval of one verifier trace event in the busiest CTA's analysed tiles, in µs
/// from the CTA's start: an issue from its start (operands ready) to when the role may issue
/// again, a wait or rendezvous from when the role reached it to its release, a point event
/// (arrive, complete_tx, phase completion) at its time (start == end).
struct EventTime {
  double startUs = 0, endUs = 0;
};

struct Estimate {
  bool ok = false;
  std::string error; ///< why there is no estimate (no timing facts, refused kernel)
  std::string kernel, target;
  bool calibrated = false;
  std::string calibrationSource;
  Params params;
  double predictedUs = 0, loUs = 0, hiUs = 0;
  double ctaUs = 0;       ///< one CTA alone (all its tiles)
  std::string bottleneck; ///< memory-bound, tensor-bound, compute-bound, latency/sync-bound,
                          ///< occupancy-bound
  std::string bottleneckResource;
  std::string bottleneckDetail;
  std::vector<std::size_t> bottleneckOps; ///< indices into perOp, largest share first
  std::vector<std::string> bottleneckRoles;
  std::vector<Term> terms;
  Launch launch;
  std::vector<OpCost> perOp;
  std::vector<RoleCost> perRole;
  std::vector<PipelineCost> pipelines;
  Roofline roofline;
  std::vector<Hint> hints;
  std::vector<VariantTried> variants;
  bool hintsSearched = false; ///< what-if variants were considered (Options::hints)
  std::vector<std::string> notes;
  /// The cost model's schedule of the check's verifier trace: one entry per trace event (the
  /// timeline's time axis); empty when the kernel was not simulated.
  std::vector<EventTime> schedule;
};

struct Options {
  bool hints = true;
  std::size_t maxVariants = 2; ///< what-if kernels re-checked for hints
  /// Parameters to use instead of the target's calibration (fitting); null: the target's.
  const Params* params = nullptr;
};

/// The kernel-dependent part of the model, prepared once and evaluated for many parameter sets
/// (calibration). Refers to the CheckResult, which must outlive it.
class Prepared;
struct PreparedDeleter {
  void operator()(Prepared* p) const;
};
using PreparedPtr = std::unique_ptr<Prepared, PreparedDeleter>;

/// Static accounting of an accepted kernel; null with `error` set when it cannot be costed.
PreparedPtr prepare(const driver::CheckResult& check, std::string& error);
/// The estimate for one parameter set, without hints.
Estimate evaluate(const Prepared& prepared, const Params& params, bool calibrated,
                  const std::string& calibrationSource);
/// Just the predicted time (fast path for fitting).
double predictUs(const Prepared& prepared, const Params& params);

/// Costs an accepted kernel with its target's parameters; with options.hints, re-checks what-if
/// variants of its IR decisions (pipeline depth, grid schedule) through `compiler`.
Estimate estimate(const driver::Compiler& compiler, const driver::CheckResult& check,
                  const Options& options = {});

/// Writes the estimate as one JSON object (the keys of `cake cost --format json`).
void writeJson(json::Writer& w, const Estimate& e, const SourceManager& sources);
/// The same members, written into an object the caller has opened.
void writeJsonMembers(json::Writer& w, const Estimate& e, const SourceManager& sources);
/// Human-readable report.
std::string renderText(const Estimate& e, const SourceManager& sources, const std::string& path);

// ----------------------------------------------------------------------------- what-if rewrites

/// The kernel text with pipeline `pipeline` at `stages` stages: the pipeline's and its buffers'
/// stage counts change and later shared-memory buffers move so nothing overlaps. nullopt (with
/// `why`) when the rewrite is impossible (pooled buffers, unknown pipeline).
std::optional<std::string> withPipelineStages(const driver::CheckResult& check,
                                              std::string_view pipeline, std::int64_t stages,
                                              std::string& why,
                                              std::vector<TextEdit>* edits = nullptr);
/// The kernel text with `grid ... schedule=SCHEDULE` (static or persistent).
std::optional<std::string> withSchedule(const driver::CheckResult& check, std::string_view schedule,
                                        std::string& why, std::vector<TextEdit>* edits = nullptr);
/// The kernel text with constants replaced (`const NAME = VALUE`), for shape overrides.
std::optional<std::string> withConsts(const driver::CheckResult& check,
                                      const std::map<std::string, std::int64_t>& values,
                                      std::string& why);

} // namespace cake::cost
