// The cost model: static work accounting per operation, a re-timing of the verifier's protocol
// trace (per-role timelines with pipes, latencies and barrier waits), and the kernel-level
// combination with residency, waves, HBM and L2 (docs/cost.md).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Cost/CostModel.h"

#include "CostInternal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

namespace cake::cost {

// ----------------------------------------------------------------------------- parameters

double& Params::at(int i) {
  switch (i) {
  case 0:
    return tensorEfficiency;
  case 1:
    return hbmEfficiency;
  case 2:
    return l2Efficiency;
  case 3:
    return smemEfficiency;
  case 4:
    return aluEfficiency;
  case 5:
    return tmemEfficiency;
  case 6:
    return latencyScale;
  default:
    return launchOverheadUs;
  }
}
double Params::at(int i) const {
  return const_cast<Params*>(this)->at(i);
}
std::string_view Params::name(int i) {
  auto keys = target::calibrationKeys();
  return i >= 0 && std::size_t(i) < keys.size() ? keys[std::size_t(i)] : std::string_view();
}

Calibration calibrationFor(const target::Target& target) {
  Calibration c;
  c.params.launchOverheadUs = target.timingValue("launch_overhead_us");
  if (!target.calibration.isObject())
    return c;
  c.calibrated = true;
  c.source = target.calibrationPath;
  if (const json::Value* params = target.calibration.get("params"))
    for (int i = 0; i < Params::kCount; ++i)
      if (const json::Value* v = params->get(Params::name(i)); v && v->isNumber())
        c.params.at(i) = v->number;
  if (const json::Value* fit = target.calibration.get("fit"))
    if (const json::Value* e = fit->get("rms_log_error"); e && e->isNumber())
      c.params.rmsLogError = e->number;
  return c;
}

void PreparedDeleter::operator()(Prepared* p) const {
  delete p;
}

namespace detail {

std::string_view pipeName(Pipe p) {
  switch (p) {
  case Pipe::Tensor:
    return "tensor";
  case Pipe::Global:
    return "global";
  case Pipe::Smem:
    return "smem";
  case Pipe::Alu:
    return "alu";
  case Pipe::Sfu:
    return "sfu";
  case Pipe::Tmem:
    return "tmem";
  case Pipe::None:
    break;
  }
  return "none";
}

} // namespace detail

using namespace detail;

namespace {

Pipe pipeOf(std::string_view cls) {
  if (cls == "tensor")
    return Pipe::Tensor;
  if (cls == "tma" || cls == "global_memory")
    return Pipe::Global;
  if (cls == "shared_memory")
    return Pipe::Smem;
  if (cls == "tmem")
    return Pipe::Tmem;
  if (cls == "alu")
    return Pipe::Alu;
  if (cls == "sfu")
    return Pipe::Sfu;
  return Pipe::None;
}

double number(const reg::DefValue& v, double fallback) {
  if (v.kind == reg::DefValue::Kind::Int)
    return double(v.i);
  if (v.kind == reg::DefValue::Kind::Float)
    return v.f;
  return fallback;
}

double factBytes(const reg::OperandFacts& f) {
  double elems = 1;
  for (std::int64_t d : f.shape)
    elems *= double(d);
  return std::ceil(elems * ir::info(f.dtype).bits / 8.0);
}

/// Issuing instances of an operation per execution by `role`: the primitive's issue scope,
/// reduced to the coarsest scope of its register operands (a warp-scoped tile is one fragment
/// per warp, however many threads issue the instruction).
double instancesOf(const sema::OpInfo& op, const sema::RoleInfo& role,
                   const sema::KernelModel& model) {
  reg::IssueScope scope = op.primitive->issue;
  if (op.primitive->issueAttribute) {
    std::size_t i = *op.primitive->issueAttribute;
    if (i < op.attributes.size() && op.attributes[i].kind == reg::DefValue::Kind::Symbol)
      if (auto s = reg::parseIssueScope(op.attributes[i].sym))
        scope = *s;
  }
  double warps = double(role.warps());
  double groups = std::ceil(warps / 4.0);
  double n = 1;
  switch (scope) {
  case reg::IssueScope::Thread:
    n = warps * 32;
    break;
  case reg::IssueScope::Warp:
    n = warps;
    break;
  case reg::IssueScope::Warpgroup:
    n = groups;
    break;
  case reg::IssueScope::Role:
  case reg::IssueScope::Elected:
    n = 1;
    break;
  }
  for (const sema::OperandInfo& o : op.operands) {
    if (o.entity != sema::EntityKind::Buffer || o.entityIndex >= model.buffers.size())
      continue;
    const sema::BufferInfo& b = model.buffers[o.entityIndex];
    if (b.space != ir::Space::Reg)
      continue;
    if (b.scope == "warp")
      n = std::min(n, warps);
    else if (b.scope == "warpgroup")
      n = std::min(n, groups);
    else if (b.scope == "role")
      n = 1;
  }
  return std::max(1.0, n);
}

/// A view of the dtype table's name (static storage), or empty.
std::string_view tensorDtype(const sema::OpInfo& op, const target::Target& t) {
  // The first read operand whose element type the target rates (the A operand of an MMA).
  for (std::size_t i = 0; i < op.operands.size() && i < op.primitive->operands.size(); ++i) {
    const reg::OperandDef& def = op.primitive->operands[i];
    if (def.access != reg::Access::Read)
      continue;
    std::string_view name = ir::toString(op.operands[i].facts.dtype);
    if (t.tensorTflops.count(std::string(name)))
      return name;
  }
  return {};
}

} // namespace

// ----------------------------------------------------------------------------- prepare

PreparedPtr prepare(const driver::CheckResult& check, std::string& error) {
  const sema::KernelModel& m = check.model;
  if (!check.accepted) {
    error = "the kernel has blocking findings; costing an illegal kernel is meaningless";
    return nullptr;
  }
  if (!m.target || !check.verification.ran || !m.grid) {
    error = "the kernel was not verified (no target, grid or analysis)";
    return nullptr;
  }
  const target::Target& t = *m.target;
  if (t.timing.empty()) {
    error = "not calibrated: target '" + t.name +
            "' has no timing facts (latencies), so the cost model cannot estimate it";
    return nullptr;
  }
  PreparedPtr p(new Prepared());
  p->check = &check;
  p->model = &m;
  p->target = &t;
  const verify::VerifyResult& v = check.verification;

  Launch& L = p->launch;
  L.ctas = std::max<std::int64_t>(1, v.ctas);
  L.smCount = std::max<std::int64_t>(1, std::int64_t(t.machineValue("sm_count")));
  L.activeSms = std::min(L.ctas, L.smCount);
  L.residency = std::max<std::int64_t>(1, v.resources.residency);
  L.residencyBinding = v.resources.binding.empty() ? "unknown" : v.resources.binding;
  L.ctasPerSm = (L.ctas + L.smCount - 1) / L.smCount;
  L.concurrent = std::max<std::int64_t>(1, std::min(L.residency, L.ctasPerSm));
  L.waves = (L.ctas + L.smCount * L.residency - 1) / (L.smCount * L.residency);
  L.tilesPerCta = std::max<std::int64_t>(1, v.tilesPerCta);
  L.tilesAnalysed = std::max<std::int64_t>(1, v.tilesAnalysed);
  L.persistent = m.grid->persistent;
  p->totalTiles = double(std::max<std::int64_t>(1, m.grid->tileCount()));
  if (!L.persistent)
    p->totalTiles = double(L.ctas); // one tile per CTA

  // --- per-operation accounting ------------------------------------------------------------
  std::map<std::size_t, double> readTotal, writeTotal; // per global buffer
  p->ops.resize(m.ops.size());
  for (std::size_t i = 0; i < m.ops.size(); ++i) {
    const sema::OpInfo& op = m.ops[i];
    OpStatic& s = p->ops[i];
    const reg::Primitive& prim = *op.primitive;
    sema::OpDefContext ctx(op);
    s.pipe = pipeOf(prim.cost.cls);
    double work = prim.cost.work ? number(reg::evaluate(*prim.cost.work, ctx), 0.0) : 0.0;
    // A multicast TMA load is issued by one CTA of its mask for all popcount(mask) receivers
    // (docs/cost.md, "Clusters"): per CTA it moves bytes / popcount(mask) through L2 and HBM.
    double share = 1.0;
    if (prim.name == "tma.load")
      if (auto idx = prim.attributeIndex("multicast");
          idx && *idx < op.attributes.size() &&
          op.attributes[*idx].kind == reg::DefValue::Kind::Int && op.attributes[*idx].i > 0) {
        std::int64_t ctas = 1;
        for (std::int64_t c : m.grid->cluster)
          ctas *= std::max<std::int64_t>(c, 1);
        int receivers = 0;
        for (std::int64_t c = 0; c < ctas && c < 63; ++c)
          receivers += (op.attributes[*idx].i >> c) & 1;
        if (receivers > 1)
          share = 1.0 / receivers;
      }
    work *= share;
    if (prim.cost.work && work == 0.0 && s.pipe != Pipe::None)
      p->notes.push_back("the cost of '" + prim.name + "' is not statically known; counted as 0");
    if (s.pipe == Pipe::Tensor) {
      s.dtype = tensorDtype(op, t);
      if (s.dtype.empty())
        p->notes.push_back("no tensor throughput for the operand types of '" + prim.name + "' on " +
                           t.name + "; the FP32 peak is used");
    }
    // Effects: data per level, global accesses, registers, groups, fences, syncs.
    bool asyncTx = false, writesReg = false, writesGlobal = false, writesSmem = false;
    std::string_view group; // a view of the registry's effect definition
    for (const reg::EffectDef& e : prim.effects) {
      const sema::OperandInfo* o = e.operandIndex && *e.operandIndex < op.operands.size()
                                       ? &op.operands[*e.operandIndex]
                                       : nullptr;
      switch (e.kind) {
      case reg::EffectKind::Read:
      case reg::EffectKind::Write: {
        if (!o || !o->facts.present)
          break;
        bool write = e.kind == reg::EffectKind::Write;
        double bytes = e.bytes ? number(reg::evaluate(*e.bytes, ctx), factBytes(o->facts))
                               : factBytes(o->facts);
        if (e.completion.rfind("group:", 0) == 0)
          group = std::string_view(e.completion).substr(6);
        if (e.completion.rfind("barrier:", 0) == 0)
          asyncTx = true;
        std::optional<std::size_t> global;
        ir::Space space = o->facts.space;
        if (o->entity == sema::EntityKind::TensorMap && o->entityIndex < m.tensorMaps.size()) {
          space = ir::Space::Global;
          const std::string& src = m.tensorMaps[o->entityIndex].source;
          for (std::size_t b = 0; b < m.buffers.size(); ++b)
            if (m.buffers[b].name == src)
              global = b;
        } else if (o->entity == sema::EntityKind::Buffer && space == ir::Space::Global) {
          global = o->entityIndex;
        }
        if (o->entity != sema::EntityKind::Buffer && o->entity != sema::EntityKind::TensorMap)
          break;
        switch (space) {
        case ir::Space::Global:
          bytes *= share;
          s.bytes.l2 += bytes;
          if (global) {
            GlobalAccess ga{*global, write, bytes};
            // The tile coordinates its subscripts use: the key of the order's L2 reuse.
            for (std::size_t li : op.loops)
              if (li < m.loops.size() && m.loops[li].overTiles &&
                  *e.operandIndex < op.stmt->operands.size()) {
                ga.inTile = true;
                ga.tileDims = tileDimsOf(op.stmt->operands[*e.operandIndex], m.loops[li].var);
              }
            s.globals.push_back(ga);
          }
          writesGlobal |= write;
          break;
        case ir::Space::Smem:
          s.bytes.smem += bytes;
          writesSmem |= write;
          break;
        case ir::Space::Tmem:
          s.bytes.tmem += bytes;
          break;
        case ir::Space::Reg:
          s.bytes.reg += bytes;
          if (o->entity == sema::EntityKind::Buffer) {
            if (write && (e.completion.empty() || e.completion == "sync")) {
              s.regWrites.push_back(o->entityIndex);
              writesReg = true;
            } else if (!write) {
              s.regReads.push_back(o->entityIndex);
            }
          }
          break;
        }
        break;
      }
      case reg::EffectKind::CommitGroup:
        s.commitGroup = e.group;
        break;
      case reg::EffectKind::WaitGroup:
        s.waitGroup = e.group;
        s.waitPending = e.pending ? number(reg::evaluate(*e.pending, ctx), 0.0) : 0.0;
        // Groups closed by a commit keep their newest `pending`; the others (tcgen05.ld/st)
        // wait for everything issued (the verifier's rule).
        s.waitIncludesOpen = !(e.group == "cp.async" || e.group == "bulk" || e.group == "wgmma");
        break;
      case reg::EffectKind::Commit:
        s.commitArrivesGroup = e.group;
        break;
      case reg::EffectKind::Fence:
        if (e.proxy == "async" || e.proxy == "generic")
          s.fence = true;
        break;
      case reg::EffectKind::Sync:
        if (!e.operandIndex && e.syncScope == "role")
          ++s.roleSyncs;
        break;
      default:
        break;
      }
    }
    // A read-modify-write accumulator chains in pipe order (no extra latency per operation).
    for (std::size_t b : s.regReads)
      if (std::find(s.regWrites.begin(), s.regWrites.end(), b) != s.regWrites.end())
        s.accumulates = true;
    if (prim.cost.cls == "tma")
      s.tma = true;
    // How the issuing role experiences the operation.
    if (s.pipe == Pipe::Alu || s.pipe == Pipe::Sfu)
      s.kind = Kind::Compute;
    else if (s.pipe == Pipe::None)
      s.kind = Kind::Sync;
    else if (asyncTx)
      s.kind = Kind::AsyncTx;
    else if (!group.empty())
      s.kind = Kind::AsyncGroup;
    else if (s.pipe == Pipe::Tensor)
      s.kind = Kind::TensorSync;
    else if (writesReg)
      s.kind = Kind::Load;
    else
      s.kind = Kind::Store;
    (void)writesGlobal;
    s.smemWrite = writesSmem && s.pipe == Pipe::Smem;
    s.group = group;
    switch (s.pipe) {
    case Pipe::Global:
      s.latency = Latency::Memory;
      break;
    case Pipe::Smem:
      s.latency = Latency::Smem;
      break;
    case Pipe::Tensor:
      s.latency = Latency::Mma;
      break;
    case Pipe::Tmem:
      s.latency = Latency::Tmem;
      break;
    default:
      s.latency = Latency::None;
      break;
    }
    // Executions per CTA: trip counts of the enclosing loops; a tile loop multiplies by the tiles
    // the CTA owns.
    double trips = 1;
    bool inTile = false;
    for (std::size_t li : op.loops) {
      if (li >= m.loops.size())
        continue;
      const sema::LoopInfo& loop = m.loops[li];
      if (loop.overTiles) {
        inTile = true;
        // A strided role (ping-pong) works on one tile in `tileStride` of its CTA's.
        trips /= double(std::max<std::int64_t>(1, loop.tileStride));
      } else if (loop.runtime)
        trips *= loop.meanTrip; // run-time range: its mean over the tiles (docs/cost.md)
      else
        trips *= double(std::max<std::int64_t>(0, loop.end - loop.begin));
    }
    for (const std::string& rn : op.roles) {
      for (std::size_t r = 0; r < m.roles.size(); ++r) {
        if (m.roles[r].name != rn)
          continue;
        RoleUse u;
        u.role = r;
        u.instances = instancesOf(op, m.roles[r], m);
        u.work = work * u.instances;
        u.perTile = inTile ? trips : 0;
        u.once = inTile ? 0 : trips;
        s.uses.push_back(u);
      }
    }
    s.flopsPerInstance = prim.cost.unit == "flop" ? work : 0;
    s.instrPerInstance = prim.cost.unit == "instr" ? work : 0;
    // Kernel-wide global traffic per buffer.
    for (const RoleUse& u : s.uses) {
      double total = u.perTile * p->totalTiles + u.once * double(L.ctas);
      for (const GlobalAccess& g : s.globals)
        (g.write ? writeTotal : readTotal)[g.buffer] += g.bytes * u.instances * total;
    }
  }

  // --- HBM: compulsory traffic, L2 captures re-reads (docs/cost.md, "Memory levels") ---------
  // Inside a tile loop the reuse is what the tile order gives: per wave of tiles in flight, each
  // distinct A row block / B column block comes from HBM once (docs/cost.md, "Tile order and
  // L2 reuse"); never below the compulsory traffic (each byte once).
  L.raster = m.grid->rasterN ? "n" : "m";
  L.swizzle = m.grid->swizzle;
  {
    std::int64_t stride = 1;
    for (const sema::LoopInfo& l : m.loops)
      if (l.overTiles)
        stride = std::max(stride, l.tileStride);
    L.tilesInFlight = L.persistent ? L.ctas * stride
                                   : std::min(L.ctas, L.smCount * L.residency);
  }
  // Per global buffer (reads and writes apart): the tile coordinates its in-tile accesses use
  // and, from the order, the bytes HBM delivers: size x (projections summed over the waves) /
  // (distinct projections), since each projection's share of the buffer comes once per wave.
  std::map<std::pair<std::size_t, bool>, unsigned> tileDims;
  for (const OpStatic& s : p->ops)
    for (const GlobalAccess& g : s.globals)
      if (g.inTile)
        tileDims[{g.buffer, g.write}] |= g.tileDims;
  std::map<std::pair<std::size_t, bool>, double> orderFraction;
  for (const auto& [key, dims] : tileDims) {
    const auto& totals = key.second ? writeTotal : readTotal;
    double total = totals.count(key.first) ? totals.at(key.first) : 0.0;
    std::optional<double> miss = orderMissFraction(*m.grid, dims, L.tilesInFlight);
    if (!miss || total <= 0)
      continue;
    double projections = 1;
    for (std::size_t d = 0; d < m.grid->tiles.size() && d < 3; ++d)
      if (dims & (1u << d))
        projections *= double(std::max<std::int64_t>(1, m.grid->tiles[d]));
    double size = double(m.buffers[key.first].totalBytes());
    orderFraction[key] = size * *miss * double(m.grid->tileCount()) / projections / total;
  }
  for (std::size_t i = 0; i < p->ops.size(); ++i) {
    OpStatic& s = p->ops[i];
    double global = 0, hbm = 0, compulsory = 0;
    for (const GlobalAccess& g : s.globals) {
      const auto& totals = g.write ? writeTotal : readTotal;
      double total = totals.count(g.buffer) ? totals.at(g.buffer) : 0.0;
      double size = double(m.buffers[g.buffer].totalBytes());
      double fraction = total > 0 ? std::min(1.0, size / total) : 1.0;
      global += g.bytes;
      compulsory += g.bytes * fraction;
      if (auto it = orderFraction.find({g.buffer, g.write}); it != orderFraction.end())
        fraction = std::min(1.0, std::max(fraction, it->second));
      hbm += g.bytes * fraction;
    }
    s.hbmFraction = global > 0 ? hbm / global : 0.0;
    s.bytes.hbm = hbm;
    for (const RoleUse& u : s.uses) {
      double total = u.perTile * p->totalTiles + u.once * double(L.ctas);
      L.hbmOrderBytes += hbm * u.instances * total;
      L.hbmCompulsoryBytes += compulsory * u.instances * total;
    }
  }

  // --- protocol structure for the timeline ----------------------------------------------------
  p->firstTileOp.assign(m.roles.size(), SIZE_MAX);
  for (std::size_t i = 0; i < m.ops.size(); ++i) {
    bool inTile = false;
    for (std::size_t li : m.ops[i].loops)
      inTile |= li < m.loops.size() && m.loops[li].overTiles;
    if (!inTile)
      continue;
    for (const RoleUse& u : p->ops[i].uses)
      if (p->firstTileOp[u.role] == SIZE_MAX)
        p->firstTileOp[u.role] = i;
  }
  for (std::size_t b = 0; b < m.barriers.size(); ++b)
    p->barrierIndex.emplace(m.barriers[b].name, b);
  if (v.boundReached)
    p->notes.push_back("the verifier's analysis bound was reached: the timeline covers only the "
                       "executions analysed and is extrapolated");
  return p;
}

// ----------------------------------------------------------------------------- rates

namespace {

struct Rates {
  double clockHz = 1e9;
  double tensorDefault = 0;             ///< flop/s per SM for unrated dtypes (the FP32 peak)
  std::map<std::string, double> tensor; ///< flop/s per SM per dtype
  double l2 = 0, hbm = 0;               ///< bytes/s per active SM
  double smem = 0, alu = 0, sfu = 0, tmem = 0;
  double lsu = 0; ///< bytes/s per SM through the load/store units
  double dram = 0, l2Lat = 0, smemLat = 0, mmaLat = 0, tmemLat = 0; ///< seconds
  double tmaIssue = 0, wake = 0, ctaSync = 0, issue = 0;
  double chipHbm = 0, chipL2 = 0; ///< bytes/s
};

Rates ratesFor(const Prepared& p, const Params& q) {
  const target::Target& t = *p.target;
  Rates r;
  double sms = double(p.launch.smCount);
  double active = double(p.launch.activeSms);
  r.clockHz = std::max(1.0, t.machineValue("boost_clock_mhz")) * 1e6;
  auto cycles = [&](double c) { return c / r.clockHz; };
  for (const auto& [dt, f] : t.tensorTflops)
    r.tensor[dt] = f.value * 1e12 / sms * q.tensorEfficiency;
  r.tensorDefault = t.machineValue("fp32_tflops") * 1e12 / sms * q.tensorEfficiency;
  r.chipHbm = t.machineValue("hbm_bandwidth_gbps") * 1e9 * q.hbmEfficiency;
  r.chipL2 = t.machineValue("l2_bandwidth_gbps") * 1e9 * q.l2Efficiency;
  r.hbm = r.chipHbm / active;
  r.l2 = r.chipL2 / active;
  double smemBpc = t.machineValue("smem_bytes_per_clock_per_sm");
  r.smem = smemBpc * r.clockHz * q.smemEfficiency;
  r.lsu = smemBpc * r.clockHz;
  // One FMA (2 flops) per lane per clock: lane-operations per second.
  r.alu = t.machineValue("fp32_tflops") * 1e12 / 2.0 / sms * q.aluEfficiency;
  r.sfu = t.timingValue("sfu_ops_per_clock_per_sm") * r.clockHz * q.aluEfficiency;
  r.tmem = t.timingValue("tmem_bytes_per_clock_per_sm") * r.clockHz * q.tmemEfficiency;
  double s = q.latencyScale;
  r.dram = t.timingValue("dram_latency_ns") * 1e-9 * s;
  r.l2Lat = t.timingValue("l2_latency_ns") * 1e-9 * s;
  r.smemLat = cycles(t.timingValue("smem_latency_cycles")) * s;
  r.mmaLat = cycles(t.timingValue("mma_latency_cycles")) * s;
  r.tmemLat = cycles(t.timingValue("tmem_latency_cycles")) * s;
  r.tmaIssue = cycles(t.timingValue("tma_issue_cycles")) * s;
  r.wake = cycles(t.timingValue("mbarrier_wait_cycles")) * s;
  r.ctaSync = cycles(t.timingValue("cta_sync_cycles")) * s;
  r.issue = cycles(kIssueCycles);
  return r;
}

double safeDiv(double a, double b) {
  return b > 0 ? a / b : (a > 0 ? 1e30 : 0.0);
}

/// Seconds one execution occupies its pipe (all instances).
double service(const OpStatic& s, const RoleUse& u, const Rates& r) {
  switch (s.pipe) {
  case Pipe::Tensor: {
    auto it = r.tensor.find(std::string(s.dtype));
    return safeDiv(u.work, it != r.tensor.end() ? it->second : r.tensorDefault);
  }
  case Pipe::Global:
    // Every byte crosses L2; the fraction that misses must also come from HBM.
    return std::max(safeDiv(u.work, r.l2), safeDiv(u.work * s.hbmFraction, r.hbm));
  case Pipe::Smem:
    return safeDiv(u.work, r.smem);
  case Pipe::Tmem:
    return safeDiv(u.work, r.tmem);
  case Pipe::Alu:
    return safeDiv(u.work, r.alu);
  case Pipe::Sfu:
    return safeDiv(u.work, r.sfu);
  case Pipe::None:
    break;
  }
  return 0.0;
}

double latencyOf(const OpStatic& s, const Rates& r) {
  switch (s.latency) {
  case Latency::Memory:
    return s.hbmFraction * r.dram + (1.0 - s.hbmFraction) * r.l2Lat;
  case Latency::Smem:
    return r.smemLat;
  case Latency::Mma:
    return r.mmaLat;
  case Latency::Tmem:
    return r.tmemLat;
  case Latency::None:
    break;
  }
  return 0.0;
}

// ----------------------------------------------------------------------------- the timeline

struct Group {
  double open = -1;       ///< completion of the operations issued since the last commit
  std::size_t openOp = 0; ///< the operation that completes last among them
  std::vector<std::pair<double, std::size_t>> committed;
  double maxDone = 0;
  std::size_t maxOp = 0;
};

struct RoleState {
  double t = 0;
  double busy = 0;
  std::map<std::string, double> stalls;
  std::int64_t ctaSyncs = 0;
  std::map<std::string, std::int64_t> namedSyncs;
  std::map<std::string, Group> groups;
  double lastAsync = 0;
  double lastIdeal = 0; ///< completion of the last TMA load had its pipe been idle
  double smemWrites = 0;
  std::size_t smemWriteOp = 0;
  std::size_t lastOp = 0;
  std::vector<double> tileStarts;
};

struct Pending {
  double max = 0;
  double idealMax = 0;   ///< without queueing behind other transfers
  std::size_t maxOp = 0; ///< the operation whose contribution came last
  double first = std::numeric_limits<double>::infinity();
  bool data = false; ///< completed by async data (complete_tx or commit): a "full" barrier
};

struct PhaseStats {
  double latencySum = 0; ///< first contribution to completion, queueing excluded
  std::int64_t phases = 0;
  double firstDone = -1;
  double lastDone = 0;
  bool data = false;
  bool releasedFresh = false; ///< waited on before any phase completed: a "free slot" barrier
};

struct Timeline {
  double t1 = 0;  ///< the analysed executions of one CTA
  double cta = 0; ///< extrapolated to every tile of the busiest CTA
  double phi = 1; ///< cta / t1
  /// Operation executions (all roles) of the analysed tiles: simulated, and what the loops'
  /// trip counts call for. They differ when the verifier stopped at its step bound.
  double executionsSimulated = 0, executionsExpected = 0;
  std::vector<RoleState> roles;
  std::vector<double> opStall; ///< waiting at each operation (all roles)
  /// Per role: waiting of that role caused by each operation (the copy whose data it waited
  /// for, the MMA whose completion, the load whose registers).
  std::vector<std::vector<double>> caused;
  std::map<std::string, PhaseStats> barriers;
};

class Simulator {
public:
  /// With `schedule`, records the predicted interval of every trace event there (µs).
  Simulator(const Prepared& p, const Rates& r, std::vector<EventTime>* schedule = nullptr)
      : m_p(p), m_r(r), m_m(*p.model), m_schedule(schedule) {}

