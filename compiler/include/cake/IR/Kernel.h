// The Cake IR syntax tree: one kernel of declarations and role blocks. Source ranges live in a
// side table (SourceMap) keyed by NodeId so that IR equality and printing ignore locations.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Types.h"
#include "cake/Support/SourceManager.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake::ir {

/// Index into a SourceMap. 0 means "no node".
using NodeId = std::uint32_t;

enum class ExprKind : std::uint8_t {
  Int,    ///< 42, 0x2a, 0b101010
  Float,  ///< 0.5, 1e-3
  String, ///< "text"
  Name,   ///< identifier: a constant, loop variable, builtin, enum value or dtype
  Tag,    ///< number-led word such as 128B (swizzle tags)
  Member, ///< base.member (ring.slot, t.x)
  Unary,  ///< -x, ~x
  Binary, ///< x + y, ...
  List,   ///< [a, b, c]
  Range,  ///< lo..hi (half-open)
};

/// Min, Max and CeilDiv are written as calls (`min(a, b)`, `max(a, b)`, `cdiv(a, b)`): the
/// integer functions run-time bounds over scalar parameters need (docs/ir.md).
enum class BinaryOp : std::uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  Shl,
  Shr,
  BitAnd,
  BitOr,
  BitXor,
  Min,
  Max,
  CeilDiv
};
/// True for the operators written as a call: min, max, cdiv.
bool isCallOp(BinaryOp op);
enum class UnaryOp : std::uint8_t { Neg, BitNot };

std::string_view toString(BinaryOp op);
/// Binding strength used by parser and printer (higher binds tighter).
int precedence(BinaryOp op);
/// `a op b` over int64 as Cake IR defines it (division and remainder toward zero, arithmetic
/// right shift); nullopt on overflow, division by zero or a shift count outside the value.
std::optional<std::int64_t> fold(BinaryOp op, std::int64_t a, std::int64_t b);
std::optional<std::int64_t> fold(UnaryOp op, std::int64_t a);

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

/// The children of an expression, in the size of a std::vector (24 bytes) but keeping up to two
/// children inline: Member, Unary, Binary and Range nodes — most of a kernel's expressions —
/// then need no heap block of their own (a 50 MB kernel has millions of them). Lists with more
/// elements keep them in one heap array. Moving a child out leaves a null slot (the size stays).
class ExprList {
public:
  ExprList() noexcept {}
  ExprList(ExprList&& other) noexcept { take(other); }
  ExprList& operator=(ExprList&& other) noexcept {
    if (this != &other) {
      clear();
      take(other);
    }
    return *this;
  }
  ExprList(const ExprList&) = delete;
  ExprList& operator=(const ExprList&) = delete;
  ~ExprList();

  std::size_t size() const { return m_size; }
  bool empty() const { return m_size == 0; }
  ExprPtr& operator[](std::size_t i) { return data()[i]; }
  const ExprPtr& operator[](std::size_t i) const { return data()[i]; }
  ExprPtr* begin() { return data(); }
  ExprPtr* end() { return data() + m_size; }
  const ExprPtr* begin() const { return data(); }
  const ExprPtr* end() const { return data() + m_size; }
  void push_back(ExprPtr child);
  void clear() noexcept;

private:
  ExprPtr* data() { return m_capacity ? m_heap : m_inline; }
  const ExprPtr* data() const { return m_capacity ? m_heap : m_inline; }
  void take(ExprList& other) noexcept; ///< this must be empty and inline
  void destroyInline() noexcept;

  union {
    ExprPtr m_inline[2]{}; ///< active while m_capacity == 0
    ExprPtr* m_heap;       ///< `new ExprPtr[m_capacity]` otherwise
  };
  std::uint32_t m_size = 0;
  std::uint32_t m_capacity = 0;
};

/// An expression or attribute value.
/// Laid out in 40 bytes (one 48-byte heap block): a 50 MB kernel holds millions of these. The
/// name / tag / string payload shares its word with the numeric value (a node has one or the
/// other): up to 8 characters are kept in the word itself, longer texts in one heap block the
/// node owns. Set `intValue` / `floatValue` only on nodes without text (Int, Float; the parser and
/// cloneExpr do) and the text only through setText().
struct Expr {
  Expr() noexcept : intValue(0) {}
  Expr(Expr&& other) noexcept;
  Expr& operator=(Expr&& other) noexcept;
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;
  ~Expr() { freeText(); }

