// Explains why a definition expression (a primitive constraint, a pattern rule) is false, with
// the evaluated numbers, so findings show values instead of the rule's text.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Registry/DefExpr.h"

#include <algorithm>

namespace cake::reg {

namespace {

// Binding strength of each DefOp (the parser's precedence), for printing without redundant
// brackets.
int precedence(const DefExpr& e) {
  if (e.kind == DefExpr::Kind::Unary)
    return 7;
  if (e.kind != DefExpr::Kind::Binary)
    return 8;
  switch (e.op) {
  case DefOp::Or:
    return 1;
  case DefOp::And:
    return 2;
  case DefOp::Eq:
  case DefOp::Ne:
  case DefOp::In:
    return 3;
  case DefOp::Lt:
  case DefOp::Le:
  case DefOp::Gt:
  case DefOp::Ge:
    return 4;
  case DefOp::Add:
  case DefOp::Sub:
    return 5;
  default:
    return 6;
  }
}

std::string printTight(const DefExpr& e) {
  if (e.kind == DefExpr::Kind::Unary) {
    const DefExpr& a = e.args[0];
    std::string inner = printTight(a);
    if (precedence(a) < 7)
      inner = "(" + inner + ")";
    return (e.op == DefOp::Neg ? "-" : "!") + inner;
  }
  if (e.kind != DefExpr::Kind::Binary)
    return print(e);
  static constexpr std::string_view names[] = {"+",  "-", "*",  "/", "%",  "==", "!=", "<",
                                               "<=", ">", ">=", "&&", "||", "!", "-", "in"};
  int p = precedence(e);
  std::string l = printTight(e.args[0]), r = printTight(e.args[1]);
  // Left-associative: the right operand needs brackets at equal strength too.
  if (precedence(e.args[0]) < p)
    l = "(" + l + ")";
  if (precedence(e.args[1]) <= p)
    r = "(" + r + ")";
  return l + " " + std::string(names[static_cast<int>(e.op)]) + " " + r;
}

bool isLiteral(const DefExpr& e) {
  return e.kind == DefExpr::Kind::Int || e.kind == DefExpr::Kind::Float ||
         e.kind == DefExpr::Kind::Symbol || e.kind == DefExpr::Kind::List;
}

// "name = value" for `e` (when not a literal) and for every call and attribute inside it.
void collectValues(const DefExpr& e, const DefContext& ctx, std::vector<std::string>& out) {
  if (isLiteral(e) || e.kind == DefExpr::Kind::OperandRef)
    return;
  std::string item = printTight(e) + " = " + evaluate(e, ctx).str();
  if (std::find(out.begin(), out.end(), item) == out.end())
    out.push_back(std::move(item));
  if (e.kind == DefExpr::Kind::Call || e.kind == DefExpr::Kind::AttrRef)
    return; // a call's arguments are operand names and literal indices
  for (const DefExpr& a : e.args)
    collectValues(a, ctx, out);
}

void flatten(const DefExpr& e, DefOp op, std::vector<const DefExpr*>& out) {
  if (e.kind == DefExpr::Kind::Binary && e.op == op) {
    flatten(e.args[0], op, out);
    flatten(e.args[1], op, out);
  } else {
    out.push_back(&e);
  }
}

struct Why {
  std::string text;
  int held = 0; ///< conjuncts that held before the expression failed
};

Why explain(const DefExpr& e, const DefContext& ctx) {
  if (e.kind == DefExpr::Kind::Binary && e.op == DefOp::And) {
    std::vector<const DefExpr*> parts;
    flatten(e, DefOp::And, parts);
    Why w;
    std::vector<std::string> failed;
    for (const DefExpr* p : parts) {
      DefValue v = evaluate(*p, ctx);
      if (v.kind == DefValue::Kind::Bool && v.b)
        ++w.held;
      else if (v.kind == DefValue::Kind::Bool)
        failed.push_back(explain(*p, ctx).text);
    }
    for (std::size_t i = 0; i < failed.size(); ++i)
      w.text += (i ? "; " : "") + failed[i];
    return w;
  }
  if (e.kind == DefExpr::Kind::Binary && e.op == DefOp::Or) {
    // Every alternative failed; show the ones that came closest (most conjuncts held), which
    // for case splits ("a_major == k && ... || a_major == mn && ...") is the case that applies.
    std::vector<const DefExpr*> parts;
    flatten(e, DefOp::Or, parts);
    std::vector<Why> whys;
    int best = 0;
    for (const DefExpr* p : parts) {
      whys.push_back(explain(*p, ctx));
      best = std::max(best, whys.back().held);
    }
    Why w;
    w.held = best;
    for (const Why& x : whys)
      if (x.held == best && !x.text.empty())
        w.text += (w.text.empty() ? "" : "; ") + x.text;
    return w;
  }
  if (e.kind == DefExpr::Kind::Unary && e.op == DefOp::Not) {
    std::vector<std::string> values;
    collectValues(e.args[0], ctx, values);
    std::string s = printTight(e.args[0]) + " holds";
    for (std::size_t i = 0; i < values.size(); ++i)
      s += (i ? ", " : ": ") + values[i];
    return {s, 0};
  }
  std::vector<std::string> values;
  if (e.kind == DefExpr::Kind::Binary) {
    collectValues(e.args[0], ctx, values);
    collectValues(e.args[1], ctx, values);
  } else {
    for (const DefExpr& a : e.args)
      collectValues(a, ctx, values);
  }
  std::string s = printTight(e) + " is false";
  for (std::size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : ": ") + values[i];
  return {s, 0};
}

} // namespace

std::string explainFalse(const DefExpr& expr, const DefContext& ctx) {
  DefValue v = evaluate(expr, ctx);
  if (v.kind != DefValue::Kind::Bool || v.b)
    return {};
  return explain(expr, ctx).text;
}

} // namespace cake::reg
