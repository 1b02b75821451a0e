// The CPU machine: memory, operand views, role processes and the scheduler that interleaves
// roles and completes asynchronous operations (eagerly for seed 0, at random points otherwise).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Machine.h"

#include "cake/Sema/RuntimeBound.h"

#include "cake/Interp/Swizzle.h"
#include "cake/Reference/Rounding.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace cake::interp::detail {

using ir::Expr;
using ir::ExprKind;

namespace {
constexpr std::int64_t kMaxSteps = 200'000'000;
constexpr float kPoison = std::numeric_limits<float>::quiet_NaN();

std::int64_t elemBytes(ir::DType d) { return std::max<std::int64_t>(1, ir::info(d).bits / 8); }
} // namespace

const char* toString(Grain g) {
  switch (g) {
  case Grain::Thread:
    return "thread";
  case Grain::Warp:
    return "warp";
  case Grain::Warpgroup:
    return "warpgroup";
  case Grain::Role:
    return "role";
  }
  return "role";
}

std::int64_t View::count() const {
  std::int64_t n = 1;
  for (std::int64_t s : size)
    n *= s;
  return n;
}

std::vector<std::int64_t> View::shape() const {
  std::vector<std::int64_t> out;
  for (std::size_t d = 0; d < size.size(); ++d)
    if (kept[d])
      out.push_back(size[d]);
  return out;
}

Machine::Machine(const ir::Module& module, const sema::KernelModel& model, DiagnosticEngine& diags)
    : module(module), model(model), diags(diags) {
  for (std::size_t i = 0; i < model.ops.size(); ++i)
    m_opIndex.emplace(model.ops[i].stmt, i);
  for (std::size_t i = 0; i < model.loops.size(); ++i)
    m_loopIndex.emplace(model.loops[i].stmt, i);
  for (const sema::ConstInfo& c : model.consts)
    m_consts.emplace(c.name, c.value);
  // Run-time scalar parameters: the values the model was checked with (the workload
  // contract's), constant for the whole run.
  for (const sema::ScalarInfo& sc : model.scalars)
    m_consts.emplace(sc.name, sc.value);
  globals.resize(model.buffers.size());
  writerOf.resize(model.buffers.size());
  m_tileCount = model.grid ? model.grid->tileCount() : 1;
  std::int64_t sms =
      model.target ? static_cast<std::int64_t>(model.target->machineValue("sm_count")) : 1;
  if (model.grid)
    for (std::int64_t c : model.grid->cluster)
      m_clusterSize *= std::max<std::int64_t>(1, c);
  // A cluster launch runs whole clusters: the persistent grid rounds down to them (GpuRun.cpp).
  m_ctas = model.grid && model.grid->persistent
               ? std::max<std::int64_t>(m_clusterSize,
                                        std::min(m_tileCount, sms) / m_clusterSize * m_clusterSize)
               : m_tileCount;
}

void Machine::fail(DiagId id, const ir::Stmt& at, std::string message) {
  if (!failed) {
    // Inside an expansion: name the step (and the outer operations) besides the line.
    for (auto it = m_expanding.rbegin(); it != m_expanding.rend(); ++it)
      message += " (step " + std::to_string(it->second + 1) + " '" +
                 it->first->primitive->lowering.steps[it->second].primitive +
                 "' of the expansion of '" + it->first->primitive->name + "')";
    Diagnostic* d = diags.report(id, module.sourceMap.range(at.id), std::move(message));
    for (auto it = m_expanding.rbegin(); it != m_expanding.rend(); ++it)
      addNote(d, it->first->primitive->lowering.steps[it->second].range,
              "step " + std::to_string(it->second + 1) + " of '" + it->first->primitive->name +
                  "'");
  }
  failed = true;
}

Grain Machine::scopeGrain(const std::string& scope) const {
  if (scope == "thread")
    return Grain::Thread;
  if (scope == "warp")
    return Grain::Warp;
  if (scope == "warpgroup")
    return Grain::Warpgroup;
  return Grain::Role;
}

std::int64_t Machine::instances(std::size_t role, Grain g) const {
  std::int64_t warps = model.roles[role].warps();
  switch (g) {
  case Grain::Thread:
    return warps * 32;
  case Grain::Warp:
    return warps;
  case Grain::Warpgroup:
    return (warps + 3) / 4;
  case Grain::Role:
    return 1;
  }
  return 1;
}