  ExprKind kind = ExprKind::Int;
  BinaryOp binaryOp = BinaryOp::Add;
  UnaryOp unaryOp = UnaryOp::Neg;

private:
  /// 0: no text; 1..9: that many characters minus one inline; kHeapText: m_heapText.
  std::uint8_t m_textState = 0;
  static constexpr std::uint8_t kHeapText = 0xff;
  static constexpr std::size_t kInlineText = 8;

public:
  NodeId id = 0;
  /// Int holds intValue, Float floatValue (read only the one that matches kind); a node with
  /// text keeps it in the same word.
  union {
    std::int64_t intValue;
    double floatValue;
    // The text's storage, selected by m_textState; use text() / setText().
    char m_inlineText[kInlineText];
    char* m_heapText; ///< std::uint32_t length, then the characters
  };

public:
  /// Name, Tag and String payload; the member name for Member. Empty for the other kinds.
  std::string_view text() const {
    if (m_textState == kHeapText) {
      std::uint32_t size;
      std::memcpy(&size, m_heapText, sizeof size);
      return {m_heapText + sizeof size, size};
    }
    return m_textState ? std::string_view(m_inlineText, m_textState - 1u) : std::string_view();
  }
  void setText(std::string_view text);
  bool hasText() const { return m_textState != 0; }

  /// Member: [base]; Unary: [x]; Binary: [lhs, rhs]; List: elements; Range: [lo, hi].
  ExprList children;

private:
  void freeText() noexcept {
    if (m_textState == kHeapText)
      delete[] m_heapText;
    m_textState = 0;
  }
};
static_assert(sizeof(Expr) <= 40, "ir::Expr should fit a 48-byte heap block");

inline void ExprList::destroyInline() noexcept {
  m_inline[0].~ExprPtr();
  m_inline[1].~ExprPtr();
}

inline ExprList::~ExprList() {
  if (m_capacity)
    delete[] m_heap;
  else
    destroyInline();
}

inline void ExprList::clear() noexcept {
  if (m_capacity) {
    delete[] m_heap;
    ::new (static_cast<void*>(&m_inline[0])) ExprPtr();
    ::new (static_cast<void*>(&m_inline[1])) ExprPtr();
    m_capacity = 0;
  } else {
    m_inline[0].reset();
    m_inline[1].reset();
  }
  m_size = 0;
}

inline void ExprList::take(ExprList& other) noexcept {
  if (other.m_capacity) {
    destroyInline();
    m_heap = other.m_heap;
    m_capacity = other.m_capacity;
    ::new (static_cast<void*>(&other.m_inline[0])) ExprPtr();
    ::new (static_cast<void*>(&other.m_inline[1])) ExprPtr();
    other.m_capacity = 0;
  } else {
    m_inline[0] = std::move(other.m_inline[0]);
    m_inline[1] = std::move(other.m_inline[1]);
  }
  m_size = other.m_size;
  other.m_size = 0;
}

inline void ExprList::push_back(ExprPtr child) {
  if (m_capacity == 0 && m_size < 2) {
    m_inline[m_size++] = std::move(child);
    return;
  }
  if (m_size == m_capacity || m_capacity == 0) {
    std::uint32_t capacity = m_size < 4 ? 4 : 2 * m_size;
    ExprPtr* grown = new ExprPtr[capacity];
    for (std::uint32_t i = 0; i < m_size; ++i)
      grown[i] = std::move(data()[i]);
    if (m_capacity)
      delete[] m_heap;
    else
      destroyInline();
    m_heap = grown;
    m_capacity = capacity;
  }
  m_heap[m_size++] = std::move(child);
}

ExprPtr cloneExpr(const Expr& e);
bool equal(const Expr& a, const Expr& b);

/// A name written in the source together with the node that locates it.
struct Ident {
  std::string name;
  NodeId id = 0;
};

/// `key=value`.
struct Attribute {
  Ident key;
  ExprPtr value;
  NodeId id = 0; ///< covers key, '=' and value
};

/// One subscript of an operand: `e` (point), `e +: n` (slice of n from e) or `:` (whole dim).
struct Index {
  enum class Kind : std::uint8_t { Point, Slice, Full };
  ExprPtr start; ///< Point and Slice
  ExprPtr size;  ///< Slice only
  NodeId id = 0;
  Kind kind = Kind::Point;
};

