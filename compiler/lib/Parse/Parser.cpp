// Recursive-descent parser for Cake IR. Statements are line-oriented; on error the parser skips
// to the end of the line (entering any block the line opened) and continues.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Parse/Parser.h"

#include "cake/Parse/Lexer.h"

#include <algorithm>
#include <cmath>

namespace cake {

using namespace ir;

namespace {

class Parser {
public:
  Parser(const SourceManager& sources, FileId file, DiagnosticEngine& diags,
         const ParseOptions& options)
      : m_lex(sources.text(file), file, diags), m_diags(diags), m_options(options), m_file(file) {
    m_module.file = file;
  }

  Module run() {
    parseFile();
    return std::move(m_module);
  }

private:
  // ---------------------------------------------------------------- token helpers
  const Token& peek(std::size_t ahead = 0) { return m_lex.peek(ahead); }
  bool at(Tok kind) { return peek().kind == kind; }
  bool atIdent(std::string_view word) { return peek().kind == Tok::Ident && peek().text == word; }
  bool atLineEnd() {
    Tok k = peek().kind;
    return k == Tok::Newline || k == Tok::Eof;
  }
  Token take() {
    Token t = m_lex.next();
    if (t.kind != Tok::Newline && t.kind != Tok::Eof)
      m_lastEnd = t.end;
    return t;
  }
  SourceRange rangeOf(const Token& t) const { return {m_file, t.begin, t.end}; }
  SourceRange span(std::uint32_t begin) const {
    return {m_file, begin, std::max(begin, m_lastEnd)};
  }
  NodeId node(SourceRange r) { return m_module.sourceMap.add(r); }

  std::string found() {
    const Token& t = peek();
    switch (t.kind) {
    case Tok::Ident:
      return "'" + t.text + "'";
    case Tok::Int:
    case Tok::Float:
    case Tok::Tag:
      return "'" + t.text + "'";
    case Tok::String:
      return "a string";
    default:
      return std::string(describe(t.kind));
    }
  }

  void errorHere(std::string expected) {
    m_diags.report(DiagId::SynUnexpectedToken, rangeOf(peek()),
                   "expected " + expected + ", found " + found());
  }

  bool expect(Tok kind, std::string_view what) {
    if (at(kind)) {
      take();
      return true;
    }
    errorHere(std::string(what));
    return false;
  }

  // ---------------------------------------------------------------- trivia
  /// Moves own-line comments that precede `offset` into `out`; returns the last line used.
  std::uint32_t takeLeadingComments(std::uint32_t offset, std::uint32_t prevLine,
                                    std::vector<CommentLine>& out, bool firstInBlock) {
    auto& comments = m_lex.comments();
    while (!comments.empty() && comments.front().begin < offset) {
      Comment c = std::move(comments.front());
      comments.pop_front();
      CommentLine line;
      line.text = std::move(c.text);
      line.blankLineBefore = !(firstInBlock && out.empty()) && c.line > prevLine + 1;
      prevLine = c.line;
      out.push_back(std::move(line));
    }
    return prevLine;
  }

  void fillLeadingTrivia(Trivia& trivia, const Token& first, bool firstInBlock) {
    std::uint32_t prev = takeLeadingComments(first.begin, m_prevLine, trivia.leadingComments,
                                             firstInBlock);
    trivia.blankLineBefore =
        !(firstInBlock && trivia.leadingComments.empty()) && first.line > prev + 1;
  }

  /// Takes a same-line comment that precedes the upcoming end of line.
  bool takeTrailingComment(std::string& out) {
    // Make sure the comment (if any) before the line end has been lexed.
    const Token& end = peek();
    auto& comments = m_lex.comments();
    if (!comments.empty() && comments.front().begin < end.begin && !comments.front().ownLine) {
      out = std::move(comments.front().text);
      comments.pop_front();
      return true;
    }
    return false;
  }

  /// Consumes the end of a statement line; reports trailing tokens.
  bool finishLine(Trivia* trivia, std::string* closeComment = nullptr,
                  bool* hasCloseComment = nullptr) {
    if (!atLineEnd() && !at(Tok::RBrace)) {
      m_diags.report(DiagId::SynExpectedEndOfLine, rangeOf(peek()),
                     "expected end of line after the statement, found " + found());
      return false;
    }
    if (at(Tok::RBrace)) {
      m_diags.report(DiagId::SynExpectedEndOfLine, rangeOf(peek()),
                     "'}' must be on its own line");
      return false;
    }
    if (trivia) {
      trivia->hasTrailingComment = takeTrailingComment(trivia->trailingComment);
    } else if (closeComment) {
      *hasCloseComment = takeTrailingComment(*closeComment);
    } else {
      std::string discarded;
      takeTrailingComment(discarded);
    }
    m_prevLine = peek().line;
    if (at(Tok::Newline))
      take();
    return true;
  }

