// Reading workload contracts: the descriptive fields every contract has and the executable
// "run" section, with located findings for every schema problem.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Reference/Workload.h"

#include "cake/Support/JsonSchema.h"
#include "cake/Support/StringUtil.h"

#include <set>

namespace cake::ref {

namespace {

constexpr std::size_t kMaxWorkloadBytes = 1u << 20;

void readInputs(const json::Value& v, Workload& w, json::ObjectReader& parent) {
  for (const json::Member& m : v.members) {
    json::ObjectReader r(m.value, parent.diags(), "input \"" + m.key + "\"");
    InputSpec in;
    in.param = m.key;
    in.range = m.keyRange;
    static constexpr std::string_view kDists[] = {"normal", "uniform", "row_sqnorm", "constant"};
    auto dist = r.oneOf("dist", kDists, true).value_or("normal");
    if (dist == "normal") {
      in.dist = InputSpec::Dist::Normal;
      in.a = r.number("mean", false).value_or(0.0);
      in.b = r.number("std", false).value_or(1.0);
      if (const json::Value* s = m.value.get("std"); s && s->isNumber() && !(s->number > 0.0))
        r.invalid(*s, "\"std\" of input \"" + m.key + "\" must be positive");
    } else if (dist == "uniform") {
      in.dist = InputSpec::Dist::Uniform;
      in.a = r.number("lo", true).value_or(0.0);
      in.b = r.number("hi", true).value_or(1.0);
      if (in.b <= in.a)
        r.invalid(m.value, "input \"" + m.key + "\": \"hi\" must be above \"lo\"");
    } else if (dist == "row_sqnorm") {
      in.dist = InputSpec::Dist::RowSquaredNorm;
      in.of = r.string("of", true).value_or("");
    } else {
      in.dist = InputSpec::Dist::Constant;
      in.a = r.number("value", true).value_or(0.0);
    }
    r.finish();
    if (!r.ok())
      parent.fail();
    w.inputs.push_back(std::move(in));
  }
}

void readOutputs(const json::Value& v, Workload& w, json::ObjectReader& parent) {
  for (const json::Member& m : v.members) {
    json::ObjectReader r(m.value, parent.diags(), "output \"" + m.key + "\"");
    OutputSpec out;
    out.param = m.key;
    out.range = m.keyRange;
    out.rtol = r.number("rtol", true).value_or(0.0);
    out.atol = r.number("atol", true).value_or(0.0);
    static constexpr std::string_view kCompare[] = {"value", "argmin"};
    out.compare = r.oneOf("compare", kCompare, false).value_or("value");
    for (const char* key : {"rtol", "atol"})
      if (const json::Value* t = m.value.get(key); t && t->isNumber() && t->number < 0.0)
        r.invalid(*t, std::string("\"") + key + "\" of output \"" + m.key +
                          "\" must not be negative");
    r.finish();
    if (!r.ok())
      parent.fail();
    w.outputs.push_back(std::move(out));
  }
}

void readConsts(const json::Value& v, std::vector<ConstValue>& out, json::ObjectReader& parent,
                const std::string& what) {
  for (const json::Member& m : v.members) {
    if (!m.value.isNumber() || !m.value.integer || *m.value.integer <= 0) {
      parent.invalid(m.value, what + " \"" + m.key + "\" must be a positive integer");
      continue;
    }
    out.push_back({m.key, *m.value.integer, m.value.range});
  }
}

void readRun(const json::Value& run, Workload& w, json::ObjectReader& parent) {
  DiagnosticEngine& diags = parent.diags();
  json::ObjectReader r(run, diags, "\"run\"");
  w.runnable = true;
  w.runRange = json::headRange(run);
  std::vector<std::string_view> names;
  for (const OperatorInfo& op : operators())
    names.push_back(op.name);
  const json::Value* opValue = run.get("op");
  w.op = r.oneOf("op", names, true).value_or("");
  if (opValue)
    w.opRange = opValue->range;
  const OperatorInfo* info = findOperator(w.op);
  if (const json::Value* params = r.field("params", json::Kind::Object, true)) {
    for (const json::Member& m : params->members) {
      bool known = false;
      for (const OperatorSlot& s : info ? info->params : std::vector<OperatorSlot>{})
        known |= s.name == m.key;
      if (info && !known) {
        r.invalid(m.value, "operator '" + w.op + "' has no slot \"" + m.key + "\"");
        continue;
      }
      if (!m.value.isString() || m.value.string.empty()) {
        r.invalid(m.value, "slot \"" + m.key + "\" must name a kernel parameter");
        continue;
      }
      w.params.push_back({m.key, m.value.string, m.value.range});
    }
    if (info)
      for (const OperatorSlot& s : info->params)
        if (!w.binding(s.name)) {
          diags.report(DiagId::DefMissingField, json::headRange(*params),
                       "\"params\" lacks operator slot \"" + std::string(s.name) + "\" of '" +
                           w.op + "'");
          r.fail();
        }
  }
  if (const json::Value* attrs = r.field("attrs", json::Kind::Object, false)) {
    for (const json::Member& m : attrs->members) {
      bool known = false;
      for (std::string_view a : info ? info->attributes : std::vector<std::string_view>{})
        known |= a == m.key;
      if (info && !known) {
        r.invalid(m.value, "operator '" + w.op + "' has no attribute \"" + m.key + "\"");
        continue;
      }
      AttrValue a{m.key, 0.0, {}, m.value.range};
      if (m.value.isNumber())
        a.number = m.value.number;
      else if (m.value.isBool())
        a.number = m.value.boolean ? 1.0 : 0.0;
      else if (m.value.isString() && !m.value.string.empty())
        a.constName = m.value.string;
      else {
        r.invalid(m.value, "attribute \"" + m.key + "\" must be a number, a boolean or a const name");
        continue;
      }
      w.attrs.push_back(std::move(a));
    }
  }
  if (const json::Value* inputs = r.field("inputs", json::Kind::Object, true))
    readInputs(*inputs, w, r);
  if (const json::Value* outputs = r.field("outputs", json::Kind::Object, true))
    readOutputs(*outputs, w, r);
  w.seed = static_cast<std::uint64_t>(r.integer("seed", false, 0).value_or(0));
  if (const json::Value* small = r.field("small", json::Kind::Object, true))
    readConsts(*small, w.small, r, "small shape");
  if (const json::Value* sc = r.field("scalars", json::Kind::Object, false))
    readConsts(*sc, w.scalars, r, "scalar parameter");
  if (const json::Value* sc = r.field("small_scalars", json::Kind::Object, false))
    readConsts(*sc, w.smallScalars, r, "scalar parameter");
  else
    w.smallScalars = w.scalars;
  r.finish();

  // Every bound input has a distribution and every bound output a tolerance, and nothing else.
  if (info) {
    for (const OperatorSlot& s : info->params) {
      const Binding* b = w.binding(s.name);
      if (!b)
        continue;
      bool found = false;
      if (s.output) {
        for (const OutputSpec& o : w.outputs)
          found |= o.param == b->param;
      } else {
        for (const InputSpec& i : w.inputs)
          found |= i.param == b->param;
      }
      if (!found) {
        diags.report(DiagId::DefMissingField, b->range,
                     std::string(s.output ? "\"outputs\" gives no tolerance for output \""
                                          : "\"inputs\" gives no distribution for input \"") +
                         b->param + "\"");
        r.fail();
      }
    }
    auto boundAs = [&](const std::string& param, bool output) {
      for (const OperatorSlot& s : info->params)
        if (const Binding* b = w.binding(s.name); b && b->param == param && s.output == output)
          return true;
      return false;
    };
    for (const InputSpec& i : w.inputs) {
      if (!boundAs(i.param, false)) {
        diags.report(DiagId::DefInvalidValue, i.range,
                     "input \"" + i.param + "\" is not bound to an input slot in \"params\"");
        r.fail();
      }
      if (i.dist == InputSpec::Dist::RowSquaredNorm && !boundAs(i.of, false)) {
        diags.report(DiagId::DefInvalidValue, i.range,
                     "input \"" + i.param + "\" measures \"" + i.of +
                         "\", which is not an input of \"params\"");
        r.fail();
      }
    }
    for (const OutputSpec& o : w.outputs)
      if (!boundAs(o.param, true)) {
        diags.report(DiagId::DefInvalidValue, o.range,
                     "output \"" + o.param + "\" is not bound to an output slot in \"params\"");
        r.fail();
      }
  }
  if (!r.ok())
    parent.fail();
}

} // namespace

const std::vector<OperatorInfo>& operators() {
  static const std::vector<OperatorInfo> kOperators = {
      {"gemm", {{"A", false, 2}, {"B", false, 2}, {"C", true, 2}}, {}},
      {"gemm_blockscale",
       {{"A", false, 2}, {"B", false, 2}, {"SA", false, 2}, {"SB", false, 2}, {"C", true, 2}},
       {}},
      {"bias_gelu", {{"X", false, 2}, {"Bias", false, 1}, {"Y", true, 2}}, {}},
      {"row_softmax", {{"X", false, 2}, {"Y", true, 2}}, {}},
      {"rmsnorm", {{"X", false, 2}, {"W", false, 1}, {"Y", true, 2}}, {"eps"}},
      {"attention_fwd",
       {{"Q", false, 2}, {"K", false, 2}, {"V", false, 2}, {"O", true, 2}},
       {"seq", "scale", "causal"}},
      {"attention_fwd_lse",
       {{"Q", false, 2}, {"K", false, 2}, {"V", false, 2}, {"O", true, 2}, {"LSE", true, 1}},
       {"seq", "scale", "causal"}},
      {"attention_decode_split",
       {{"Q", false, 2}, {"K", false, 2}, {"V", false, 2}, {"O", true, 2}, {"LSE", true, 1}},
       {"group", "kv_len", "block", "splits", "scale"}},
      {"kmeans_assign",
       {{"X", false, 2}, {"C", false, 2}, {"CNorm", false, 1}, {"Idx", true, 1}},
       {"batches"}},
  };
  return kOperators;
}

const OperatorInfo* findOperator(std::string_view name) {
  for (const OperatorInfo& op : operators())
    if (op.name == name)
      return &op;
  return nullptr;
}

const Binding* Workload::binding(std::string_view slot) const {
  for (const Binding& b : params)
    if (b.slot == slot)
      return &b;
  return nullptr;
}

const AttrValue* Workload::attr(std::string_view name) const {
  for (const AttrValue& a : attrs)
    if (a.name == name)
      return &a;
  return nullptr;
}

std::optional<Workload> loadWorkload(const std::string& path, SourceManager& sources,
                                     DiagnosticEngine& diags) {
  std::string error;
  auto text = readFile(path, error, kMaxWorkloadBytes);
  if (!text) {
    FileId f = sources.addBuffer(path, "");
    diags.report(DiagId::DefIo, {f, 0, 0}, "cannot read workload '" + path + "': " + error);
    return std::nullopt;
  }
  Workload w;
  w.path = path;
  w.file = sources.addBuffer(path, *text);
  auto doc = json::parse(sources.text(w.file), w.file, diags);
  if (!doc)
    return std::nullopt;
  json::ObjectReader r(*doc, diags, "workload contract");
  r.allow("$comment");
  r.string("operator", true);
  w.target = r.string("target", true).value_or("");
  if (const json::Value* shapes = r.field("shapes", json::Kind::Object, true))
    readConsts(*shapes, w.shapes, r, "shape");
  if (const json::Value* dtypes = r.field("dtypes", json::Kind::Object, true))
    for (const json::Member& m : dtypes->members) {
      if (!m.value.isString()) {
        r.invalid(m.value, "dtype \"" + m.key + "\" must be a string");
        continue;
      }
      w.dtypes.push_back({m.key, m.value.string, m.value.range});
    }
  if (const json::Value* tol = r.field("tolerance", json::Kind::Object, true)) {
    json::ObjectReader t(*tol, diags, "\"tolerance\"");
    w.rtol = t.number("rtol", true).value_or(0.0);
    w.atol = t.number("atol", true).value_or(0.0);
    t.finish();
    if (!t.ok())
      r.fail();
  }
  r.string("oracle", true);
  r.stringList("references", true);
  r.field("notes", json::Kind::String, false);
  if (const json::Value* run = r.field("run", json::Kind::Object, false))
    readRun(*run, w, r);
  r.finish();
  if (!r.ok())
    return std::nullopt;
  return w;
}

} // namespace cake::ref