/// A reference to a declared entity, optionally subscripted: `a_s[ring.slot, wg*64 +: 64, :]`.
struct Operand {
  Ident name;
  std::vector<Index> indices;
  NodeId id = 0;
  bool subscripted = false;
};

/// A whole-line comment (text after "//") and whether a blank line precedes it.
struct CommentLine {
  std::string text;
  bool blankLineBefore = false;
  friend bool operator==(const CommentLine&, const CommentLine&) = default;
};

/// Comments and blank lines that belong to a line, kept so `cake fmt` preserves them.
struct Trivia {
  std::vector<CommentLine> leadingComments; ///< own-line comments above the line
  std::string trailingComment;              ///< same-line comment (text after "//")
  bool blankLineBefore = false;             ///< blank line between the comments and the line
  bool hasTrailingComment = false;
};

enum class DeclKind : std::uint8_t {
  Const,
  Param,
  TensorMap,
  Grid,
  Role,
  Pipeline,
  Pool,
  Smem,
  Tmem,
  Reg,
  MBarrier,
  NBarrier,
};
std::string_view keyword(DeclKind kind);
std::optional<DeclKind> parseDeclKeyword(std::string_view word);
/// Only `grid` has no name.
bool declHasName(DeclKind kind);

/// `dtype[d0, d1, ...]` (the brackets are omitted for scalars).
struct TypeSpec {
  Ident dtype;
  bool hasShape = false;
  std::vector<ExprPtr> shape;
  NodeId id = 0;
};

/// A kernel-level declaration: `KEYWORD [NAME] [: TYPE] [= VALUE] key=value...`.
struct Decl {
  DeclKind kind = DeclKind::Const;
  Ident name; ///< empty for grid
  std::optional<TypeSpec> type;
  ExprPtr value; ///< const only
  std::vector<Attribute> attributes;
  Trivia trivia;
  NodeId id = 0;

  const Attribute* attribute(std::string_view key) const;
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

enum class StmtKind : std::uint8_t { Op, For, On };

/// The parts of a `for` or `on` statement besides its body: kept out of line because most
/// statements are operations (a 50 MB kernel has about a million of them).
struct StmtBlock {
  // For
  Ident loopVar;
  ExprPtr loopRange; ///< a Range expression or the name `tiles`
  // On
  std::vector<Ident> roles;
  // For and On
  /// Comments between the last body line and the closing brace.
  std::vector<CommentLine> closingComments;
  /// A comment on the closing brace's line.
  std::string closeComment;
  bool hasCloseComment = false;
  NodeId closeBraceId = 0;
};

/// A statement inside the kernel body.
///  - Op:  `prim.name operand, ... key=value...`
///  - For: `for VAR in RANGE key=value... { ... }`
///  - On:  `on ROLE, ... { ... }` (kernel level only)
struct Stmt {
  StmtKind kind = StmtKind::Op;
  NodeId id = 0;

  // Op
  Ident opName; ///< dotted name, e.g. tma.load
  std::vector<Operand> operands;
  std::vector<Attribute> attributes; ///< Op and For

  // For and On (empty for an Op)
  std::vector<StmtPtr> body;

  const Attribute* attribute(std::string_view key) const;
  /// The loop variable and range (For), roles (On) and closing brace: an empty StmtBlock for
  /// an operation.
  const StmtBlock& block() const;
  /// The same, created on first use (the parser's and tests' way to fill it in).
  StmtBlock& mutableBlock();
  /// Comments and blank line of the statement's line (kept out of line too: generated and
  /// large kernels have few comments). An empty Trivia when there are none.
  const Trivia& trivia() const;
  Trivia& mutableTrivia();
  /// Keeps `t` unless it is empty.
  void setTrivia(Trivia t);

private:
  std::unique_ptr<StmtBlock> m_block;
  std::unique_ptr<Trivia> m_trivia;
};

/// `kernel NAME key=value... { decls and role blocks }`.
struct Kernel {
  Ident name;
  std::vector<Attribute> attributes;
  std::vector<Decl> decls;
  std::vector<StmtPtr> body;
  Trivia trivia;
  std::vector<CommentLine> closingComments;
  std::string closeComment;
  bool hasCloseComment = false;
  NodeId id = 0;
  NodeId closeBraceId = 0;

