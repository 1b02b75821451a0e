// Syntax-tree helpers: keyword tables, cloning and structural equality.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/IR/Kernel.h"
#include "cake/IR/Clone.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

namespace cake::ir {

std::string_view toString(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Mod:
    return "%";
  case BinaryOp::Shl:
    return "<<";
  case BinaryOp::Shr:
    return ">>";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::BitXor:
    return "^";
  case BinaryOp::Min:
    return "min";
  case BinaryOp::Max:
    return "max";
  case BinaryOp::CeilDiv:
    return "cdiv";
  }
  return "?";
}

bool isCallOp(BinaryOp op) {
  return op == BinaryOp::Min || op == BinaryOp::Max || op == BinaryOp::CeilDiv;
}

int precedence(BinaryOp op) {
  switch (op) {
  case BinaryOp::BitOr:
    return 1;
  case BinaryOp::BitXor:
    return 2;
  case BinaryOp::BitAnd:
    return 3;
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    return 4;
  case BinaryOp::Add:
  case BinaryOp::Sub:
    return 5;
  case BinaryOp::Mul:
  case BinaryOp::Div:
  case BinaryOp::Mod:
    return 6;
  case BinaryOp::Min:
  case BinaryOp::Max:
  case BinaryOp::CeilDiv:
    return 9; // a call: an atom, never parenthesised (above unary's 7 and atoms' 8)
  }
  return 0;
}

std::optional<std::int64_t> fold(BinaryOp op, std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  switch (op) {
  case BinaryOp::Add:
    return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional<std::int64_t>(r);
  case BinaryOp::Sub:
    return __builtin_sub_overflow(a, b, &r) ? std::nullopt : std::optional<std::int64_t>(r);
  case BinaryOp::Mul:
    return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional<std::int64_t>(r);
  case BinaryOp::Div:
  case BinaryOp::Mod:
    if (b == 0 || (b == -1 && a == std::numeric_limits<std::int64_t>::min()))
      return std::nullopt;
    return op == BinaryOp::Div ? a / b : a % b; // C: toward zero
  case BinaryOp::Shl:
    if (b < 0 || b > 62 || a < 0 || (a >> (62 - b)) != 0)
      return std::nullopt;
    return a << b;
  case BinaryOp::Shr:
    if (b < 0 || b > 63)
      return std::nullopt;
    return a >> b;
  case BinaryOp::BitAnd:
    return a & b;
  case BinaryOp::BitOr:
    return a | b;
  case BinaryOp::BitXor:
    return a ^ b;
  case BinaryOp::Min:
    return std::min(a, b);
  case BinaryOp::Max:
    return std::max(a, b);
  case BinaryOp::CeilDiv: {
    // Rounded toward +infinity (C's division rounds toward zero).
    if (b == 0 || (b == -1 && a == std::numeric_limits<std::int64_t>::min()))
      return std::nullopt;
    std::int64_t q = a / b;
    return q + ((a % b != 0) && ((a < 0) == (b < 0)) ? 1 : 0);
  }
  }
  return std::nullopt;
}

std::optional<std::int64_t> fold(UnaryOp op, std::int64_t a) {
  if (op == UnaryOp::BitNot)
    return ~a;
  if (a == std::numeric_limits<std::int64_t>::min())
    return std::nullopt;
  return -a;
}

Expr::Expr(Expr&& other) noexcept
    : kind(other.kind), binaryOp(other.binaryOp), unaryOp(other.unaryOp),
      m_textState(other.m_textState), id(other.id), intValue(other.intValue),
      children(std::move(other.children)) {
  // The union's bytes moved with intValue: inline text or the heap block's pointer alike.
  other.m_textState = 0;
}

Expr& Expr::operator=(Expr&& other) noexcept {
  if (this != &other) {
    freeText();
    kind = other.kind;
    binaryOp = other.binaryOp;
    unaryOp = other.unaryOp;
    id = other.id;
    intValue = other.intValue;
    m_textState = other.m_textState;
    other.m_textState = 0;
    children = std::move(other.children);
  }
  return *this;
}

void Expr::setText(std::string_view text) {
  freeText();
  if (text.size() <= kInlineText) {
    std::memcpy(m_inlineText, text.data(), text.size());
    m_textState = static_cast<std::uint8_t>(text.size() + 1);
    return;
  }
  // Texts are bounded by the input (the CLI reads at most a few hundred MB), far below 4 GiB.
  auto size = static_cast<std::uint32_t>(std::min<std::size_t>(text.size(), UINT32_MAX));
  char* block = new char[sizeof size + size];
  std::memcpy(block, &size, sizeof size);
  std::memcpy(block + sizeof size, text.data(), size);
  m_heapText = block;
  m_textState = kHeapText;
}