  Timeline run() {
    const auto& trace = m_p.check->verification.trace;
    Timeline tl;
    tl.roles.resize(m_m.roles.size());
    tl.opStall.assign(m_m.ops.size(), 0.0);
    tl.caused.assign(m_m.roles.size(), std::vector<double>(m_m.ops.size(), 0.0));
    m_done.assign(trace.size(), 0.0);
    m_issueTimes.assign(m_m.roles.size(), {});
    m_tl = &tl;
    if (m_schedule)
      m_schedule->assign(trace.size(), EventTime{});
    for (std::size_t i = 0; i < trace.size(); ++i)
      step(i, trace[i]);
    double end = 0;
    for (const RoleState& r : tl.roles) {
      end = std::max(end, r.t);
      for (const auto& [name, g] : r.groups)
        end = std::max(end, g.maxDone);
    }
    for (double f : m_free)
      end = std::max(end, f);
    tl.t1 = end;
    end += unanalysedTime(tl);
    // Tiles beyond those analysed repeat the steady state of the last analysed tile.
    const Launch& L = m_p.launch;
    double delta = 0;
    std::int64_t S = L.tilesAnalysed;
    if (L.tilesPerCta > S && S >= 2)
      for (const RoleState& r : tl.roles)
        if (std::int64_t(r.tileStarts.size()) >= S)
          delta =
              std::max(delta, r.tileStarts[std::size_t(S - 1)] - r.tileStarts[std::size_t(S - 2)]);
    if (L.tilesPerCta > S && delta <= 0 && S >= 1)
      delta = end / double(S); // no tile loop seen: scale the whole timeline
    tl.cta = end + double(std::max<std::int64_t>(0, L.tilesPerCta - S)) * delta;
    tl.phi = end > 0 ? tl.cta / end : 1.0;
    return tl;
  }

private:
  /// The verifier stops at its step bound (VerifyOptions::maxSteps): of a loop with 1e9 trips
  /// only the first ~2e5 executions are in the trace, and a timeline of those alone made the
  /// prediction the same for every larger trip count. Each role is extended by the executions
  /// it did not reach (of the analysed tiles; further tiles are extrapolated by the caller) at
  /// the pace of the second half of those it did, when the pipeline has filled: a steady-state
  /// extrapolation, reported as such in the estimate's notes. 0 when the trace is complete.
  double unanalysedTime(Timeline& tl) const {
    const std::int64_t S = m_p.launch.tilesAnalysed;
    double extra = 0;
    for (std::size_t r = 0; r < m_issueTimes.size(); ++r) {
      double expected = 0;
      for (const OpStatic& s : m_p.ops)
        for (const RoleUse& u : s.uses)
          if (u.role == r)
            expected += u.perTile * double(S) + u.once;
      const std::vector<double>& times = m_issueTimes[r];
      double simulated = double(times.size());
      tl.executionsSimulated += simulated;
      tl.executionsExpected += std::max(expected, simulated);
      if (!m_p.check->verification.boundReached || times.size() < 2 || expected <= simulated)
        continue;
      std::size_t mid = times.size() / 2;
      double pace = (tl.roles[r].t - times[mid]) / double(times.size() - mid);
      extra = std::max(extra, (expected - simulated) * std::max(0.0, pace));
    }
    return extra;
  }

