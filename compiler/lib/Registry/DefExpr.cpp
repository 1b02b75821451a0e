// Parsing, resolution and evaluation of primitive-definition expressions.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Registry/DefExpr.h"

#include "cake/Parse/Lexer.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>

namespace cake::reg {

std::string DefValue::str() const {
  switch (kind) {
  case Kind::Unknown:
    return "?";
  case Kind::Int:
    return std::to_string(i);
  case Kind::Float: {
    std::string s = std::to_string(f);
    return s;
  }
  case Kind::Bool:
    return b ? "true" : "false";
  case Kind::Symbol:
    return sym;
  case Kind::List: {
    std::string s = "[";
    for (std::size_t k = 0; k < list.size(); ++k)
      s += (k ? ", " : "") + list[k].str();
    return s + "]";
  }
  }
  return "?";
}

namespace {

struct FnInfo {
  DefFn fn;
  std::string_view name;
  int arity;
  bool firstIsOperand;
};
constexpr FnInfo kFns[] = {
    {DefFn::DType, "dtype", 1, true},
    {DefFn::Space, "space", 1, true},
    {DefFn::Rank, "rank", 1, true},
    {DefFn::Dim, "dim", 2, true},
    {DefFn::Elems, "elems", 1, true},
    {DefFn::Bytes, "bytes", 1, true},
    {DefFn::Bits, "bits", 1, true},
    {DefFn::Present, "present", 1, true},
    {DefFn::Stages, "stages", 1, true},
    {DefFn::Swizzle, "swizzle", 1, true},
    {DefFn::SwizzleBytes, "swizzle_bytes", 1, true},
    {DefFn::Offset, "offset", 1, true},
    {DefFn::StageBytes, "stage_bytes", 1, true},
    {DefFn::RowBytes, "row_bytes", 1, true},
    {DefFn::BufferRowBytes, "buffer_row_bytes", 1, true},
    {DefFn::RowOffset, "row_offset", 1, true},
    {DefFn::BaseAlign, "base_align", 1, true},
    {DefFn::MaxDim, "max_dim", 1, true},
    {DefFn::Min, "min", 2, false},
    {DefFn::Max, "max", 2, false},
    {DefFn::Pow2, "pow2", 1, false},
};

const FnInfo* findFn(std::string_view name) {
  for (const FnInfo& f : kFns)
    if (f.name == name)
      return &f;
  return nullptr;
}

bool isBuiltinSymbol(std::string_view word) {
  if (ir::parseDType(word) || ir::parseSpace(word))
    return true;
  return word == "true" || word == "false" || word == "none" || word == "32B" || word == "64B" ||
         word == "128B";
}

class DefParser {
  static constexpr unsigned kMaxDepth = 64;

public:
  DefParser(std::string_view source, std::size_t offset, std::size_t length, FileId file,
            const DefScope& scope, DiagnosticEngine& diags, bool allowDynamic)
      : m_diags(diags), m_local(), m_lex(source.substr(0, offset + length), file, m_local, offset),
        m_scope(scope), m_file(file), m_allowDynamic(allowDynamic) {}

  std::optional<DefExpr> run() {
    auto e = parseOr(0);
    if (e && m_lex.peek().kind != Tok::Eof)
      fail(m_lex.peek(), "unexpected " + std::string(describe(m_lex.peek().kind)));
    forwardLexErrors();
    if (!e || m_failed)
      return std::nullopt;
    return e;
  }

private:
  void forwardLexErrors() {
    for (Diagnostic d : m_local.take()) {
      d.code = std::string(diagInfo(DiagId::DefInvalidExpression).code);
      d.family = Family::Definition;
      d.message = "in expression: " + d.message;
      m_diags.report(std::move(d));
      m_failed = true;
    }
  }

  void fail(const Token& at, std::string message) {
    failAt({m_file, at.begin, std::max(at.end, at.begin + 1)}, std::move(message));
  }
  void failAt(SourceRange r, std::string message) {
    if (m_failed)
      return;
    m_failed = true;
    m_diags.report(DiagId::DefInvalidExpression, r, std::move(message));
  }

  SourceRange from(std::uint32_t begin) { return {m_file, begin, m_lastEnd}; }
  Token take() {
    Token t = m_lex.next();
    m_lastEnd = t.end;
    return t;
  }
  bool at(Tok k) { return m_lex.peek().kind == k; }