ExprPtr cloneExpr(const Expr& e) {
  auto out = std::make_unique<Expr>();
  out->kind = e.kind;
  out->id = e.id;
  if (e.kind == ExprKind::Float)
    out->floatValue = e.floatValue;
  else
    out->intValue = e.intValue;
  if (e.hasText())
    out->setText(e.text());
  out->binaryOp = e.binaryOp;
  out->unaryOp = e.unaryOp;
  for (const ExprPtr& c : e.children)
    out->children.push_back(cloneExpr(*c));
  return out;
}

Operand cloneOperand(const Operand& o) {
  Operand c;
  c.name = o.name;
  c.id = o.id;
  c.subscripted = o.subscripted;
  for (const Index& idx : o.indices) {
    Index ci;
    ci.kind = idx.kind;
    ci.id = idx.id;
    if (idx.start)
      ci.start = cloneExpr(*idx.start);
    if (idx.size)
      ci.size = cloneExpr(*idx.size);
    c.indices.push_back(std::move(ci));
  }
  return c;
}

bool equal(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.children.size() != b.children.size())
    return false;
  switch (a.kind) {
  case ExprKind::Int:
    if (a.intValue != b.intValue)
      return false;
    break;
  case ExprKind::Float:
    if (a.floatValue != b.floatValue)
      return false;
    break;
  case ExprKind::String:
  case ExprKind::Name:
  case ExprKind::Tag:
  case ExprKind::Member:
    if (a.text() != b.text())
      return false;
    break;
  case ExprKind::Unary:
    if (a.unaryOp != b.unaryOp)
      return false;
    break;
  case ExprKind::Binary:
    if (a.binaryOp != b.binaryOp)
      return false;
    break;
  case ExprKind::List:
  case ExprKind::Range:
    break;
  }
  for (std::size_t i = 0; i < a.children.size(); ++i)
    if (!equal(*a.children[i], *b.children[i]))
      return false;
  return true;
}

namespace {
struct KeywordEntry {
  DeclKind kind;
  std::string_view word;
};
constexpr std::array<KeywordEntry, 12> kDeclKeywords = {{
    {DeclKind::Const, "const"},
    {DeclKind::Param, "param"},
    {DeclKind::TensorMap, "tensormap"},
    {DeclKind::Grid, "grid"},
    {DeclKind::Role, "role"},
    {DeclKind::Pipeline, "pipeline"},
    {DeclKind::Pool, "pool"},
    {DeclKind::Smem, "smem"},
    {DeclKind::Tmem, "tmem"},
    {DeclKind::Reg, "reg"},
    {DeclKind::MBarrier, "mbarrier"},
    {DeclKind::NBarrier, "nbarrier"},
}};

bool equalOpt(const ExprPtr& a, const ExprPtr& b) {
  if (!a || !b)
    return !a && !b;
  return equal(*a, *b);
}

bool equal(const Trivia& a, const Trivia& b) {
  return a.blankLineBefore == b.blankLineBefore && a.leadingComments == b.leadingComments &&
         a.hasTrailingComment == b.hasTrailingComment && a.trailingComment == b.trailingComment;
}

bool equal(const std::vector<Attribute>& a, const std::vector<Attribute>& b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].key.name != b[i].key.name || !equalOpt(a[i].value, b[i].value))
      return false;
  return true;
}

bool equal(const Operand& a, const Operand& b) {
  if (a.name.name != b.name.name || a.subscripted != b.subscripted ||
      a.indices.size() != b.indices.size())
    return false;
  for (std::size_t i = 0; i < a.indices.size(); ++i) {
    const Index& x = a.indices[i];
    const Index& y = b.indices[i];
    if (x.kind != y.kind || !equalOpt(x.start, y.start) || !equalOpt(x.size, y.size))
      return false;
  }
  return true;
}

bool equal(const Decl& a, const Decl& b) {
  if (a.kind != b.kind || a.name.name != b.name.name || a.type.has_value() != b.type.has_value())
    return false;
  if (a.type) {
    if (a.type->dtype.name != b.type->dtype.name || a.type->hasShape != b.type->hasShape ||
        a.type->shape.size() != b.type->shape.size())
      return false;
    for (std::size_t i = 0; i < a.type->shape.size(); ++i)
      if (!equal(*a.type->shape[i], *b.type->shape[i]))
        return false;
  }
  return equalOpt(a.value, b.value) && equal(a.attributes, b.attributes) &&
         equal(a.trivia, b.trivia);
}