  void stall(std::size_t role, const std::string& cause, double amount, std::size_t op,
             std::size_t causeOp) {
    if (amount <= 1e-12) // rounding noise, not waiting
      return;
    m_tl->roles[role].stalls[cause] += amount;
    if (op < m_tl->opStall.size())
      m_tl->opStall[op] += amount;
    if (causeOp < m_tl->caused[role].size())
      m_tl->caused[role][causeOp] += amount;
  }

  const RoleUse* useOf(const OpStatic& s, std::size_t role) const {
    for (const RoleUse& u : s.uses)
      if (u.role == role)
        return &u;
    return nullptr;
  }

  void contribute(const verify::TraceEvent& e, const std::string& barrier, double time, bool data,
                  double ideal = -1, std::size_t causeOp = SIZE_MAX) {
    Pending& p = m_pending[{barrier, e.element}];
    if (time >= p.max)
      p.maxOp = causeOp == SIZE_MAX ? e.op : causeOp;
    p.max = std::max(p.max, time);
    p.idealMax = std::max(p.idealMax, ideal >= 0 ? ideal : time);
    p.first = std::min(p.first, time);
    p.data |= data;
  }

  std::vector<std::size_t> participants(const std::string& barrier) const {
    std::vector<std::size_t> out;
    auto it = m_p.barrierIndex.find(barrier);
    if (barrier == "cta" || it == m_p.barrierIndex.end()) {
      for (std::size_t r = 0; r < m_m.roles.size(); ++r)
        out.push_back(r);
      return out;
    }
    const sema::BarrierInfo& b = m_m.barriers[it->second];
    bool all = std::find(b.roles.begin(), b.roles.end(), "all") != b.roles.end();
    for (std::size_t r = 0; r < m_m.roles.size(); ++r)
      if (all || std::find(b.roles.begin(), b.roles.end(), m_m.roles[r].name) != b.roles.end())
        out.push_back(r);
    return out;
  }