  /// Skips the rest of a bad line. A block the line opens is parsed and discarded so that its
  /// own errors are reported and its braces stay balanced; a '}' that closes the enclosing
  /// block is left for the caller.
  void recoverLine(unsigned depth) {
    int balance = 0;
    std::uint32_t lineEnd = peek().begin;
    while (!at(Tok::Eof)) {
      lineEnd = peek().begin;
      if (at(Tok::Newline)) {
        m_prevLine = peek().line;
        take();
        break;
      }
      if (at(Tok::LBrace))
        ++balance;
      if (at(Tok::RBrace)) {
        if (balance == 0)
          return;
        --balance;
      }
      take();
    }
    dropComments(lineEnd);
    while (balance-- > 0) {
      std::vector<StmtPtr> discarded;
      std::vector<CommentLine> closing;
      Token open;
      open.begin = m_lastEnd;
      open.end = m_lastEnd;
      parseBlockBody(discarded, depth + 1, open, closing, nullptr, nullptr, nullptr);
    }
  }

  /// Comments inside skipped text are dropped with it.
  void dropComments(std::uint32_t limit) {
    auto& comments = m_lex.comments();
    while (!comments.empty() && comments.front().begin < limit)
      comments.pop_front();
  }
  void dropComments() { dropComments(peek().begin); }

  void skipBlankLines() {
    while (at(Tok::Newline))
      take();
  }

  // ---------------------------------------------------------------- file and kernel
  void parseFile() {
    const std::string_view text = m_lex.text();
    if (text.size() > m_options.maxFileBytes) {
      m_diags.report(DiagId::SynFileTooLarge, {m_file, 0, 0},
                     "input is " + std::to_string(text.size()) + " bytes; the limit is " +
                         std::to_string(m_options.maxFileBytes) + " bytes");
      return;
    }
    bool first = true;
    while (true) {
      skipBlankLines();
      if (at(Tok::Eof))
        break;
      if (atIdent("kernel")) {
        if (m_module.kernel) {
          Token t = peek();
          Diagnostic* d = m_diags.report(DiagId::SynExtraKernel, rangeOf(t),
                                         "a .cake file holds exactly one kernel");
          addNote(d, m_module.sourceMap.range(m_module.kernel->name.id),
                  "first kernel declared here");
          Kernel discard;
          parseKernel(discard, false);
        } else {
          Kernel kernel;
          parseKernel(kernel, first);
          m_module.kernel = std::move(kernel);
        }
        first = false;
        continue;
      }
      if (at(Tok::RBrace)) {
        m_diags.report(DiagId::SynUnmatchedBrace, rangeOf(peek()),
                       "'}' does not close any block");
        take();
        continue;
      }
      errorHere("'kernel NAME target=TARGET {'");
      recoverLine(0);
    }
    if (!m_module.kernel) {
      Diagnostic* d = m_diags.report(DiagId::SynMissingKernel, {m_file, 0, 0},
                                     "file declares no kernel");
      setFix(d, "start the file with 'kernel NAME target=sm_90a {' and close it with '}'");
    }
    // Whatever follows the kernel.
    auto& comments = m_lex.comments();
    std::uint32_t prev = m_prevLine;
    while (!comments.empty()) {
      CommentLine line;
      line.text = std::move(comments.front().text);
      line.blankLineBefore = comments.front().line > prev + 1;
      prev = comments.front().line;
      comments.pop_front();
      m_module.trailingComments.push_back(std::move(line));
    }
  }

