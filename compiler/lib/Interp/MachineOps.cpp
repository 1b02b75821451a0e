// Semantics of the primitives on the CPU machine: copies (global, shared, TMA, cp.async,
// ldmatrix / stmatrix), casts, elementwise operations, reductions, MMAs, and the
// synchronisation primitives (mbarriers, named and CTA barriers, async-group waits). A
// primitive not listed here is a located hw-no-cpu-semantics finding, never a silent skip.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Machine.h"

#include "cake/Interp/Semantics.h"
#include "cake/Reference/Rounding.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <set>

namespace cake::interp::detail {

namespace {

/// Operations that only order memory or hand out resources: sequentially consistent execution
/// already gives what they guarantee, so they have no data effect on the CPU.
const std::set<std::string, std::less<>> kOrderingOnly = {
    "fence.mbarrier_init", "fence.proxy.async", "wgmma.fence", "setmaxnreg", "tcgen05.fence_before",
    "tcgen05.fence_after", "tcgen05.alloc", "tcgen05.dealloc", "tcgen05.relinquish",
    "tcgen05.wait_ld", "tcgen05.wait_st",
    // programmatic dependent launch orders against other grids; one grid runs here
    "griddep.wait", "griddep.launch_dependents"};

double f32(double x) {
  return static_cast<double>(static_cast<float>(x));
}

std::optional<double> unary(std::string_view fn, double x) {
  if (fn == "neg")
    return -x;
  if (fn == "abs")
    return std::fabs(x);
  if (fn == "exp")
    return std::exp(x);
  if (fn == "exp2")
    return std::exp2(x);
  if (fn == "log")
    return std::log(x);
  if (fn == "log2")
    return std::log2(x);
  if (fn == "sqrt")
    return std::sqrt(x);
  if (fn == "rsqrt")
    return 1.0 / std::sqrt(x);
  if (fn == "rcp")
    return 1.0 / x;
  if (fn == "tanh")
    return std::tanh(x);
  if (fn == "gelu")
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  if (fn == "gelu_tanh")
    return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  if (fn == "silu")
    return x / (1.0 + std::exp(-x));
  if (fn == "relu")
    return x > 0.0 ? x : 0.0;
  if (fn == "sigmoid")
    return 1.0 / (1.0 + std::exp(-x));
  return std::nullopt;
}

std::optional<double> binary(std::string_view fn, double a, double b) {
  if (fn == "add")
    return a + b;
  if (fn == "sub")
    return a - b;
  if (fn == "mul")
    return a * b;
  if (fn == "div")
    return a / b;
  if (fn == "max")
    return std::isnan(a) ? b : std::isnan(b) ? a : std::max(a, b);
  if (fn == "min")
    return std::isnan(a) ? b : std::isnan(b) ? a : std::min(a, b);
  return std::nullopt;
}

double combine(std::string_view op, double acc, double x) {
  if (op == "sum")
    return f32(acc + x);
  if (op == "max")
    return std::isnan(acc) ? x : std::max(acc, x);
  return std::isnan(acc) ? x : std::min(acc, x);
}

Grain finer(Grain a, Grain b) {
  return static_cast<Grain>(std::min(int(a), int(b)));
}

void namesGrain(const ir::Expr& e, Grain& g) {
  if (e.kind == ir::ExprKind::Name) {
    if (e.text() == "tid" || e.text() == "lane")
      g = finer(g, Grain::Thread);
    else if (e.text() == "warp")
      g = finer(g, Grain::Warp);
    else if (e.text() == "wg")
      g = finer(g, Grain::Warpgroup);
  }
  for (const ir::ExprPtr& c : e.children)
    if (c)
      namesGrain(*c, g);
}

/// One participant's step at a generation barrier: `arrived[0]` counts completed generations,
/// `arrived[1]` the arrivals of the current one, `arrived[slot]` (0: not waiting) the generation
/// the participant waits for. The first call arrives; the barrier passes once `expected`
/// participants arrived. Returns whether the participant may go on.
bool passGeneration(std::vector<std::size_t>& arrived, std::size_t slot, std::int64_t expected) {
  std::size_t& mine = arrived[slot];
  if (mine == 0) {
    mine = arrived[0] + 1;
    if (std::int64_t(++arrived[1]) >= expected) {
      ++arrived[0];
      arrived[1] = 0;
    }
  }
  if (arrived[0] + 1 > mine) {
    mine = 0;
    return true;
  }
  return false;
}

} // namespace

/// A read operand of a finer scope than the op's grain is read from the first thread of the
/// instance (such operands are uniform scalars: a scale, an epsilon).
Grain opGrain(const Machine& m, const sema::OpInfo& op) {
  Grain g = Grain::Role;
  for (std::size_t i = 0; i < op.operands.size() && i < op.stmt->operands.size(); ++i) {
    const sema::OperandInfo& info = op.operands[i];
    bool written = i < op.primitive->operands.size() &&
                   (op.primitive->operands[i].access == reg::Access::Write ||
                    op.primitive->operands[i].access == reg::Access::ReadWrite);
    if (info.entity == sema::EntityKind::Buffer && written) {
      const sema::BufferInfo& b = m.model.buffers[info.entityIndex];
      if (b.space == ir::Space::Reg)
        g = finer(g, m.scopeGrain(b.scope));
    }
    for (const ir::Index& idx : op.stmt->operands[i].indices) {
      if (idx.start)
        namesGrain(*idx.start, g);
      if (idx.size)
        namesGrain(*idx.size, g);
    }
  }
  return g;
}

namespace {

/// One operand of one instance: its view and the register instance it addresses.
struct Arg {
  View view;
  std::int64_t regInst = 0;
  bool isReg = false;
};

} // namespace

bool Machine::execute(RoleProc& p, const sema::OpInfo& op) {
  const std::string& name = op.primitive->name;
  if (kOrderingOnly.count(name))
    return true;
  // Data-defined primitives run from their registry definition; a C++ name must be listed
  // (the list `cake primitives` and the proposal review show).
  if (!op.primitive->semantics &&
      op.primitive->lowering.strategy != reg::LoweringStrategy::Expansion &&
      !builtinCpuSemantics().count(name)) {
    fail(DiagId::HwNoCpuSemantics, *op.stmt,
         "'" + name + "' has no CPU semantics (no C++ semantics, semantic form or expansion)");
    return false;
  }
  if (name == "mbarrier.init" || name == "mbarrier.try_wait" || name == "mbarrier.arrive" ||
      name == "mbarrier.arrive_expect_tx" || name == "mbarrier.expect_tx" || name == "cta.sync" ||
      name == "bar.sync" || name == "bar.arrive" || name == "cp.async.commit" ||
      name == "cp.async.wait" || name == "wgmma.commit" || name == "wgmma.wait" ||
      name == "bulk.commit_group" || name == "bulk.wait_group" || name == "tcgen05.commit" ||
      name == "cluster.sync")
    return executeSync(p, op, name);

  const ir::Stmt& s = *op.stmt;
  Grain g = opGrain(*this, op);
  std::int64_t n = instances(p.role, g);
  auto args = [&](std::int64_t inst) -> std::optional<std::vector<Arg>> {
    std::vector<Arg> out;
    for (std::size_t i = 0; i < op.operands.size() && i < s.operands.size(); ++i) {
      auto v = view(s.operands[i], op.operands[i], p, g, inst);
      if (!v) {
        fail(DiagId::HwNoCpuSemantics, s,
             "the CPU interpreter cannot evaluate the subscripts of operand '" +
                 s.operands[i].name.name + "' of " + name);
        return std::nullopt;
      }
      Arg a;
      a.view = *v;
      if (v->entity == sema::EntityKind::Buffer &&
          model.buffers[v->index].space == ir::Space::Reg) {
        a.isReg = true;
        a.regInst = regInstance(model.buffers[v->index].scope, g, inst);
      }
      out.push_back(std::move(a));
    }
    return out;
  };
  auto read = [&](const Arg& a, const std::string& swz = {}) {
    return gather(a.view, p, a.regInst, swz);
  };
  // Every instance reads its operands before any instance writes (the instances of one
  // operation execute together, as the threads of a warp do): writes wait in `deferred`.
  struct Deferred {
    Arg arg;
    std::vector<double> values;
    std::int64_t inst;
  };
  std::vector<Deferred> deferred;
  auto write = [&](const Arg& a, const std::vector<double>& v, std::int64_t inst) {
    deferred.push_back({a, v, inst});
  };
  struct Flush {
    Machine& m;
    RoleProc& p;
    const ir::Stmt& s;
    Grain g;
    std::vector<Deferred>& d;
    ~Flush() {
      if (!m.failed)
        for (const Deferred& w : d)
          m.scatter(w.arg.view, p, w.arg.regInst, w.values, s, g, w.inst);
    }
  } flush{*this, p, s, g, deferred};
  auto noSemantics = [&](const std::string& why) {
    fail(DiagId::HwNoCpuSemantics, s,
         "'" + name + "' has no CPU semantics" + (why.empty() ? "" : ": " + why));
    return false;
  };
  auto symbol = [&](std::string_view attr) { return attribute(op, attr, p).sym; };

  // --- copies -----------------------------------------------------------------------------
  bool copy = name == "ld.global" || name == "ld.shared" || name == "st.global" ||
              name == "st.shared" || name == "epilogue.store" || name == "cast" ||
              name == "ldmatrix" || name == "stmatrix" || name == "tcgen05.ld" ||
              name == "tcgen05.st";
  if (copy) {
    if ((name == "ldmatrix" || name == "stmatrix") && attribute(op, "trans", p).b)
      return noSemantics("trans=true (the transposed 8x8 fragment layout)");
    bool towardZero = name == "cast" && symbol("rounding") == "rz";
    for (std::int64_t i = 0; i < n; ++i) {
      auto a = args(i);
      if (!a)
        return false;
      std::vector<double> v = read((*a)[1]);
      if (std::int64_t(v.size()) != (*a)[0].view.count())
        return noSemantics("source and destination hold different element counts");
      if (towardZero) {
        ir::DType dt = model.buffers[(*a)[0].view.index].dtype;
        for (double& x : v)
          x = ref::roundTowardZero(dt, x);
      }
      write((*a)[0], v, i);
    }
    return true;
  }
  if (name == "cp.async" || name == "tma.load" || name == "tma.store") {
    // A multicast load is issued by the lowest rank of its mask only and lands in the shared
    // memory of every CTA of the mask, completing bytes on each receiver's barrier element.
    std::vector<std::size_t> receivers{rank()};
    if (name == "tma.load")
      if (std::int64_t mask = attribute(op, "multicast", p).i; mask != 0) {
        receivers.clear();
        for (std::int64_t r = 0; r < 16; ++r)
          if (mask >> r & 1) {
            if (r >= clusterSize())
              return noSemantics("multicast=" + std::to_string(mask) + " names CTA rank " +
                                 std::to_string(r) + " outside the cluster of " +
                                 std::to_string(clusterSize()));
            receivers.push_back(std::size_t(r));
          }
        if (receivers.front() != rank())
          return true; // the lowest rank of the mask issues the copy for every receiver
      }
    // Issued now (subscripts and barrier element evaluated in program order), completed later.
    for (std::int64_t i = 0; i < n; ++i) {
      auto a = args(i);
      if (!a)
        return false;
      std::vector<Arg> captured = *a;
      std::string swz;
      if (name != "cp.async") {
        const Arg& tm = name == "tma.load" ? captured[1] : captured[0];
        // The tensor map's swizzle, not the buffer's: a mismatch reads back scrambled data.
        swz = model.tensorMaps[tm.view.index].swizzle;
      }
      const ir::Stmt* by = &s;
      std::size_t role = p.role;
      std::vector<std::int64_t> tile = p.currentTile;
      // Completed with the issuing CTA active (the scheduler activates it).
      auto complete = [this, captured, swz, by, role, tile, g, i, name, receivers]() {
        RoleProc& proc = procs[role];
        std::vector<std::int64_t> saved = proc.currentTile;
        proc.currentTile = tile;
        if (name == "tma.store") {
          std::vector<double> v = gather(captured[1].view, proc, 0, swz);
          scatter(captured[0].view, proc, 0, v, *by, g, i);
        } else {
          std::vector<double> v = gather(captured[1].view, proc, captured[1].regInst);
          for (std::size_t r : receivers)
            withCta(r, [&] {
              scatter(captured[0].view, proc, 0, v, *by, g, i, swz);
              if (name == "tma.load" && captured.size() > 2) {
                const sema::BufferInfo& src =
                    *model.buffer(model.tensorMaps[captured[1].view.index].source);
                std::int64_t bytes =
                    captured[1].view.count() * std::max(1u, ir::info(src.dtype).bits / 8);
                arrive(captured[2].view.index, std::max<std::int64_t>(0, captured[2].view.element),
                       0, -bytes);
              }
            });
        }
        proc.currentTile = saved;
      };
      std::size_t id = issueAsync(p, complete);
      if (name == "cp.async")
        p.cpOpen.push_back(id);
      else if (name == "tma.store")
        p.bulkOpen.push_back(id);
    }
    return true;
  }

  // --- elementwise --------------------------------------------------------------------------
  if (name == "ew.fill") {
    reg::DefValue v = attribute(op, "value", p);
    double value = v.kind == reg::DefValue::Kind::Float ? v.f
                   : v.kind == reg::DefValue::Kind::Int ? double(v.i)
                                                        : 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
      auto a = args(i);
      if (!a)
        return false;
      write((*a)[0], std::vector<double>(std::size_t((*a)[0].view.count()), value), i);
    }
    return true;
  }
  if (name == "ew.mask") {
    // Element (r, c): query row + r, key col + c; -inf at or past seqlen, and after the query
    // when causal. The attributes are evaluated per instance (row may name wg).
    bool causal = attribute(op, "causal", p).b;
    for (std::int64_t i = 0; i < n; ++i) {
      auto a = args(i);
      if (!a)
        return false;
      auto at = [&](std::string_view attr) -> std::optional<std::int64_t> {
        const ir::Attribute* x = s.attribute(attr);
        return x && x->value ? eval(*x->value, p, g, i) : std::optional<std::int64_t>(0);
      };
      auto row = at("row"), col = at("col"), seqlen = at("seqlen");
      if (!row || !col || !seqlen)
        return noSemantics("its row, col or seqlen cannot be evaluated");
      std::vector<std::int64_t> shape = (*a)[0].view.shape();
      std::int64_t cols = shape.empty() ? 1 : shape.back();
      std::vector<double> x = read((*a)[0]);
      for (std::size_t k = 0; k < x.size(); ++k) {
        std::int64_t q = *row + std::int64_t(k) / cols, key = *col + std::int64_t(k) % cols;
        if (key >= *seqlen || (causal && key > q))
          x[k] = -std::numeric_limits<double>::infinity();
      }
      write((*a)[0], x, i);
    }
    return true;
  }
  if (name == "ew.unary" || name == "ew.binary" || name == "ew.fma") {
    std::string fn = name == "ew.fma" ? "fma" : symbol("fn");
    std::string bc = name == "ew.unary" ? "none" : symbol("broadcast");
    if (name == "ew.unary" && !unary(fn, 0.5))
      return noSemantics("fn=" + fn);
    if (name == "ew.binary" && !binary(fn, 1.0, 1.0))
      return noSemantics("fn=" + fn);
    for (std::int64_t i = 0; i < n; ++i) {
      auto a = args(i);
      if (!a)
        return false;
      const View& dv = (*a)[0].view;
      std::vector<std::int64_t> shape = dv.shape();
      std::int64_t cols = shape.empty() ? 1 : shape.back();
      std::vector<double> x = read((*a)[1]);
      std::vector<double> y = name == "ew.unary" ? std::vector<double>{} : read((*a)[2]);
      std::vector<double> z = name == "ew.fma" ? read((*a)[3]) : std::vector<double>{};
      std::vector<double> out(x.size());
      for (std::size_t k = 0; k < x.size(); ++k) {
        double r;
        if (name == "ew.unary") {
          r = *unary(fn, x[k]);
        } else {
          std::size_t bi = bc == "row"      ? std::size_t(std::int64_t(k) / cols)
                           : bc == "col"    ? std::size_t(std::int64_t(k) % cols)
                           : bc == "scalar" ? 0
                                            : k;
          if (bi >= y.size())
            return noSemantics("broadcast operand smaller than the broadcast needs");
          r = name == "ew.fma" ? std::fma(x[k], y[bi], z[k]) : *binary(fn, x[k], y[bi]);
        }
        out[k] = f32(r); // computed in f32, then rounded to dtype(dst) by the store
      }
      write((*a)[0], out, i);
    }
    return true;
  }
  if (name == "softmax.rescale") {
    double scale = 1.0;
    if (reg::DefValue v = attribute(op, "scale", p); v.kind == reg::DefValue::Kind::Float)
      scale = v.f;
    else if (v.kind == reg::DefValue::Kind::Int)
      scale = double(v.i);
    for (std::int64_t i = 0; i < n; ++i) {
      auto a = args(i);
      if (!a)
        return false;
      std::vector<double> acc = read((*a)[0]), mo = read((*a)[1]), mn = read((*a)[2]);
      if (mo.empty() || acc.size() % mo.size() != 0)
        return noSemantics("acc rows and maximum vectors disagree");
      std::size_t cols = acc.size() / mo.size();
      for (std::size_t k = 0; k < acc.size(); ++k)
        acc[k] = f32(acc[k] * f32(std::exp2(f32((mo[k / cols] - mn[k / cols]) * scale))));
      write((*a)[0], acc, i);
    }
    return true;
  }