  /// Issues one execution; returns when it started (its operands ready).
  double issue(std::size_t role, const verify::TraceEvent& e) {
    RoleState& R = m_tl->roles[role];
    const OpStatic& s = m_p.ops[e.op];
    const RoleUse* u = useOf(s, role);
    static const RoleUse none{};
    if (!u)
      u = &none;
    if (e.op == m_p.firstTileOp[role])
      R.tileStarts.push_back(R.t);
    double start = R.t;
    // Register scoreboard: operands still in flight (loads, mma.sync results).
    for (std::size_t b : s.regReads) {
      auto it = m_ready.find({role, b});
      if (it == m_ready.end() || it->second.first <= start)
        continue;
      const OpStatic& producer = m_p.ops[it->second.second];
      if (s.accumulates && s.pipe == Pipe::Tensor && producer.pipe == Pipe::Tensor)
        continue; // accumulator chains are pipelined by the tensor cores
      stall(role, "latency " + m_m.ops[it->second.second].primitive->name, it->second.first - start,
            e.op, it->second.second);
      start = it->second.first;
    }
    double svc = service(s, *u, m_r);
    double lat = latencyOf(s, m_r);
    double lsu = (s.pipe == Pipe::Global || s.pipe == Pipe::Smem) && !s.tma
                     ? safeDiv(u->work, m_r.lsu)
                     : 0.0;
    double end = start + m_r.issue;
    auto onPipe = [&](double from) {
      double& free = m_free[std::size_t(s.pipe)];
      double ps = std::max(from, free);
      free = ps + svc;
      return ps + svc;
    };
    switch (s.kind) {
    case Kind::Sync:
      end = start + m_r.issue + double(s.roleSyncs) * m_r.ctaSync;
      break;
    case Kind::Compute: {
      double done = onPipe(start);
      if (done - svc > start)
        stall(role, "pipe " + std::string(pipeName(s.pipe)), done - svc - start, e.op, e.op);
      end = std::max(end, done);
      end += double(s.roleSyncs) * m_r.ctaSync;
      for (std::size_t b : s.regWrites)
        m_ready[{role, b}] = {end, e.op};
      break;
    }
    case Kind::Load: {
      double done = onPipe(start) + lat;
      for (std::size_t b : s.regWrites)
        m_ready[{role, b}] = {done, e.op};
      end = start + m_r.issue + lsu;
      break;
    }
    case Kind::Store: {
      double done = onPipe(start);
      if (s.smemWrite && done >= R.smemWrites) {
        R.smemWrites = done;
        R.smemWriteOp = e.op;
      }
      end = start + m_r.issue + lsu;
      break;
    }
    case Kind::TensorSync: {
      double done = onPipe(start) + lat;
      for (std::size_t b : s.regWrites)
        m_ready[{role, b}] = {done, e.op};
      break;
    }
    case Kind::AsyncGroup: {
      double done = onPipe(start) + lat;
      Group& g = R.groups[std::string(s.group)];
      if (done >= g.open)
        g.openOp = e.op;
      g.open = std::max(g.open, done);
      if (done >= g.maxDone)
        g.maxOp = e.op;
      g.maxDone = std::max(g.maxDone, done);
      end = start + (s.tma ? m_r.tmaIssue : m_r.issue + lsu);
      break;
    }
    case Kind::AsyncTx: {
      R.lastAsync = onPipe(start) + lat;
      R.lastIdeal = start + svc + lat;
      end = start + m_r.tmaIssue;
      break;
    }
    }
    double busyEnd = end;
    if (!s.commitGroup.empty()) {
      Group& g = R.groups[std::string(s.commitGroup)];
      g.committed.push_back(g.open >= 0 ? std::make_pair(g.open, g.openOp)
                                        : std::make_pair(end, std::size_t(e.op)));
      g.open = -1;
    }
    if (!s.waitGroup.empty()) {
      Group& g = R.groups[std::string(s.waitGroup)];
      double until = 0;
      std::size_t causeOp = e.op;
      std::size_t keep = std::size_t(std::max(0.0, s.waitPending));
      while (g.committed.size() > keep) {
        if (g.committed.front().first >= until) {
          until = g.committed.front().first;
          causeOp = g.committed.front().second;
        }
        g.committed.erase(g.committed.begin());
      }
      if (s.waitIncludesOpen && g.open >= 0) {
        if (g.open >= until)
          causeOp = g.openOp;
        until = std::max(until, g.open);
        g.open = -1;
      }
      if (until > end) {
        stall(role, "async " + std::string(s.waitGroup), until - end, e.op, causeOp);
        end = until;
      }
    }
    if (s.fence && R.smemWrites > end) {
      stall(role, "latency fence", R.smemWrites - end, e.op, R.smemWriteOp);
      end = R.smemWrites;
    }
    R.busy += std::max(0.0, busyEnd - start);
    R.t = end;
    R.lastOp = e.op;
    return start;
  }

