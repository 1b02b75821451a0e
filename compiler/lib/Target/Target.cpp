// Loading and validation of target data files.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Target/Target.h"
#include "cake/Support/DataFiles.h"

#include "cake/Support/JsonSchema.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <filesystem>

namespace cake::target {

namespace {
constexpr std::string_view kLimitKeys[] = {
    "threads_per_cta",         "warps_per_sm",       "threads_per_sm",
    "ctas_per_sm",             "registers_per_sm",   "registers_per_thread",
    "registers_per_cta",       "smem_per_sm_bytes",  "smem_per_cta_bytes",
    "smem_static_per_cta_bytes", "smem_reserved_per_cta_bytes", "tmem_columns",
    "tmem_lanes",              "cluster_max_ctas",   "cluster_max_ctas_nonportable",
    "named_barriers",          "grid_max_x",         "grid_max_yz",
};
constexpr std::string_view kMachineKeys[] = {
    "sm_count",          "boost_clock_mhz",   "hbm_bandwidth_gbps",          "hbm_bytes",
    "l2_bytes",          "l2_bandwidth_gbps", "smem_bytes_per_clock_per_sm", "fp32_tflops",
};
constexpr std::string_view kFeatureKeys[] = {
    "mma.sync",          "ldmatrix",        "stmatrix",          "cp.async",
    "cp.async.bulk",     "tma",             "tma.multicast",     "mbarrier",
    "mbarrier.expect_tx", "mbarrier.try_wait", "clusters",        "distributed_smem",
    "setmaxnreg",        "wgmma",           "tcgen05",           "tmem",
    "cta_pair_mma",      "fence.proxy.async", "named_barriers",  "elect.sync",
    "redux.sync",        "fp8_mma",         "fp4_mma",           "griddepcontrol",
};

// Cost-model timing facts: latencies measured by published microbenchmarks or estimated, and
// per-SM rates the machine section does not give (docs/cost.md explains each).
constexpr std::string_view kTimingKeys[] = {
    "dram_latency_ns",     "l2_latency_ns",          "smem_latency_cycles",
    "mma_latency_cycles",  "tmem_latency_cycles",    "tma_issue_cycles",
    "mbarrier_wait_cycles", "cta_sync_cycles",       "launch_overhead_us",
    "sfu_ops_per_clock_per_sm", "tmem_bytes_per_clock_per_sm",
};
// Parameters `cake calibrate` fits (multipliers of the cited facts, and the launch overhead).
constexpr std::string_view kCalibrationKeys[] = {
    "tensor_efficiency", "hbm_efficiency", "l2_efficiency",  "smem_efficiency",
    "alu_efficiency",    "tmem_efficiency", "latency_scale", "launch_overhead_us",
};

template <typename T, typename Read>
void readFacts(json::ObjectReader& parent, std::string_view field,
               std::span<const std::string_view> keys, bool allKeysRequired,
               std::map<std::string, Fact<T>, std::less<>>& out, Read read) {
  const json::Value* obj = parent.field(field, json::Kind::Object, true);
  if (!obj)
    return;
  json::ObjectReader facts(*obj, parent.diags(), "\"" + std::string(field) + "\"");
  for (const json::Member& m : obj->members) {
    bool known = keys.empty() || std::find(keys.begin(), keys.end(), m.key) != keys.end();
    if (!known)
      continue; // reported by finish() with a suggestion
    json::ObjectReader fact(m.value, parent.diags(), "fact \"" + m.key + "\"");
    Fact<T> f;
    fact.allow("value");
    const json::Value* raw = m.value.isObject() ? m.value.get("value") : nullptr;
    if (!raw) {
      if (fact.isObject())
        parent.diags().report(DiagId::DefMissingField, json::headRange(m.value),
                              "fact \"" + m.key + "\" lacks \"value\"");
      parent.fail();
      continue;
    }
    if (!read(*raw, f.value)) {
      fact.invalid(*raw, "fact \"" + m.key + "\" has a value of the wrong type");
      parent.fail();
      continue;
    }
    auto source = fact.string("source", true);
    if (source && source->empty()) {
      fact.invalid(*m.value.get("source"), "fact \"" + m.key + "\" needs a non-empty citation");
    }
    fact.finish();
    if (!fact.ok()) {
      parent.fail();
      continue;
    }
    f.source = source.value_or("");
    f.range = m.value.range;
    facts.allow(m.key);
    out.emplace(m.key, std::move(f));
  }
  if (allKeysRequired) {
    for (std::string_view key : keys) {
      facts.allow(key);
      if (!obj->get(key)) {
        parent.diags().report(DiagId::DefMissingField, json::headRange(*obj),
                              "\"" + std::string(field) + "\" lacks \"" + std::string(key) +
                                  "\" (every target states every " + std::string(field) +
                                  " entry explicitly)");
        parent.fail();
      }
    }
  }
  facts.finish();
  if (!facts.ok())
    parent.fail();
}

bool readInt(const json::Value& v, std::int64_t& out) {
  if (!v.isNumber() || !v.integer)
    return false;
  out = *v.integer;
  return true;
}
bool readDouble(const json::Value& v, double& out) {
  if (!v.isNumber())
    return false;
  out = v.number;
  return true;
}
bool readBool(const json::Value& v, bool& out) {
  if (!v.isBool())
    return false;
  out = v.boolean;
  return true;
}

std::vector<std::string_view> dtypeNames() {
  std::vector<std::string_view> names;
  for (const ir::DTypeInfo& d : ir::allDTypes())
    names.push_back(d.name);
  return names;
}

} // namespace

std::span<const std::string_view> limitKeys() { return kLimitKeys; }
std::span<const std::string_view> machineKeys() { return kMachineKeys; }
std::span<const std::string_view> featureKeys() { return kFeatureKeys; }
std::span<const std::string_view> timingKeys() { return kTimingKeys; }
std::span<const std::string_view> calibrationKeys() { return kCalibrationKeys; }

std::int64_t Target::limit(std::string_view key) const {
  auto it = limits.find(key);
  return it == limits.end() ? 0 : it->second.value;
}
double Target::machineValue(std::string_view key) const {
  auto it = machine.find(key);
  return it == machine.end() ? 0.0 : it->second.value;
}
double Target::timingValue(std::string_view key) const {
  auto it = timing.find(key);
  return it == timing.end() ? 0.0 : it->second.value;
}
bool Target::hasFeature(std::string_view feature) const {
  auto it = features.find(feature);
  return it != features.end() && it->second.value;
}
bool Target::hasSpace(ir::Space space) const {
  return std::find(spaces.begin(), spaces.end(), space) != spaces.end();
}
bool Target::hasDType(ir::DType dtype) const {
  return std::find(dtypes.begin(), dtypes.end(), dtype) != dtypes.end();
}

std::unique_ptr<Target> TargetSet::parse(const std::string& path, FileId file,
                                         SourceManager& sources, DiagnosticEngine& diags) {
  auto doc = json::parse(sources.text(file), file, diags);
  if (!doc)
    return nullptr;
  auto t = std::make_unique<Target>();
  t->path = path;
  t->file = file;
  json::ObjectReader r(*doc, diags, "target file");
  if (!r.isObject())
    return nullptr;
  if (auto name = r.string("name", true)) {
    t->name = *name;
    t->nameRange = doc->get("name")->range;
    bool wellFormed = name->size() > 3 && name->rfind("sm_", 0) == 0;
    if (!wellFormed)
      r.invalid(*doc->get("name"), "target name must look like sm_90a, found \"" + *name + "\"");
  }
  t->gpu = r.string("gpu", true).value_or("");
  t->computeCapability = r.string("compute_capability", true).value_or("");
  t->ptxIsa = r.string("ptx_isa", true).value_or("");
  r.allow("$comment");
  readFacts<std::int64_t>(r, "limits", kLimitKeys, true, t->limits, readInt);
  readFacts<double>(r, "machine", kMachineKeys, true, t->machine, readDouble);
  auto dtypes = dtypeNames();
  readFacts<double>(r, "tensor_tflops", dtypes, false, t->tensorTflops, readDouble);
  readFacts<bool>(r, "features", kFeatureKeys, true, t->features, readBool);
  // Optional: a target without timing facts loads, but the cost model will not estimate it.
  if (doc->get("timing"))
    readFacts<double>(r, "timing", kTimingKeys, true, t->timing, readDouble);
  if (const json::Value* spaces = r.field("spaces", json::Kind::Array, true)) {
    for (const json::Value& s : spaces->elements) {
      auto space = s.isString() ? ir::parseSpace(s.string) : std::nullopt;
      if (!space)
        r.invalid(s, "unknown memory space; expected global, smem, tmem or reg");
      else
        t->spaces.push_back(*space);
    }
  }
  if (const json::Value* list = r.field("dtypes", json::Kind::Array, true)) {
    for (const json::Value& s : list->elements) {
      auto dt = s.isString() ? ir::parseDType(s.string) : std::nullopt;
      if (!dt)
        r.invalid(s, "unknown data type");
      else
        t->dtypes.push_back(*dt);
    }
  }
  if (const json::Value* cal = doc->get("calibration")) {
    r.allow("calibration");
    if (!cal->isNull() && !cal->isObject())
      r.invalid(*cal, "\"calibration\" must be null (not calibrated) or an object");
    else if (cal->isObject() && !checkCalibration(*cal, diags, "\"calibration\""))
      r.fail();
    else {
      t->calibration = *cal;
      if (cal->isObject())
        t->calibrationPath = path;
    }
  } else {
    r.field("calibration", json::Kind::Null, true);
  }
  // Cross-checks that keep the data self-consistent.
  if (t->hasFeature("tmem") != t->hasSpace(ir::Space::Tmem)) {
    const json::Value* at = doc->get("spaces");
    r.invalid(at ? *at : *doc, "feature \"tmem\" and space \"tmem\" must agree");
  }
  r.finish();
  if (!r.ok())
    return nullptr;
  return t;
}

TargetSet TargetSet::load(const std::string& dir, SourceManager& sources, DiagnosticEngine& diags,
                          const std::vector<OverlayFile>& overlay) {
  TargetSet set;
  auto files = loadDataFiles(dir, "target", false, 4u << 20, sources, diags, overlay);
  if (!files)
    return set;
  for (const DataFile& file : *files) {
    const std::filesystem::path& p = file.path;
    set.m_sources.emplace_back(file.name, std::string(sources.text(file.file)));
    auto target = parse(p.string(), file.file, sources, diags);
    if (!target)
      continue;
    if (const Target* existing = set.find(target->name)) {
      Diagnostic* d = diags.report(DiagId::DefDuplicate, target->nameRange,
                                   "target '" + target->name + "' is defined twice");
      addNote(d, existing->nameRange, "first definition");
      continue;
    }
    std::string stem = p.stem().string();
    if (stem != target->name) {
      diags.report(DiagId::DefInvalidValue, target->nameRange,
                   "target '" + target->name + "' must live in '" + target->name +
                       ".json', not '" + p.filename().string() + "'");
      continue;
    }
    set.m_targets.push_back(std::move(target));
  }
  return set;
}

bool TargetSet::checkCalibration(const json::Value& doc, DiagnosticEngine& diags,
                                 std::string_view context) {
  json::ObjectReader r(doc, diags, std::string(context));
  if (!r.isObject())
    return false;
  r.allow("$comment");
  r.allow("target"); // checked against the file name by loadCalibrations
  if (const json::Value* params = r.field("params", json::Kind::Object, true)) {
    json::ObjectReader p(*params, diags, "\"params\"");
    for (std::string_view key : kCalibrationKeys) {
      auto v = p.number(key, false);
      if (!v)
        continue;
      // Efficiencies and scales multiply cited facts: they must stay positive and plausible.
      bool overhead = key == "launch_overhead_us";
      double lo = overhead ? 0.0 : 1e-3, hi = overhead ? 1e4 : 1e3;
      if (!(*v >= lo && *v <= hi))
        p.invalid(*params->get(key), "\"" + std::string(key) + "\" must lie in [" +
                                         (overhead ? std::string("0, 10000") : "0.001, 1000") +
                                         "], found " + std::to_string(*v));
    }
    p.finish();
    if (!p.ok())
      r.fail();
  }
  if (const json::Value* fit = r.field("fit", json::Kind::Object, false)) {
    // Free-form provenance of the fit; the cost model reads only rms_log_error (bounds).
    if (const json::Value* e = fit->get("rms_log_error");
        e && (!e->isNumber() || !(e->number >= 0 && e->number <= kMaxRmsLogError)))
      r.invalid(*e, "\"rms_log_error\" must be a number in [0, 5] (a worse fit is no calibration)");
  }
  r.finish();
  return r.ok();
}

void TargetSet::loadCalibrations(const std::string& dir, SourceManager& sources,
                                 DiagnosticEngine& diags, const std::vector<OverlayFile>& overlay) {
  std::error_code ec;
  std::optional<std::vector<DataFile>> files;
  if (!dir.empty() && std::filesystem::is_directory(dir, ec)) {
    files = loadDataFiles(dir, "calibration", false, 4u << 20, sources, diags, overlay);
  } else if (!overlay.empty()) {
    // No built-in calibrations (nothing calibrated) but approved ones in the workspace.
    files.emplace();
    applyOverlay(*files, overlay, "calibration", false, 4u << 20, sources, diags);
  } else {
    return; // nothing calibrated
  }
  for (const DataFile& file : files ? *files : std::vector<DataFile>{}) {
    const std::filesystem::path& p = file.path;
    FileId f = file.file;
    m_calibrationSources.emplace_back(file.name, std::string(sources.text(f)));
    auto doc = json::parse(sources.text(f), f, diags);
    if (!doc || !checkCalibration(*doc, diags, "calibration file"))
      continue;
    std::string stem = p.stem().string();
    Target* target = nullptr;
    for (const auto& t : m_targets)
      if (t->name == stem)
        target = t.get();
    const json::Value* named = doc->get("target");
    SourceRange at = named ? named->range : json::headRange(*doc);
    if (named && (!named->isString() || named->string != stem)) {
      diags.report(DiagId::DefInvalidValue, at,
                   "calibration file '" + p.filename().string() +
                       "' must name its own target \"" + stem + "\"");
      continue;
    }
    if (!target) {
      std::string known;
      for (const std::string& n : names())
        known += (known.empty() ? "" : ", ") + n;
      diags.report(DiagId::DefUnknownTarget, at,
                   "calibration file for '" + stem + "', which has no target file (known: " +
                       known + ")");
      continue;
    }
    if (target->calibration.isObject()) {
      Diagnostic* d = diags.report(DiagId::DefDuplicate, at,
                                   "target '" + stem + "' is calibrated twice");
      addNote(d, target->nameRange, "the target file has an inline \"calibration\"");
      continue;
    }
    target->calibration = std::move(*doc);
    target->calibrationPath = p.string();
  }
}

const Target* TargetSet::find(std::string_view name) const {
  for (const auto& t : m_targets)
    if (t->name == name)
      return t.get();
  return nullptr;
}

std::vector<std::string> TargetSet::names() const {
  std::vector<std::string> out;
  for (const auto& t : m_targets)
    out.push_back(t->name);
  return out;
}

} // namespace cake::target