  // --- reductions ---------------------------------------------------------------------------
  if (name == "reduce.warp") {
    std::string fn = symbol("op");
    for (std::int64_t i = 0; i < n; ++i) {
      auto a = args(i);
      if (!a)
        return false;
      std::vector<double> src = read((*a)[1]);
      std::int64_t rows = (*a)[0].view.count();
      if (rows <= 0 || std::int64_t(src.size()) % rows != 0)
        return noSemantics("result rows do not divide the source");
      std::int64_t cols = std::int64_t(src.size()) / rows;
      std::vector<double> out(static_cast<std::size_t>(rows));
      for (std::int64_t r = 0; r < rows; ++r) {
        double acc = src[std::size_t(r * cols)];
        for (std::int64_t c = 1; c < cols; ++c)
          acc = combine(fn, acc, src[std::size_t(r * cols + c)]);
        out[std::size_t(r)] = acc;
      }
      write((*a)[0], out, i);
    }
    return true;
  }
  if (name == "reduce.cta") {
    // Every instance of the source's scope contributes its rows (in instance order, as the
    // partials are combined in warp order); every instance of the destination receives them.
    std::string fn = symbol("op");
    const sema::BufferInfo& srcBuf = model.buffers[op.operands[1].entityIndex];
    const sema::BufferInfo& dstBuf = model.buffers[op.operands[0].entityIndex];
    Grain sg = scopeGrain(srcBuf.scope), dg = scopeGrain(dstBuf.scope);
    std::vector<double> total;
    std::int64_t rows = 0;
    for (std::int64_t j = 0; j < instances(p.role, sg); ++j) {
      auto v = view(s.operands[1], op.operands[1], p, sg, j);
      auto dv = view(s.operands[0], op.operands[0], p, sg, j);
      if (!v || !dv)
        return noSemantics("subscripts not evaluable");
      std::vector<double> src = gather(*v, p, regInstance(srcBuf.scope, sg, j));
      rows = dv->count();
      if (rows <= 0 || std::int64_t(src.size()) % rows != 0)
        return noSemantics("result rows do not divide the source");
      std::int64_t cols = std::int64_t(src.size()) / rows;
      if (total.empty())
        total.assign(std::size_t(rows), std::numeric_limits<double>::quiet_NaN());
      for (std::int64_t r = 0; r < rows; ++r) {
        double acc = src[std::size_t(r * cols)];
        for (std::int64_t c = 1; c < cols; ++c)
          acc = combine(fn, acc, src[std::size_t(r * cols + c)]);
        total[std::size_t(r)] = j == 0 ? acc : combine(fn, total[std::size_t(r)], acc);
      }
    }
    for (std::int64_t j = 0; j < instances(p.role, dg); ++j) {
      auto dv = view(s.operands[0], op.operands[0], p, dg, j);
      if (!dv)
        return noSemantics("subscripts not evaluable");
      scatter(*dv, p, regInstance(dstBuf.scope, dg, j), total, s, dg, j);
    }
    return true;
  }
  if (name == "reduce.argmin" || name == "reduce.argmax") {
    bool isMin = name == "reduce.argmin";
    bool accumulate = attribute(op, "accumulate", p).b;
    std::int64_t base = attribute(op, "index_base", p).i;
    for (std::int64_t i = 0; i < n; ++i) {
      auto a = args(i);
      if (!a)
        return false;
      std::vector<double> val = read((*a)[0]), idx = read((*a)[1]), src = read((*a)[2]);
      std::int64_t rows = std::int64_t(val.size());
      if (rows <= 0 || std::int64_t(src.size()) % rows != 0)
        return noSemantics("result rows do not divide the source");
      std::int64_t cols = std::int64_t(src.size()) / rows;
      auto better = [&](double v, double i2, double bv, double bi) {
        if (std::isnan(v))
          return false;
        if (std::isnan(bv))
          return true;
        return isMin ? (v < bv || (v == bv && i2 < bi)) : (v > bv || (v == bv && i2 < bi));
      };
      for (std::int64_t r = 0; r < rows; ++r) {
        double bv = std::numeric_limits<double>::quiet_NaN(), bi = 0;
        for (std::int64_t c = 0; c < cols; ++c)
          if (better(src[std::size_t(r * cols + c)], double(c + base), bv, bi)) {
            bv = src[std::size_t(r * cols + c)];
            bi = double(c + base);
          }
        if (!accumulate || better(bv, bi, val[std::size_t(r)], idx[std::size_t(r)])) {
          val[std::size_t(r)] = bv;
          idx[std::size_t(r)] = bi;
        }
      }
      write((*a)[0], val, i);
      write((*a)[1], idx, i);
    }
    return true;
  }