  /// The recorded interval of event `index` (seconds in, µs stored).
  void record(std::size_t index, double start, double end) {
    if (m_schedule && index < m_schedule->size())
      (*m_schedule)[index] = {start * 1e6, std::max(start, end) * 1e6};
  }

  void step(std::size_t index, const verify::TraceEvent& e) {
    if (e.role >= m_tl->roles.size() || e.op >= m_p.ops.size()) {
      if (m_schedule && index > 0)
        record(index, (*m_schedule)[index - 1].endUs * 1e-6, 0); // keeps the schedule ordered
      return;
    }
    RoleState& R = m_tl->roles[e.role];
    const double before = R.t;
    const std::string barrier(m_p.check->verification.trace.barrier(e));
    using K = verify::TraceEvent::Kind;
    switch (e.kind) {
    case K::Issue: {
      m_issueTimes[e.role].push_back(R.t);
      double start = issue(e.role, e);
      record(index, start, R.t);
      break;
    }
    case K::Wait: {
      if (e.cause < 0)
        m_tl->barriers[barrier].releasedFresh = true;
      double ready = e.cause >= 0 && std::size_t(e.cause) < m_done.size()
                         ? m_done[std::size_t(e.cause)] + m_r.wake
                         : 0.0;
      if (ready > R.t) {
        std::size_t causeOp = e.op;
        if (auto it = m_causeOp.find(std::size_t(e.cause)); it != m_causeOp.end())
          causeOp = it->second;
        stall(e.role, "barrier " + barrier, ready - R.t, e.op, causeOp);
        R.t = ready;
      }
      record(index, before, R.t);
      break;
    }
    case K::Sync: {
      std::int64_t n = barrier == "cta" ? R.ctaSyncs++ : R.namedSyncs[barrier]++;
      auto key = std::make_pair(barrier, n);
      auto it = m_rendezvous.find(key);
      if (it == m_rendezvous.end()) {
        double t = 0;
        std::size_t last = e.op;
        for (std::size_t r : participants(barrier))
          if (m_tl->roles[r].t >= t) {
            t = m_tl->roles[r].t;
            last = m_tl->roles[r].lastOp;
          }
        it = m_rendezvous.emplace(key, t + m_r.ctaSync).first;
        m_lastArrival[key] = last;
      }
      if (it->second > R.t) {
        double own = R.t + m_r.ctaSync;
        stall(e.role, "sync " + barrier, it->second - own, e.op, m_lastArrival[key]);
        R.busy += std::min(m_r.ctaSync, it->second - R.t);
        R.t = it->second;
      }
      record(index, before, R.t);
      break;
    }
    case K::Arrive:
    case K::ExpectTx:
      contribute(e, barrier, R.t, false);
      record(index, R.t, R.t);
      break;
    case K::CompleteTx:
      contribute(e, barrier, R.lastAsync, true, R.lastIdeal);
      record(index, R.lastAsync, R.lastAsync);
      break;
    case K::Commit: {
      const OpStatic& s = m_p.ops[e.op];
      auto it = R.groups.find(std::string(s.commitArrivesGroup));
      bool pending = it != R.groups.end() && it->second.maxDone > R.t;
      double at = pending ? it->second.maxDone : R.t;
      contribute(e, barrier, at, true, -1, pending ? it->second.maxOp : SIZE_MAX);
      record(index, at, at);
      break;
    }
    case K::PhaseDone: {
      auto it = m_pending.find({barrier, e.element});
      Pending p = it != m_pending.end() ? it->second : Pending{R.t, R.t, false};
      if (it != m_pending.end())
        m_pending.erase(it);
      m_done[index] = p.max;
      m_causeOp[index] = p.maxOp;
      record(index, p.max, p.max);
      PhaseStats& st = m_tl->barriers[barrier];
      st.data |= p.data;
      if (std::isfinite(p.first)) {
        st.latencySum += std::max(0.0, p.idealMax - p.first);
        ++st.phases;
      }
      if (st.firstDone < 0)
        st.firstDone = p.max;
      st.lastDone = std::max(st.lastDone, p.max);
      break;
    }
    }
  }