  void parseKernel(Kernel& kernel, bool keepLeadingComments) {
    Token kw = peek();
    if (keepLeadingComments) {
      std::uint32_t prev = takeLeadingComments(kw.begin, 0, kernel.trivia.leadingComments, true);
      kernel.trivia.blankLineBefore = !kernel.trivia.leadingComments.empty() && kw.line > prev + 1;
    } else {
      dropComments();
    }
    take(); // 'kernel'
    if (at(Tok::Ident)) {
      Token name = take();
      kernel.name = {name.text, node(rangeOf(name))};
    } else {
      errorHere("a kernel name");
      m_module.headerErrors = true;
      kernel.name.id = node(rangeOf(peek()));
    }
    if (!parseAttributes(kernel.attributes)) {
      // Keep the body: skip the rest of the header up to its '{'.
      m_module.headerErrors = true;
      while (!atLineEnd() && !at(Tok::LBrace))
        take();
    }
    kernel.id = node(span(kw.begin));
    if (!at(Tok::LBrace)) {
      if (!m_module.headerErrors)
        errorHere("'{' to open the kernel body");
      m_module.headerErrors = true;
      recoverLine(0);
      // Without a body brace we still read the rest as kernel items until a lone '}'.
    } else {
      Token open = take();
      if (!finishLine(&kernel.trivia))
        recoverLine(0);
      (void)open;
    }
    bool firstItem = true;
    while (true) {
      skipBlankLines();
      if (at(Tok::Eof)) {
        Diagnostic* d = m_diags.report(DiagId::SynUnclosedBlock, {m_file, m_lastEnd, m_lastEnd},
                                       "kernel '" + kernel.name.name +
                                           "' is not closed before the end of the file");
        addNote(d, m_module.sourceMap.range(kernel.id), "kernel opened here");
        setFix(d, "add '}' on its own line", {m_file, m_lastEnd, m_lastEnd}, "\n}");
        takeLeadingComments(peek().begin, m_prevLine, kernel.closingComments, firstItem);
        kernel.closeBraceId = node({m_file, m_lastEnd, m_lastEnd});
        return;
      }
      if (at(Tok::RBrace)) {
        takeLeadingComments(peek().begin, m_prevLine, kernel.closingComments, firstItem);
        Token close = take();
        kernel.closeBraceId = node(rangeOf(close));
        if (!finishLine(nullptr, &kernel.closeComment, &kernel.hasCloseComment))
          recoverLine(0);
        normalizeFirstItem(kernel);
        return;
      }
      parseKernelItem(kernel, firstItem);
      firstItem = false;
    }
  }

  /// The printer puts declarations first; the first printed item never has a blank line above.
  static void normalizeFirstItem(Kernel& kernel) {
    Trivia* first = !kernel.decls.empty() ? &kernel.decls.front().trivia
                    : !kernel.body.empty() ? &kernel.body.front()->mutableTrivia()
                                           : nullptr;
    if (!first)
      return;
    if (first->leadingComments.empty())
      first->blankLineBefore = false;
    else
      first->leadingComments.front().blankLineBefore = false;
  }

  void parseKernelItem(Kernel& kernel, bool firstItem) {
    const Token& t = peek();
    if (t.kind == Tok::Ident) {
      if (auto kind = parseDeclKeyword(t.text); kind && peek(1).kind != Tok::Dot) {
        Decl decl;
        fillLeadingTrivia(decl.trivia, peek(), firstItem);
        std::size_t lexErrors = m_lex.errorCount();
        bool parsed = parseDecl(decl, *kind) && finishLine(&decl.trivia);
        if (parsed && m_lex.errorCount() == lexErrors) {
          kernel.decls.push_back(std::move(decl));
        } else {
          // A lexical error inside an otherwise complete line drops the line (already reported).
          if (!decl.name.name.empty())
            m_module.poisonedNames.push_back(decl.name.name);
          if (!parsed)
            recoverLine(0);
        }
        return;
      }
    }
    if (StmtPtr stmt = parseStmt(0, firstItem))
      kernel.body.push_back(std::move(stmt));
  }

  // ---------------------------------------------------------------- declarations
  bool parseDecl(Decl& decl, DeclKind kind) {
    Token kw = take();
    decl.kind = kind;
    if (declHasName(kind)) {
      if (!at(Tok::Ident) || (peek(1).kind == Tok::Equal && kind != DeclKind::Const)) {
        errorHere("a name after '" + kw.text + "'");
        return false;
      }
      Token name = take();
      decl.name = {name.text, node(rangeOf(name))};
    }
    if (at(Tok::Colon)) {
      take();
      TypeSpec type;
      if (!parseType(type))
        return false;
      decl.type = std::move(type);
    }
    if (kind == DeclKind::Const) {
      if (!expect(Tok::Equal, "'=' and a value after the constant name"))
        return false;
      decl.value = parseExpr(0);
      if (!decl.value)
        return false;
    }
    if (!parseAttributes(decl.attributes))
      return false;
    decl.id = node(span(kw.begin));
    return true;
  }