bool equal(const std::vector<StmtPtr>& a, const std::vector<StmtPtr>& b);

bool equal(const Stmt& a, const Stmt& b) {
  const StmtBlock& ab = a.block();
  const StmtBlock& bb = b.block();
  if (a.kind != b.kind || !equal(a.trivia(), b.trivia()) || ab.closingComments != bb.closingComments ||
      ab.hasCloseComment != bb.hasCloseComment || ab.closeComment != bb.closeComment)
    return false;
  switch (a.kind) {
  case StmtKind::Op:
    if (a.opName.name != b.opName.name || a.operands.size() != b.operands.size())
      return false;
    for (std::size_t i = 0; i < a.operands.size(); ++i)
      if (!equal(a.operands[i], b.operands[i]))
        return false;
    return equal(a.attributes, b.attributes);
  case StmtKind::For:
    return ab.loopVar.name == bb.loopVar.name && equalOpt(ab.loopRange, bb.loopRange) &&
           equal(a.attributes, b.attributes) && equal(a.body, b.body);
  case StmtKind::On:
    if (ab.roles.size() != bb.roles.size())
      return false;
    for (std::size_t i = 0; i < ab.roles.size(); ++i)
      if (ab.roles[i].name != bb.roles[i].name)
        return false;
    return equal(a.body, b.body);
  }
  return false;
}

bool equal(const std::vector<StmtPtr>& a, const std::vector<StmtPtr>& b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!equal(*a[i], *b[i]))
      return false;
  return true;
}

const Attribute* findAttribute(const std::vector<Attribute>& attrs, std::string_view key) {
  for (const Attribute& a : attrs)
    if (a.key.name == key)
      return &a;
  return nullptr;
}
} // namespace

std::string_view keyword(DeclKind kind) { return kDeclKeywords[static_cast<std::size_t>(kind)].word; }

std::optional<DeclKind> parseDeclKeyword(std::string_view word) {
  for (const KeywordEntry& e : kDeclKeywords)
    if (e.word == word)
      return e.kind;
  return std::nullopt;
}

bool declHasName(DeclKind kind) { return kind != DeclKind::Grid; }

const Attribute* Decl::attribute(std::string_view key) const {
  return findAttribute(attributes, key);
}
const Attribute* Stmt::attribute(std::string_view key) const {
  return findAttribute(attributes, key);
}
const StmtBlock& Stmt::block() const {
  static const StmtBlock kNone;
  return m_block ? *m_block : kNone;
}
const Trivia& Stmt::trivia() const {
  static const Trivia kNone;
  return m_trivia ? *m_trivia : kNone;
}
Trivia& Stmt::mutableTrivia() {
  if (!m_trivia)
    m_trivia = std::make_unique<Trivia>();
  return *m_trivia;
}
void Stmt::setTrivia(Trivia t) {
  if (t.leadingComments.empty() && t.trailingComment.empty() && !t.blankLineBefore &&
      !t.hasTrailingComment)
    m_trivia.reset();
  else
    m_trivia = std::make_unique<Trivia>(std::move(t));
}
StmtBlock& Stmt::mutableBlock() {
  if (!m_block)
    m_block = std::make_unique<StmtBlock>();
  return *m_block;
}
const Attribute* Kernel::attribute(std::string_view key) const {
  return findAttribute(attributes, key);
}

std::string Kernel::target() const {
  const Attribute* a = attribute("target");
  if (!a || !a->value)
    return {};
  if (a->value->kind == ExprKind::Name || a->value->kind == ExprKind::String)
    return std::string(a->value->text());
  return {};
}

bool equal(const Kernel& a, const Kernel& b) {
  if (a.name.name != b.name.name || !equal(a.attributes, b.attributes) ||
      !equal(a.trivia, b.trivia) || a.closingComments != b.closingComments ||
      a.hasCloseComment != b.hasCloseComment || a.closeComment != b.closeComment ||
      a.decls.size() != b.decls.size())
    return false;
  for (std::size_t i = 0; i < a.decls.size(); ++i)
    if (!equal(a.decls[i], b.decls[i]))
      return false;
  return equal(a.body, b.body);
}

} // namespace cake::ir