  std::optional<DefExpr> binary(DefOp op, DefExpr lhs, DefExpr rhs, std::uint32_t begin) {
    DefExpr e;
    e.kind = DefExpr::Kind::Binary;
    e.op = op;
    e.args.push_back(std::move(lhs));
    e.args.push_back(std::move(rhs));
    e.range = from(begin);
    return e;
  }

  /// Bounds the recursion of this parser and, because every operator of a chain counts as one
  /// level too (`1+1+…+1` is built by a loop, not by recursion), the height of the tree that
  /// evaluation and destruction later recurse over.
  bool deep(unsigned depth) {
    if (depth > kMaxDepth) {
      fail(m_lex.peek(), "expression nested too deeply (more than " + std::to_string(kMaxDepth) +
                             " levels of brackets, calls or chained operators)");
      return true;
    }
    return false;
  }

  std::optional<DefExpr> parseOr(unsigned depth) {
    if (deep(depth))
      return std::nullopt;
    std::uint32_t begin = m_lex.peek().begin;
    auto lhs = parseAnd(depth);
    while (lhs && at(Tok::OrOr)) {
      if (deep(++depth))
        return std::nullopt;
      take();
      auto rhs = parseAnd(depth);
      if (!rhs)
        return std::nullopt;
      lhs = binary(DefOp::Or, std::move(*lhs), std::move(*rhs), begin);
    }
    return lhs;
  }

  std::optional<DefExpr> parseAnd(unsigned depth) {
    std::uint32_t begin = m_lex.peek().begin;
    auto lhs = parseCmp(depth);
    while (lhs && at(Tok::AndAnd)) {
      if (deep(++depth))
        return std::nullopt;
      take();
      auto rhs = parseCmp(depth);
      if (!rhs)
        return std::nullopt;
      lhs = binary(DefOp::And, std::move(*lhs), std::move(*rhs), begin);
    }
    return lhs;
  }

  std::optional<DefExpr> parseCmp(unsigned depth) {
    std::uint32_t begin = m_lex.peek().begin;
    auto lhs = parseAdd(depth);
    if (!lhs)
      return std::nullopt;
    std::optional<DefOp> op;
    switch (m_lex.peek().kind) {
    case Tok::EqEq:
      op = DefOp::Eq;
      break;
    case Tok::NotEq:
      op = DefOp::Ne;
      break;
    case Tok::Less:
      op = DefOp::Lt;
      break;
    case Tok::LessEq:
      op = DefOp::Le;
      break;
    case Tok::Greater:
      op = DefOp::Gt;
      break;
    case Tok::GreaterEq:
      op = DefOp::Ge;
      break;
    case Tok::Ident:
      if (m_lex.peek().text == "in")
        op = DefOp::In;
      break;
    default:
      break;
    }
    if (!op)
      return lhs;
    take();
    auto rhs = parseAdd(depth);
    if (!rhs)
      return std::nullopt;
    if (*op == DefOp::In && rhs->kind != DefExpr::Kind::List) {
      failAt(rhs->range, "'in' needs a list on its right, such as [bf16, f16]");
      return std::nullopt;
    }
    return binary(*op, std::move(*lhs), std::move(*rhs), begin);
  }

  std::optional<DefExpr> parseAdd(unsigned depth) {
    std::uint32_t begin = m_lex.peek().begin;
    auto lhs = parseMul(depth);
    while (lhs && (at(Tok::Plus) || at(Tok::Minus))) {
      if (deep(++depth))
        return std::nullopt;
      DefOp op = take().kind == Tok::Plus ? DefOp::Add : DefOp::Sub;
      auto rhs = parseMul(depth);
      if (!rhs)
        return std::nullopt;
      lhs = binary(op, std::move(*lhs), std::move(*rhs), begin);
    }
    return lhs;
  }

  std::optional<DefExpr> parseMul(unsigned depth) {
    std::uint32_t begin = m_lex.peek().begin;
    auto lhs = parseUnary(depth);
    while (lhs && (at(Tok::Star) || at(Tok::Slash) || at(Tok::Percent))) {
      if (deep(++depth))
        return std::nullopt;
      Tok k = take().kind;
      DefOp op = k == Tok::Star ? DefOp::Mul : k == Tok::Slash ? DefOp::Div : DefOp::Mod;
      auto rhs = parseUnary(depth);
      if (!rhs)
        return std::nullopt;
      lhs = binary(op, std::move(*lhs), std::move(*rhs), begin);
    }
    return lhs;
  }

