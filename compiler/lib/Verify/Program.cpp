// Concrete unrolling of role programs: loops are executed with their real bounds (tile loops
// capped), pipeline counters continue across loops exactly as the language defines them, and
// every operand subscript is evaluated to an exact value or a sound interval.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Program.h"

#include "cake/IR/Printer.h"
#include "cake/Sema/Interval.h"
#include "cake/Sema/RuntimeBound.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

namespace cake::verify::detail {

using namespace ir;
using sema::Interval;

bool Footprint::overlaps(const Footprint& o) const {
  if (buffer != o.buffer || !stage.intersects(o.stage))
    return false;
  for (std::size_t i = 0; i < box.size() && i < o.box.size(); ++i)
    if (!box[i].intersects(o.box[i]))
      return false;
  return true;
}

std::string Footprint::describe(const sema::KernelModel& model) const {
  const sema::BufferInfo& b = model.buffers[buffer];
  auto range = [](Interval i) {
    return i.exact() ? std::to_string(i.lo) : std::to_string(i.lo) + ".." + std::to_string(i.hi);
  };
  std::string s = b.name;
  if (b.stages > 1)
    s += "[stage " + range(stage) + "]";
  bool whole = true;
  for (std::size_t i = 0; i < box.size(); ++i)
    if (box[i].lo != 0 || box[i].hi != b.shape[i] - 1)
      whole = false;
  if (!whole) {
    s += "[";
    for (std::size_t i = 0; i < box.size(); ++i)
      s += (i ? ", " : "") + range(box[i]);
    s += "]";
  }
  return s;
}

reg::IssueScope issueScope(const sema::OpInfo& op, std::span<const reg::DefValue> attributes) {
  reg::IssueScope scope = op.primitive->issue;
  if (op.primitive->issueAttribute) {
    std::size_t i = *op.primitive->issueAttribute;
    if (i < attributes.size() && attributes[i].kind == reg::DefValue::Kind::Symbol)
      if (auto s = reg::parseIssueScope(attributes[i].sym))
        scope = *s;
  }
  return scope;
}

std::int64_t issueInstances(const sema::OpInfo& op, const sema::RoleInfo& role,
                            std::span<const reg::DefValue> attributes) {
  switch (issueScope(op, attributes)) {
  case reg::IssueScope::Thread:
    return role.threads();
  case reg::IssueScope::Warp:
    return role.warps();
  case reg::IssueScope::Warpgroup:
    return (role.warps() + 3) / 4;
  case reg::IssueScope::Role:
  case reg::IssueScope::Elected:
    return 1;
  }
  return 1;
}

std::int64_t quantity(const std::optional<reg::DefExpr>& expr, const StepContext& ctx,
                      std::int64_t fallback) {
  if (!expr)
    return fallback;
  reg::DefValue v = reg::evaluate(*expr, ctx);
  return v.kind == reg::DefValue::Kind::Int ? v.i : fallback;
}

namespace {

class Unroller {
public:
  Unroller(const Module& module, const sema::KernelModel& model, std::size_t maxSteps,
           std::int64_t tileCap, std::int64_t firstTile, std::span<const std::int64_t> scalars)
      : m_module(module), m_model(model), m_maxSteps(maxSteps), m_firstTile(firstTile) {
    // Run-time scalar parameters are constants of one simulation: the binding given, else the
    // values the model was checked with.
    m_scalars = scalars.size() == model.scalars.size() ? std::vector<std::int64_t>(scalars.begin(), scalars.end())
                                                        : model.scalarValues();
    for (std::size_t k = 0; k < model.scalars.size(); ++k)
      m_consts.emplace(model.scalars[k].name, m_scalars[k]);
    for (std::size_t i = 0; i < model.ops.size(); ++i)
      m_opIndex.emplace(model.ops[i].stmt, i);
    for (std::size_t i = 0; i < model.loops.size(); ++i)
      m_loopIndex.emplace(model.loops[i].stmt, i);
    for (const sema::ConstInfo& c : model.consts)
      m_consts.emplace(c.name, c.value);
    if (model.grid) {
      std::int64_t tiles = model.grid->tileCount();
      std::int64_t sms = model.target ? static_cast<std::int64_t>(model.target->machineValue("sm_count")) : 1;
      m_program.ctas = model.grid->persistent ? std::max<std::int64_t>(1, std::min(tiles, sms)) : tiles;
      // A persistent grid of whole clusters, as the launcher starts it.
      std::int64_t cluster = 1;
      for (std::int64_t c : model.grid->cluster)
        cluster *= std::max<std::int64_t>(c, 1);
      if (model.grid->persistent && cluster > 1)
        m_program.ctas = std::max(cluster, m_program.ctas / cluster * cluster);
      m_program.tilesPerCta = model.grid->persistent ? (tiles + m_program.ctas - 1) / m_program.ctas : 1;
      m_program.tilesAnalysed = std::min(m_program.tilesPerCta, std::max<std::int64_t>(1, tileCap));
    }
  }