  const Prepared& m_p;
  const Rates& m_r;
  const sema::KernelModel& m_m;
  Timeline* m_tl = nullptr;
  double m_free[kPipes] = {0, 0, 0, 0, 0, 0, 0};
  std::map<std::pair<std::size_t, std::size_t>, std::pair<double, std::size_t>> m_ready;
  std::map<std::pair<std::string, std::int64_t>, Pending> m_pending;
  std::map<std::pair<std::string, std::int64_t>, double> m_rendezvous;
  std::map<std::pair<std::string, std::int64_t>, std::size_t> m_lastArrival;
  std::map<std::size_t, std::size_t> m_causeOp; ///< PhaseDone event -> the op that completed it
  std::vector<double> m_done;
  std::vector<std::vector<double>> m_issueTimes; ///< per role: start of each issued execution
  std::vector<EventTime>* m_schedule = nullptr;  ///< per trace event, when recorded
};

// ----------------------------------------------------------------------------- combination

struct Combined {
  double core = 0; ///< seconds, without the launch overhead
  double sm = 0;
  std::map<std::string, double> terms; ///< seconds per resource
  std::map<Pipe, double> busy;         ///< per busiest CTA, seconds
  double hbmBytes = 0, l2Bytes = 0;
};

Combined combine(const Prepared& p, const Rates& r, const Timeline& tl) {
  const Launch& L = p.launch;
  Combined c;
  for (const OpStatic& s : p.ops)
    for (const RoleUse& u : s.uses) {
      double execs = u.perTile * double(L.tilesPerCta) + u.once;
      c.busy[s.pipe] += service(s, u, r) * execs;
      double total = u.perTile * p.totalTiles + u.once * double(L.ctas);
      c.hbmBytes += s.bytes.hbm * u.instances * total;
      c.l2Bytes += s.bytes.l2 * u.instances * total;
    }
  double n = double(L.ctasPerSm);
  double rounds = std::ceil(n / double(L.concurrent));
  double maxBusy = 0;
  for (const auto& [pipe, b] : c.busy)
    if (pipe != Pipe::None)
      maxBusy = std::max(maxBusy, b);
  c.sm = std::max(n * maxBusy, rounds * tl.cta);
  double hbm = safeDiv(c.hbmBytes, r.chipHbm);
  double l2 = safeDiv(c.l2Bytes, r.chipL2);
  c.core = std::max({c.sm, hbm, l2});
  c.terms["tensor"] = n * c.busy[Pipe::Tensor];
  c.terms["hbm"] = hbm;
  c.terms["l2"] = l2;
  c.terms["smem"] = n * c.busy[Pipe::Smem];
  c.terms["tmem"] = n * c.busy[Pipe::Tmem];
  c.terms["alu"] = n * c.busy[Pipe::Alu];
  c.terms["sfu"] = n * c.busy[Pipe::Sfu];
  c.terms["latency"] = rounds * tl.cta;
  return c;
}

std::string stallCategory(const std::string& cause) {
  return cause.substr(0, cause.find(' '));
}

} // namespace

// ----------------------------------------------------------------------------- evaluate

double predictUs(const Prepared& p, const Params& q) {
  Rates r = ratesFor(p, q);
  Timeline tl = Simulator(p, r).run();
  Combined c = combine(p, r, tl);
  return c.core * 1e6 + q.launchOverheadUs;
}

Estimate evaluate(const Prepared& p, const Params& q, bool calibrated,
                  const std::string& calibrationSource) {
  const sema::KernelModel& m = *p.model;
  const target::Target& t = *p.target;
  const Launch& L = p.launch;
  Rates r = ratesFor(p, q);
  Estimate e;
  Timeline tl = Simulator(p, r, &e.schedule).run();
  Combined c = combine(p, r, tl);
  e.ok = true;
  e.kernel = m.name;
  e.target = t.name;
  e.calibrated = calibrated;
  e.calibrationSource = calibrationSource;
  e.params = q;
  e.launch = L;
  e.notes = p.notes;
  if (tl.executionsExpected > tl.executionsSimulated && tl.executionsSimulated > 0) {
    char note[200];
    std::snprintf(note, sizeof note,
                  "steady state extrapolated: %.3g of %.3g operation executions per CTA were "
                  "simulated; the rest at the pace of the last half simulated",
                  tl.executionsSimulated, tl.executionsExpected);
    e.notes.push_back(note);
  }
  double overhead = q.launchOverheadUs * 1e-6;
  double predicted = c.core + overhead;
  e.predictedUs = predicted * 1e6;
  e.ctaUs = tl.cta * 1e6;
  double rounds = std::ceil(double(L.ctasPerSm) / double(L.concurrent));

  // Bounds: the throughput roofs at datasheet peaks (no latency, no overhead) can never be
  // beaten; around the prediction, the uncertainty of uncalibrated or fitted parameters.
  Params peak;
  Rates rp = ratesFor(p, peak);
  double hardLo = 0;
  {
    Timeline none;
    Combined cp = combine(p, rp, none);
    for (const auto& [name, v] : cp.terms)
      if (name != "latency")
        hardLo = std::max(hardLo, v);
  }
  double spread = calibrated ? std::max(1.1, std::exp(2.0 * q.rmsLogError)) : 1.5;
  if (p.check->verification.boundReached)
    spread *= 1.5; // the timeline saw only part of the executions
  e.loUs = std::max(hardLo, predicted / spread) * 1e6;
  e.loUs = std::min(e.loUs, e.predictedUs);
  e.hiUs = predicted * spread * 1e6;

  for (const auto& [name, v] : c.terms)
    e.terms.push_back({name, v * 1e6, c.core > 0 ? v / c.core : 0.0});
  std::stable_sort(e.terms.begin(), e.terms.end(),
                   [](const Term& a, const Term& b) { return a.us > b.us; });

  // --- per operation ---------------------------------------------------------------------
  const ir::SourceMap& map = p.check->module.sourceMap;
  double n = double(L.ctasPerSm);
  // One entry per operation: sized up front (grown by doubling, the last growth would hold the
  // old and the new table at once, and up to half of the new one unused).
  e.perOp.reserve(m.ops.size());
  for (std::size_t i = 0; i < m.ops.size(); ++i) {
    const OpStatic& s = p.ops[i];
    OpCost oc;
    oc.op = i;
    oc.primitive = m.ops[i].primitive->name;
    oc.roles = m.ops[i].roles;
    oc.range = m.ops[i].stmt ? map.range(m.ops[i].stmt->opName.id) : SourceRange{};
    oc.costClass = m.ops[i].primitive->cost.cls;
    oc.pipe = std::string(pipeName(s.pipe));
    for (const RoleUse& u : s.uses) {
      double execs = u.perTile * double(L.tilesPerCta) + u.once;
      double total = u.perTile * p.totalTiles + u.once * double(L.ctas);
      oc.executionsPerCta += execs;
      oc.flops += s.flopsPerInstance * u.instances * total;
      oc.instructions += s.instrPerInstance * u.instances * total;
      oc.bytes.hbm += s.bytes.hbm * u.instances * total;
      oc.bytes.l2 += s.bytes.l2 * u.instances * total;
      oc.bytes.smem += s.bytes.smem * u.instances * total;
      oc.bytes.tmem += s.bytes.tmem * u.instances * total;
      oc.bytes.reg += s.bytes.reg * u.instances * total;
      oc.pipeUs += service(s, u, r) * execs * n * 1e6;
    }
    oc.stallUs = tl.opStall[i] * tl.phi * rounds * 1e6;
    e.perOp.push_back(std::move(oc));
  }

  // --- roles -------------------------------------------------------------------------------
  for (std::size_t ri = 0; ri < m.roles.size(); ++ri) {
    const RoleState& rs = tl.roles[ri];
    RoleCost rc;
    rc.name = m.roles[ri].name;
    rc.warps = m.roles[ri].warps();
    rc.busyUs = rs.busy * tl.phi * 1e6;
    for (const auto& [cause, v] : rs.stalls) {
      rc.stalls.push_back({cause, v * tl.phi * 1e6});
      rc.stallUs += v * tl.phi * 1e6;
    }
    std::stable_sort(rc.stalls.begin(), rc.stalls.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    e.perRole.push_back(std::move(rc));
  }
  // The critical role waits least on other roles (barriers and rendezvous).
  {
    double best = std::numeric_limits<double>::infinity();
    std::size_t crit = 0;
    for (std::size_t ri = 0; ri < e.perRole.size(); ++ri) {
      double onOthers = 0;
      for (const auto& [cause, v] : e.perRole[ri].stalls)
        if (stallCategory(cause) == "barrier" || stallCategory(cause) == "sync")
          onOthers += v;
      if (onOthers < best - 1e-12) {
        best = onOthers;
        crit = ri;
      }
    }
    if (!e.perRole.empty()) {
      e.perRole[crit].critical = true;
      for (std::size_t i = 0; i < e.perOp.size(); ++i)
        e.perOp[i].causedUs = tl.caused[crit][i] * tl.phi * rounds * 1e6;
    }
  }

  // --- pipelines ---------------------------------------------------------------------------
  for (const sema::PipelineInfo& pl : m.pipelines) {
    PipelineCost pc;
    pc.name = pl.name;
    pc.stages = pl.stages;
    std::set<std::string> fullNames, emptyNames;
    std::int64_t phases = 0;
    for (const sema::BarrierInfo& b : m.barriers) {
      if (b.pipeline != pl.name || b.named)
        continue;
      auto it = tl.barriers.find(b.name);
      bool data = it != tl.barriers.end() && it->second.data && !it->second.releasedFresh;
      (data ? fullNames : emptyNames).insert(b.name);
      if (!data)
        continue;
      for (const std::string& r : b.producers)
        if (std::find(pc.producers.begin(), pc.producers.end(), r) == pc.producers.end())
          pc.producers.push_back(r);
      for (const std::string& r : b.consumers)
        if (std::find(pc.consumers.begin(), pc.consumers.end(), r) == pc.consumers.end())
          pc.consumers.push_back(r);
      if (it->second.phases > 0) {
        pc.producerLatencyUs =
            std::max(pc.producerLatencyUs, it->second.latencySum / double(it->second.phases) * 1e6);
        if (phases == 0 || it->second.phases < phases)
          phases = it->second.phases;
      }
      pc.fillUs = std::max(pc.fillUs, it->second.firstDone * 1e6);
      pc.drainUs = std::max(pc.drainUs, (tl.t1 - it->second.lastDone) * 1e6);
    }
    if (fullNames.empty())
      continue;
    double consumerSpan = 0;
    for (std::size_t ri = 0; ri < m.roles.size(); ++ri) {
      bool consumer = std::find(pc.consumers.begin(), pc.consumers.end(), m.roles[ri].name) !=
                      pc.consumers.end();
      bool producer = std::find(pc.producers.begin(), pc.producers.end(), m.roles[ri].name) !=
                      pc.producers.end();
      for (const auto& [cause, v] : tl.roles[ri].stalls) {
        if (cause.rfind("barrier ", 0) != 0)
          continue;
        std::string b = cause.substr(8);
        if (consumer && fullNames.count(b))
          pc.consumerWaitUs += v * tl.phi * 1e6;
        if (producer && emptyNames.count(b))
          pc.producerWaitUs += v * tl.phi * 1e6;
      }
      if (consumer) {
        // The consumer's own time per stage: its span minus waiting on other roles.
        double span = tl.roles[ri].t;
        for (const auto& [cause, v] : tl.roles[ri].stalls)
          if (stallCategory(cause) == "barrier" || stallCategory(cause) == "sync")
            span -= v;
        consumerSpan = std::max(consumerSpan, span);
      }
    }
    pc.consumerStageUs = phases > 0 ? consumerSpan / double(phases) * 1e6 : 0.0;
    // Consumers that wait beyond the first fill for a noticeable part of the CTA's time see
    // the producer's latency, unless the copies are bandwidth-bound (the global pipe is
    // saturated): then more stages only queue more transfers.
    double steadyWait = pc.consumerWaitUs - pc.fillUs;
    double globalBusy = c.busy.count(Pipe::Global) ? c.busy.at(Pipe::Global) : 0.0;
    pc.latencyExposed = steadyWait > 0.05 * e.ctaUs && globalBusy < kSaturated * tl.cta;
    e.pipelines.push_back(std::move(pc));
  }

  // --- bottleneck ---------------------------------------------------------------------------
  std::string best;
  double bestU = 0;
  for (const Term& term : e.terms)
    if (term.resource != "latency" && term.utilisation > bestU) {
      bestU = term.utilisation;
      best = term.resource;
    }
  // What the critical role waits on most (other roles wait on it by definition).
  std::string dominantCause;
  {
    double top = 0;
    for (const RoleCost& rc : e.perRole)
      if (rc.critical)
        for (const auto& [cause, v] : rc.stalls)
          if (v > top) {
            top = v;
            dominantCause = cause;
          }
  }
  auto shareBy = [&](auto metric) {
    double total = 0;
    for (const OpCost& oc : e.perOp)
      total += metric(oc);
    for (OpCost& oc : e.perOp)
      oc.share = total > 0 ? metric(oc) / total : 0.0;
  };
  if (bestU >= kSaturated) {
    e.bottleneckResource = best;
    if (best == "tensor")
      e.bottleneck = "tensor-bound";
    else if (best == "alu" || best == "sfu")
      e.bottleneck = "compute-bound";
    else
      e.bottleneck = "memory-bound";
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s at %.0f%% of the predicted time", best.c_str(),
                  bestU * 100.0);
    e.bottleneckDetail = buf;
    if (best == "hbm")
      shareBy([](const OpCost& oc) { return oc.bytes.hbm; });
    else if (best == "l2")
      shareBy([](const OpCost& oc) { return oc.bytes.l2; });
    else {
      std::string pipe =
          best == "tensor" || best == "alu" || best == "sfu" || best == "smem" || best == "tmem"
              ? best
              : "global";
      shareBy([&](const OpCost& oc) { return oc.pipe == pipe ? oc.pipeUs : 0.0; });
    }
  } else {
    bool gridLimited = L.concurrent < L.residency;
    bool resourceLimited =
        (L.residencyBinding == "shared memory" || L.residencyBinding == "registers") &&
        stallCategory(dominantCause) == "latency";
    char buf[256];
    if (gridLimited || resourceLimited) {
      e.bottleneck = "occupancy-bound";
      e.bottleneckResource = gridLimited ? "grid" : L.residencyBinding;
      if (gridLimited)
        std::snprintf(buf, sizeof buf,
                      "%lld CTA(s) per SM at a time (%s grid of %lld CTAs on %lld SMs) while the "
                      "resources allow %lld; waiting dominates (%s)",
                      (long long)L.concurrent, L.persistent ? "persistent" : "static",
                      (long long)L.ctas, (long long)L.smCount, (long long)L.residency,
                      dominantCause.c_str());
      else
        std::snprintf(buf, sizeof buf, "%s allows %lld CTA(s) per SM, too few to hide %s",
                      L.residencyBinding.c_str(), (long long)L.residency, dominantCause.c_str());
    } else {
      e.bottleneck = "latency/sync-bound";
      e.bottleneckResource = dominantCause.empty() ? "latency" : dominantCause;
      std::string critical;
      for (const RoleCost& rc : e.perRole)
        if (rc.critical)
          critical = rc.name;
      std::snprintf(buf, sizeof buf,
                    "the busiest pipe (%s) is used %.0f%% of the time; the critical role '%s' "
                    "waits most on %s",
                    best.empty() ? "none" : best.c_str(), bestU * 100.0, critical.c_str(),
                    dominantCause.empty() ? "issue" : dominantCause.c_str());
    }
    e.bottleneckDetail = buf;
    // The waiting of the critical role, attributed to what it waited for.
    shareBy([](const OpCost& oc) { return oc.causedUs; });
  }
  std::vector<std::size_t> order(e.perOp.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return e.perOp[a].share > e.perOp[b].share;
  });
  // The largest shares until 80% is covered (at most 5, each at least 1%).
  std::map<std::string, double> roleShare;
  double covered = 0;
  for (std::size_t i : order) {
    if (e.perOp[i].share < 0.01 || e.bottleneckOps.size() >= 5 || covered >= 0.8)
      break;
    covered += e.perOp[i].share;
    e.bottleneckOps.push_back(i);
    for (const std::string& rn : e.perOp[i].roles)
      roleShare[rn] += e.perOp[i].share;
  }
  std::vector<std::pair<std::string, double>> roles(roleShare.begin(), roleShare.end());
  std::stable_sort(roles.begin(), roles.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [name, v] : roles)
    e.bottleneckRoles.push_back(name);