  std::optional<DefExpr> parseUnary(unsigned depth) {
    if (at(Tok::Minus) || at(Tok::Bang)) {
      if (deep(depth + 1))
        return std::nullopt;
      Token op = take();
      auto inner = parseUnary(depth + 1);
      if (!inner)
        return std::nullopt;
      DefExpr e;
      e.kind = DefExpr::Kind::Unary;
      e.op = op.kind == Tok::Minus ? DefOp::Neg : DefOp::Not;
      e.args.push_back(std::move(*inner));
      e.range = from(op.begin);
      return e;
    }
    return parsePrimary(depth);
  }

  std::optional<DefExpr> parsePrimary(unsigned depth) {
    if (deep(depth)) // lists `[[[…` recurse through here without passing parseOr
      return std::nullopt;
    Token t = m_lex.peek();
    DefExpr e;
    switch (t.kind) {
    case Tok::Int:
      take();
      e.kind = DefExpr::Kind::Int;
      e.intValue = t.intValue;
      e.range = from(t.begin);
      return e;
    case Tok::Float:
      take();
      e.kind = DefExpr::Kind::Float;
      e.floatValue = t.floatValue;
      e.range = from(t.begin);
      return e;
    case Tok::Tag:
      take();
      if (!isBuiltinSymbol(t.text) &&
          std::find(m_scope.symbols.begin(), m_scope.symbols.end(), t.text) ==
              m_scope.symbols.end()) {
        fail(t, "unknown symbol '" + t.text + "'");
        return std::nullopt;
      }
      e.kind = DefExpr::Kind::Symbol;
      e.text = t.text;
      e.range = from(t.begin);
      return e;
    case Tok::LParen: {
      take();
      auto inner = parseOr(depth + 1);
      if (!inner)
        return std::nullopt;
      if (!at(Tok::RParen)) {
        fail(m_lex.peek(), "expected ')'");
        return std::nullopt;
      }
      take();
      return inner;
    }
    case Tok::LBracket: {
      take();
      e.kind = DefExpr::Kind::List;
      if (!at(Tok::RBracket)) {
        while (true) {
          auto el = parseAdd(depth + 1);
          if (!el)
            return std::nullopt;
          e.args.push_back(std::move(*el));
          if (at(Tok::Comma)) {
            take();
            continue;
          }
          break;
        }
      }
      if (!at(Tok::RBracket)) {
        fail(m_lex.peek(), "expected ',' or ']'");
        return std::nullopt;
      }
      take();
      e.range = from(t.begin);
      return e;
    }
    case Tok::Ident:
      return parseName(depth);
    default:
      fail(t, "expected a value, found " + std::string(describe(t.kind)));
      return std::nullopt;
    }
  }

  std::optional<DefExpr> parseName(unsigned depth) {
    Token t = take();
    DefExpr e;
    if (at(Tok::LParen)) {
      const FnInfo* fn = findFn(t.text);
      if (!fn) {
        std::vector<std::string> names;
        for (const FnInfo& f : kFns)
          names.emplace_back(f.name);
        std::string msg = "unknown function '" + t.text + "'";
        if (auto guess = closestMatch(t.text, names))
          msg += "; did you mean '" + *guess + "'?";
        fail(t, msg);
        return std::nullopt;
      }
      take();
      e.kind = DefExpr::Kind::Call;
      e.fn = fn->fn;
      if (!at(Tok::RParen)) {
        while (true) {
          auto arg = parseOr(depth + 1);
          if (!arg)
            return std::nullopt;
          e.args.push_back(std::move(*arg));
          if (at(Tok::Comma)) {
            take();
            continue;
          }
          break;
        }
      }
      if (!at(Tok::RParen)) {
        fail(m_lex.peek(), "expected ')' after the arguments");
        return std::nullopt;
      }
      take();
      e.range = from(t.begin);
      if (static_cast<int>(e.args.size()) != fn->arity) {
        failAt(e.range, std::string(fn->name) + "() takes " + std::to_string(fn->arity) +
                            " argument(s)");
        return std::nullopt;
      }
      if (fn->firstIsOperand && e.args[0].kind != DefExpr::Kind::OperandRef) {
        failAt(e.args[0].range, std::string(fn->name) + "() takes an operand name");
        return std::nullopt;
      }
      return e;
    }
    e.range = from(t.begin);
    e.text = t.text;
    for (std::size_t i = 0; i < m_scope.operands.size(); ++i) {
      if (m_scope.operands[i] == t.text) {
        e.kind = DefExpr::Kind::OperandRef;
        e.index = i;
        return e;
      }
    }
    for (std::size_t i = 0; i < m_scope.attributes.size(); ++i) {
      if (m_scope.attributes[i] == t.text) {
        if (!m_allowDynamic && i < m_scope.attributeIsDynamic.size() &&
            m_scope.attributeIsDynamic[i]) {
          fail(t, "attribute '" + t.text +
                      "' is a run-time expression and cannot appear in a static constraint");
          return std::nullopt;
        }
        e.kind = DefExpr::Kind::AttrRef;
        e.index = i;
        return e;
      }
    }
    if (isBuiltinSymbol(t.text) || std::find(m_scope.symbols.begin(), m_scope.symbols.end(),
                                             t.text) != m_scope.symbols.end()) {
      e.kind = DefExpr::Kind::Symbol;
      return e;
    }
    std::vector<std::string> names = m_scope.operands;
    names.insert(names.end(), m_scope.attributes.begin(), m_scope.attributes.end());
    std::string msg = "'" + t.text + "' is not an operand, attribute, data type or known symbol";
    if (auto guess = closestMatch(t.text, names))
      msg += "; did you mean '" + *guess + "'?";
    fail(t, msg);
    return std::nullopt;
  }