  bool parseType(TypeSpec& type) {
    if (!at(Tok::Ident)) {
      errorHere("an element type such as bf16 or f32");
      return false;
    }
    Token dt = take();
    type.dtype = {dt.text, node(rangeOf(dt))};
    if (at(Tok::LBracket)) {
      take();
      type.hasShape = true;
      if (!at(Tok::RBracket)) {
        while (true) {
          ExprPtr dim = parseExpr(0);
          if (!dim)
            return false;
          type.shape.push_back(std::move(dim));
          if (at(Tok::Comma)) {
            take();
            continue;
          }
          break;
        }
      }
      if (!expect(Tok::RBracket, "',' or ']' in the shape"))
        return false;
    }
    type.id = node(span(dt.begin));
    return true;
  }

  /// Parses `key=value` pairs up to the end of the line or a '{'.
  bool parseAttributes(std::vector<Attribute>& out) {
    while (at(Tok::Ident) && peek(1).kind == Tok::Equal) {
      Token key = take();
      take(); // '='
      Attribute attr;
      attr.key = {key.text, node(rangeOf(key))};
      attr.value = parseExpr(0);
      if (!attr.value)
        return false;
      attr.id = node(span(key.begin));
      for (const Attribute& existing : out) {
        if (existing.key.name == attr.key.name) {
          Diagnostic* d = m_diags.report(DiagId::SynDuplicateAttribute,
                                         m_module.sourceMap.range(attr.id),
                                         "attribute '" + attr.key.name + "' is given twice");
          addNote(d, m_module.sourceMap.range(existing.id), "first given here");
          return false;
        }
      }
      out.push_back(std::move(attr));
    }
    if (!atLineEnd() && !at(Tok::LBrace) && !at(Tok::RBrace)) {
      if (at(Tok::Ident))
        errorHere("'key=value' attribute");
      else
        m_diags.report(DiagId::SynExpectedEndOfLine, rangeOf(peek()),
                       "expected an attribute or the end of the line, found " + found());
      return false;
    }
    return true;
  }

  // ---------------------------------------------------------------- statements
  StmtPtr parseStmt(unsigned depth, bool firstInBlock) {
    const Token& t = peek();
    if (t.kind == Tok::Ident && t.text == "on" && peek(1).kind == Tok::Ident)
      return parseBlockStmt(StmtKind::On, depth, firstInBlock);
    if (t.kind == Tok::Ident && t.text == "for" && peek(1).kind == Tok::Ident)
      return parseBlockStmt(StmtKind::For, depth, firstInBlock);
    if (t.kind == Tok::Ident) {
      if (auto kind = parseDeclKeyword(t.text); kind && peek(1).kind != Tok::Dot) {
        Token kw = peek();
        dropComments(kw.begin);
        Decl discard;
        bool ok = parseDecl(discard, *kind);
        Diagnostic* d = m_diags.report(
            DiagId::SemDeclarationPlacement, {m_file, kw.begin, std::max(kw.end, m_lastEnd)},
            "'" + kw.text + "' declarations belong at kernel level, not inside a block");
        setFix(d, "move the declaration above the first 'on' block");
        if (!ok || !finishLine(nullptr))
          recoverLine(depth);
        return nullptr;
      }
      auto stmt = std::make_unique<Stmt>();
      stmt->kind = StmtKind::Op;
      Trivia trivia;
      fillLeadingTrivia(trivia, peek(), firstInBlock);
      std::size_t lexErrors = m_lex.errorCount();
      bool parsed = parseOp(*stmt) && finishLine(&trivia);
      stmt->setTrivia(std::move(trivia));
      if (parsed && m_lex.errorCount() == lexErrors)
        return stmt;
      // A lexical error inside an otherwise complete line drops the line (already reported).
      if (!parsed)
        recoverLine(depth);
      return nullptr;
    }
    if (t.kind == Tok::LBrace) {
      errorHere("a statement (a block needs 'on ROLE' or 'for VAR in RANGE' before '{')");
    } else {
      errorHere("a statement");
    }
    recoverLine(depth);
    return nullptr;
  }