  Program run() {
    for (std::size_t r = 0; r < m_model.roles.size(); ++r) {
      RoleStream stream;
      stream.role = r;
      m_role = &m_model.roles[r];
      m_stream = &stream;
      m_counters.assign(m_model.pipelines.size(), 0);
      m_vars.clear();
      m_tiles.clear();
      m_iteration = 0;
      for (const StmtPtr& s : m_module.kernel->body) {
        if (s->kind != StmtKind::On || !names(*s, m_role->name))
          continue;
        walk(s->body);
      }
      m_program.totalSteps += stream.steps.size();
      m_program.roles.push_back(std::move(stream));
    }
    return std::move(m_program);
  }

private:
  static bool names(const Stmt& on, const std::string& role) {
    for (const Ident& r : on.block().roles)
      if (r.name == role || r.name == "all")
        return true;
    return false;
  }

  bool budgetLeft() {
    // Each role gets an equal share, so a long role cannot starve the ones unrolled after it.
    std::size_t share = m_maxSteps / std::max<std::size_t>(1, m_model.roles.size());
    if (m_stream && m_stream->steps.size() >= share) {
      m_program.boundReached = true;
      return false;
    }
    return true;
  }

  void walk(const std::vector<StmtPtr>& body) {
    for (const StmtPtr& s : body) {
      if (!budgetLeft())
        return;
      if (s->kind == StmtKind::Op)
        emit(*s);
      else if (s->kind == StmtKind::For)
        loop(*s);
    }
  }

  void loop(const Stmt& s) {
    auto it = m_loopIndex.find(&s);
    if (it == m_loopIndex.end())
      return;
    std::size_t li = it->second;
    const sema::LoopInfo& info = m_model.loops[li];
    std::int64_t begin = info.begin, count = info.end - info.begin;
    if (info.overTiles) {
      begin = m_firstTile;
      count = m_program.tilesAnalysed;
    } else if (info.runtime) {
      // Run-time range: evaluated at this role's current tile (docs/ir.md).
      auto tile = m_tiles.find(info.tileVar);
      std::vector<std::int64_t> none;
      auto range = info.tileVar.empty()
                       ? sema::loopRange(info, m_model, none, m_scalars)
                   : tile == m_tiles.end()
                       ? std::nullopt
                       : sema::loopRange(info, m_model, tile->second, m_scalars);
      if (!range)
        return;
      begin = range->first;
      count = range->second - range->first;
    }
    for (std::int64_t n = 0; n < count && budgetLeft(); ++n) {
      std::int64_t value = info.overTiles ? begin + n * m_program.ctas : begin + n;
      if (info.overTiles && n % info.tileStride != info.tileOffset) {
        // Another role's tile (ping-pong): this role only moves its pipelines past its stages.
        skipTile(s.body, 1);
        continue;
      }
      if (info.overTiles) {
        // Tile coordinates of this CTA's n-th tile (CTA 0 of the launch), in the grid's order.
        m_tiles[info.var] = sema::tileCoords(*m_model.grid, value);
      } else {
        m_vars[info.var] = value;
      }
      m_loopValues.emplace_back(li, value);
      m_sharedLoopValues.reset();
      std::uint64_t saved = m_iteration;
      m_iteration = ++m_nextIteration;
      walk(s.body);
      m_iteration = saved;
      m_loopValues.pop_back();
      m_sharedLoopValues.reset();
      if (const sema::PipelineInfo* p = m_model.pipeline(info.pipeline))
        ++m_counters[std::size_t(p - m_model.pipelines.data())];
    }
    m_vars.erase(info.var);
    m_tiles.erase(info.var);
  }