  DiagnosticEngine& m_diags;
  DiagnosticEngine m_local;
  Lexer m_lex;
  const DefScope& m_scope;
  FileId m_file;
  bool m_allowDynamic;
  bool m_failed = false;
  std::uint32_t m_lastEnd = 0;
};

DefValue unknown() { return {}; }

} // namespace

std::optional<DefExpr> parseDefExpr(std::string_view source, std::size_t offset,
                                    std::size_t length, FileId file, const DefScope& scope,
                                    DiagnosticEngine& diags, bool allowDynamic) {
  return DefParser(source, offset, length, file, scope, diags, allowDynamic).run();
}

std::optional<DefExpr> parseDefExprString(std::string_view fileText, const json::Value& v,
                                          const DefScope& scope, DiagnosticEngine& diags,
                                          bool allowDynamic) {
  if (!v.isString()) {
    diags.report(DiagId::DefInvalidValue, v.range, "expected an expression string");
    return std::nullopt;
  }
  std::string_view raw = fileText.substr(v.range.begin + 1, v.range.end - v.range.begin - 2);
  if (raw.find('\\') != std::string_view::npos) {
    diags.report(DiagId::DefInvalidExpression, v.range,
                 "expressions cannot contain escape sequences");
    return std::nullopt;
  }
  return parseDefExpr(fileText, v.range.begin + 1, raw.size(), v.range.file, scope, diags,
                      allowDynamic);
}

DefValue evaluate(const DefExpr& e, const DefContext& ctx) {
  using K = DefExpr::Kind;
  switch (e.kind) {
  case K::Int:
    return DefValue::integer(e.intValue);
  case K::Float: {
    DefValue v;
    v.kind = DefValue::Kind::Float;
    v.f = e.floatValue;
    return v;
  }
  case K::Symbol:
    if (e.text == "true" || e.text == "false")
      return DefValue::boolean(e.text == "true");
    return DefValue::symbol(e.text);
  case K::OperandRef:
    return unknown();
  case K::AttrRef:
    return ctx.attribute(e.index);
  case K::List: {
    DefValue v;
    v.kind = DefValue::Kind::List;
    for (const DefExpr& a : e.args) {
      DefValue x = evaluate(a, ctx);
      if (!x.known())
        return unknown();
      v.list.push_back(std::move(x));
    }
    return v;
  }
  case K::Call: {
    if (e.fn == DefFn::Min || e.fn == DefFn::Max) {
      DefValue a = evaluate(e.args[0], ctx), b = evaluate(e.args[1], ctx);
      if (a.kind != DefValue::Kind::Int || b.kind != DefValue::Kind::Int)
        return unknown();
      return DefValue::integer(e.fn == DefFn::Min ? std::min(a.i, b.i) : std::max(a.i, b.i));
    }
    if (e.fn == DefFn::Pow2) {
      DefValue a = evaluate(e.args[0], ctx);
      if (a.kind != DefValue::Kind::Int)
        return unknown();
      return DefValue::boolean(a.i > 0 && (a.i & (a.i - 1)) == 0);
    }
    const OperandFacts* f = ctx.operand(e.args[0].index);
    if (e.fn == DefFn::Present)
      return DefValue::boolean(f && f->present);
    if (!f || !f->present)
      return unknown();
    std::int64_t elems = 1;
    for (std::int64_t d : f->shape)
      elems *= d;
    switch (e.fn) {
    case DefFn::DType:
      return DefValue::symbol(std::string(ir::toString(f->dtype)));
    case DefFn::Space:
      return DefValue::symbol(std::string(ir::toString(f->space)));
    case DefFn::Rank:
      return DefValue::integer(static_cast<std::int64_t>(f->shape.size()));
    case DefFn::Dim: {
      DefValue i = evaluate(e.args[1], ctx);
      if (i.kind != DefValue::Kind::Int)
        return unknown();
      std::int64_t idx = i.i < 0 ? static_cast<std::int64_t>(f->shape.size()) + i.i : i.i;
      if (idx < 0 || idx >= static_cast<std::int64_t>(f->shape.size()))
        return unknown();
      return DefValue::integer(f->shape[static_cast<std::size_t>(idx)]);
    }
    case DefFn::Elems:
      return DefValue::integer(elems);
    case DefFn::Bytes:
      return DefValue::integer((elems * ir::info(f->dtype).bits + 7) / 8);
    case DefFn::Bits:
      return DefValue::integer(ir::info(f->dtype).bits);
    case DefFn::Stages:
      return DefValue::integer(f->stages);
    case DefFn::Swizzle:
      return DefValue::symbol(std::string(f->swizzle));
    case DefFn::SwizzleBytes:
      return DefValue::integer(f->swizzle == "128B" ? 128
                               : f->swizzle == "64B" ? 64
                               : f->swizzle == "32B" ? 32
                                                     : 0);
    case DefFn::Offset:
      return f->baseOffset < 0 ? unknown() : DefValue::integer(f->baseOffset);
    case DefFn::StageBytes:
      return f->stageBytes <= 0 ? unknown() : DefValue::integer(f->stageBytes);
    case DefFn::RowBytes:
      if (f->shape.empty())
        return unknown();
      return DefValue::integer((f->shape.back() * ir::info(f->dtype).bits + 7) / 8);
    case DefFn::BufferRowBytes:
      return f->bufferRowBytes <= 0 ? unknown() : DefValue::integer(f->bufferRowBytes);
    case DefFn::RowOffset:
      return f->isBuffer ? DefValue::integer(f->rowOffset) : unknown();
    case DefFn::BaseAlign:
      return f->baseAlign < 0 ? unknown() : DefValue::integer(f->baseAlign);
    case DefFn::MaxDim: {
      std::int64_t m = 0;
      for (std::int64_t d : f->shape)
        m = std::max(m, d);
      return DefValue::integer(m);
    }
    default:
      return unknown();
    }
  }
  case K::Unary: {
    DefValue a = evaluate(e.args[0], ctx);
    if (e.op == DefOp::Not)
      return a.kind == DefValue::Kind::Bool ? DefValue::boolean(!a.b) : unknown();
    if (a.kind == DefValue::Kind::Int)
      return DefValue::integer(-a.i);
    if (a.kind == DefValue::Kind::Float) {
      a.f = -a.f;
      return a;
    }
    return unknown();
  }
  case K::Binary: {
    DefValue a = evaluate(e.args[0], ctx);
    if (e.op == DefOp::And && a.kind == DefValue::Kind::Bool && !a.b)
      return DefValue::boolean(false);
    if (e.op == DefOp::Or && a.kind == DefValue::Kind::Bool && a.b)
      return DefValue::boolean(true);
    DefValue b = evaluate(e.args[1], ctx);
    if (!a.known() || !b.known())
      return unknown();
    auto same = [](const DefValue& x, const DefValue& y) {
      if (x.kind != y.kind)
        return false;
      switch (x.kind) {
      case DefValue::Kind::Int:
        return x.i == y.i;
      case DefValue::Kind::Float:
        return x.f == y.f;
      case DefValue::Kind::Bool:
        return x.b == y.b;
      case DefValue::Kind::Symbol:
        return x.sym == y.sym;
      default:
        return false;
      }
    };
    switch (e.op) {
    case DefOp::Eq:
      return DefValue::boolean(same(a, b));
    case DefOp::Ne:
      return DefValue::boolean(!same(a, b));
    case DefOp::In:
      for (const DefValue& x : b.list)
        if (same(a, x))
          return DefValue::boolean(true);
      return DefValue::boolean(false);
    case DefOp::And:
    case DefOp::Or:
      if (a.kind != DefValue::Kind::Bool || b.kind != DefValue::Kind::Bool)
        return unknown();
      return DefValue::boolean(e.op == DefOp::And ? (a.b && b.b) : (a.b || b.b));
    default:
      break;
    }
    if (a.kind != DefValue::Kind::Int || b.kind != DefValue::Kind::Int)
      return unknown();
    switch (e.op) {
    case DefOp::Add:
      return DefValue::integer(a.i + b.i);
    case DefOp::Sub:
      return DefValue::integer(a.i - b.i);
    case DefOp::Mul:
      return DefValue::integer(a.i * b.i);
    case DefOp::Div:
      return b.i == 0 ? unknown() : DefValue::integer(a.i / b.i);
    case DefOp::Mod:
      return b.i == 0 ? unknown() : DefValue::integer(a.i % b.i);
    case DefOp::Lt:
      return DefValue::boolean(a.i < b.i);
    case DefOp::Le:
      return DefValue::boolean(a.i <= b.i);
    case DefOp::Gt:
      return DefValue::boolean(a.i > b.i);
    case DefOp::Ge:
      return DefValue::boolean(a.i >= b.i);
    default:
      return unknown();
    }
  }
  }
  return unknown();
}

std::string describe(const OperandFacts& f) {
  if (!f.present || (!f.isBuffer && !f.isTensorMap))
    return {};
  std::string shape = "[";
  for (std::size_t i = 0; i < f.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(f.shape[i]);
  shape += "]";
  std::string out = f.isTensorMap ? "tensor map " + std::string(ir::toString(f.dtype)) + shape + " (box)"
                                  : std::string(ir::toString(f.space)) + " " +
                                        std::string(ir::toString(f.dtype)) + shape;
  // A view narrower than its buffer's rows: the row pitch is what alignment depends on.
  if (f.isBuffer && !f.shape.empty() && f.bufferRowBytes > 0 &&
      f.bufferRowBytes != (f.shape.back() * ir::info(f.dtype).bits + 7) / 8)
    out += " (rows " + std::to_string(f.bufferRowBytes) + " bytes apart" +
           (f.rowOffset % 16 == 0
                ? std::string()
                : ", start at a multiple of " + std::to_string(f.rowOffset) + " bytes") +
           ")";
  // Swizzle is part of what the data looks like wherever it can be swizzled.
  if (f.isTensorMap || f.space == ir::Space::Smem || f.swizzle != "none")
    out += " swizzle " + std::string(f.swizzle);
  if (f.baseOffset >= 0)
    out += " at byte " + std::to_string(f.baseOffset);
  return out;
}

std::string print(const DefExpr& e) {
  using K = DefExpr::Kind;
  switch (e.kind) {
  case K::Int:
    return std::to_string(e.intValue);
  case K::Float:
    return std::to_string(e.floatValue);
  case K::Symbol:
  case K::OperandRef:
  case K::AttrRef:
    return e.text;
  case K::Call: {
    std::string s;
    for (const FnInfo& f : kFns)
      if (f.fn == e.fn)
        s = std::string(f.name);
    s += '(';
    for (std::size_t i = 0; i < e.args.size(); ++i)
      s += (i ? ", " : "") + print(e.args[i]);
    return s + ')';
  }
  case K::List: {
    std::string s = "[";
    for (std::size_t i = 0; i < e.args.size(); ++i)
      s += (i ? ", " : "") + print(e.args[i]);
    return s + ']';
  }
  case K::Unary:
    return (e.op == DefOp::Neg ? "-" : "!") + print(e.args[0]);
  case K::Binary: {
    static constexpr std::string_view names[] = {"+",  "-", "*",  "/", "%",  "==", "!=", "<",
                                                 "<=", ">", ">=", "&&", "||", "!", "-", "in"};
    return "(" + print(e.args[0]) + " " + std::string(names[static_cast<int>(e.op)]) + " " +
           print(e.args[1]) + ")";
  }
  }
  return "?";
}

std::string_view swizzleName(std::string_view name) {
  static constexpr std::string_view kModes[] = {"none", "32B", "64B", "128B"};
  for (std::string_view m : kModes)
    if (m == name)
      return m;
  // Other names come only from validated declarations, so this set stays tiny; std::set keeps
  // its elements in place.
  static std::mutex mutex;
  static std::set<std::string, std::less<>> others;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = others.find(name);
  if (it == others.end())
    it = others.emplace(name).first;
  return *it;
}

} // namespace cake::reg