  bool parseOp(Stmt& stmt) {
    Token first = take();
    std::string name = first.text;
    while (at(Tok::Dot) && peek(1).kind == Tok::Ident) {
      take();
      name += '.';
      name += take().text;
    }
    if (at(Tok::Dot)) {
      take();
      errorHere("an identifier after '.' in the operation name");
      return false;
    }
    stmt.opName = {name, node(span(first.begin))};
    // Operands: references up to the first key=value.
    if (at(Tok::Ident) && peek(1).kind != Tok::Equal) {
      while (true) {
        Operand operand;
        if (!parseOperand(operand))
          return false;
        stmt.operands.push_back(std::move(operand));
        if (at(Tok::Comma)) {
          take();
          if (!at(Tok::Ident) || peek(1).kind == Tok::Equal) {
            errorHere("an operand after ',' (attributes follow the last operand without a comma)");
            return false;
          }
          continue;
        }
        break;
      }
    }
    if (!parseAttributes(stmt.attributes))
      return false;
    if (at(Tok::LBrace)) {
      errorHere("end of line (operations do not open blocks)");
      return false;
    }
    // A kernel keeps one of these per operation: no growth slack (a list of 3 would keep 4).
    stmt.operands.shrink_to_fit();
    stmt.attributes.shrink_to_fit();
    stmt.id = node(span(first.begin));
    return true;
  }

  bool parseOperand(Operand& operand) {
    Token name = take();
    operand.name = {name.text, node(rangeOf(name))};
    if (at(Tok::LBracket)) {
      take();
      operand.subscripted = true;
      if (!at(Tok::RBracket)) {
        while (true) {
          Index index;
          std::uint32_t begin = peek().begin;
          if (at(Tok::Colon)) {
            take();
            index.kind = Index::Kind::Full;
          } else {
            index.start = parseExpr(0);
            if (!index.start)
              return false;
            if (at(Tok::PlusColon)) {
              take();
              index.kind = Index::Kind::Slice;
              index.size = parseExpr(0);
              if (!index.size)
                return false;
            }
          }
          index.id = node(span(begin));
          operand.indices.push_back(std::move(index));
          if (at(Tok::Comma)) {
            take();
            continue;
          }
          operand.indices.shrink_to_fit(); // kept per operand: no growth slack
          break;
        }
      }
      if (!expect(Tok::RBracket, "',' or ']' after the index"))
        return false;
    }
    operand.id = node(span(name.begin));
    return true;
  }

  StmtPtr parseBlockStmt(StmtKind kind, unsigned depth, bool firstInBlock) {
    auto stmt = std::make_unique<Stmt>();
    stmt->kind = kind;
    Trivia trivia;
    fillLeadingTrivia(trivia, peek(), firstInBlock);
    Token kw = take();
    bool ok = true;
    if (kind == StmtKind::On) {
      while (true) {
        if (!at(Tok::Ident)) {
          errorHere("a role name");
          ok = false;
          break;
        }
        Token role = take();
        stmt->mutableBlock().roles.push_back({role.text, node(rangeOf(role))});
        if (at(Tok::Comma)) {
          take();
          continue;
        }
        break;
      }
      // `on mma cta=leader { ... }`: block attributes (the type checker knows which).
      ok = ok && parseAttributes(stmt->attributes);
    } else {
      Token var = take();
      stmt->mutableBlock().loopVar = {var.text, node(rangeOf(var))};
      if (!atIdent("in")) {
        errorHere("'in' after the loop variable");
        ok = false;
      } else {
        take();
        stmt->mutableBlock().loopRange = parseExpr(0);
        ok = stmt->block().loopRange != nullptr && parseAttributes(stmt->attributes);
      }
    }
    stmt->id = node(span(kw.begin));
    if (ok && !at(Tok::LBrace)) {
      errorHere(kind == StmtKind::On ? "'{' after the role list" : "'{' after the loop header");
      ok = false;
    }
    if (!ok) {
      recoverLine(depth);
      return nullptr;
    }
    Token open = take();
    if (!finishLine(&trivia)) {
      recoverLine(depth + 1);
    }
    stmt->setTrivia(std::move(trivia));
    if (depth + 1 > m_options.maxBlockDepth) {
      m_diags.report(DiagId::SynNestingTooDeep, rangeOf(open),
                     "blocks nested deeper than " + std::to_string(m_options.maxBlockDepth) +
                         " levels");
      skipBlockIteratively();
      return nullptr;
    }
    Token closeTok;
    bool closed = parseBlockBody(stmt->body, depth + 1, open, stmt->mutableBlock().closingComments,
                                 &stmt->mutableBlock().closeComment,
                                 &stmt->mutableBlock().hasCloseComment, &closeTok);
    stmt->body.shrink_to_fit(); // kept per block: no growth slack
    stmt->mutableBlock().closeBraceId = node(closed ? rangeOf(closeTok) : SourceRange{m_file, m_lastEnd,
                                                                       m_lastEnd});
    return stmt;
  }

