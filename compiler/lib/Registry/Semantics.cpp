// Parsing, validation and evaluation of a template primitive's semantic form: `dst = EXPR` over
// the primitive's buffer operands, numeric attributes and numbers with + - * /, unary minus,
// parentheses and a fixed function set. Findings point at the offending character of the file.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Registry/Semantics.h"

#include "cake/Registry/Primitive.h"
#include "cake/Support/JsonSchema.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace cake::reg {

namespace {

/// Deep nesting is refused rather than risking the parser's stack on hostile input.
constexpr int kMaxDepth = 64;
constexpr std::size_t kMaxLength = 4096;
constexpr std::string_view kDTypes[] = {"f64", "f32", "f16", "bf16"};

bool isReading(Access a) {
  return a == Access::Read || a == Access::ReadWrite;
}
bool isWriting(Access a) {
  return a == Access::Write || a == Access::ReadWrite;
}

class Parser {
public:
  Parser(std::string_view text, std::uint32_t offset, FileId file, const Primitive& prim,
         DiagnosticEngine& diags)
      : m_text(text), m_offset(offset), m_file(file), m_prim(prim), m_diags(diags) {}

  std::optional<SemanticsDef> run() {
    SemanticsDef def;
    skip();
    std::size_t nameBegin = m_pos;
    std::string dst = identifier();
    if (dst.empty())
      return error(m_pos, m_pos + 1, "expected the destination operand (dst = EXPR)");
    const OperandDef* d = m_prim.operand(dst);
    if (!d)
      return unknownName(nameBegin, dst, "destination");
    if (d->kind != OperandKind::Buffer || !isWriting(d->access))
      return error(nameBegin, m_pos,
                   "the destination '" + dst +
                       "' must be a buffer operand the primitive writes "
                       "(its access is " +
                       std::string(toString(d->access)) + ")");
    def.dst = static_cast<std::size_t>(d - m_prim.operands.data());
    skip();
    if (!eat('='))
      return error(m_pos, m_pos + 1, "expected '=' after the destination");
    auto e = expression(0);
    if (!e)
      return std::nullopt;
    skip();
    if (m_pos < m_text.size())
      return error(m_pos, m_pos + 1,
                   "unexpected '" + std::string(1, m_text[m_pos]) +
                       "' after the expression (one assignment, dst = EXPR)");
    def.expr = std::move(*e);
    def.reads = std::move(m_reads);
    return def;
  }

private:
  std::nullopt_t error(std::size_t begin, std::size_t end, std::string message) {
    end = std::min(std::max(end, begin + 1), m_text.size());
    begin = std::min(begin, m_text.size());
    m_diags.report(DiagId::DefInvalidExpression, range(begin, end),
                   "semantic form of '" + m_prim.name + "': " + std::move(message));
    return std::nullopt;
  }
  SourceRange range(std::size_t begin, std::size_t end) const {
    return SourceRange{m_file, static_cast<std::uint32_t>(m_offset + begin),
                       static_cast<std::uint32_t>(m_offset + std::max(end, begin))};
  }
  std::nullopt_t unknownName(std::size_t begin, const std::string& name, const char* what) {
    std::vector<std::string> names;
    for (const OperandDef& o : m_prim.operands)
      names.push_back(o.name);
    for (const AttrDef& a : m_prim.attributes)
      if (a.type == AttrType::Int || a.type == AttrType::Float)
        names.push_back(a.name);
    std::string msg = std::string(what) + " '" + name + "' is not an operand" +
                      (std::string_view(what) == "destination" ? "" : " or numeric attribute") +
                      " of '" + m_prim.name + "' (known: " + join(names, ", ") + ")";
    if (auto guess = closestMatch(name, names))
      msg += "; did you mean '" + *guess + "'?";
    return error(begin, begin + name.size(), msg);
  }
  void skip() {
    while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t'))
      ++m_pos;
  }
  bool eat(char c) {
    skip();
    if (m_pos < m_text.size() && m_text[m_pos] == c) {
      ++m_pos;
      return true;
    }
    return false;
  }
  std::string identifier() {
    std::size_t b = m_pos;
    if (m_pos < m_text.size() &&
        (std::isalpha(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_'))
      while (m_pos < m_text.size() &&
             (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_'))
        ++m_pos;
    return std::string(m_text.substr(b, m_pos - b));
  }

  // expression := term (('+' | '-') term)* ; term := unary (('*' | '/') unary)*
  std::optional<SemExpr> expression(int depth) {
    auto lhs = term(depth);
    while (lhs) {
      skip();
      if (m_pos >= m_text.size() || (m_text[m_pos] != '+' && m_text[m_pos] != '-'))
        break;
      std::string op(1, m_text[m_pos++]); // before the operand is parsed
      lhs = binary(std::move(*lhs), std::move(op), term(depth));
    }
    return lhs;
  }
  std::optional<SemExpr> term(int depth) {
    auto lhs = unary(depth);
    while (lhs) {
      skip();
      if (m_pos >= m_text.size() || (m_text[m_pos] != '*' && m_text[m_pos] != '/'))
        break;
      std::string op(1, m_text[m_pos++]);
      lhs = binary(std::move(*lhs), std::move(op), unary(depth));
    }
    return lhs;
  }
  std::optional<SemExpr> binary(SemExpr lhs, std::string op, std::optional<SemExpr> rhs) {
    if (!rhs)
      return std::nullopt;
    SemExpr e;
    e.kind = SemExpr::Kind::Binary;
    e.fn = std::move(op);
    e.range = SourceRange::cover(lhs.range, rhs->range);
    e.args.push_back(std::move(lhs));
    e.args.push_back(std::move(*rhs));
    return e;
  }
  std::optional<SemExpr> unary(int depth) {
    if (depth > kMaxDepth)
      return error(m_pos, m_pos + 1, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
    skip();
    std::size_t b = m_pos;
    if (eat('-')) {
      auto x = unary(depth + 1);
      if (!x)
        return std::nullopt;
      SemExpr e;
      e.kind = SemExpr::Kind::Call;
      e.fn = "neg";
      e.range = range(b, m_pos);
      e.args.push_back(std::move(*x));
      return e;
    }
    return primary(depth);
  }
  std::optional<SemExpr> primary(int depth) {
    skip();
    std::size_t b = m_pos;
    if (m_pos >= m_text.size())
      return error(m_pos, m_pos + 1, "expected an operand, a number, a call or '('");
    char c = m_text[m_pos];
    if (c == '(') {
      ++m_pos;
      auto e = expression(depth + 1);
      if (!e)
        return std::nullopt;
      if (!eat(')'))
        return error(m_pos, m_pos + 1, "expected ')'");
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      std::string s(m_text.substr(m_pos));
      char* end = nullptr;
      double v = std::strtod(s.c_str(), &end);
      std::size_t n = static_cast<std::size_t>(end - s.c_str());
      if (n == 0 || !std::isfinite(v))
        return error(b, b + 1, "malformed number");
      m_pos += n;
      SemExpr e;
      e.kind = SemExpr::Kind::Number;
      e.number = v;
      e.range = range(b, m_pos);
      return e;
    }
    std::string name = identifier();
    if (name.empty())
      return error(b, b + 1,
                   "unexpected '" + std::string(1, c) +
                       "' (expected an operand, a number, a call or '(')");
    skip();
    if (m_pos < m_text.size() && m_text[m_pos] == '(') {
      ++m_pos;
      SemExpr e;
      e.kind = SemExpr::Kind::Call;
      e.fn = name;
      skip();
      if (!eat(')')) {
        do {
          auto a = expression(depth + 1);
          if (!a)
            return std::nullopt;
          e.args.push_back(std::move(*a));
        } while (eat(','));
        if (!eat(')'))
          return error(m_pos, m_pos + 1, "expected ',' or ')' in the call of '" + name + "'");
      }
      e.range = range(b, m_pos);
      const auto& fns = semanticFunctions();
      auto f = std::find_if(fns.begin(), fns.end(), [&](const auto& p) { return p.first == name; });
      if (f == fns.end()) {
        std::vector<std::string> known;
        for (const auto& p : fns)
          known.emplace_back(p.first);
        std::string msg = "unknown function '" + name + "' (known: " + join(known, ", ") + ")";
        if (auto guess = closestMatch(name, known))
          msg += "; did you mean '" + *guess + "'?";
        return error(b, b + name.size(), msg);
      }
      if (e.args.size() != f->second)
        return error(b, b + name.size(),
                     "'" + name + "' takes " + std::to_string(f->second) + " argument" +
                         (f->second == 1 ? "" : "s") + ", found " + std::to_string(e.args.size()));
      return e;
    }
    SemExpr e;
    e.range = range(b, b + name.size());
    if (const OperandDef* o = m_prim.operand(name)) {
      if (o->kind != OperandKind::Buffer)
        return error(b, b + name.size(),
                     "'" + name + "' is a " + std::string(toString(o->kind)) +
                         " operand; an elementwise expression reads buffer operands");
      if (!isReading(o->access))
        return error(b, b + name.size(),
                     "'" + name + "' is " + std::string(toString(o->access)) +
                         ": the primitive does not read it, so its effects would not show the "
                         "read");
      e.kind = SemExpr::Kind::Operand;
      e.index = static_cast<std::size_t>(o - m_prim.operands.data());
      if (std::find(m_reads.begin(), m_reads.end(), e.index) == m_reads.end())
        m_reads.push_back(e.index);
      return e;
    }
    if (auto ai = m_prim.attributeIndex(name)) {
      const AttrDef& a = m_prim.attributes[*ai];
      if (a.type != AttrType::Int && a.type != AttrType::Float)
        return error(b, b + name.size(),
                     "attribute '" + name + "' is " + std::string(toString(a.type)) +
                         "; an elementwise expression uses int and float attributes only");
      e.kind = SemExpr::Kind::Attribute;
      e.index = *ai;
      return e;
    }
    return unknownName(b, name, "name");
  }

  std::string_view m_text;
  std::uint32_t m_offset;
  FileId m_file;
  const Primitive& m_prim;
  DiagnosticEngine& m_diags;
  std::size_t m_pos = 0;
  std::vector<std::size_t> m_reads;
};

/// Binary operations nested in binary operations get parentheses; calls delimit their own.
void print(const SemExpr& e, const Primitive& prim, std::string& out, bool top = true) {
  switch (e.kind) {
  case SemExpr::Kind::Number: {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", e.number);
    out += buf;
    return;
  }
  case SemExpr::Kind::Operand:
    out += prim.operands[e.index].name;
    return;
  case SemExpr::Kind::Attribute:
    out += prim.attributes[e.index].name;
    return;
  case SemExpr::Kind::Binary:
    out += top ? "" : "(";
    print(e.args[0], prim, out, false);
    out += " " + e.fn + " ";
    print(e.args[1], prim, out, false);
    out += top ? "" : ")";
    return;
  case SemExpr::Kind::Call:
    out += e.fn + "(";
    for (std::size_t i = 0; i < e.args.size(); ++i) {
      if (i)
        out += ", ";
      print(e.args[i], prim, out);
    }
    out += ')';
    return;
  }
}

} // namespace

const std::vector<std::pair<std::string_view, std::size_t>>& semanticFunctions() {
  static const std::vector<std::pair<std::string_view, std::size_t>> fns = {
      {"exp", 1},       {"exp2", 1}, {"log", 1},  {"log2", 1},    {"sqrt", 1},
      {"rsqrt", 1},     {"rcp", 1},  {"tanh", 1}, {"sigmoid", 1}, {"erf", 1},
      {"abs", 1},       {"neg", 1},  {"relu", 1}, {"silu", 1},    {"gelu", 1},
      {"gelu_tanh", 1}, {"max", 2},  {"min", 2},  {"fma", 3}};
  return fns;
}

std::optional<SemanticsDef> readSemantics(const json::Value& v, const Primitive& prim,
                                          std::string_view fileText, DiagnosticEngine& diags) {
  json::ObjectReader r(v, diags, "\"semantics\"");
  if (!r.isObject())
    return std::nullopt;
  SemanticsDef def;
  def.range = v.range;
  r.allow("note");
  if (auto t = r.oneOf("dtype", kDTypes, false))
    def.dtype = *ir::parseDType(*t);
  const json::Value* e = r.field("elementwise", json::Kind::String, true);
  r.finish();
  if (!r.ok() || !e)
    return std::nullopt;
  if (prim.lowering.strategy != LoweringStrategy::Template) {
    diags.report(DiagId::DefInvalidValue, json::headRange(v),
                 "\"semantics\" belongs to template primitives: an expansion runs its steps on "
                 "the CPU, a builtin has C++ semantics");
    return std::nullopt;
  }
  if (e->range.end < e->range.begin + 2 || e->range.end > fileText.size())
    return std::nullopt;
  std::string_view raw = fileText.substr(e->range.begin + 1, e->range.end - e->range.begin - 2);
  if (raw.find('\\') != std::string_view::npos) {
    diags.report(DiagId::DefInvalidExpression, e->range,
                 "a semantic form cannot contain escape sequences");
    return std::nullopt;
  }
  if (raw.size() > kMaxLength) {
    diags.report(DiagId::DefInvalidExpression, e->range,
                 "a semantic form is at most " + std::to_string(kMaxLength) + " characters");
    return std::nullopt;
  }
  Parser p(raw, e->range.begin + 1, e->range.file, prim, diags);
  auto parsed = p.run();
  if (!parsed)
    return std::nullopt;
  parsed->text = std::string(raw);
  parsed->dtype = def.dtype;
  parsed->range = def.range;
  return parsed;
}

double evaluateSemantics(const SemExpr& e, const std::function<double(std::size_t)>& operand,
                         const std::function<double(std::size_t)>& attribute,
                         const std::function<double(double)>& round) {
  auto arg = [&](std::size_t i) { return evaluateSemantics(e.args[i], operand, attribute, round); };
  switch (e.kind) {
  case SemExpr::Kind::Number:
    return e.number;
  case SemExpr::Kind::Operand:
    return operand(e.index);
  case SemExpr::Kind::Attribute:
    return attribute(e.index);
  case SemExpr::Kind::Binary: {
    double a = arg(0), b = arg(1);
    char op = e.fn[0];
    return round(op == '+' ? a + b : op == '-' ? a - b : op == '*' ? a * b : a / b);
  }
  case SemExpr::Kind::Call:
    break;
  }
  const std::string& f = e.fn;
  double x = arg(0);
  double r;
  if (f == "exp")
    r = std::exp(x);
  else if (f == "exp2")
    r = std::exp2(x);
  else if (f == "log")
    r = std::log(x);
  else if (f == "log2")
    r = std::log2(x);
  else if (f == "sqrt")
    r = std::sqrt(x);
  else if (f == "rsqrt")
    r = 1.0 / std::sqrt(x);
  else if (f == "rcp")
    r = 1.0 / x;
  else if (f == "tanh")
    r = std::tanh(x);
  else if (f == "sigmoid")
    r = 1.0 / (1.0 + std::exp(-x));
  else if (f == "erf")
    r = std::erf(x);
  else if (f == "abs")
    r = std::fabs(x);
  else if (f == "neg")
    r = -x;
  else if (f == "relu")
    r = x > 0.0 ? x : 0.0;
  else if (f == "silu")
    r = x / (1.0 + std::exp(-x));
  else if (f == "gelu")
    r = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  else if (f == "gelu_tanh")
    r = 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  else if (f == "max" || f == "min") {
    // As PTX max/min: a NaN operand yields the other one.
    double y = arg(1);
    r = std::isnan(x) ? y : std::isnan(y) ? x : f == "max" ? std::max(x, y) : std::min(x, y);
  } else // fma: one rounding
    r = std::fma(x, arg(1), arg(2));
  return round(r);
}

std::string printSemantics(const SemanticsDef& s, const Primitive& prim) {
  std::string out = prim.operands[s.dst].name + " = ";
  print(s.expr, prim, out);
  return out;
}

} // namespace cake::reg