  // --- the time per operation ----------------------------------------------------------------
  // One attribution of the predicted time: busy pipe time and caused waiting overlap (the wait
  // is for that busy time), so their raw sum can exceed the kernel's time; normalised over all
  // operations they split it.
  {
    double sum = 0;
    for (const OpCost& oc : e.perOp)
      sum += std::max(0.0, oc.pipeUs + oc.causedUs);
    for (OpCost& oc : e.perOp) {
      oc.timeShare = sum > 0 ? std::max(0.0, oc.pipeUs + oc.causedUs) / sum : 0.0;
      oc.timeUs = oc.timeShare * c.core * 1e6;
    }
  }

  // --- roofline ------------------------------------------------------------------------------
  Roofline& rf = e.roofline;
  std::map<std::string, double> flopsByDtype;
  for (std::size_t i = 0; i < e.perOp.size(); ++i) {
    rf.flops += e.perOp[i].flops;
    if (p.ops[i].pipe == Pipe::Tensor) {
      rf.tensorFlops += e.perOp[i].flops;
      flopsByDtype[std::string(p.ops[i].dtype)] += e.perOp[i].flops;
    }
  }
  rf.hbmBytes = c.hbmBytes;
  rf.l2Bytes = c.l2Bytes;
  rf.intensity = rf.hbmBytes > 0 ? rf.flops / rf.hbmBytes : 0.0;
  rf.achievedTflops = predicted > 0 ? rf.flops / predicted / 1e12 : 0.0;
  rf.achievedGbps = predicted > 0 ? rf.hbmBytes / predicted / 1e9 : 0.0;
  rf.peakHbmGbps = t.machineValue("hbm_bandwidth_gbps");
  if (rf.tensorFlops > 0) {
    double top = -1;
    for (const auto& [dt, f] : flopsByDtype)
      if (f > top) {
        top = f;
        rf.peakDtype = dt;
      }
    auto it = t.tensorTflops.find(rf.peakDtype);
    rf.peakTflops = it != t.tensorTflops.end() ? it->second.value : t.machineValue("fp32_tflops");
    if (it == t.tensorTflops.end())
      rf.peakDtype = "f32";
  } else {
    rf.peakDtype = "f32";
    rf.peakTflops = t.machineValue("fp32_tflops");
  }
  rf.ridge = rf.peakHbmGbps > 0 ? rf.peakTflops * 1e12 / (rf.peakHbmGbps * 1e9) : 0.0;
  rf.attainableTflops = std::min(rf.peakTflops, rf.intensity * rf.peakHbmGbps * 1e9 / 1e12);
  rf.regime = rf.intensity < rf.ridge ? "memory" : "compute";
  return e;
}

// ----------------------------------------------------------------------------- estimate

Estimate estimate(const driver::Compiler& compiler, const driver::CheckResult& check,
                  const Options& options) {
  std::string error;
  PreparedPtr p = prepare(check, error);
  if (!p) {
    Estimate e;
    e.error = error;
    e.kernel = check.model.name;
    e.target = check.model.targetName;
    if (check.model.target)
      e.calibrated = check.model.target->calibrated();
    return e;
  }
  Calibration cal = calibrationFor(*p->target);
  Params params = options.params ? *options.params : cal.params;
  bool calibrated = options.params ? false : cal.calibrated;
  Estimate e = evaluate(*p, params, calibrated, options.params ? std::string() : cal.source);
  if (options.hints) {
    e.hintsSearched = true;
    addHints(compiler, check, *p, params, options, e);
  }
  return e;
}

} // namespace cake::cost
