// Canonical printer for Cake IR.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/IR/Printer.h"

#include <charconv>
#include <cmath>

namespace cake::ir {

namespace {

/// Shortest round-trip spelling, normalised for reading: "3.0e38", "1.0e-6", "0.5", "2.0".
std::string printFloat(double value) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, value);
  std::string text(buf, ec == std::errc() ? static_cast<std::size_t>(ptr - buf) : 0);
  std::string mantissa = text, exponent;
  if (auto e = text.find('e'); e != std::string::npos) {
    mantissa = text.substr(0, e);
    std::string digits = text.substr(e + 1);
    bool negative = !digits.empty() && digits[0] == '-';
    if (!digits.empty() && (digits[0] == '-' || digits[0] == '+'))
      digits.erase(0, 1);
    while (digits.size() > 1 && digits[0] == '0')
      digits.erase(0, 1);
    exponent = std::string("e") + (negative ? "-" : "") + digits;
  }
  // Keep a float a float when it is read back.
  if (mantissa.find('.') == std::string::npos)
    mantissa += ".0";
  return mantissa + exponent;
}

std::string quoteString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  out += '"';
  return out;
}

void printExpr(const Expr& e, std::string& out);

/// Precedence of an expression as an operand: atoms bind tightest, ranges loosest.
int exprPrecedence(const Expr& e) {
  switch (e.kind) {
  case ExprKind::Range:
    return 0;
  case ExprKind::Binary:
    return precedence(e.binaryOp);
  case ExprKind::Unary:
    return 7;
  default:
    return 8;
  }
}

void printOperand(const Expr& e, int minPrec, std::string& out) {
  bool parens = exprPrecedence(e) < minPrec;
  if (parens)
    out += '(';
  printExpr(e, out);
  if (parens)
    out += ')';
}

void printExpr(const Expr& e, std::string& out) {
  switch (e.kind) {
  case ExprKind::Int:
    out += std::to_string(e.intValue);
    return;
  case ExprKind::Float:
    out += printFloat(e.floatValue);
    return;
  case ExprKind::String:
    out += quoteString(e.text());
    return;
  case ExprKind::Name:
  case ExprKind::Tag:
    out += e.text();
    return;
  case ExprKind::Member:
    printOperand(*e.children[0], 8, out);
    out += '.';
    out += e.text();
    return;
  case ExprKind::Unary:
    out += e.unaryOp == UnaryOp::Neg ? "-" : "~";
    // No parentheses: a chain of unary operators nests no brackets (a long one written without
    // them must print to text that parses, under the bracket-nesting limit), and the parser
    // reads '-4' as a literal in any context, so the tree survives the round trip. Two minus
    // signs are kept apart by a space ("- -x", "- -4") only so they do not read as a decrement.
    if (e.unaryOp == UnaryOp::Neg &&
        ((e.children[0]->kind == ExprKind::Unary && e.children[0]->unaryOp == UnaryOp::Neg) ||
         (e.children[0]->kind == ExprKind::Int && e.children[0]->intValue < 0) ||
         (e.children[0]->kind == ExprKind::Float && std::signbit(e.children[0]->floatValue))))
      out += ' ';
    printOperand(*e.children[0], 7, out);
    return;
  case ExprKind::Binary: {
    if (isCallOp(e.binaryOp)) {
      out += toString(e.binaryOp);
      out += '(';
      printExpr(*e.children[0], out);
      out += ", ";
      printExpr(*e.children[1], out);
      out += ')';
      return;
    }
    int prec = precedence(e.binaryOp);
    printOperand(*e.children[0], prec, out);
    out += ' ';
    out += toString(e.binaryOp);
    out += ' ';
    printOperand(*e.children[1], prec + 1, out);
    return;
  }
  case ExprKind::List:
    out += '[';
    for (std::size_t i = 0; i < e.children.size(); ++i) {
      if (i)
        out += ", ";
      printExpr(*e.children[i], out);
    }
    out += ']';
    return;
  case ExprKind::Range:
    printOperand(*e.children[0], 1, out);
    out += "..";
    printOperand(*e.children[1], 1, out);
    return;
  }
}

class Printer {
public:
  std::string run(const Module& module) {
    if (module.kernel)
      printKernel(*module.kernel);
    printComments(module.trailingComments, 0, !module.kernel);
    return std::move(m_out);
  }

private:
  void indent(unsigned level) { m_out.append(level * 2, ' '); }

  void printComments(const std::vector<CommentLine>& comments, unsigned level, bool first) {
    for (const CommentLine& c : comments) {
      if (c.blankLineBefore && !first)
        m_out += '\n';
      first = false;
      indent(level);
      m_out += "//";
      m_out += c.text;
      m_out += '\n';
    }
  }

