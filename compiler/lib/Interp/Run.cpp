// `cake run --device cpu`: binds the workload contract to the kernel (located mismatches),
// shrinks it to the small shapes, estimates memory, draws the inputs, runs the interpreter
// under several interleavings, computes the reference and judges every output element.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Interp/Run.h"
#include "cake/Reference/Evaluate.h"

#include "Machine.h"
#include "cake/Reference/Operators.h"
#include "cake/Reference/Rounding.h"
#include "cake/Support/Json.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <unistd.h>

namespace cake::interp {

namespace {

using detail::Machine;

struct Bound {
  std::map<std::string, std::size_t> slot; ///< operator slot -> buffer index
  std::map<std::string, double> attrs;
};

/// Check options binding the kernel's run-time scalar parameters to a contract's values.
verify::VerifyOptions scalarOptions(const std::vector<ref::ConstValue>& scalars) {
  verify::VerifyOptions o;
  for (const ref::ConstValue& c : scalars)
    o.scalarValues[c.name] = c.value;
  return o;
}

const sema::ConstInfo* findConst(const sema::KernelModel& m, std::string_view name) {
  for (const sema::ConstInfo& c : m.consts)
    if (c.name == name)
      return &c;
  return nullptr;
}

SourceRange declRange(const ir::Module& module, const ir::Decl* d) {
  return d ? module.sourceMap.range(d->id) : SourceRange{};
}

/// Checks the contract against the kernel; located dc-contract-mismatch findings.
std::optional<Bound> bind(const ref::Workload& w, const driver::CheckResult& k,
                          const sema::KernelModel* full, DiagnosticEngine& diags) {
  const sema::KernelModel& model = k.model;
  const ref::OperatorInfo* info = ref::findOperator(w.op);
  Bound b;
  bool ok = info != nullptr;
  auto mismatch = [&](SourceRange at, const std::string& msg, const ir::Decl* decl = nullptr,
                      const std::string& note = {}) {
    Diagnostic* d = diags.report(DiagId::DcContractMismatch, at, msg);
    if (decl)
      addNote(d, declRange(k.module, decl), note.empty() ? "declared here" : note);
    ok = false;
  };
  std::string params;
  for (const sema::BufferInfo& buf : model.buffers)
    if (buf.kind == ir::DeclKind::Param)
      params += (params.empty() ? "" : ", ") + buf.name;
  for (const ref::OperatorSlot& s : info ? info->params : std::vector<ref::OperatorSlot>{}) {
    const ref::Binding* bd = w.binding(s.name);
    if (!bd)
      continue;
    const sema::BufferInfo* buf = model.buffer(bd->param);
    if (!buf || buf->kind != ir::DeclKind::Param) {
      mismatch(bd->range, "the kernel has no parameter '" + bd->param + "' (its parameters: " +
                              params + ")");
      continue;
    }
    std::string role = s.output ? "output" : "input";
    if (buf->paramRole != role)
      mismatch(bd->range,
               "operator slot \"" + std::string(s.name) + "\" is an " + role + ", but '" +
                   bd->param + "' is declared role=" + buf->paramRole,
               buf->decl);
    if (buf->shape.size() != s.rank)
      mismatch(bd->range,
               "operator slot \"" + std::string(s.name) + "\" needs a rank-" +
                   std::to_string(s.rank) + " tensor, but '" + bd->param + "' has rank " +
                   std::to_string(buf->shape.size()),
               buf->decl);
    b.slot[std::string(s.name)] = static_cast<std::size_t>(buf - model.buffers.data());
  }
  // dtypes the contract names for a bound parameter (by its name or its slot).
  for (const ref::DTypeEntry& e : w.dtypes) {
    std::string param = e.name;
    if (const ref::Binding* bd = w.binding(e.name))
      param = bd->param;
    const sema::BufferInfo* buf = model.buffer(param);
    if (!buf || buf->kind != ir::DeclKind::Param)
      continue;
    if (ir::toString(buf->dtype) != e.dtype)
      mismatch(e.range,
               "the contract says '" + param + "' is " + e.dtype + ", the kernel declares " +
                   std::string(ir::toString(buf->dtype)),
               buf->decl);
  }
  for (const ref::ConstValue& c : w.small)
    if (!findConst(model, c.name))
      mismatch(c.range, "small shape '" + c.name + "' names no const of the kernel");
  if (full)
    for (const ref::ConstValue& c : w.shapes)
      if (const sema::ConstInfo* kc = findConst(*full, c.name); kc && kc->value != c.value)
        mismatch(c.range,
                 "the contract's full shape " + c.name + " = " + std::to_string(c.value) +
                     " differs from the kernel's " + std::to_string(kc->value),
                 kc->decl);
  for (const ref::AttrValue& a : w.attrs) {
    if (a.constName.empty()) {
      b.attrs[a.name] = a.number;
    } else if (const sema::ConstInfo* kc = findConst(model, a.constName)) {
      b.attrs[a.name] = double(kc->value);
    } else if (const sema::ScalarInfo* sc = model.scalar(a.constName)) {
      b.attrs[a.name] = double(sc->value); // the value the kernel was checked (and runs) with
    } else {
      mismatch(a.range, "attribute \"" + a.name + "\" names '" + a.constName +
                            "', which is no const or scalar parameter of the kernel");
    }
  }
  for (const auto* list : {&w.scalars, &w.smallScalars})
    for (const ref::ConstValue& c : *list)
      if (!model.scalar(c.name))
        mismatch(c.range, "scalar value '" + c.name +
                              "' names no run-time scalar parameter (role=scalar) of the kernel");
  if (!ok)
    return std::nullopt;
  // Operator shape rules.
  auto shape = [&](const char* slot) { return model.buffers[b.slot.at(slot)].shape; };
  auto rangeOf = [&](const char* slot) { return w.binding(slot)->range; };
  auto declOf = [&](const char* slot) { return model.buffers[b.slot.at(slot)].decl; };
  auto need = [&](bool cond, const char* slot, const std::string& msg) {
    if (!cond)
      mismatch(rangeOf(slot), msg, declOf(slot));
  };
  auto str = [](const std::vector<std::int64_t>& s) {
    std::string out = "[";
    for (std::size_t i = 0; i < s.size(); ++i)
      out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
  };
  if (w.op == "gemm") {
    auto a = shape("A"), bb = shape("B"), c = shape("C");
    need(a[1] == bb[1], "B", "gemm needs B as [N, K] with A's K = " + std::to_string(a[1]) +
                                 "; B is " + str(bb));
    need(c[0] == a[0] && c[1] == bb[0], "C",
         "gemm needs C as [M, N] = [" + std::to_string(a[0]) + ", " + std::to_string(bb[0]) +
             "]; C is " + str(c));
  } else if (w.op == "gemm_blockscale") {
    auto a = shape("A"), bb = shape("B"), sa = shape("SA"), sb = shape("SB"), c = shape("C");
    need(a[1] == bb[1], "B",
         "gemm_blockscale needs B as [N, K] with A's K = " + std::to_string(a[1]) + "; B is " +
             str(bb));
    need(c[0] == a[0] && c[1] == bb[0], "C",
         "gemm_blockscale needs C as [M, N] = [" + std::to_string(a[0]) + ", " +
             std::to_string(bb[0]) + "]; C is " + str(c));
    need(sb[1] >= 1 && a[1] % sb[1] == 0, "SB",
         "SB's second dimension counts K blocks and must divide K = " + std::to_string(a[1]) +
             "; SB is " + str(sb));
    need(sb[0] >= 1 && bb[0] % sb[0] == 0, "SB",
         "SB's first dimension counts N blocks and must divide N = " + std::to_string(bb[0]) +
             "; SB is " + str(sb));
    need(sa[0] == a[0] && sa[1] == sb[1], "SA",
         "SA needs one scale per row of A and K block: [" + std::to_string(a[0]) + ", " +
             std::to_string(sb[1]) + "]; SA is " + str(sa));
  } else if (w.op == "bias_gelu" || w.op == "rmsnorm") {
    const char* vec = w.op == "rmsnorm" ? "W" : "Bias";
    auto x = shape("X"), v = shape(vec), y = shape("Y");
    need(v[0] == x[1], vec, std::string(vec) + " needs one value per column of X " + str(x));
    need(y == x, "Y", "Y must have X's shape " + str(x) + "; it is " + str(y));
  } else if (w.op == "row_softmax") {
    need(shape("Y") == shape("X"), "Y", "Y must have X's shape " + str(shape("X")));
  } else if (w.op == "attention_fwd" || w.op == "attention_fwd_lse") {
    auto q = shape("Q");
    for (const char* s : {"K", "V", "O"})
      need(shape(s) == q, s, std::string(s) + " must have Q's shape " + str(q));
    if (w.op == "attention_fwd_lse")
      need(shape("LSE") == std::vector<std::int64_t>{q[0]}, "LSE",
           "LSE needs one value per row of Q " + str(q));
    double seq = b.attrs.count("seq") ? b.attrs["seq"] : double(q[0]);
    need(seq >= 1 && std::int64_t(seq) == seq && q[0] % std::int64_t(seq) == 0, "Q",
         "attribute seq = " + std::to_string(std::int64_t(seq)) + " must divide Q's rows " +
             std::to_string(q[0]));
  } else if (w.op == "attention_decode_split") {
    auto q = shape("Q"), k = shape("K"), o = shape("O");
    need(shape("V") == k, "V", "V must have K's shape " + str(k));
    need(k[1] == q[1], "K", "K needs Q's head dimension " + std::to_string(q[1]));
    std::int64_t group = b.attrs.count("group") ? std::int64_t(b.attrs["group"]) : q[0];
    std::int64_t splits = b.attrs.count("splits") ? std::int64_t(b.attrs["splits"]) : 1;
    bool groups = group >= 1 && q[0] % group == 0 && k[0] % (q[0] / group) == 0;
    need(groups, "Q",
         "group = " + std::to_string(group) + " must divide Q's rows and K's rows per head");
    need(o == std::vector<std::int64_t>{splits * q[0], q[1]}, "O",
         "O needs one row per (split, query row): [" + std::to_string(splits * q[0]) + ", " +
             std::to_string(q[1]) + "]; it is " + str(o));
    need(shape("LSE") == std::vector<std::int64_t>{splits * q[0]}, "LSE",
         "LSE needs one value per row of O");
  } else if (w.op == "kmeans_assign") {
    auto x = shape("X"), c = shape("C"), cn = shape("CNorm"), idx = shape("Idx");
    std::int64_t batches = b.attrs.count("batches") ? std::int64_t(b.attrs["batches"]) : 1;
    need(c[1] == x[1], "C", "C needs X's dimension " + std::to_string(x[1]));
    need(cn[0] == c[0], "CNorm", "CNorm needs one value per centroid");
    need(idx[0] == x[0], "Idx", "Idx needs one index per point");
    need(batches >= 1 && x[0] % batches == 0 && c[0] % batches == 0, "X",
         "batches = " + std::to_string(batches) + " must divide points and centroids");
  }
  if (!ok)
    return std::nullopt;
  return b;
}

/// The kernel text with each small-shape const's value replaced (padded to the same length, so
/// every other position stays where it was).
std::optional<std::string> shrink(const driver::CheckResult& k, const ref::Workload& w,
                                  DiagnosticEngine& diags) {
  std::string text(k.sources->text(k.file));
  for (const ref::ConstValue& c : w.small) {
    const sema::ConstInfo* kc = findConst(k.model, c.name);
    if (!kc || !kc->decl || !kc->decl->value)
      continue;
    SourceRange r = k.module.sourceMap.range(kc->decl->value->id);
    std::string value = std::to_string(c.value);
    std::size_t len = r.end - r.begin;
    if (value.size() > len) {
      diags.report(DiagId::DcContractMismatch, c.range,
                   "small shape " + c.name + " = " + value + " is longer than the kernel's '" +
                       text.substr(r.begin, len) + "'; write the const as a wider literal");
      return std::nullopt;
    }
    text.replace(r.begin, len, value + std::string(len - value.size(), ' '));
  }
  return text;
}

std::uint64_t physicalMemory() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? std::uint64_t(pages) * std::uint64_t(size) : (8ull << 30);
}

std::string instanceText(detail::Grain g, std::int64_t i) {
  if (g == detail::Grain::Role)
    return "role";
  return std::string(detail::toString(g)) + " " + std::to_string(i);
}

WrittenBy writtenBy(const Machine& m, const driver::CheckResult& k, std::uint32_t id) {
  WrittenBy w;
  if (id == 0 || id >= m.writers.size())
    return w;
  const detail::Writer& wr = m.writers[id];
  w.known = true;
  w.range = k.module.sourceMap.range(wr.stmt->id);
  LineColumn lc = k.sources->lineColumn(w.range.file, w.range.begin);
  w.line = lc.line;
  w.column = lc.column;
  w.op = wr.stmt->opName.name;
  w.role = k.model.roles[wr.role].name;
  w.instance = instanceText(wr.grain, wr.instance);
  w.cta = wr.cta;
  w.tile = wr.tile;
  return w;
}

std::vector<std::int64_t> unflatten(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return idx;
}

std::string indexText(const std::vector<std::int64_t>& idx) {
  std::string s = "[";
  for (std::size_t i = 0; i < idx.size(); ++i)
    s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

std::string describe(const WrittenBy& w) {
  std::string s = w.op + " (role " + w.role + ", " + w.instance + ", CTA " + std::to_string(w.cta);
  if (!w.tile.empty())
    s += ", tile " + indexText(w.tile);
  return s + ")";
}

/// dst[r] = sum of the squares of row r of `src` (a parameter of shape `of`), rounded to `dtype`:
/// the contract's "row_squared_norm" input distribution (kmeans' centroid norms).
void rowSquaredNorms(const std::vector<double>& src, const sema::BufferInfo& of, ir::DType dtype,
                     std::vector<double>& dst) {
  std::int64_t rows = of.shape.empty() ? 1 : of.shape[0];
  std::int64_t cols = rows ? of.elements() / rows : 0;
  for (std::int64_t r = 0; r < rows && r < std::int64_t(dst.size()); ++r) {
    double s = 0.0;
    for (std::int64_t c = 0; c < cols && std::size_t(r * cols + c) < src.size(); ++c)
      s += src[std::size_t(r * cols + c)] * src[std::size_t(r * cols + c)];
    dst[std::size_t(r)] = ref::roundTo(dtype, s);
  }
}

} // namespace

RunResult runOnCpu(const driver::Compiler& compiler, const std::string& name,
                   const std::string& text, const std::string& workloadPath,
                   const RunOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  RunResult result;
  auto finish = [&](DiagnosticEngine& diags) {
    diags.sortByLocation();
    for (Diagnostic& d : diags.take())
      result.findings.push_back(std::move(d));
    result.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return std::move(result);
  };
  DiagnosticEngine diags(200);
  driver::CheckResult full = compiler.check(name, text);
  if (!full.accepted) {
    for (const Diagnostic& d : full.diagnostics)
      if (d.severity == Severity::Blocking)
        diags.report(d);
    result.kernel = std::move(full);
    return finish(diags);
  }
  auto workload = ref::loadWorkload(workloadPath, *full.sources, diags);
  if (!workload) {
    result.kernel = std::move(full);
    return finish(diags);
  }
  if (!workload->runnable) {
    diags.report(DiagId::DefMissingField, {workload->file, 0, 1},
                 "workload contract '" + workloadPath +
                     "' has no \"run\" section (docs/workloads.md): nothing to execute");
    result.kernel = std::move(full);
    return finish(diags);
  }
  std::optional<std::string> smallText;
  if (options.smallShapes) {
    DiagnosticEngine probe;
    if (!bind(*workload, full, nullptr, probe)) {
      // Report against the kernel as written.
      bind(*workload, full, &full.model, diags);
      result.kernel = std::move(full);
      return finish(diags);
    }
    smallText = shrink(full, *workload, diags);
    if (!smallText) {
      result.kernel = std::move(full);
      return finish(diags);
    }
    driver::CheckResult small = compiler.check(name, *smallText, scalarOptions(workload->smallScalars));
    if (!small.accepted) {
      for (const Diagnostic& d : small.diagnostics)
        if (d.severity == Severity::Blocking)
          diags.report(d);
      Diagnostic* d = diags.report(DiagId::DcContractMismatch, {},
                                   "the kernel with the contract's small shapes is refused; "
                                   "choose small shapes the schedule still fits");
      (void)d;
      result.kernel = std::move(small);
      return finish(diags);
    }
    result.kernel = std::move(small);
    DiagnosticEngine again;
    workload = ref::loadWorkload(workloadPath, *result.kernel.sources, again);
  } else if (!workload->scalars.empty()) {
    // Checked again with the contract's scalar values: the run, its trip counts and masks use
    // them (docs/workloads.md).
    driver::CheckResult bound = compiler.check(name, text, scalarOptions(workload->scalars));
    if (!bound.accepted) {
      for (const Diagnostic& d : bound.diagnostics)
        if (d.severity == Severity::Blocking)
          diags.report(d);
      result.kernel = std::move(bound);
      return finish(diags);
    }
    result.kernel = std::move(bound);
    DiagnosticEngine again;
    workload = ref::loadWorkload(workloadPath, *result.kernel.sources, again);
  } else {
    result.kernel = std::move(full);
  }
  driver::CheckResult& k = result.kernel;
  auto bound = bind(*workload, k, options.smallShapes ? nullptr : &k.model, diags);
  if (!bound)
    return finish(diags);

  // Memory estimate: every parameter in float (machine) and double (inputs and reference),
  // writer ids and the judge's per-element errors (absolute, relative, wrong) of the outputs, the
  // reference's temporaries, shared memory and registers.
  // The CTAs of one cluster run together (their on-chip state at once).
  std::uint64_t ctasTogether = 1;
  if (k.model.grid)
    for (std::int64_t c : k.model.grid->cluster)
      ctasTogether *= std::uint64_t(std::max<std::int64_t>(1, c));
  std::uint64_t estimate = 0;
  for (const sema::BufferInfo& b : k.model.buffers) {
    std::uint64_t n = std::uint64_t(std::max<std::int64_t>(0, b.elements()));
    if (b.kind == ir::DeclKind::Param)
      estimate += n * (4 + 8 + 8 + (b.paramRole == "output" ? 8 + 9 : 0));
    else if (b.space == ir::Space::Reg)
      estimate +=
          n * 4 * std::uint64_t(std::max<std::int64_t>(1, k.model.threadsPerCta())) * ctasTogether;
  }
  estimate += std::uint64_t(k.model.smemBytes()) * 4 * ctasTogether;
  if (workload->op == "attention_fwd" || workload->op == "attention_fwd_lse") {
    double seq = bound->attrs.count("seq") ? bound->attrs["seq"]
                                          : double(k.model.buffers[bound->slot["Q"]].shape[0]);
    estimate += std::uint64_t(seq * seq * 8);
  } else if (workload->op == "kmeans_assign") {
    const auto& x = k.model.buffers[bound->slot["X"]].shape;
    const auto& c = k.model.buffers[bound->slot["C"]].shape;
    estimate += std::uint64_t(x[0]) * std::uint64_t(c[0]) * 8;
  }
  result.memoryEstimate = estimate;
  std::uint64_t limit = options.maxMemoryBytes ? options.maxMemoryBytes : physicalMemory() / 4;
  if (estimate > limit) {
    diags.report(DiagId::HwCpuRunTooLarge, k.module.sourceMap.range(k.module.kernel->id),
                 "the CPU run of these shapes needs about " + std::to_string(estimate >> 20) +
                     " MiB (parameters in float and double, reference temporaries, shared "
                     "memory and registers), above the limit of " +
                     std::to_string(limit >> 20) + " MiB; use --shapes small");
    return finish(diags);
  }

  // Inputs, drawn in contract order from one seeded generator and rounded to their dtypes.
  std::uint64_t seed = options.seed.value_or(workload->seed);
  std::mt19937_64 rng(seed);
  std::map<std::size_t, std::vector<double>> inputs;
  for (int pass = 0; pass < 2; ++pass)
    for (const ref::InputSpec& in : workload->inputs) {
      bool derived = in.dist == ref::InputSpec::Dist::RowSquaredNorm;
      if (derived != (pass == 1))
        continue;
      const sema::BufferInfo* b = k.model.buffer(in.param);
      std::size_t bi = std::size_t(b - k.model.buffers.data());
      std::vector<double> v(std::size_t(b->elements()));
      if (in.dist == ref::InputSpec::Dist::Normal) {
        std::normal_distribution<double> d(in.a, in.b);
        for (double& x : v)
          x = ref::roundTo(b->dtype, d(rng));
      } else if (in.dist == ref::InputSpec::Dist::Uniform) {
        std::uniform_real_distribution<double> d(in.a, in.b);
        for (double& x : v)
          x = ref::roundTo(b->dtype, d(rng));
      } else if (in.dist == ref::InputSpec::Dist::Constant) {
        std::fill(v.begin(), v.end(), ref::roundTo(b->dtype, in.a));
      } else {
        const sema::BufferInfo* of = k.model.buffer(in.of);
        rowSquaredNorms(inputs[std::size_t(of - k.model.buffers.data())], *of, b->dtype, v);
      }
      inputs[bi] = std::move(v);
    }

  // The reference.
  std::map<std::size_t, std::vector<double>> expected;
  std::vector<double> distances;
  std::int64_t centroids = 0;
  {
    std::map<std::string, ref::SlotData> slots;
    for (const auto& [slot, bi] : bound->slot) {
      auto it = inputs.find(bi);
      slots[slot] = {k.model.buffers[bi].shape,
                     it != inputs.end() ? std::span<const double>(it->second)
                                        : std::span<const double>()};
    }
    ref::OperatorOutputs r = ref::evaluate(workload->op, slots, bound->attrs);
    for (auto& [slot, values] : r.bySlot) {
      std::size_t bi = bound->slot.at(slot);
      for (double& x : values)
        x = ref::roundTo(k.model.buffers[bi].dtype, x);
      expected[bi] = std::move(values);
    }
    distances = std::move(r.distances);
    centroids = r.centroids;
  }

  // The interleavings.
  std::vector<std::unique_ptr<Machine>> runs;
  for (int il = 0; il < std::max(1, options.interleavings); ++il) {
    auto m = std::make_unique<Machine>(k.module, k.model, diags);
    for (std::size_t bi = 0; bi < k.model.buffers.size(); ++bi) {
      const sema::BufferInfo& b = k.model.buffers[bi];
      if (b.kind != ir::DeclKind::Param)
        continue;
      std::size_t n = std::size_t(b.elements());
      if (auto it = inputs.find(bi); it != inputs.end())
        m->globals[bi].assign(it->second.begin(), it->second.end());
      else
        m->globals[bi].assign(n, std::numeric_limits<float>::quiet_NaN());
      if (b.paramRole != "input")
        m->writerOf[bi].assign(n, 0);
    }
    std::uint64_t schedule = il == 0 ? 0 : seed * 7919 + std::uint64_t(il);
    m->cancel = options.cancel;
    int total = std::max(1, options.interleavings);
    if (options.progress)
      m->onCta = [&, il, total](std::int64_t done, std::int64_t ctas) {
        options.progress((double(il) + double(done) / double(ctas)) / double(total));
      };
    if (!m->run(schedule == 0 && il > 0 ? 1 : schedule)) {
      result.cancelled = options.cancel && options.cancel->load() && !m->failed;
      return finish(diags);
    }
    runs.push_back(std::move(m));
  }
  result.ran = true;
  result.interleavings = int(runs.size());
  const Machine& m0 = *runs.front();

  // Interleavings must agree bit for bit.
  bool agree = true;
  for (std::size_t il = 1; il < runs.size() && agree; ++il)
    for (const auto& [bi, exp] : expected) {
      const auto& a = m0.globals[bi];
      const auto& b = runs[il]->globals[bi];
      for (std::size_t e = 0; e < a.size(); ++e) {
        bool same = a[e] == b[e] || (std::isnan(a[e]) && std::isnan(b[e]));
        if (same)
          continue;
        WrittenBy w0 = writtenBy(m0, k, m0.writerOf[bi][e]);
        WrittenBy w1 = writtenBy(*runs[il], k, runs[il]->writerOf[bi][e]);
        const sema::BufferInfo& buf = k.model.buffers[bi];
        Diagnostic* d = diags.report(
            DiagId::PsTimingDependent, w1.known ? w1.range : declRange(k.module, buf.decl),
            "CPU run: " + buf.name + indexText(unflatten(std::int64_t(e), buf.shape)) + " is " +
                std::to_string(a[e]) + " in the eager interleaving and " + std::to_string(b[e]) +
                " in interleaving " + std::to_string(il) + " (seeded schedule)");
        if (w0.known)
          addNote(d, w0.range, "the eager interleaving's last write: " + describe(w0));
        agree = false;
        break;
      }
      if (!agree)
        break;
    }

  // Judge every output against the reference.
  bool correct = agree;
  for (const auto& [bi, exp] : expected) {
    const sema::BufferInfo& buf = k.model.buffers[bi];
    const ref::OutputSpec* spec = nullptr;
    for (const ref::OutputSpec& o : workload->outputs)
      if (o.param == buf.name)
        spec = &o;
    OutputVerdict v;
    v.name = buf.name;
    v.shape = buf.shape;
    // Per-element errors for the map, dropped once the tiles are summarised.
    std::vector<float> absError(exp.size()), relError(exp.size());
    std::vector<bool> wrong(exp.size());
    const auto& got = m0.globals[bi];
    for (std::size_t e = 0; e < exp.size(); ++e) {
      double g = got[e], x = exp[e];
      ref::ElementJudgement j = ref::judgeElement(spec, g, x, e, distances, centroids);
      bool ok = j.ok;
      double err = j.absError;
      if (j.hasRelError) {
        relError[e] = float(std::isnan(j.relError) ? std::numeric_limits<double>::infinity()
                                                   : j.relError);
        v.maxRelError = std::max(v.maxRelError, j.relError);
      }
      absError[e] = float(err);
      wrong[e] = !ok;
      v.maxAbsError = std::max(v.maxAbsError, err);
      if (ok)
        continue;
      ++v.mismatches;
      if (!v.firstMismatch) {
        Mismatch mm;
        mm.flatIndex = std::int64_t(e);
        mm.index = unflatten(std::int64_t(e), buf.shape);
        mm.expected = x;
        mm.got = g;
        mm.writtenBy = writtenBy(m0, k, m0.writerOf[bi][e]);
        v.firstMismatch = mm;
      }
    }
    {
      // The heat map: elements grouped by their last writer's (CTA, tile).
      const auto& writerIds = m0.writerOf[bi];
      std::vector<std::int64_t> groupOf(m0.writers.size(), -1);
      std::map<std::pair<std::int64_t, std::vector<std::int64_t>>, std::int64_t> groups;
      for (std::size_t id = 1; id < m0.writers.size(); ++id) {
        const detail::Writer& wr = m0.writers[id];
        groupOf[id] =
            groups.try_emplace({wr.cta, wr.tile}, std::int64_t(groups.size())).first->second;
      }
      std::int64_t cols = buf.shape.empty() ? 1 : std::max<std::int64_t>(1, buf.shape.back());
      std::int64_t rows = std::int64_t(exp.size()) / cols;
      v.map = buildErrorMap(rows, cols, [&](std::int64_t e) {
        ElementError x;
        std::size_t i = std::size_t(e);
        x.absError = absError[i];
        x.relError = relError[i];
        x.wrong = wrong[i];
        std::uint32_t id = i < writerIds.size() ? writerIds[i] : 0;
        x.written = id != 0;
        x.group = id != 0 && id < groupOf.size() ? groupOf[id] : -1;
        return x;
      });
      for (TileError& t : v.map.tiles)
        if (t.worst >= 0 && std::size_t(t.worst) < writerIds.size())
          t.writtenBy = writtenBy(m0, k, writerIds[std::size_t(t.worst)]);
    }
    if (v.mismatches) {
      correct = false;
      const Mismatch& mm = *v.firstMismatch;
      std::ostringstream msg;
      msg << "CPU run: " << v.mismatches << " of " << exp.size() << " elements of " << buf.name
          << " are wrong; the first, " << buf.name << indexText(mm.index) << ", is " << mm.got
          << " where the reference gives " << mm.expected;
      if (mm.writtenBy.known)
        msg << "; last written here by " << describe(mm.writtenBy);
      else
        msg << "; no operation wrote it";
      Diagnostic* d = diags.report(DiagId::DcWrongResult,
                                   mm.writtenBy.known ? mm.writtenBy.range
                                                      : declRange(k.module, buf.decl),
                                   msg.str());
      if (mm.writtenBy.known)
        addNote(d, declRange(k.module, buf.decl), "output declared here");
    }
    result.outputs.push_back(std::move(v));
  }
  result.correct = correct && !diags.hasBlocking();
  return finish(diags);
}

std::optional<ref::Expected> hostReference(const driver::Compiler& compiler,
                                           const std::string& name, const std::string& text,
                                           const std::string& workloadPath,
                                           std::map<std::string, std::vector<double>>& inputs,
                                           std::string& error) {
  DiagnosticEngine diags(50);
  auto fail = [&](const std::string& why) -> std::optional<ref::Expected> {
    error = why;
    for (const Diagnostic& d : diags.diagnostics())
      if (d.severity == Severity::Blocking) {
        error += ": " + d.message;
        break;
      }
    return std::nullopt;
  };
  driver::CheckResult k = compiler.check(name, text);
  if (!k.accepted)
    return fail("the kernel is refused by the checker");
  auto workload = ref::loadWorkload(workloadPath, *k.sources, diags);
  if (workload && !workload->scalars.empty()) {
    k = compiler.check(name, text, scalarOptions(workload->scalars));
    if (!k.accepted)
      return fail("the kernel is refused with the contract's scalar values");
    workload = ref::loadWorkload(workloadPath, *k.sources, diags);
  }
  if (!workload || !workload->runnable)
    return fail(workload ? "the workload contract has no \"run\" section"
                         : "the workload contract cannot be read");
  auto bound = bind(*workload, k, &k.model, diags);
  if (!bound)
    return fail("the workload contract does not match the kernel");
  // A reference the host cannot afford is skipped (the caller says so), never an OOM kill:
  // memory above a quarter of physical memory or more than kHostWork multiply-adds (about a
  // minute of double-precision work on one core).
  constexpr double kHostWork = 6e10;
  {
    std::map<std::string, std::vector<std::int64_t>> shapes;
    for (const auto& [slot, bi] : bound->slot)
      shapes[slot] = k.model.buffers[bi].shape;
    ref::EvaluationCost cost = ref::evaluationCost(workload->op, shapes, bound->attrs);
    double limit = double(physicalMemory() / 4);
    if (cost.bytes > limit || cost.work > kHostWork) {
      ref::Expected e;
      char why[200];
      std::snprintf(why, sizeof why,
                    "the host reference of these shapes needs about %.1f GiB and %.2g "
                    "multiply-adds (limits: %.1f GiB, %.2g)",
                    cost.bytes / double(1u << 30), cost.work, limit / double(1u << 30), kHostWork);
      e.skipped = why;
      return e;
    }
  }
  // The inputs by buffer; derived and constant ones recomputed (in that order: a derived input
  // reads its source after the source is final).
  std::map<std::size_t, std::vector<double>> values;
  for (std::size_t bi = 0; bi < k.model.buffers.size(); ++bi) {
    const sema::BufferInfo& b = k.model.buffers[bi];
    if (b.kind != ir::DeclKind::Param || b.paramRole != "input")
      continue;
    auto it = inputs.find(b.name);
    if (it == inputs.end() || it->second.size() != std::size_t(b.elements()))
      return fail("input '" + b.name + "' needs " + std::to_string(b.elements()) + " values");
    values[bi] = it->second;
  }
  for (int pass = 0; pass < 2; ++pass)
    for (const ref::InputSpec& in : workload->inputs) {
      const sema::BufferInfo* b = k.model.buffer(in.param);
      if (!b || b->kind != ir::DeclKind::Param)
        continue;
      std::vector<double>& v = values[std::size_t(b - k.model.buffers.data())];
      if (pass == 0 && in.dist == ref::InputSpec::Dist::Constant) {
        std::fill(v.begin(), v.end(), ref::roundTo(b->dtype, in.a));
      } else if (pass == 1 && in.dist == ref::InputSpec::Dist::RowSquaredNorm) {
        if (const sema::BufferInfo* of = k.model.buffer(in.of))
          rowSquaredNorms(values[std::size_t(of - k.model.buffers.data())], *of, b->dtype, v);
      } else {
        continue;
      }
      inputs[b->name] = v;
    }
  std::map<std::string, ref::SlotData> slots;
  for (const auto& [slot, bi] : bound->slot) {
    auto it = values.find(bi);
    slots[slot] = {k.model.buffers[bi].shape, it != values.end()
                                                  ? std::span<const double>(it->second)
                                                  : std::span<const double>()};
  }
  ref::OperatorOutputs r = ref::evaluate(workload->op, slots, bound->attrs);
  ref::Expected e;
  for (auto& [slot, v] : r.bySlot) {
    const sema::BufferInfo& b = k.model.buffers[bound->slot.at(slot)];
    ref::ExpectedOutput o;
    o.name = b.name;
    for (double& x : v)
      x = ref::roundTo(b.dtype, x);
    o.values = std::move(v);
    o.spec.param = b.name;
    o.spec.rtol = workload->rtol;
    o.spec.atol = workload->atol;
    for (const ref::OutputSpec& spec : workload->outputs)
      if (spec.param == b.name)
        o.spec = spec;
    e.outputs.push_back(std::move(o));
  }
  e.distances = std::move(r.distances);
  e.centroids = r.centroids;
  return e;
}

std::string toJson(const RunResult& r) {
  json::Writer w;
  w.beginObject();
  w.key("correct").value(r.correct);
  w.key("ran").value(r.ran);
  w.key("outputs").beginArray();
  for (const OutputVerdict& o : r.outputs) {
    w.beginObject();
    w.key("name").value(o.name);
    w.key("max_abs_error").value(std::isfinite(o.maxAbsError) ? o.maxAbsError : -1.0);
    w.key("max_rel_error").value(std::isfinite(o.maxRelError) ? o.maxRelError : -1.0);
    w.key("mismatches").value(o.mismatches);
    w.key("first_mismatch");
    if (!o.firstMismatch) {
      w.null();
    } else {
      const Mismatch& m = *o.firstMismatch;
      w.beginObject();
      w.key("index").beginArray();
      for (std::int64_t i : m.index)
        w.value(i);
      w.endArray();
      w.key("expected").value(m.expected);
      if (std::isfinite(m.got))
        w.key("got").value(m.got);
      else
        w.key("got").value(std::isnan(m.got) ? "nan" : m.got > 0 ? "inf" : "-inf");
      w.key("written_by");
      if (!m.writtenBy.known) {
        w.null();
      } else {
        const WrittenBy& b = m.writtenBy;
        w.beginObject();
        w.key("line").value(b.line);
        w.key("column").value(b.column);
        w.key("op").value(b.op);
        w.key("role").value(b.role);
        w.key("instance").value(b.instance);
        w.key("cta").value(b.cta);
        w.key("tile").beginArray();
        for (std::int64_t t : b.tile)
          w.value(t);
        w.endArray();
        w.endObject();
      }
      w.endObject();
    }
    // Where the errors are: the tile grid and its wrong tiles (the workbench's heat map).
    const ErrorMap& map = o.map;
    w.key("error_map").beginObject();
    w.key("rows").value(map.rows);
    w.key("cols").value(map.cols);
    w.key("tile_rows").value(map.tileRows);
    w.key("tile_cols").value(map.tileCols);
    w.key("grid_rows").value(map.gridRows);
    w.key("grid_cols").value(map.gridCols);
    w.key("wrong_tiles").beginArray();
    for (const TileError& t : map.tiles) {
      if (!t.mismatches)
        continue;
      w.beginObject();
      w.key("row0").value(t.row0);
      w.key("col0").value(t.col0);
      w.key("mismatches").value(t.mismatches);
      w.key("unwritten").value(t.unwritten);
      w.key("max_abs_error").value(std::isfinite(t.maxAbsError) ? t.maxAbsError : -1.0);
      w.key("line");
      if (t.writtenBy.known)
        w.value(t.writtenBy.line);
      else
        w.null();
      w.endObject();
    }
    w.endArray();
    w.endObject();
    w.endObject();
  }
  w.endArray();
  w.key("interleavings").value(r.interleavings);
  w.key("memory_estimate_bytes").value(r.memoryEstimate);
  w.key("wall_s").value(r.wallSeconds);
  w.key("findings").beginArray();
  for (const Diagnostic& d : r.findings) {
    w.beginObject();
    w.key("code").value(d.code);
    w.key("message").value(d.message);
    if (d.range.valid() && r.kernel.sources && r.kernel.sources->contains(d.range.file)) {
      LineColumn lc = r.kernel.sources->lineColumn(d.range.file, d.range.begin);
      w.key("file").value(r.kernel.sources->name(d.range.file));
      w.key("line").value(lc.line);
      w.key("column").value(lc.column);
    }
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return w.take() + "\n";
}

std::string toText(const RunResult& r) {
  std::ostringstream out;
  if (!r.ran) {
    out << "not run (see findings)\n";
    return out.str();
  }
  out << (r.correct ? "correct" : "INCORRECT") << " (" << r.interleavings
      << " interleavings, " << r.wallSeconds << " s)\n";
  for (const OutputVerdict& o : r.outputs) {
    out << "  " << o.name << ": max abs error " << o.maxAbsError << ", max rel error "
        << o.maxRelError << ", " << o.mismatches << " mismatches\n";
    if (o.firstMismatch) {
      const Mismatch& m = *o.firstMismatch;
      out << "    first: " << o.name << indexText(m.index) << " expected " << m.expected
          << " got " << m.got;
      if (m.writtenBy.known)
        out << ", written by line " << m.writtenBy.line << ":" << m.writtenBy.column << " "
            << describe(m.writtenBy);
      else
        out << ", never written";
      out << "\n";
    }
  }
  return out.str();
}

} // namespace cake::interp