  /// Advances the pipelines of the `skip=` loops in `body` (times `repeat`, the trip count of
  /// the constant loops around them) for one tile this role does not own.
  void skipTile(const std::vector<StmtPtr>& body, std::int64_t repeat) {
    for (const StmtPtr& c : body) {
      if (c->kind != StmtKind::For)
        continue;
      auto it = m_loopIndex.find(c.get());
      if (it == m_loopIndex.end())
        continue;
      const sema::LoopInfo& info = m_model.loops[it->second];
      if (const sema::PipelineInfo* p = m_model.pipeline(info.pipeline); p && info.skip > 0)
        m_counters[std::size_t(p - m_model.pipelines.data())] += info.skip * repeat;
      skipTile(c->body, info.runtime ? repeat : repeat * std::max<std::int64_t>(1, info.trip()));
    }
  }

  /// The slot the innermost active loop over `b`'s pipeline uses, or -1 (no such loop, or
  /// the barrier is bound to none).
  std::int64_t ringSlot(const sema::BarrierInfo& b) const {
    const sema::PipelineInfo* p = b.pipeline.empty() ? nullptr : m_model.pipeline(b.pipeline);
    if (!p || p->stages <= 0)
      return -1;
    for (const auto& [loop, value] : m_loopValues)
      if (m_model.loops[loop].pipeline == b.pipeline)
        return m_counters[std::size_t(p - m_model.pipelines.data())] % p->stages;
    return -1;
  }

  /// Sound interval of an integer expression for this role at this point of its program.
  std::optional<Interval> eval(const Expr& e) {
    switch (e.kind) {
    case ExprKind::Int:
      return Interval{e.intValue, e.intValue};
    case ExprKind::Name: {
      if (auto it = m_consts.find(std::string(e.text())); it != m_consts.end())
        return Interval{it->second, it->second};
      if (auto it = m_vars.find(std::string(e.text())); it != m_vars.end())
        return Interval{it->second, it->second};
      std::int64_t warps = m_role->warps();
      if (m_instance) {
        if (e.text() == "tid")
          return m_instance->tid;
        if (e.text() == "warp")
          return Interval{m_instance->warp, m_instance->warp};
        if (e.text() == "wg")
          return Interval{m_instance->wg, m_instance->wg};
      }
      if (e.text() == "tid")
        return Interval{0, warps * 32 - 1};
      if (e.text() == "lane")
        return Interval{0, 31};
      if (e.text() == "warp")
        return Interval{0, warps - 1};
      if (e.text() == "wg")
        return Interval{0, (warps + 3) / 4 - 1};
      return std::nullopt;
    }
    case ExprKind::Member: {
      const Expr& base = *e.children[0];
      if (base.kind != ExprKind::Name)
        return std::nullopt;
      if (auto it = m_tiles.find(std::string(base.text())); it != m_tiles.end()) {
        std::size_t d = e.text() == "x" ? 0 : e.text() == "y" ? 1 : 2;
        if (d < it->second.size())
          return Interval{it->second[d], it->second[d]};
        return std::nullopt;
      }
      if (const sema::PipelineInfo* p = m_model.pipeline(base.text())) {
        std::int64_t c = m_counters[std::size_t(p - m_model.pipelines.data())];
        std::int64_t v = e.text() == "slot" ? c % p->stages : (c / p->stages) & 1;
        return Interval{v, v};
      }
      return std::nullopt;
    }
    case ExprKind::Unary: {
      auto a = eval(*e.children[0]);
      return a ? sema::applyUnary(e.unaryOp, *a) : std::nullopt;
    }
    case ExprKind::Binary: {
      auto a = eval(*e.children[0]);
      auto b = eval(*e.children[1]);
      if (!a || !b)
        return std::nullopt;
      return sema::applyBinary(e.binaryOp, *a, *b).value;
    }
    default:
      return std::nullopt;
    }
  }

