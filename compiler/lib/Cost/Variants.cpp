// What-if rewrites of a kernel's IR decisions (pipeline depth with the shared-memory layout
// moved to fit, grid schedule, constants) and the hints derived from re-checking and re-costing
// them: only variants the verifier accepts are suggested.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CostInternal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cake::cost {

std::string applyEdits(std::string text, std::vector<TextEdit> edits) {
  std::stable_sort(edits.begin(), edits.end(), [](const TextEdit& a, const TextEdit& b) {
    return a.range.begin > b.range.begin;
  });
  for (const TextEdit& e : edits) {
    if (e.range.begin > e.range.end || e.range.end > text.size())
      continue;
    text.replace(e.range.begin, e.range.end - e.range.begin, e.replacement);
  }
  return text;
}

namespace {

const ir::Decl* findDecl(const ir::Module& module, ir::DeclKind kind, std::string_view name) {
  if (!module.kernel)
    return nullptr;
  for (const ir::Decl& d : module.kernel->decls)
    if (d.kind == kind && (name.empty() || d.name.name == name))
      return &d;
  return nullptr;
}

SourceRange valueRange(const ir::Module& module, const ir::Attribute* a) {
  return a && a->value ? module.sourceMap.range(a->value->id) : SourceRange{};
}

std::optional<std::string> finish(const driver::CheckResult& check, std::vector<TextEdit> edits,
                                  std::vector<TextEdit>* out) {
  std::string text(check.sources->text(check.file));
  if (out)
    *out = edits;
  return applyEdits(std::move(text), std::move(edits));
}

/// Rounds a layout shift to the 1024-byte alignment that 128B swizzling needs, never moving a
/// buffer by less than the growth in front of it (nor, when shrinking, by more).
std::int64_t alignedShift(std::int64_t growth) {
  constexpr std::int64_t kAlign = 1024;
  if (growth >= 0)
    return (growth + kAlign - 1) / kAlign * kAlign;
  return -((-growth) / kAlign * kAlign);
}

} // namespace

std::optional<std::string> withPipelineStages(const driver::CheckResult& check,
                                              std::string_view pipeline, std::int64_t stages,
                                              std::string& why, std::vector<TextEdit>* edits) {
  const ir::Module& module = check.module;
  const sema::KernelModel& m = check.model;
  const ir::Decl* decl = findDecl(module, ir::DeclKind::Pipeline, pipeline);
  const sema::PipelineInfo* info = m.pipeline(pipeline);
  if (!decl || !info) {
    why = "no pipeline named '" + std::string(pipeline) + "'";
    return std::nullopt;
  }
  if (stages < 1) {
    why = "a pipeline needs at least one stage";
    return std::nullopt;
  }
  if (info->stages > 1 && stages == 1) {
    why = "a single-stage ring drops the stage index of every access; rewrite it by hand";
    return std::nullopt;
  }
  std::vector<TextEdit> out;
  if (info->stages == 1 && stages > 1) {
    // A one-stage buffer is accessed without a stage index; a staged one needs `P.slot` first.
    std::string slot = std::string(pipeline) + ".slot";
    for (const sema::OpInfo& op : m.ops) {
      if (!op.stmt)
        continue;
      for (std::size_t i = 0; i < op.operands.size() && i < op.stmt->operands.size(); ++i) {
        const sema::OperandInfo& o = op.operands[i];
        if (o.entity != sema::EntityKind::Buffer || o.entityIndex >= m.buffers.size() ||
            m.buffers[o.entityIndex].pipeline != pipeline)
          continue;
        const ir::Operand& written = op.stmt->operands[i];
        SourceRange name = module.sourceMap.range(written.name.id);
        if (!name.valid())
          continue;
        SourceRange after{name.file, name.end, name.end};
        std::string_view text = check.sources->text(check.file);
        if (written.subscripted && (name.end >= text.size() || text[name.end] != '[')) {
          why = "cannot place the stage index of '" + written.name.name + "'";
          return std::nullopt;
        }
        if (written.subscripted)
          out.push_back({{name.file, name.end + 1, name.end + 1}, slot + ", "});
        else
          out.push_back({after, "[" + slot + "]"});
      }
    }
  }
  SourceRange at = valueRange(module, decl->attribute("stages"));
  if (!at.valid()) {
    why = "the pipeline's stage count is not written as an attribute";
    return std::nullopt;
  }
  out.push_back({at, std::to_string(stages)});
  // Blocks of the shared-memory layout (top-level buffers and pools) with their growth.
  struct Block {
    std::int64_t offset = 0;
    std::int64_t growth = 0;
    const ir::Decl* decl = nullptr;
  };
  std::vector<Block> blocks;
  for (const sema::BufferInfo& b : m.buffers) {
    if (b.space != ir::Space::Smem)
      continue;
    bool grows = b.pipeline == pipeline;
    if (grows && !b.pool.empty()) {
      why = "buffer '" + b.name + "' of the pipeline lives in a pool; move it by hand";
      return std::nullopt;
    }
    if (grows && b.decl)
      if (SourceRange s = valueRange(module, b.decl->attribute("stages")); s.valid())
        out.push_back({s, std::to_string(stages)});
    if (!b.pool.empty())
      continue; // pooled buffers move with their pool
    blocks.push_back({b.offset, grows ? (stages - info->stages) * b.stageBytes() : 0, b.decl});
  }
  for (const sema::PoolInfo& p : m.pools)
    blocks.push_back({p.offset, 0, p.decl});
  std::stable_sort(blocks.begin(), blocks.end(),
                   [](const Block& a, const Block& b) { return a.offset < b.offset; });
  std::int64_t growth = 0;
  for (std::size_t i = 0; i < blocks.size();) {
    // Everything that starts after a growing block moves by the aligned total growth so far;
    // blocks at one offset alias and move together.
    std::int64_t shift = alignedShift(growth), groupGrowth = 0;
    std::size_t j = i;
    for (; j < blocks.size() && blocks[j].offset == blocks[i].offset; ++j) {
      groupGrowth = std::max(groupGrowth, blocks[j].growth);
      if (shift == 0 || !blocks[j].decl)
        continue;
      SourceRange s = valueRange(module, blocks[j].decl->attribute("offset"));
      if (!s.valid()) {
        why = "'" + blocks[j].decl->name.name + "' has no offset attribute to move";
        return std::nullopt;
      }
      out.push_back({s, std::to_string(blocks[j].offset + shift)});
    }
    if (groupGrowth == 0)
      for (std::size_t k = i; k < j; ++k)
        groupGrowth = std::min(groupGrowth, blocks[k].growth);
    growth += groupGrowth;
    i = j;
  }
  return finish(check, std::move(out), edits);
}