  void leading(const Trivia& t, unsigned level) {
    printComments(t.leadingComments, level, false);
    if (t.blankLineBefore)
      m_out += '\n';
  }

  void lineEnd(const Trivia& t) {
    if (t.hasTrailingComment) {
      m_out += "  //";
      m_out += t.trailingComment;
    }
    m_out += '\n';
  }

  void closeBrace(unsigned level, const std::vector<CommentLine>& closing, bool hasComment,
                  const std::string& comment) {
    printComments(closing, level + 1, false);
    indent(level);
    m_out += '}';
    if (hasComment) {
      m_out += "  //";
      m_out += comment;
    }
    m_out += '\n';
  }

  void attributes(const std::vector<Attribute>& attrs) {
    for (const Attribute& a : attrs) {
      m_out += ' ';
      m_out += a.key.name;
      m_out += '=';
      if (a.value)
        printExpr(*a.value, m_out);
    }
  }

  void printKernel(const Kernel& k) {
    // The file's first comment block has no blank line above it.
    printComments(k.trivia.leadingComments, 0, true);
    if (k.trivia.blankLineBefore && !k.trivia.leadingComments.empty())
      m_out += '\n';
    m_out += "kernel ";
    m_out += k.name.name;
    attributes(k.attributes);
    m_out += " {";
    lineEnd(k.trivia);
    for (const Decl& d : k.decls)
      printDecl(d);
    for (const StmtPtr& s : k.body)
      printStmt(*s, 1);
    closeBrace(0, k.closingComments, k.hasCloseComment, k.closeComment);
  }

  void printDecl(const Decl& d) {
    leading(d.trivia, 1);
    indent(1);
    m_out += keyword(d.kind);
    if (!d.name.name.empty()) {
      m_out += ' ';
      m_out += d.name.name;
    }
    if (d.type) {
      m_out += " : ";
      m_out += d.type->dtype.name;
      if (d.type->hasShape) {
        m_out += '[';
        for (std::size_t i = 0; i < d.type->shape.size(); ++i) {
          if (i)
            m_out += ", ";
          printExpr(*d.type->shape[i], m_out);
        }
        m_out += ']';
      }
    }
    if (d.value) {
      m_out += " = ";
      printExpr(*d.value, m_out);
    }
    attributes(d.attributes);
    lineEnd(d.trivia);
  }

  void printOperandRef(const Operand& o) {
    m_out += o.name.name;
    if (!o.subscripted)
      return;
    m_out += '[';
    for (std::size_t i = 0; i < o.indices.size(); ++i) {
      if (i)
        m_out += ", ";
      const Index& idx = o.indices[i];
      switch (idx.kind) {
      case Index::Kind::Full:
        m_out += ':';
        break;
      case Index::Kind::Point:
        printExpr(*idx.start, m_out);
        break;
      case Index::Kind::Slice:
        printExpr(*idx.start, m_out);
        m_out += " +: ";
        printExpr(*idx.size, m_out);
        break;
      }
    }
    m_out += ']';
  }

  void printStmt(const Stmt& s, unsigned level) {
    leading(s.trivia(), level);
    indent(level);
    switch (s.kind) {
    case StmtKind::Op:
      m_out += s.opName.name;
      for (std::size_t i = 0; i < s.operands.size(); ++i) {
        m_out += i ? ", " : " ";
        printOperandRef(s.operands[i]);
      }
      attributes(s.attributes);
      lineEnd(s.trivia());
      return;
    case StmtKind::For:
      m_out += "for ";
      m_out += s.block().loopVar.name;
      m_out += " in ";
      if (s.block().loopRange)
        printExpr(*s.block().loopRange, m_out);
      attributes(s.attributes);
      m_out += " {";
      break;
    case StmtKind::On:
      m_out += "on ";
      for (std::size_t i = 0; i < s.block().roles.size(); ++i) {
        if (i)
          m_out += ", ";
        m_out += s.block().roles[i].name;
      }
      attributes(s.attributes);
      m_out += " {";
      break;
    }
    lineEnd(s.trivia());
    for (const StmtPtr& child : s.body)
      printStmt(*child, level + 1);
    closeBrace(level, s.block().closingComments, s.block().hasCloseComment, s.block().closeComment);
  }

  std::string m_out;
};

} // namespace

std::string print(const Expr& expr) {
  std::string out;
  printExpr(expr, out);
  return out;
}

std::string print(const Module& module) { return Printer().run(module); }

} // namespace cake::ir