  // --- matrix multiply-accumulate -------------------------------------------------------------
  if (name == "mma.sync" || name == "wgmma.mma" || name == "tcgen05.mma") {
    if (name == "tcgen05.mma" && attribute(op, "cta_group", p).i == 2)
      return noSemantics("cta_group=2 (the CTA pair's MMA)");
    bool accumulate = name == "mma.sync" ||
                      attribute(op, "accumulate", p).kind == reg::DefValue::Kind::Unknown ||
                      attribute(op, "accumulate", p).b;
    bool aMn = name == "wgmma.mma" && symbol("a_major") == "mn";
    bool bMn = (name == "wgmma.mma" || name == "tcgen05.mma") && symbol("b_major") == "mn";
    std::vector<std::vector<Arg>> all;
    for (std::int64_t i = 0; i < n; ++i) {
      auto a = args(i);
      if (!a)
        return false;
      std::vector<std::int64_t> ds = (*a)[0].view.shape(), as = (*a)[1].view.shape(),
                                bs = (*a)[2].view.shape();
      if (ds.size() != 2 || as.size() != 2 || bs.size() != 2)
        return noSemantics("operands are not 2-D tiles");
      std::int64_t M = ds[0], N = ds[1], K = aMn ? as[0] : as[1];
      if ((aMn ? as[1] : as[0]) != M || (bMn ? bs[1] : bs[0]) != N || (bMn ? bs[0] : bs[1]) != K)
        return noSemantics("tile shapes [" + std::to_string(M) + ", " + std::to_string(N) +
                           "] do not match the operands");
      all.push_back(std::move(*a));
    }
    const ir::Stmt* by = &s;
    std::size_t role = p.role;
    auto compute = [this, all, accumulate, aMn, bMn, by, role, g]() {
      RoleProc& proc = procs[role];
      for (std::size_t i = 0; i < all.size(); ++i) {
        const std::vector<Arg>& a = all[i];
        std::vector<std::int64_t> ds = a[0].view.shape();
        std::int64_t M = ds[0], N = ds[1];
        std::vector<double> A = gather(a[1].view, proc, a[1].regInst);
        std::vector<double> B = gather(a[2].view, proc, a[2].regInst);
        std::int64_t K = std::int64_t(A.size()) / M;
        std::vector<double> D = accumulate ? gather(a[0].view, proc, a[0].regInst)
                                           : std::vector<double>(std::size_t(M * N), 0.0);
        // Products of the (already rounded) inputs are exact; sums in at least f32.
        std::vector<double> at(std::size_t(M * K)), bt(std::size_t(N * K));
        for (std::int64_t m = 0; m < M; ++m)
          for (std::int64_t k = 0; k < K; ++k)
            at[std::size_t(m * K + k)] =
                aMn ? A[std::size_t(k * M + m)] : A[std::size_t(m * K + k)];
        for (std::int64_t c = 0; c < N; ++c)
          for (std::int64_t k = 0; k < K; ++k)
            bt[std::size_t(c * K + k)] =
                bMn ? B[std::size_t(k * N + c)] : B[std::size_t(c * K + k)];
        for (std::int64_t m = 0; m < M; ++m)
          for (std::int64_t c = 0; c < N; ++c) {
            double sum = 0.0;
            const double* ar = &at[std::size_t(m * K)];
            const double* br = &bt[std::size_t(c * K)];
            for (std::int64_t k = 0; k < K; ++k)
              sum += ar[k] * br[k];
            D[std::size_t(m * N + c)] = f32(D[std::size_t(m * N + c)] + f32(sum));
          }
        scatter(a[0].view, proc, a[0].regInst, D, *by, g, std::int64_t(i));
      }
    };
    if (name == "mma.sync") {
      compute();
      return true;
    }
    // Matrix operations of one role complete in issue order (accumulate=false first).
    std::size_t id = issueAsync(p, compute, name == "tcgen05.mma" ? 2 : 1);
    if (name == "tcgen05.mma")
      p.tcIssued.push_back(id);
    else
      p.wgOpen.push_back(id);
    return true;
  }
  // Primitives defined in data: a semantic form, or an expansion's steps.
  if (op.primitive->semantics)
    return executeSemanticForm(p, op);
  if (op.primitive->lowering.strategy == reg::LoweringStrategy::Expansion)
    return executeExpansion(p, op);
  return noSemantics("");
}

