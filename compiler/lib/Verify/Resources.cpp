// Resources against the exact target: shared memory (buffers, stages and the barrier storage
// lowering adds), tensor-memory columns, register budgets of warp roles (setmaxnreg), named
// barriers, overlapping buffers, and the residency (CTAs per SM) each resource allows.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Analyses.h"

#include "cake/Verify/BarrierPlan.h"
#include "cake/Verify/SmemFootprint.h"

#include <algorithm>
#include <set>

namespace cake::verify {

SmemFootprint smemFootprint(const sema::KernelModel& m) {
  SmemFootprint f;
  const target::Target* t = m.target;
  f.buffers = m.smemBytes();
  f.barriers = m.derivedSmemBytes();
  f.total = ((f.buffers + 7) / 8) * 8 + f.barriers;
  f.reserved = t ? t->limit("smem_reserved_per_cta_bytes") : 0;
  f.withReserved = f.total + f.reserved;
  f.limit = t ? t->limit("smem_per_cta_bytes") : 0;
  f.perSm = t ? t->limit("smem_per_sm_bytes") : 0;
  return f;
}

} // namespace cake::verify

namespace cake::verify::detail {

namespace {
/// "163,840": digits grouped by thousands.
std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    std::size_t left = digits.size() - i;
    if (i > 0 && left % 3 == 0 && digits[i - 1] != '-')
      out += ',';
    out += digits[i];
  }
  return out;
}

/// "163,840 B".
std::string bytes(std::int64_t n) { return grouped(n) + " B"; }
} // namespace