  Footprint footprint(const Operand& o, const sema::BufferInfo& b, std::size_t bufferIndex) {
    Footprint f;
    f.buffer = bufferIndex;
    f.stage = {0, b.stages - 1};
    for (std::int64_t d : b.shape)
      f.box.push_back({0, d - 1});
    if (!o.subscripted)
      return f;
    std::size_t first = 0;
    if (b.stages > 1 && !o.indices.empty()) {
      if (auto s = eval(*o.indices[0].start))
        f.stage = *s;
      first = 1;
    }
    for (std::size_t i = first, d = 0; i < o.indices.size() && d < f.box.size(); ++i, ++d) {
      const Index& idx = o.indices[i];
      if (idx.kind == Index::Kind::Full)
        continue;
      auto start = eval(*idx.start);
      if (!start)
        continue; // keep the whole dimension (sound)
      std::int64_t size = 1;
      if (idx.kind == Index::Kind::Slice) {
        auto sz = eval(*idx.size);
        size = sz ? sz->lo : 1;
      }
      f.box[d] = {start->lo, start->hi + size - 1};
    }
    return f;
  }

  /// The lane range (first tensor dimension) of `o` for each warp of the role, or nothing when
  /// a warp's range is not statically known.
  std::vector<Interval> warpLanes(const Operand& o, const sema::BufferInfo& b) {
    std::vector<Interval> out;
    if (!o.subscripted || o.indices.empty() || b.shape.empty())
      return out;
    const Index& idx = o.indices[b.stages > 1 ? 1 : 0];
    if (b.stages > 1 && o.indices.size() < 2)
      return out;
    if (idx.kind == Index::Kind::Full) {
      out.assign(std::size_t(m_role->warps()), Interval{0, b.shape[0] - 1});
      return out;
    }
    auto saved = m_vars;
    for (std::int64_t w = 0; w < m_role->warps(); ++w) {
      m_vars["warp"] = w;
      m_vars["wg"] = w / 4;
      auto start = eval(*idx.start);
      std::optional<Interval> size = Interval{1, 1};
      if (idx.kind == Index::Kind::Slice)
        size = eval(*idx.size);
      if (!start || !start->exact() || !size || !size->exact()) {
        out.clear();
        break;
      }
      out.push_back({start->lo, start->lo + size->lo - 1});
    }
    m_vars = std::move(saved);
    return out;
  }

  /// Which instance variables an expression names (StepOperand::kNames*).
  static unsigned instanceNames(const Expr& e) {
    unsigned out = 0;
    if (e.kind == ExprKind::Name)
      out |= e.text() == "wg"                        ? StepOperand::kNamesWg
             : e.text() == "warp"                    ? StepOperand::kNamesWarp
             : e.text() == "tid" || e.text() == "lane" ? StepOperand::kNamesThread
                                                   : 0u;
    for (const ExprPtr& c : e.children)
      if (c)
        out |= instanceNames(*c);
    return out;
  }

  /// Per-warp footprints of a buffer operand whose subscript names an instance variable.
  void instanceFootprints(const Operand& o, const sema::BufferInfo& b, std::size_t index,
                          StepOperand& so) {
    unsigned names = 0;
    for (const Index& idx : o.indices) {
      if (idx.start)
        names |= instanceNames(*idx.start);
      if (idx.size)
        names |= instanceNames(*idx.size);
    }
    so.instanceVars = names;
    if (!names || m_role->warps() < 2)
      return;
    // One footprint per warpgroup when the subscript names nothing finer.
    std::int64_t step = names == StepOperand::kNamesWg ? 4 : 1;
    so.instanceFootprints.reserve(std::size_t((m_role->warps() + step - 1) / step));
    for (std::int64_t w = 0; w < m_role->warps(); w += step) {
      m_instance = Instance{w, w / 4, Interval{w * 32, w * 32 + 31}};
      so.instanceFootprints.push_back(footprint(o, b, index));
    }
    m_instance.reset();
  }