std::optional<std::string> withSchedule(const driver::CheckResult& check, std::string_view schedule,
                                        std::string& why, std::vector<TextEdit>* edits) {
  const ir::Module& module = check.module;
  const ir::Decl* grid = findDecl(module, ir::DeclKind::Grid, {});
  if (!grid) {
    why = "the kernel has no grid declaration";
    return std::nullopt;
  }
  std::vector<TextEdit> out;
  const ir::Attribute* a = grid->attribute("schedule");
  if (a) {
    out.push_back({valueRange(module, a), std::string(schedule)});
  } else {
    if (schedule == "static") {
      why = "the grid is already static";
      return std::nullopt;
    }
    SourceRange last = grid->attributes.empty()
                           ? SourceRange{}
                           : module.sourceMap.range(grid->attributes.back().id);
    if (!last.valid()) {
      why = "the grid declaration has no attribute to extend";
      return std::nullopt;
    }
    out.push_back({{last.file, last.end, last.end}, " schedule=" + std::string(schedule)});
  }
  return finish(check, std::move(out), edits);
}

std::optional<std::string> withConsts(const driver::CheckResult& check,
                                      const std::map<std::string, std::int64_t>& values,
                                      std::string& why) {
  std::vector<TextEdit> out;
  for (const auto& [name, value] : values) {
    const ir::Decl* d = findDecl(check.module, ir::DeclKind::Const, name);
    if (!d || !d->value) {
      why = "the kernel has no constant named '" + name + "'";
      return std::nullopt;
    }
    out.push_back({check.module.sourceMap.range(d->value->id), std::to_string(value)});
  }
  return finish(check, std::move(out), nullptr);
}

// ----------------------------------------------------------------------------- hints

namespace {

struct Variant {
  std::string decision, from, to;
  SourceRange range;
  std::string text;
  std::vector<TextEdit> edits;
  std::string reason; ///< the predicted mechanism
  const PipelineCost* pipeline = nullptr;
};

std::string percent(double gain) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", gain * 100.0);
  return buf;
}

std::string micro(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, us < 100 ? "%.2f us" : "%.1f us", us);
  return buf;
}

} // namespace