  /// Parses statements up to the matching '}'. Returns false at end of file.
  bool parseBlockBody(std::vector<StmtPtr>& out, unsigned depth, const Token& open,
                      std::vector<CommentLine>& closing, std::string* closeComment,
                      bool* hasCloseComment, Token* closeTok) {
    if (depth > m_options.maxBlockDepth) {
      skipBlockIteratively();
      return true;
    }
    bool first = true;
    while (true) {
      skipBlankLines();
      if (at(Tok::Eof)) {
        Diagnostic* d = m_diags.report(DiagId::SynUnclosedBlock, rangeOf(open),
                                       "block is not closed before the end of the file");
        setFix(d, "add '}' on its own line after the block's last statement");
        takeLeadingComments(peek().begin, m_prevLine, closing, first);
        return false;
      }
      if (at(Tok::RBrace)) {
        takeLeadingComments(peek().begin, m_prevLine, closing, first);
        Token close = take();
        if (closeTok)
          *closeTok = close;
        std::string ignored;
        bool ignoredFlag = false;
        if (!finishLine(nullptr, closeComment ? closeComment : &ignored,
                        hasCloseComment ? hasCloseComment : &ignoredFlag))
          recoverLine(depth - 1);
        return true;
      }
      if (StmtPtr stmt = parseStmt(depth, first))
        out.push_back(std::move(stmt));
      first = false;
    }
  }

  /// Skips a too-deep block by counting braces, without recursion.
  void skipBlockIteratively() {
    std::size_t balance = 1;
    while (!at(Tok::Eof) && balance > 0) {
      if (at(Tok::LBrace))
        ++balance;
      else if (at(Tok::RBrace))
        --balance;
      if (at(Tok::Newline))
        m_prevLine = peek().line;
      take();
    }
    dropComments();
    if (at(Tok::Newline))
      take();
  }

  // ---------------------------------------------------------------- expressions
  ExprPtr makeExpr(ExprKind kind, std::uint32_t begin) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->id = node(span(begin));
    return e;
  }

  bool enter(unsigned& depth) {
    if (++depth > m_options.maxExprDepth) {
      if (!m_reportedExprDepth) {
        m_diags.report(DiagId::SynNestingTooDeep, rangeOf(peek()),
                       "expression nested deeper than " +
                           std::to_string(m_options.maxExprDepth) + " levels");
        m_reportedExprDepth = true;
      }
      return false;
    }
    return true;
  }

  ExprPtr parseExpr(unsigned depth) {
    m_reportedExprDepth = false;
    return parseRange(depth);
  }

  /// Records the height of a freshly built inner node (leaves are 1) and refuses a tree higher
  /// than maxExprHeight. Depth counting alone misses left-associative chains, which the loop in
  /// parseBinary (and the member loop in parsePostfix) build without recursing; the height
  /// bounds the recursion of every later tree walker instead. `at` locates the finding.
  ExprPtr sealed(ExprPtr e, SourceRange at) {
    unsigned h = 1;
    for (const ExprPtr& c : e->children)
      h = std::max(h, heightOf(*c) + 1);
    if (m_height.size() <= e->id)
      m_height.resize(std::size_t(e->id) + 1, 1);
    unsigned limit = std::min(m_options.maxExprHeight, 65535u);
    m_height[e->id] = static_cast<std::uint16_t>(std::min(h, 65535u));
    if (h <= limit)
      return e;
    if (!m_reportedExprDepth) {
      m_diags.report(DiagId::SynNestingTooDeep, at,
                     "expression nested deeper than " + std::to_string(limit) +
                         " levels of operators; split a long chain into named constants");
      m_reportedExprDepth = true;
    }
    return nullptr;
  }
  unsigned heightOf(const Expr& e) const { return e.id < m_height.size() ? m_height[e.id] : 1; }

  ExprPtr parseRange(unsigned depth) {
    std::uint32_t begin = peek().begin;
    ExprPtr lo = parseBinary(depth, 1);
    if (!lo)
      return nullptr;
    if (!at(Tok::DotDot))
      return lo;
    take();
    ExprPtr hi = parseBinary(depth, 1);
    if (!hi)
      return nullptr;
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::Range;
    e->children.push_back(std::move(lo));
    e->children.push_back(std::move(hi));
    e->id = node(span(begin));
    return sealed(std::move(e), span(begin));
  }