bool Machine::executeSync(RoleProc& p, const sema::OpInfo& op, const std::string& name) {
  const ir::Stmt& s = *op.stmt;
  auto barrierView = [&](std::size_t operand) -> std::optional<View> {
    if (operand >= op.operands.size() || operand >= s.operands.size())
      return std::nullopt;
    return view(s.operands[operand], op.operands[operand], p, Grain::Role, 0);
  };
  auto waitGroups = [&](std::vector<std::vector<std::size_t>>& groups, std::int64_t keep) {
    while (std::int64_t(groups.size()) > std::max<std::int64_t>(0, keep)) {
      for (std::size_t id : groups.front())
        completeAsync(id);
      groups.erase(groups.begin());
    }
  };
  auto pendingAttr = [&]() {
    reg::DefValue v = attribute(op, "pending", p);
    return v.kind == reg::DefValue::Kind::Int ? v.i : 0;
  };
  if (name == "mbarrier.init") {
    auto v = barrierView(0);
    if (!v)
      return false;
    for (MbarrierState& st : barrier(v->index)) {
      st = MbarrierState{};
      st.pending = model.barriers[v->index].count;
      st.initialised = true;
    }
    return true;
  }
  if (name == "mbarrier.try_wait") {
    auto v = barrierView(0);
    if (!v)
      return false;
    reg::DefValue parity = attribute(op, "parity", p);
    std::int64_t element = std::max<std::int64_t>(0, v->element);
    auto& states = barrier(v->index);
    if (element >= std::int64_t(states.size())) {
      fail(DiagId::HwNoCpuSemantics, s,
           "barrier element " + std::to_string(element) + " out of range");
      return false;
    }
    // try_wait.parity P succeeds once the phase with parity P has completed.
    return (states[std::size_t(element)].phase & 1) != (parity.i & 1);
  }
  if (name == "mbarrier.arrive" || name == "mbarrier.arrive_expect_tx" ||
      name == "mbarrier.expect_tx") {
    auto v = barrierView(0);
    if (!v)
      return false;
    std::int64_t element = std::max<std::int64_t>(0, v->element);
    std::int64_t count = 1;
    if (name == "mbarrier.arrive") {
      std::string scope = attribute(op, "scope", p).sym;
      count = scope == "thread"      ? instances(p.role, Grain::Thread)
              : scope == "warp"      ? instances(p.role, Grain::Warp)
              : scope == "warpgroup" ? instances(p.role, Grain::Warpgroup)
                                     : 1;
    } else if (name == "mbarrier.expect_tx") {
      count = 0;
    }
    std::int64_t bytes = name == "mbarrier.arrive" ? 0 : attribute(op, "bytes", p).i;
    std::int64_t mask = name == "mbarrier.arrive" ? attribute(op, "cta_mask", p).i : 0;
    if (mask != 0) {
      // A remote arrive: the same barrier element in every CTA of the mask (mapa + arrive
      // .shared::cluster), this CTA's only when its own bit is set.
      for (std::int64_t r = 0; r < 16; ++r)
        if (mask >> r & 1) {
          if (r >= clusterSize()) {
            fail(DiagId::HwNoCpuSemantics, s,
                 "cta_mask=" + std::to_string(mask) + " names CTA rank " + std::to_string(r) +
                     " outside the cluster of " + std::to_string(clusterSize()));
            return false;
          }
          withCta(std::size_t(r), [&] { arrive(v->index, element, count, 0); });
        }
      return true;
    }
    // expect-tx first, then the arrival (one atomic operation on the hardware).
    arrive(v->index, element, count, bytes);
    return true;
  }
  if (name == "cluster.sync") {
    // A generation barrier over every role of every CTA of the cluster
    // (barrier.cluster.arrive + wait by all threads).
    std::size_t roles = model.roles.size();
    std::int64_t expected = std::int64_t(roles) * clusterSize();
    std::vector<std::size_t>& arrived = clusterArrived;
    if (arrived.size() < 2 + roles * std::size_t(clusterSize()))
      arrived.assign(2 + roles * std::size_t(clusterSize()), 0);
    return passGeneration(arrived, 2 + rank() * roles + p.role, expected);
  }
  if (name == "bar.arrive") {
    // The producer side of a named barrier: counts towards the current generation, as the
    // hardware's one arrival count per barrier id does, and never waits.
    std::size_t key = op.operands[0].entityIndex;
    std::int64_t expected = std::int64_t(model.barriers[key].roles.size());
    auto& arrived = namedArrived[key];
    if (arrived.size() < 2 + procs.size())
      arrived.assign(2 + procs.size(), 0);
    if (std::int64_t(++arrived[1]) >= expected) {
      ++arrived[0];
      arrived[1] = 0;
    }
    return true;
  }
  if (name == "cta.sync" || name == "bar.sync") {
    // A generation barrier over the participating roles (all roles, or the nbarrier's).
    std::size_t key = name == "cta.sync" ? std::size_t(-1) : op.operands[0].entityIndex;
    std::int64_t expected = std::int64_t(model.roles.size());
    if (name == "bar.sync" && !model.barriers[key].roles.empty())
      expected = std::int64_t(model.barriers[key].roles.size());
    auto& arrived = namedArrived[key];
    if (arrived.size() < 2 + procs.size())
      arrived.assign(2 + procs.size(), 0);
    return passGeneration(arrived, 2 + p.role, expected);
  }
  if (name == "tcgen05.commit") {
    // The barrier receives one arrival once every tcgen05.mma issued so far has completed.
    auto v = barrierView(0);
    if (!v)
      return false;
    if (attribute(op, "multicast", p).i != 0) {
      fail(DiagId::HwNoCpuSemantics, s, "'tcgen05.commit' has no CPU semantics: multicast");
      return false;
    }
    std::vector<std::size_t> tracked = p.tcIssued;
    p.tcIssued.clear();
    std::size_t bar = v->index;
    std::int64_t element = std::max<std::int64_t>(0, v->element);
    issueAsync(p, [this, tracked, bar, element]() {
      for (std::size_t id : tracked)
        completeAsync(id);
      arrive(bar, element, 1, 0);
    });
    return true;
  }
  if (name == "cp.async.commit") {
    p.cpGroups.push_back(std::move(p.cpOpen));
    p.cpOpen.clear();
    return true;
  }
  if (name == "wgmma.commit") {
    p.wgGroups.push_back(std::move(p.wgOpen));
    p.wgOpen.clear();
    return true;
  }
  if (name == "bulk.commit_group") {
    p.bulkGroups.push_back(std::move(p.bulkOpen));
    p.bulkOpen.clear();
    return true;
  }
  if (name == "cp.async.wait") {
    waitGroups(p.cpGroups, pendingAttr());
    return true;
  }
  if (name == "wgmma.wait") {
    waitGroups(p.wgGroups, pendingAttr());
    return true;
  }
  if (name == "bulk.wait_group") {
    waitGroups(p.bulkGroups, pendingAttr());
    return true;
  }
  fail(DiagId::HwNoCpuSemantics, s, "'" + name + "' has no CPU semantics");
  return false;
}

} // namespace cake::interp::detail