void addHints(const driver::Compiler& compiler, const driver::CheckResult& check,
              const Prepared& prepared, const Params& params, const Options& options, Estimate& e) {
  (void)prepared;
  const ir::Module& module = check.module;
  std::vector<Variant> variants;
  // 1. Pipelines whose consumers wait on the producer in steady state: deeper rings.
  std::vector<const PipelineCost*> exposed;
  for (const PipelineCost& pc : e.pipelines)
    if (pc.latencyExposed && pc.stages < 8)
      exposed.push_back(&pc);
  std::stable_sort(exposed.begin(), exposed.end(),
                   [](const PipelineCost* a, const PipelineCost* b) {
                     return a->consumerWaitUs > b->consumerWaitUs;
                   });
  for (const PipelineCost* pc : exposed) {
    const ir::Decl* decl = findDecl(module, ir::DeclKind::Pipeline, pc->name);
    if (!decl)
      continue;
    std::vector<std::int64_t> depths{std::min<std::int64_t>(8, pc->stages * 2)};
    if (pc->stages + 1 != depths[0])
      depths.push_back(pc->stages + 1);
    for (std::int64_t s : depths) {
      Variant v;
      std::string why;
      auto text = withPipelineStages(check, pc->name, s, why, &v.edits);
      if (!text)
        continue;
      v.decision = "pipeline " + pc->name + " stages";
      v.from = std::to_string(pc->stages);
      v.to = std::to_string(s);
      v.range = valueRange(module, decl->attribute("stages"));
      v.text = std::move(*text);
      v.pipeline = pc;
      variants.push_back(std::move(v));
    }
  }
  // 2. A persistent grid that keeps fewer CTAs per SM resident than the resources allow.
  if (e.bottleneck == "occupancy-bound" && e.bottleneckResource == "grid" && e.launch.persistent) {
    Variant v;
    std::string why;
    if (auto text = withSchedule(check, "static", why, &v.edits)) {
      const ir::Decl* grid = findDecl(module, ir::DeclKind::Grid, {});
      v.decision = "grid schedule";
      v.from = "persistent";
      v.to = "static";
      v.range = grid ? valueRange(module, grid->attribute("schedule")) : SourceRange{};
      v.text = std::move(*text);
      variants.insert(variants.begin(), std::move(v));
    }
  }
  if (variants.size() > options.maxVariants)
    variants.resize(options.maxVariants);

  Options inner;
  inner.hints = false;
  inner.params = &params;
  std::vector<std::pair<std::string, std::string>> seen; // decision -> best "to" so far
  for (Variant& v : variants) {
    driver::CheckResult r = compiler.check(check.sources->name(check.file), v.text);
    VariantTried tried{v.decision, v.from, v.to, "refused by the verifier", 0.0};
    if (!r.accepted) {
      e.variants.push_back(tried); // the verifier would refuse it: never suggested
      continue;
    }
    Estimate ve = estimate(compiler, r, inner);
    if (!ve.ok || e.predictedUs <= 0)
      continue;
    double gain = 1.0 - ve.predictedUs / e.predictedUs;
    tried.predictedUs = ve.predictedUs;
    tried.outcome = gain < 0.02 ? "no gain" : "hint";
    e.variants.push_back(tried);
    if (gain < 0.02)
      continue;
    // Keep only the best variant of each decision.
    auto same = std::find_if(e.hints.begin(), e.hints.end(),
                             [&](const Hint& h) { return h.decision == v.decision; });
    if (same != e.hints.end()) {
      if (same->gain >= gain)
        continue;
      e.hints.erase(same);
    }
    Hint h;
    h.decision = v.decision;
    h.from = v.from;
    h.to = v.to;
    h.range = v.range;
    h.edits = v.edits;
    h.predictedUs = ve.predictedUs;
    h.gain = gain;
    std::string mechanism;
    if (v.pipeline) {
      bool still = false;
      for (const PipelineCost& pc : ve.pipelines)
        if (pc.name == v.pipeline->name)
          still = pc.latencyExposed;
      mechanism = still ? "producer latency less exposed" : "producer latency no longer exposed";
      h.message = "pipeline '" + v.pipeline->name + "': " + v.to + " stages instead of " + v.from +
                  ": " + mechanism;
    } else {
      mechanism = std::to_string(ve.launch.concurrent) + " CTAs per SM resident instead of " +
                  std::to_string(e.launch.concurrent) + " hide the waiting";
      h.message = "grid schedule=" + v.to + " instead of " + v.from + ": " + mechanism;
    }
    h.message += ", -" + percent(gain) + " predicted (" + micro(e.predictedUs) + " -> " +
                 micro(ve.predictedUs) + ")";
    e.hints.push_back(std::move(h));
  }
  std::stable_sort(e.hints.begin(), e.hints.end(),
                   [](const Hint& a, const Hint& b) { return a.gain > b.gain; });
}

} // namespace cake::cost