std::int64_t Machine::regInstance(const std::string& scope, Grain g, std::int64_t i) const {
  std::int64_t tid = g == Grain::Thread ? i : g == Grain::Warp ? i * 32 : g == Grain::Warpgroup ? i * 128 : 0;
  switch (scopeGrain(scope)) {
  case Grain::Thread:
    return tid;
  case Grain::Warp:
    return tid / 32;
  case Grain::Warpgroup:
    return tid / 128;
  case Grain::Role:
    return 0;
  }
  return 0;
}

std::optional<std::int64_t> Machine::eval(const Expr& e, const RoleProc& p, Grain g,
                                          std::int64_t i) const {
  switch (e.kind) {
  case ExprKind::Int:
    return e.intValue;
  case ExprKind::Name: {
    std::string_view n = e.text();
    if (auto it = p.vars.find(n); it != p.vars.end())
      return it->second;
    if (auto it = m_consts.find(n); it != m_consts.end())
      return it->second;
    std::int64_t tid = g == Grain::Thread      ? i
                       : g == Grain::Warp      ? i * 32
                       : g == Grain::Warpgroup ? i * 128
                                               : 0;
    if (n == "tid")
      return tid;
    if (n == "lane")
      return tid % 32;
    if (n == "warp")
      return tid / 32;
    if (n == "wg")
      return tid / 128;
    return std::nullopt;
  }
  case ExprKind::Member: {
    const Expr& base = *e.children[0];
    if (base.kind != ExprKind::Name)
      return std::nullopt;
    if (auto it = p.tiles.find(base.text()); it != p.tiles.end()) {
      std::size_t d = e.text() == "x" ? 0 : e.text() == "y" ? 1 : 2;
      return d < it->second.size() ? std::optional<std::int64_t>(it->second[d]) : std::nullopt;
    }
    if (const sema::PipelineInfo* pl = model.pipeline(base.text())) {
      std::int64_t c = p.counters[static_cast<std::size_t>(pl - model.pipelines.data())];
      std::int64_t stages = std::max<std::int64_t>(1, pl->stages);
      if (e.text() == "slot")
        return c % stages;
      if (e.text() == "phase")
        return (c / stages) & 1;
    }
    return std::nullopt;
  }
  case ExprKind::Unary: {
    auto a = eval(*e.children[0], p, g, i);
    return a ? ir::fold(e.unaryOp, *a) : std::nullopt;
  }
  case ExprKind::Binary: {
    auto a = eval(*e.children[0], p, g, i);
    auto b = eval(*e.children[1], p, g, i);
    return a && b ? ir::fold(e.binaryOp, *a, *b) : std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

std::optional<View> Machine::view(const ir::Operand& o, const sema::OperandInfo& info,
                                  const RoleProc& p, Grain g, std::int64_t inst) {
  View v;
  v.entity = info.entity;
  v.index = info.entityIndex;
  if (info.entity == sema::EntityKind::MBarrier || info.entity == sema::EntityKind::NBarrier) {
    if (o.subscripted && !o.indices.empty() && o.indices[0].start) {
      auto e = eval(*o.indices[0].start, p, g, inst);
      if (!e)
        return std::nullopt;
      v.element = *e;
    }
    return v;
  }
  if (info.entity == sema::EntityKind::TensorMap) {
    const sema::TensorMapInfo& tm = model.tensorMaps[info.entityIndex];
    const sema::BufferInfo* src = model.buffer(tm.source);
    if (!src)
      return std::nullopt;
    v.dims = src->shape;
    std::size_t rank = v.dims.size();
    v.start.assign(rank, 0);
    v.size.assign(rank, 1);
    v.kept.assign(rank, true);
    // The box covers the last box.size() dimensions; leading ones are points.
    std::size_t lead = rank >= tm.box.size() ? rank - tm.box.size() : 0;
    for (std::size_t d = 0; d < rank; ++d) {
      if (d < o.indices.size() && o.indices[d].start) {
        auto e = eval(*o.indices[d].start, p, g, inst);
        if (!e)
          return std::nullopt;
        v.start[d] = *e;
      }
      if (d >= lead)
        v.size[d] = tm.box[d - lead];
      else
        v.kept[d] = false;
    }
    return v;
  }
  const sema::BufferInfo& b = model.buffers[info.entityIndex];
  v.dims = b.shape;
  std::size_t rank = v.dims.size();
  v.start.assign(rank, 0);
  v.size = v.dims;
  v.kept.assign(rank, true);
  if (!o.subscripted)
    return v;
  std::size_t first = 0;
  if (info.stageIndexed && !o.indices.empty()) {
    auto s = eval(*o.indices[0].start, p, g, inst);
    if (!s)
      return std::nullopt;
    v.stage = *s;
    first = 1;
  }
  for (std::size_t k = first, d = 0; k < o.indices.size() && d < rank; ++k, ++d) {
    const ir::Index& idx = o.indices[k];
    if (idx.kind == ir::Index::Kind::Full)
      continue;
    auto s = eval(*idx.start, p, g, inst);
    if (!s)
      return std::nullopt;
    v.start[d] = *s;
    if (idx.kind == ir::Index::Kind::Slice) {
      auto n = eval(*idx.size, p, g, inst);
      if (!n)
        return std::nullopt;
      v.size[d] = *n;
    } else {
      v.size[d] = 1;
      v.kept[d] = false;
    }
  }
  return v;
}

std::vector<float>& Machine::regStorage(std::size_t role, std::size_t buffer) {
  auto key = std::make_pair(role, buffer);
  auto it = m_regs.find(key);
  if (it != m_regs.end())
    return it->second;
  const sema::BufferInfo& b = model.buffers[buffer];
  std::int64_t n = b.elements() * instances(role, scopeGrain(b.scope));
  return m_regs.emplace(key, std::vector<float>(static_cast<std::size_t>(n), kPoison))
      .first->second;
}

std::int64_t Machine::physicalSmem(const sema::BufferInfo& b, std::int64_t stage,
                                   std::int64_t linear, const std::string& swizzle) const {
  std::int64_t byte = b.offset + stage * b.stageBytes() + linear * elemBytes(b.dtype);
  return swizzledByte(swizzle, byte);
}

namespace {

/// Visits every element of a view: `fn(k, linear, inBounds)` with `linear` the row-major index
/// into the buffer (one stage).
template <typename Fn> void forEachElement(const View& v, Fn&& fn) {
  std::size_t rank = v.size.size();
  std::int64_t total = v.count();
  if (total <= 0)
    return;
  std::vector<std::int64_t> idx(rank, 0);
  std::vector<std::int64_t> stride(rank, 1);
  for (std::size_t d = rank; d-- > 1;)
    stride[d - 1] = stride[d] * v.dims[d];
  for (std::int64_t k = 0; k < total; ++k) {
    std::int64_t linear = 0;
    bool in = true;
    for (std::size_t d = 0; d < rank; ++d) {
      std::int64_t c = v.start[d] + idx[d];
      in &= c >= 0 && c < v.dims[d];
      linear += c * stride[d];
    }
    fn(k, linear, in);
    for (std::size_t d = rank; d-- > 0;) {
      if (++idx[d] < v.size[d])
        break;
      idx[d] = 0;
    }
  }
}

} // namespace

std::vector<double> Machine::gather(const View& v, const RoleProc& p, std::int64_t regInst,
                                    const std::string& swizzleOverride) {
  std::vector<double> out(static_cast<std::size_t>(std::max<std::int64_t>(0, v.count())), 0.0);
  if (v.entity == sema::EntityKind::TensorMap) {
    const sema::BufferInfo* src = model.buffer(model.tensorMaps[v.index].source);
    const std::vector<float>& g = globals[static_cast<std::size_t>(src - model.buffers.data())];
    forEachElement(v, [&](std::int64_t k, std::int64_t linear, bool in) {
      out[k] = in ? g[linear] : 0.0; // TMA fills out-of-bounds elements with zero
    });
    return out;
  }
  const sema::BufferInfo& b = model.buffers[v.index];
  switch (b.space) {
  case ir::Space::Global: {
    const std::vector<float>& g = globals[v.index];
    forEachElement(v, [&](std::int64_t k, std::int64_t linear, bool in) {
      out[k] = in ? g[linear] : std::numeric_limits<double>::quiet_NaN();
    });
    break;
  }
  case ir::Space::Smem: {
    const std::string& swz = swizzleOverride.empty() ? b.swizzle : swizzleOverride;
    forEachElement(v, [&](std::int64_t k, std::int64_t linear, bool in) {
      std::int64_t a = physicalSmem(b, v.stage, linear, swz);
      out[k] = in && a >= 0 && a < std::int64_t(m_smem.size()) ? m_smem[a]
                                                                : std::numeric_limits<double>::quiet_NaN();
    });
    break;
  }
  case ir::Space::Reg: {
    std::vector<float>& r = regStorage(p.role, v.index);
    std::int64_t base = regInst * b.elements();
    forEachElement(v, [&](std::int64_t k, std::int64_t linear, bool in) {
      out[k] = in ? r[base + linear] : std::numeric_limits<double>::quiet_NaN();
    });
    break;
  }
  case ir::Space::Tmem: {
    auto& t = m_tmem[v.index];
    if (t.empty())
      t.assign(static_cast<std::size_t>(b.elements()), kPoison);
    forEachElement(v, [&](std::int64_t k, std::int64_t linear, bool in) {
      out[k] = in ? t[linear] : std::numeric_limits<double>::quiet_NaN();
    });
    break;
  }
  }
  return out;
}

void Machine::scatter(const View& v, const RoleProc& p, std::int64_t regInst,
                      const std::vector<double>& values, const ir::Stmt& by, Grain g,
                      std::int64_t inst, const std::string& swizzleOverride) {
  std::size_t bufferIndex = v.index;
  if (v.entity == sema::EntityKind::TensorMap)
    bufferIndex = static_cast<std::size_t>(model.buffer(model.tensorMaps[v.index].source) -
                                           model.buffers.data());
  const sema::BufferInfo& b = model.buffers[bufferIndex];
  auto value = [&](std::int64_t k) {
    return static_cast<float>(ref::roundTo(b.dtype, values[static_cast<std::size_t>(k)]));
  };
  switch (b.space) {
  case ir::Space::Global: {
    std::vector<float>& gm = globals[bufferIndex];
    std::vector<std::uint32_t>& w = writerOf[bufferIndex];
    auto key = std::make_tuple(&by, p.role, int(g), inst, cta, p.currentTile);
    auto [it, fresh] = m_writerIds.emplace(key, static_cast<std::uint32_t>(writers.size()));
    if (fresh)
      writers.push_back(Writer{&by, p.role, g, inst, cta, p.currentTile});
    std::uint32_t id = it->second;
    forEachElement(v, [&](std::int64_t k, std::int64_t linear, bool in) {
      if (!in)
        return; // out-of-bounds parts of a store are not written
      gm[linear] = value(k);
      if (!w.empty())
        w[linear] = id;
    });
    break;
  }
  case ir::Space::Smem: {
    const std::string& swz = swizzleOverride.empty() ? b.swizzle : swizzleOverride;
    forEachElement(v, [&](std::int64_t k, std::int64_t linear, bool in) {
      std::int64_t a = physicalSmem(b, v.stage, linear, swz);
      if (in && a >= 0 && a < std::int64_t(m_smem.size()))
        m_smem[a] = value(k);
    });
    break;
  }
  case ir::Space::Reg: {
    std::vector<float>& r = regStorage(p.role, bufferIndex);
    std::int64_t base = regInst * b.elements();
    forEachElement(v, [&](std::int64_t k, std::int64_t linear, bool in) {
      if (in)
        r[base + linear] = value(k);
    });
    break;
  }
  case ir::Space::Tmem: {
    auto& t = m_tmem[bufferIndex];
    if (t.empty())
      t.assign(static_cast<std::size_t>(b.elements()), kPoison);
    forEachElement(v, [&](std::int64_t k, std::int64_t linear, bool in) {
      if (in)
        t[linear] = value(k);
    });
    break;
  }
  }
}

reg::DefValue Machine::attribute(const sema::OpInfo& op, std::string_view name,
                                 const RoleProc& p) const {
  for (std::size_t i = 0; i < op.primitive->attributes.size(); ++i) {
    if (op.primitive->attributes[i].name != name)
      continue;
    reg::DefValue v = i < op.attributes.size() ? op.attributes[i] : reg::DefValue{};
    if (v.kind == reg::DefValue::Kind::Unknown)
      if (const ir::Attribute* a = op.stmt->attribute(name); a && a->value)
        if (auto e = eval(*a->value, p, Grain::Role, 0))
          return reg::DefValue::integer(*e);
    return v;
  }
  return {};
}

std::size_t Machine::issueAsync(RoleProc& p, std::function<void()> complete,
                               std::size_t queue) {
  async.push_back(AsyncOp{std::move(complete), p.role, false, queue ? queue + 16 * (p.role + 1) : 0});
  return async.size() - 1;
}

void Machine::completeAsync(std::size_t id) {
  if (async[id].done)
    return;
  if (std::size_t q = async[id].queue)
    for (std::size_t j = 0; j < id; ++j)
      if (!async[j].done && async[j].queue == q)
        completeAsync(j);
  AsyncOp& a = async[id];
  a.done = true;
  auto fn = std::move(a.complete);
  fn();
}

void Machine::arrive(std::size_t index, std::int64_t element, std::int64_t count,
                     std::int64_t tx) {
  std::vector<MbarrierState>& states = m_mbarriers[index];
  if (element < 0 || element >= std::int64_t(states.size()))
    return;
  MbarrierState& s = states[static_cast<std::size_t>(element)];
  s.pending -= count;
  s.tx += tx;
  if (s.pending <= 0 && s.tx <= 0) {
    ++s.phase;
    s.pending = model.barriers[index].count;
    s.tx = 0;
  }
}

void Machine::startCta(std::int64_t c) {
  cta = c;
  m_smem.assign(static_cast<std::size_t>(model.smemBytes() + 16), kPoison);
  m_regs.clear();
  m_tmem.clear();
  async.clear();
  m_mbarriers.assign(model.barriers.size(), {});
  for (std::size_t i = 0; i < model.barriers.size(); ++i)
    m_mbarriers[i].assign(static_cast<std::size_t>(std::max<std::int64_t>(1, model.barriers[i].size)),
                          MbarrierState{});
  namedArrived.clear();
  procs.clear();
  for (std::size_t r = 0; r < model.roles.size(); ++r) {
    RoleProc p;
    p.role = r;
    p.counters.assign(model.pipelines.size(), 0);
    for (const ir::StmtPtr& s : module.kernel->body) {
      if (s->kind != ir::StmtKind::On)
        continue;
      for (const ir::Ident& id : s->block().roles)
        if (id.name == model.roles[r].name || id.name == "all") {
          p.blocks.push_back(s.get());
          // The leader CTA of a pair only: its peer would skip the block, and the pair's MMA
          // reaches the peer's shared and tensor memory; one CTA at a time cannot run it.
          if (s->attribute("cta"))
            fail(DiagId::HwNoCpuSemantics, *s,
                 "'on ... cta=leader' runs in the leader CTA of each CTA pair only: the CPU "
                 "interpreter runs CTAs one at a time and does not model CTA pairs");
          break;
        }
    }
    procs.push_back(std::move(p));
  }
}

void Machine::swapActive(CtaState& c) {
  std::swap(cta, c.cta);
  std::swap(m_smem, c.smem);
  std::swap(m_regs, c.regs);
  std::swap(m_tmem, c.tmem);
  std::swap(async, c.async);
  std::swap(m_mbarriers, c.mbarriers);
  std::swap(namedArrived, c.namedArrived);
  std::swap(procs, c.procs);
}

void Machine::activate(std::size_t r) {
  if (r == m_rank || r >= m_parked.size())
    return;
  swapActive(m_parked[m_rank]); // park the active CTA (its slot was empty)
  swapActive(m_parked[r]);      // and bring rank r in (its slot becomes empty)
  m_rank = r;
}

void Machine::withCta(std::size_t r, const std::function<void()>& fn) {
  std::size_t saved = m_rank;
  activate(r);
  fn();
  activate(saved);
}

void Machine::startCluster(std::int64_t first) {
  std::size_t n = static_cast<std::size_t>(m_clusterSize);
  m_parked.assign(n, CtaState{});
  for (std::size_t r = 0; r < n; ++r) {
    startCta(first + std::int64_t(r));
    swapActive(m_parked[r]); // park it; the members are empty again
  }
  m_rank = 0;
  swapActive(m_parked[0]);
  clusterArrived.assign(2 + n * model.roles.size(), 0);
}

void Machine::enterLoop(RoleProc& p, const ir::Stmt& s) {
  auto it = m_loopIndex.find(&s);
  if (it == m_loopIndex.end()) {
    fail(DiagId::HwNoCpuSemantics, s, "the CPU interpreter cannot evaluate this loop's range");
    return;
  }
  const sema::LoopInfo& li = model.loops[it->second];
  Frame f;
  f.body = &s.body;
  f.loop = &s;
  f.loopIndex = it->second;
  if (li.overTiles) {
    // The CTA's tiles j = 0, 1, ... are linear tiles cta + j * ctas; a strided role owns
    // j = offset, offset + stride, ... and moves its pipelines past the others' tiles.
    f.value = li.tileOffset;
    f.step = li.tileStride;
    f.end = cta < m_tileCount ? (m_tileCount - cta + m_ctas - 1) / m_ctas : 0;
    for (std::int64_t j = 0; j < li.tileOffset; ++j)
      skipTile(p, s.body, 1);
  } else if (li.runtime) {
    // A run-time range over the role's current tile (docs/ir.md).
    auto tile = p.tiles.find(li.tileVar);
    std::vector<std::int64_t> none;
    auto range = li.tileVar.empty()       ? sema::loopRange(li, model, none)
                 : tile == p.tiles.end() ? std::nullopt
                                         : sema::loopRange(li, model, tile->second);
    if (!range) {
      fail(DiagId::HwNoCpuSemantics, s, "the CPU interpreter cannot evaluate this loop's range");
      return;
    }
    f.value = range->first;
    f.end = range->second;
  } else {
    f.value = li.begin;
    f.end = li.end;
  }
  if (f.value >= f.end)
    return;
  p.frames.push_back(f);
  if (li.overTiles)
    setTile(p, li, f.value);
  else
    p.vars[li.var] = f.value;
}

void Machine::setTile(RoleProc& p, const sema::LoopInfo& li, std::int64_t j) {
  std::vector<std::int64_t> coords = sema::tileCoords(*model.grid, cta + j * m_ctas);
  p.tiles[li.var] = coords;
  p.currentTile = std::move(coords);
}

void Machine::skipTile(RoleProc& p, const std::vector<ir::StmtPtr>& body, std::int64_t repeat) {
  for (const ir::StmtPtr& c : body) {
    if (c->kind != ir::StmtKind::For)
      continue;
    auto it = m_loopIndex.find(c.get());
    if (it == m_loopIndex.end())
      continue;
    const sema::LoopInfo& li = model.loops[it->second];
    if (const sema::PipelineInfo* pl = model.pipeline(li.pipeline); pl && li.skip > 0)
      p.counters[static_cast<std::size_t>(pl - model.pipelines.data())] += li.skip * repeat;
    skipTile(p, c->body, li.runtime ? repeat : repeat * std::max<std::int64_t>(1, li.trip()));
  }
}

bool Machine::step(RoleProc& p) {
  while (true) {
    if (p.frames.empty()) {
      if (p.block >= p.blocks.size()) {
        p.done = true;
        return true;
      }
      Frame f;
      f.body = &p.blocks[p.block++]->body;
      p.frames.push_back(f);
      continue;
    }
    Frame& f = p.frames.back();
    if (f.pc >= f.body->size()) {
      if (!f.loop) {
        p.frames.pop_back();
        continue;
      }
      const sema::LoopInfo& li = model.loops[f.loopIndex];
      if (const sema::PipelineInfo* pl = model.pipeline(li.pipeline))
        ++p.counters[static_cast<std::size_t>(pl - model.pipelines.data())];
      if (li.overTiles)
        for (std::int64_t j = 1; j < f.step; ++j)
          skipTile(p, *f.body, 1);
      f.value += li.overTiles ? f.step : 1;
      if (f.value < f.end) {
        f.pc = 0;
        if (li.overTiles) {
          setTile(p, li, f.value);
        } else {
          p.vars[li.var] = f.value;
        }
        continue;
      }
      p.vars.erase(li.var);
      if (li.overTiles) {
        p.tiles.erase(li.var);
        p.currentTile.clear();
      }
      p.frames.pop_back();
      continue;
    }
    const ir::Stmt& s = *(*f.body)[f.pc];
    if (s.kind == ir::StmtKind::For) {
      ++f.pc;
      enterLoop(p, s);
      if (failed)
        return false;
      continue;
    }
    if (s.kind != ir::StmtKind::Op) {
      ++f.pc;
      continue;
    }
    auto it = m_opIndex.find(&s);
    if (it == m_opIndex.end() || !model.ops[it->second].primitive) {
      fail(DiagId::HwNoCpuSemantics, s, "operation '" + s.opName.name + "' was not resolved");
      return false;
    }
    if (!execute(p, model.ops[it->second]))
      return false;
    ++p.frames.back().pc;
    ++m_steps;
    return true;
  }
}

bool Machine::runCluster(std::mt19937_64& rng, bool eager) {
  std::size_t ranks = static_cast<std::size_t>(m_clusterSize);
  // What the scheduler can do next: step role `index` of CTA `rank`, or complete that CTA's
  // asynchronous operation `index`.
  struct Cand {
    std::size_t rank;
    bool isAsync;
    std::size_t index;
  };
  while (!failed) {
    if (m_steps > kMaxSteps) {
      fail(DiagId::HwCpuRunTooLarge, *procs[0].blocks.front(),
           "the CPU run stopped after " + std::to_string(kMaxSteps) + " operation steps");
      return false;
    }
    bool allDone = true;
    std::vector<Cand> pending, roles;
    for (std::size_t r = 0; r < ranks; ++r) {
      activate(r);
      for (std::size_t i = 0; i < async.size(); ++i)
        if (!async[i].done)
          pending.push_back({r, true, i});
      for (std::size_t i = 0; i < procs.size(); ++i)
        if (!procs[i].done) {
          allDone = false;
          roles.push_back({r, false, i});
        }
    }
    if (allDone) {
      // Kernel end: every asynchronous operation still in flight lands.
      for (std::size_t r = 0; r < ranks && !failed; ++r) {
        activate(r);
        for (std::size_t i = 0; i < async.size(); ++i)
          completeAsync(i);
      }
      activate(0);
      return !failed;
    }
    bool progress = false;
    if (eager) {
      for (const Cand& c : pending) {
        activate(c.rank);
        completeAsync(c.index);
      }
      for (const Cand& c : roles) {
        activate(c.rank);
        if (step(procs[c.index])) {
          progress = true;
          break;
        }
        if (failed)
          return false;
      }
      if (!progress && !pending.empty())
        progress = true;
    } else {
      // Candidates: every unfinished role and every pending asynchronous operation of every
      // CTA of the cluster.
      std::vector<Cand> cands = roles;
      cands.insert(cands.end(), pending.begin(), pending.end());
      std::shuffle(cands.begin(), cands.end(), rng);
      for (const Cand& c : cands) {
        activate(c.rank);
        if (c.isAsync) {
          completeAsync(c.index);
          progress = true;
          break;
        }
        RoleProc& p = procs[c.index];
        // A role runs a short random burst of operations before the scheduler looks again.
        std::int64_t burst = std::int64_t(rng() % 4) + 1;
        bool moved = false;
        while (burst-- > 0 && !p.done && !failed && step(p))
          moved = true;
        if (moved) {
          progress = true;
          break;
        }
      }
    }
    if (failed)
      return false;
    if (!progress) {
      reportDeadlock();
      return false;
    }
  }
  return false;
}

void Machine::reportDeadlock() {
  // Every role of every CTA waits and nothing in flight can release it.
  Diagnostic* d = nullptr;
  for (std::size_t r = 0; r < static_cast<std::size_t>(m_clusterSize); ++r) {
    activate(r);
    for (RoleProc& p : procs) {
      if (p.done || p.frames.empty())
        continue;
      const Frame& f = p.frames.back();
      const ir::Stmt& s = *(*f.body)[std::min(f.pc, f.body->size() - 1)];
      SourceRange range = module.sourceMap.range(s.id);
      std::string who = "role '" + model.roles[p.role].name + "'";
      if (!d)
        d = diags.report(DiagId::PsRunDeadlock, range,
                         "CPU run, CTA " + std::to_string(cta) + ": " + who +
                             " waits here and no role can release it");
      else
        addNote(d, range,
                (m_clusterSize > 1 ? "CTA " + std::to_string(cta) + ": " : std::string()) + who +
                    " waits here");
    }
  }
  failed = true;
}

bool Machine::run(std::uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 1);
  m_steps = 0;
  // One cluster at a time (a single CTA without clusters): the CTAs of a cluster run together,
  // since multicast copies, remote arrivals and cluster.sync reach each other's state.
  for (std::int64_t c = 0; c < m_ctas && !failed; c += m_clusterSize) {
    if (cancel && cancel->load())
      return false;
    startCluster(c);
    if (!runCluster(rng, seed == 0))
      return false;
    if (onCta)
      onCta(std::min(c + m_clusterSize, m_ctas), m_ctas);
  }
  return !failed;
}

} // namespace cake::interp::detail