  static std::optional<BinaryOp> binaryOp(Tok kind) {
    switch (kind) {
    case Tok::Plus:
      return BinaryOp::Add;
    case Tok::Minus:
      return BinaryOp::Sub;
    case Tok::Star:
      return BinaryOp::Mul;
    case Tok::Slash:
      return BinaryOp::Div;
    case Tok::Percent:
      return BinaryOp::Mod;
    case Tok::Shl:
      return BinaryOp::Shl;
    case Tok::Shr:
      return BinaryOp::Shr;
    case Tok::Amp:
      return BinaryOp::BitAnd;
    case Tok::Pipe:
      return BinaryOp::BitOr;
    case Tok::Caret:
      return BinaryOp::BitXor;
    default:
      return std::nullopt;
    }
  }

  /// Precedence climbing over the binary operators (all left-associative).
  ExprPtr parseBinary(unsigned depth, int minPrec) {
    if (!enter(depth))
      return nullptr;
    std::uint32_t begin = peek().begin;
    ExprPtr lhs = parseUnary(depth);
    if (!lhs)
      return nullptr;
    while (true) {
      auto op = binaryOp(peek().kind);
      if (!op || precedence(*op) < minPrec)
        return lhs;
      SourceRange opRange = rangeOf(take());
      ExprPtr rhs = parseBinary(depth, precedence(*op) + 1);
      if (!rhs)
        return nullptr;
      auto e = std::make_unique<Expr>();
      e->kind = ExprKind::Binary;
      e->binaryOp = *op;
      e->children.push_back(std::move(lhs));
      e->children.push_back(std::move(rhs));
      e->id = node(span(begin));
      lhs = sealed(std::move(e), opRange);
      if (!lhs)
        return nullptr;
    }
  }

  ExprPtr parseUnary(unsigned depth) {
    if (at(Tok::Minus) || at(Tok::Tilde)) {
      if (!enter(depth))
        return nullptr;
      Token op = take();
      // Fold '-<literal>' so negative constants print and compare as literals. Always, whatever
      // follows: unary minus binds tighter than every binary operator, and a fold that depended
      // on the next token made `---4 + 1` print as `-(-(-4)) + 1`, which parsed to another tree.
      if (op.kind == Tok::Minus && (at(Tok::Int) || at(Tok::Float))) {
        Token lit = take();
        auto e = std::make_unique<Expr>();
        if (lit.kind == Tok::Int) {
          e->kind = ExprKind::Int;
          e->intValue = -lit.intValue;
        } else {
          e->kind = ExprKind::Float;
          e->floatValue = -lit.floatValue;
        }
        e->id = node(span(op.begin));
        return e;
      }
      ExprPtr operand = parseUnary(depth);
      if (!operand)
        return nullptr;
      // '-(6)' is the literal -6 too: the printer writes a negated non-negative literal as
      // '-6', so any other tree for it would not survive a print/parse round trip.
      if (op.kind == Tok::Minus &&
          ((operand->kind == ExprKind::Int && operand->intValue >= 0) ||
           (operand->kind == ExprKind::Float && !std::signbit(operand->floatValue)))) {
        if (operand->kind == ExprKind::Int)
          operand->intValue = -operand->intValue;
        else
          operand->floatValue = -operand->floatValue;
        operand->id = node(span(op.begin));
        return operand;
      }
      auto e = std::make_unique<Expr>();
      e->kind = ExprKind::Unary;
      e->unaryOp = op.kind == Tok::Minus ? UnaryOp::Neg : UnaryOp::BitNot;
      e->children.push_back(std::move(operand));
      e->id = node(span(op.begin));
      return sealed(std::move(e), rangeOf(op));
    }
    return parsePostfix(depth);
  }

  ExprPtr parsePostfix(unsigned depth) {
    std::uint32_t begin = peek().begin;
    ExprPtr base = parsePrimary(depth);
    if (!base)
      return nullptr;
    while (at(Tok::Dot)) {
      take();
      if (!at(Tok::Ident)) {
        errorHere("a member name after '.'");
        return nullptr;
      }
      Token member = take();
      auto e = std::make_unique<Expr>();
      e->kind = ExprKind::Member;
      e->setText(member.text);
      e->children.push_back(std::move(base));
      e->id = node(span(begin));
      base = sealed(std::move(e), rangeOf(member));
      if (!base)
        return nullptr;
    }
    return base;
  }