void checkResources(Context& ctx) {
  const sema::KernelModel& m = ctx.model;
  Reporter& rep = ctx.reporter;
  const target::Target* t = m.target;
  ResourceSummary& res = ctx.result.resources;
  res.threads = m.threadsPerCta();

  // --- shared memory -------------------------------------------------------------------------
  const SmemFootprint smem = smemFootprint(m);
  res.smemBuffers = smem.buffers;
  res.smemBarriers = smem.barriers;
  res.smemTotal = smem.total;
  res.smemLimit = smem.limit;
  if (t && res.smemTotal > res.smemLimit) {
    const sema::BufferInfo* last = nullptr;
    for (const sema::BufferInfo& b : m.buffers)
      if (b.space == ir::Space::Smem && (!last || b.offset + b.totalBytes() > last->offset + last->totalBytes()))
        last = &b;
    SourceRange at = last ? ctx.declRange(last->decl) : rep.range(ctx.module.kernel->name.id);
    Diagnostic* d = rep.report(
        VerifyId::SmemCapacity, at,
        "shared memory needs " + bytes(res.smemTotal) + " per CTA (" + bytes(res.smemBuffers) +
            " of buffers incl. stages + " + bytes(res.smemBarriers) +
            " of barriers) but " + m.targetName + " allows " + bytes(res.smemLimit) + " per CTA");
    if (last)
      addNote(d, ctx.declRange(last->decl),
              "'" + last->name + "' ends at byte " + std::to_string(last->offset + last->totalBytes()) +
                  " (" + std::to_string(last->stages) + " stage(s) of " + bytes(last->stageBytes()) + ")");
    setFix(d, "reduce the stage count or the tile size");
  }
  // Overlapping buffers outside pools.
  for (std::size_t i = 0; i < m.buffers.size(); ++i) {
    const sema::BufferInfo& a = m.buffers[i];
    if (a.space != ir::Space::Smem)
      continue;
    for (std::size_t j = 0; j < i; ++j) {
      const sema::BufferInfo& b = m.buffers[j];
      if (b.space != ir::Space::Smem || (!a.pool.empty() && a.pool == b.pool))
        continue;
      bool overlap = a.offset < b.offset + b.totalBytes() && b.offset < a.offset + a.totalBytes();
      if (!overlap)
        continue;
      Diagnostic* d = rep.report(
          VerifyId::SmemOverlap, ctx.declRange(a.decl),
          "'" + a.name + "' (bytes " + std::to_string(a.offset) + ".." +
              std::to_string(a.offset + a.totalBytes()) + ") overlaps '" + b.name + "' (bytes " +
              std::to_string(b.offset) + ".." + std::to_string(b.offset + b.totalBytes()) +
              "); buffers that share bytes must be views of one pool");
      addNote(d, ctx.declRange(b.decl), "'" + b.name + "' declared here");
    }
  }

  // --- tensor memory ------------------------------------------------------------------------
  std::vector<const sema::BufferInfo*> tmem;
  for (const sema::BufferInfo& b : m.buffers)
    if (b.space == ir::Space::Tmem)
      tmem.push_back(&b);
  for (std::size_t i = 0; i < tmem.size(); ++i) {
    const sema::BufferInfo& b = *tmem[i];
    std::int64_t width = b.colEnd - b.colBegin;
    res.tmemColumns = std::max(res.tmemColumns, b.colEnd);
    bool pow2 = width > 0 && (width & (width - 1)) == 0;
    if (!pow2 || width < 32 || width > 512) {
      const ir::Attribute* cols = b.decl->attribute("cols");
      rep.report(VerifyId::TmemAllocationShape, cols ? rep.range(cols->value->id) : ctx.declRange(b.decl),
                 "'" + b.name + "' spans " + std::to_string(width) +
                     " TMEM columns; tcgen05.alloc allocates a power of two in [32, 512]");
    }
    for (std::size_t j = 0; j < i; ++j) {
      const sema::BufferInfo& o = *tmem[j];
      if (b.colBegin < o.colEnd && o.colBegin < b.colEnd) {
        Diagnostic* d = rep.report(VerifyId::TmemOverlap, ctx.declRange(b.decl),
                                   "'" + b.name + "' (columns " + std::to_string(b.colBegin) + ".." +
                                       std::to_string(b.colEnd) + ") overlaps '" + o.name +
                                       "' (columns " + std::to_string(o.colBegin) + ".." +
                                       std::to_string(o.colEnd) + ")");
        addNote(d, ctx.declRange(o.decl), "'" + o.name + "' declared here");
      }
    }
  }
  if (t && res.tmemColumns > t->limit("tmem_columns") && !tmem.empty()) {
    // Located at the allocation that reaches furthest (declaration order does not matter).
    const sema::BufferInfo* last = *std::max_element(
        tmem.begin(), tmem.end(),
        [](const sema::BufferInfo* a, const sema::BufferInfo* b) { return a->colEnd < b->colEnd; });
    rep.report(VerifyId::TmemCapacity, ctx.declRange(last->decl),
               "'" + last->name + "' ends at column " + std::to_string(last->colEnd) +
                   ": tensor memory columns up to " + std::to_string(res.tmemColumns) +
                   " are used, but " + m.targetName + " has " +
                   std::to_string(t->limit("tmem_columns")));
  }

  // --- registers ----------------------------------------------------------------------------
  std::int64_t threads = res.threads;
  bool budgets = std::any_of(m.roles.begin(), m.roles.end(),
                             [](const sema::RoleInfo& r) { return r.registers.has_value(); });
  std::int64_t perSm = t ? t->limit("registers_per_sm") : 65536;
  std::int64_t maxPerThread = t ? t->limit("registers_per_thread") : 255;
  if (threads > 0) {
    std::int64_t launch = std::min<std::int64_t>((perSm / threads) / 8 * 8, maxPerThread / 8 * 8);
    res.launchRegisters = budgets ? launch : 0;
    if (budgets) {
      std::int64_t total = 0;
      for (const sema::RoleInfo& r : m.roles) {
        std::int64_t regs = r.registers.value_or(launch);
        total += regs * r.threads();
        if (!r.registers)
          continue;
        const ir::Attribute* a = r.decl->attribute("regs");
        SourceRange at = a ? rep.range(a->value->id) : ctx.declRange(r.decl);
        if (*r.registers % 8 != 0)
          rep.report(VerifyId::RegisterBudget, at,
                     "role '" + r.name + "' asks for " + std::to_string(*r.registers) +
                         " registers per thread; setmaxnreg takes multiples of 8 in [24, 256]");
        if (r.warpBegin % 4 != 0 || r.warps() % 4 != 0)
          rep.report(VerifyId::RegisterAlignment, at,
                     "role '" + r.name + "' (warps " + std::to_string(r.warpBegin) + ".." +
                         std::to_string(r.warpEnd) +
                         ") has a register budget but is not made of whole warpgroups; "
                         "setmaxnreg applies to aligned groups of 4 warps");
      }
      if (total > launch * threads) {
        const sema::RoleInfo* biggest = nullptr;
        for (const sema::RoleInfo& r : m.roles)
          if (r.registers && (!biggest || *r.registers > *biggest->registers))
            biggest = &r;
        Diagnostic* d = rep.report(
            VerifyId::RegisterTotal, ctx.declRange(biggest->decl),
            "the role budgets need " + grouped(total) + " registers, but the CTA of " +
                std::to_string(threads) + " threads is launched with " + std::to_string(launch) +
                " per thread = " + grouped(launch * threads) +
                "; setmaxnreg only moves registers between warpgroups");
        for (const sema::RoleInfo& r : m.roles)
          addNote(d, ctx.declRange(r.decl),
                  "'" + r.name + "': " + std::to_string(r.threads()) + " threads x " +
                      std::to_string(r.registers.value_or(launch)) + " registers");
      }
    }
  }

  // --- warpgroup alignment -------------------------------------------------------------------
  // Warpgroup-collective instructions (wgmma.*: .sync.aligned over warps 4k..4k+3) and arrives
  // counted per warpgroup act on hardware warpgroups; a role that splits one cannot issue them
  // (the other warps of the warpgroup are not there). A warpgroup-scope op that lowers to
  // per-thread instructions (epilogue.store) is not collective. Roles with regs= already get
  // hw-register-alignment for the same layout.
  std::set<std::string> misaligned;
  for (const sema::OpInfo& op : m.ops) {
    bool collective = op.primitive->issueAttribute ||
                      op.primitive->hardware.ptx.find(".aligned") != std::string::npos;
    if (!collective || issueScope(op, op.attributes) != reg::IssueScope::Warpgroup)
      continue;
    for (const std::string& name : op.roles) {
      const sema::RoleInfo* r = m.role(name);
      if (!r || r->registers || (r->warpBegin % 4 == 0 && r->warps() % 4 == 0) ||
          !misaligned.insert(name).second)
        continue;
      Diagnostic* d = rep.report(
          VerifyId::WarpgroupAlignment, ctx.opRange(op),
          "'" + op.primitive->name + "' is issued per warpgroup, but role '" + r->name +
              "' has warps " + std::to_string(r->warpBegin) + ".." + std::to_string(r->warpEnd) +
              ": " +
              (r->warpBegin % 4 != 0
                   ? "it starts at warp " + std::to_string(r->warpBegin) +
                         ", not at a multiple of 4"
                   : "its " + std::to_string(r->warps()) + " warps are not whole warpgroups") +
              "; a warpgroup is the 4 warps 4k..4k+3");
      addNote(d, ctx.declRange(r->decl), "role '" + r->name + "' declared here");
      setFix(d, "declare '" + r->name + "' on whole warpgroups: warps=4k..4m (e.g. 4..8)");
    }
  }

  // --- named barriers -----------------------------------------------------------------------
  // One plan with lowering: declared nbarriers, role barriers (reduce.cta, role-wide release
  // syncs) and the per-warpgroup barriers of warpgroup-scope releases.
  const BarrierPlan plan = planBarriers(ctx.module, m);
  const std::int64_t named = plan.count; // id 0 is the CTA barrier
  const sema::BarrierInfo* lastNamed = nullptr;
  for (const sema::BarrierInfo& b : m.barriers)
    if (b.named)
      lastNamed = &b;
  if (t && named > t->limit("named_barriers"))
    rep.report(VerifyId::NamedBarrierLimit,
               lastNamed ? ctx.declRange(lastNamed->decl) : rep.range(ctx.module.kernel->name.id),
               "the kernel needs " + std::to_string(named) + " hardware barriers (CTA barrier + " +
                   std::to_string(plan.declared) + " declared + " +
                   std::to_string(named - 1 - plan.declared) +
                   " for role-wide reductions and releases after generic accesses), but " +
                   m.targetName + " has " + std::to_string(t->limit("named_barriers")));

  // --- residency ----------------------------------------------------------------------------
  if (t && threads > 0) {
    auto bound = [&](std::string resource, std::int64_t ctas, std::string detail) {
      res.bounds.push_back({std::move(resource), std::max<std::int64_t>(0, ctas), std::move(detail)});
    };
    bound("threads", t->limit("threads_per_sm") / threads,
          grouped(threads) + " of " + grouped(t->limit("threads_per_sm")) + " threads");
    // The memory view and the CLI show the same figures (SmemFootprint), with their scope.
    if (res.smemTotal > 0)
      bound("shared memory", smem.perSm / smem.withReserved,
            bytes(smem.total) + " per CTA + the reserved " + bytes(smem.reserved) + " = " +
                bytes(smem.withReserved) + " of " + bytes(smem.perSm) + " per SM");
    if (budgets && res.launchRegisters > 0)
      bound("registers", perSm / (res.launchRegisters * threads),
            grouped(res.launchRegisters * threads) + " of " + grouped(perSm) + " registers");
    bound("CTA slots", t->limit("ctas_per_sm"), std::to_string(t->limit("ctas_per_sm")) + " CTAs per SM");
    auto best = std::min_element(res.bounds.begin(), res.bounds.end(),
                                 [](const ResidencyBound& a, const ResidencyBound& b) {
                                   return a.ctasPerSm < b.ctasPerSm;
                                 });
    res.binding = best->resource;
    res.residency = best->ctasPerSm;
    std::string others;
    for (const ResidencyBound& b : res.bounds)
      if (&b != &*best)
        others += (others.empty() ? "" : ", ") + b.resource + " " + std::to_string(b.ctasPerSm);
    if (!others.empty())
      others = "; other limits (CTAs per SM): " + others;
    // A persistent kernel is launched with one CTA per SM whatever fits, and a warp-specialized
    // kernel at one CTA per SM hides latency inside the CTA by design: for both the residency
    // is a choice, not news, so it stays in the resource summary and is not reported.
    bool persistent = m.grid && m.grid->persistent;
    bool specializedAtOne = m.roles.size() > 1 && res.residency <= 1;
    if (!persistent && !specializedAtOne)
      rep.report(VerifyId::Residency, rep.range(ctx.module.kernel->name.id),
                 "at most " + std::to_string(res.residency) + " CTA(s) per SM, bound by " +
                     res.binding + " (" + best->detail + ")" + others +
                     (budgets ? "" : "; registers are decided by ptxas (no role budget declared)"));
  }
}

} // namespace cake::verify::detail