  void emit(const Stmt& s) {
    auto it = m_opIndex.find(&s);
    if (it == m_opIndex.end())
      return;
    const sema::OpInfo& op = m_model.ops[it->second];
    Step step;
    step.op = it->second;
    step.role = static_cast<std::size_t>(m_role - m_model.roles.data());
    step.iteration = m_iteration;
    // Every step of one loop iteration shares one list.
    if (!m_sharedLoopValues)
      m_sharedLoopValues.emplace(m_loopValues);
    step.loopValues = *m_sharedLoopValues;
    for (auto l = m_loopValues.rbegin(); l != m_loopValues.rend(); ++l)
      if (const sema::PipelineInfo* p = m_model.pipeline(m_model.loops[l->first].pipeline)) {
        std::size_t pi = std::size_t(p - m_model.pipelines.data());
        step.pipeline = std::int32_t(pi);
        step.pass = m_counters[pi] / std::max<std::int64_t>(1, p->stages);
        break;
      }
    step.operands.reserve(op.operands.size());
    for (std::size_t i = 0; i < op.primitive->attributes.size(); ++i) {
      if (op.primitive->attributes[i].type != reg::AttrType::Expr)
        continue;
      if (const Attribute* a = s.attribute(op.primitive->attributes[i].name)) {
        if (step.attributes.empty())
          step.attributes = op.attributes;
        auto v = eval(*a->value);
        step.attributes[i] = v && v->exact() ? reg::DefValue::integer(v->lo) : reg::DefValue{};
      }
    }
    for (std::size_t i = 0; i < op.operands.size(); ++i) {
      StepOperand so;
      const sema::OperandInfo& info = op.operands[i];
      if (!info.facts.present || i >= s.operands.size()) {
        step.operands.push_back(so);
        continue;
      }
      so.present = true;
      so.entity = info.entity;
      so.entityIndex = info.entityIndex;
      const Operand& o = s.operands[i];
      if (info.entity == sema::EntityKind::MBarrier) {
        if (!o.subscripted) {
          so.element = m_model.barriers[info.entityIndex].size > 1 ? -1 : 0;
        } else {
          auto v = eval(*o.indices[0].start);
          so.element = v && v->exact() ? v->lo : -2;
        }
        so.ringSlot = ringSlot(m_model.barriers[info.entityIndex]);
      } else if (info.entity == sema::EntityKind::Buffer) {
        so.footprint = footprint(o, m_model.buffers[info.entityIndex], info.entityIndex);
        // Per-instance footprints serve the instance analyses of shared and tensor memory.
        ir::Space space = m_model.buffers[info.entityIndex].space;
        if (o.subscripted && (space == ir::Space::Smem || space == ir::Space::Tmem))
          instanceFootprints(o, m_model.buffers[info.entityIndex], info.entityIndex, so);
        if (op.primitive->issue == reg::IssueScope::Warp && !op.primitive->issueAttribute &&
            m_model.buffers[info.entityIndex].space == ir::Space::Tmem)
          so.warpLanes = warpLanes(o, m_model.buffers[info.entityIndex]);
      }
      step.operands.push_back(std::move(so));
    }
    step.instances =
        issueInstances(op, *m_role, step.attributes.empty() ? op.attributes : step.attributes);
    m_stream->steps.push_back(std::move(step));
    ++m_steps;
  }

  const Module& m_module;
  const sema::KernelModel& m_model;
  std::size_t m_maxSteps;
  std::int64_t m_firstTile = 0;
  std::vector<std::int64_t> m_scalars; ///< value of each run-time scalar parameter
  std::size_t m_steps = 0;
  Program m_program;
  std::unordered_map<const Stmt*, std::size_t> m_opIndex;
  std::unordered_map<const Stmt*, std::size_t> m_loopIndex;
  std::map<std::string, std::int64_t> m_consts;
  // Per-role walking state.
  const sema::RoleInfo* m_role = nullptr;
  RoleStream* m_stream = nullptr;
  std::vector<std::int64_t> m_counters; ///< per pipeline (model order)
  std::map<std::string, std::int64_t> m_vars;
  /// The warp whose footprint is being evaluated: `warp`, `wg` and `tid` of its threads.
  struct Instance {
    std::int64_t warp = 0;
    std::int64_t wg = 0;
    Interval tid;
  };
  std::optional<Instance> m_instance;
  std::map<std::string, std::vector<std::int64_t>> m_tiles;
  std::vector<std::pair<std::size_t, std::int64_t>> m_loopValues;
  /// m_loopValues as the steps of the current iteration share it (made on first use).
  std::optional<SharedList<std::pair<std::size_t, std::int64_t>>> m_sharedLoopValues;
  std::uint64_t m_iteration = 0;
  std::uint64_t m_nextIteration = 0;
};

} // namespace

Program unroll(const Module& module, const sema::KernelModel& model, std::size_t maxSteps,
               std::int64_t tileCap, std::int64_t firstTile,
               std::span<const std::int64_t> scalars) {
  Program p = Unroller(module, model, maxSteps, tileCap, firstTile, scalars).run();
  p.firstTile = firstTile;
  return p;
}

} // namespace cake::verify::detail