  /// `min(a, b)`, `max(a, b)`, `cdiv(a, b)`: the only calls, kept as binary nodes (the
  /// evaluators and the printer know them as operators).
  ExprPtr parseCall(const Token& name, unsigned depth) {
    std::optional<BinaryOp> op;
    if (name.text == "min")
      op = BinaryOp::Min;
    else if (name.text == "max")
      op = BinaryOp::Max;
    else if (name.text == "cdiv")
      op = BinaryOp::CeilDiv;
    if (!op) {
      m_diags.report(DiagId::SynUnexpectedToken, rangeOf(name),
                     "'" + std::string(name.text) +
                         "' is not a function: the integer functions are min(a, b), max(a, b) "
                         "and cdiv(a, b)");
      return nullptr;
    }
    if (!enter(depth))
      return nullptr;
    take(); // (
    ExprPtr a = parseBinary(depth + 1, 1);
    if (!a || !expect(Tok::Comma, "',' between the two arguments of '" + std::string(name.text) + "'"))
      return nullptr;
    ExprPtr b = parseBinary(depth + 1, 1);
    if (!b || !expect(Tok::RParen, "')' after the two arguments of '" + std::string(name.text) + "'"))
      return nullptr;
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::Binary;
    e->binaryOp = *op;
    e->children.push_back(std::move(a));
    e->children.push_back(std::move(b));
    e->id = node(span(name.begin));
    return sealed(std::move(e), rangeOf(name));
  }

  ExprPtr parsePrimary(unsigned depth) {
    const Token& t = peek();
    std::uint32_t begin = t.begin;
    switch (t.kind) {
    case Tok::Int: {
      Token lit = take();
      ExprPtr e = makeExpr(ExprKind::Int, begin);
      e->intValue = lit.intValue;
      return e;
    }
    case Tok::Float: {
      Token lit = take();
      ExprPtr e = makeExpr(ExprKind::Float, begin);
      e->floatValue = lit.floatValue;
      return e;
    }
    case Tok::String: {
      Token lit = take();
      ExprPtr e = makeExpr(ExprKind::String, begin);
      e->setText(lit.text);
      return e;
    }
    case Tok::Tag: {
      Token lit = take();
      ExprPtr e = makeExpr(ExprKind::Tag, begin);
      e->setText(lit.text);
      return e;
    }
    case Tok::Ident: {
      Token lit = take();
      if (at(Tok::LParen))
        return parseCall(lit, depth);
      ExprPtr e = makeExpr(ExprKind::Name, begin);
      e->setText(lit.text);
      return e;
    }
    case Tok::LParen: {
      take();
      ExprPtr inner = parseRange(depth + 1);
      if (!inner)
        return nullptr;
      if (!expect(Tok::RParen, "')'"))
        return nullptr;
      // Parentheses are not kept: the printer re-derives them from precedence.
      return inner;
    }
    case Tok::LBracket: {
      take();
      auto list = std::make_unique<Expr>();
      list->kind = ExprKind::List;
      if (!at(Tok::RBracket)) {
        while (true) {
          ExprPtr element = parseRange(depth + 1);
          if (!element)
            return nullptr;
          list->children.push_back(std::move(element));
          if (at(Tok::Comma)) {
            take();
            continue;
          }
          break;
        }
      }
      if (!expect(Tok::RBracket, "',' or ']' in the list"))
        return nullptr;
      list->id = node(span(begin));
      return sealed(std::move(list), span(begin));
    }
    default:
      errorHere("a value");
      return nullptr;
    }
  }

  Lexer m_lex;
  DiagnosticEngine& m_diags;
  const ParseOptions& m_options;
  FileId m_file;
  Module m_module;
  std::uint32_t m_lastEnd = 0;
  std::uint32_t m_prevLine = 0;
  bool m_reportedExprDepth = false;
  std::vector<std::uint16_t> m_height; ///< per expression NodeId: height of its tree
};

} // namespace

Module parseModule(const SourceManager& sources, FileId file, DiagnosticEngine& diags,
                   const ParseOptions& options) {
  std::size_t before = diags.diagnostics().size() + diags.dropped();
  Module m = Parser(sources, file, diags, options).run();
  m.syntaxErrors = diags.diagnostics().size() + diags.dropped() != before;
  return m;
}

} // namespace cake