  const Attribute* attribute(std::string_view key) const;
  /// The `target=` attribute as written, or empty.
  std::string target() const;
};

/// Source ranges of every node of one parsed file.
/// Every node of a module lies in the module's one file, so an entry keeps only the start
/// offset and the length (6 bytes instead of a full SourceRange) and the file once; a range of
/// another file, an invalid one or one longer than 64 KiB (a kernel, a big block) is kept exactly
/// in a small side list. Entries live in fixed-size chunks so that growing the table never
/// copies it nor leaves up to half of a doubled array unused (a 50 MB kernel has tens of
/// millions of nodes).
class SourceMap {
public:
  SourceMap() = default;
  SourceMap(SourceMap&&) noexcept = default;
  SourceMap& operator=(SourceMap&&) noexcept = default;
  SourceMap(const SourceMap& other)
      : m_file(other.m_file), m_size(other.m_size), m_exceptions(other.m_exceptions) {
    for (const auto& chunk : other.m_chunks)
      m_chunks.push_back(std::make_unique<Chunk>(*chunk));
  }
  SourceMap& operator=(const SourceMap& other) {
    if (this != &other)
      *this = SourceMap(other);
    return *this;
  }
  NodeId add(SourceRange range) {
    if (m_size % kChunk == 0)
      m_chunks.push_back(std::make_unique<Chunk>());
    ++m_size;
    store(static_cast<NodeId>(m_size), range);
    return static_cast<NodeId>(m_size);
  }
  SourceRange range(NodeId id) const {
    if (id == 0 || id > m_size)
      return SourceRange{};
    const Chunk& c = chunk(id);
    std::size_t i = (id - 1) % kChunk;
    if (c.length[i] == kOther) {
      auto it = m_exceptions.find(id);
      if (it != m_exceptions.end())
        return it->second;
    }
    return {m_file, c.begin[i], c.begin[i] + c.length[i]};
  }
  void setRange(NodeId id, SourceRange range) {
    if (id != 0 && id <= m_size)
      store(id, range);
  }
  std::size_t size() const { return m_size; }

private:
  static constexpr std::size_t kChunk = 8192;
  /// Marks an entry whose range is in m_exceptions.
  static constexpr std::uint16_t kOther = 0xffffu;
  struct Chunk {
    std::uint32_t begin[kChunk] = {};
    std::uint16_t length[kChunk] = {};
  };

  Chunk& chunk(NodeId id) const { return *m_chunks[(id - 1) / kChunk]; }
  void store(NodeId id, SourceRange range) {
    // The first valid range names the file; no entry is stored exactly before that.
    if (m_file == 0 && range.valid())
      m_file = range.file;
    Chunk& c = chunk(id);
    std::size_t i = (id - 1) % kChunk;
    if (c.length[i] == kOther)
      m_exceptions.erase(id);
    if (range.valid() && range.file == m_file && range.end >= range.begin &&
        range.end - range.begin < kOther) {
      c.begin[i] = range.begin;
      c.length[i] = static_cast<std::uint16_t>(range.end - range.begin);
      return;
    }
    c.begin[i] = 0;
    c.length[i] = kOther;
    m_exceptions.emplace(id, range);
  }

  FileId m_file = 0;
  std::size_t m_size = 0;
  std::vector<std::unique_ptr<Chunk>> m_chunks;
  /// Ranges not in m_file, invalid or longer than 64 KiB (normally few).
  std::map<NodeId, SourceRange> m_exceptions;
};

/// A parsed `.cake` file.
struct Module {
  FileId file = 0;
  std::optional<Kernel> kernel;
  /// Comments after the kernel's closing brace.
  std::vector<CommentLine> trailingComments;
  /// Names of declarations whose line failed to parse; the checker does not report them as
  /// undeclared (that would only repeat the syntax error).
  std::vector<std::string> poisonedNames;
  /// The kernel line itself (name, attributes, '{') has a syntax error.
  bool headerErrors = false;
  /// Any syntax error was reported while parsing this module.
  bool syntaxErrors = false;
  SourceMap sourceMap;
};

/// Structural equality of two kernels (names, types, attributes, statements and comments; never
/// source locations). Used by the round-trip tests and `cake fmt --check`.
bool equal(const Kernel& a, const Kernel& b);

} // namespace cake::ir
