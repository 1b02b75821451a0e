// Parser tests: one row per parse-error class (code and exact position), recovery across
// lines, and hostile input (garbage, truncation, huge numbers, deep nesting, big files).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"

#include "cake/Parse/Parser.h"

#include <QtTest>

using namespace cake;

namespace {
struct Parsed {
  SourceManager sources;
  ir::Module module;
  std::vector<Diagnostic> diags;
};

std::unique_ptr<Parsed> parse(const std::string& text, ParseOptions options = {}) {
  auto p = std::make_unique<Parsed>();
  FileId f = p->sources.addBuffer("t.cake", text);
  DiagnosticEngine d;
  p->module = parseModule(p->sources, f, d, options);
  p->diags = d.take();
  return p;
}

const char* kValid = R"(// header
kernel k target=sm_90a {
  const N = 16
  param X : f32[N] role=input
  grid tiles=[1]
  role main warps=0..1
  reg x : f32[N] scope=thread

  on main {
    for t in tiles {
      ld.global x, X[:]
    }
  }
}
)";
} // namespace

class TestParser : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void validKernelParses() {
    auto p = parse(kValid);
    QVERIFY2(p->diags.empty(), qPrintable(test::messages(p->diags)));
    QVERIFY(p->module.kernel);
    const ir::Kernel& k = *p->module.kernel;
    QCOMPARE(QString::fromStdString(k.name.name), QStringLiteral("k"));
    QCOMPARE(QString::fromStdString(k.target()), QStringLiteral("sm_90a"));
    QCOMPARE(k.decls.size(), std::size_t(5));
    QCOMPARE(k.body.size(), std::size_t(1));
    QCOMPARE(k.trivia.leadingComments.size(), std::size_t(1));
    QVERIFY(k.body[0]->trivia().blankLineBefore);
    const ir::Stmt& loop = *k.body[0]->body[0];
    QCOMPARE(int(loop.kind), int(ir::StmtKind::For));
    const ir::Stmt& op = *loop.body[0];
    QCOMPARE(QString::fromStdString(op.opName.name), QStringLiteral("ld.global"));
    QCOMPARE(op.operands.size(), std::size_t(2));
    QCOMPARE(int(op.operands[1].indices[0].kind), int(ir::Index::Kind::Full));
  }

  void sourceRangesCoverEveryNode() {
    auto p = parse(kValid);
    const ir::Kernel& k = *p->module.kernel;
    const ir::Stmt& op = *k.body[0]->body[0]->body[0];
    SourceRange r = p->module.sourceMap.range(op.id);
    QCOMPARE(QString::fromStdString(std::string(p->sources.text(r.file).substr(r.begin, r.end - r.begin))),
             QStringLiteral("ld.global x, X[:]"));
    SourceRange o = p->module.sourceMap.range(op.operands[1].id);
    QCOMPARE(QString::fromStdString(std::string(p->sources.text(o.file).substr(o.begin, o.end - o.begin))),
             QStringLiteral("X[:]"));
    const ir::Decl& param = k.decls[1];
    SourceRange a = p->module.sourceMap.range(param.attributes[0].id);
    QCOMPARE(QString::fromStdString(std::string(p->sources.text(a.file).substr(a.begin, a.end - a.begin))),
             QStringLiteral("role=input"));
  }

  void errorClasses_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("expected");
    const QString head = "kernel k target=sm_90a {\n";
    QTest::newRow("invalid character") << head + "  const A = 1 $\n}\n"
                                       << QStringList{"syn-invalid-character@2:15"};
    QTest::newRow("binary bytes") << head + QString::fromLatin1("  \x01\x02\x03\n}\n")
                                  << QStringList{"syn-invalid-character@2:3"};
    QTest::newRow("unterminated string") << head + "  const A = \"abc\n}\n"
                                         << QStringList{"syn-unterminated-string@2:13"};
    QTest::newRow("number too large") << head + "  const A = 99999999999999999999\n}\n"
                                      << QStringList{"syn-number-out-of-range@2:13"};
    QTest::newRow("malformed number") << head + "  const A = 0x1g\n}\n"
                                      << QStringList{"syn-invalid-number@2:13"};
    QTest::newRow("unexpected token") << head + "  param : f32[4]\n}\n"
                                      << QStringList{"syn-unexpected-token@2:9"};
    QTest::newRow("unknown function") << head + "  const A = floor(1, 2)\n}\n"
                                      << QStringList{"syn-unexpected-token@2:13"};
    QTest::newRow("function with one argument") << head + "  const A = min(1)\n}\n"
                                                << QStringList{"syn-unexpected-token@2:18"};
    QTest::newRow("extra tokens") << head + "  on main {\n    cta.sync ]\n  }\n}\n"
                                  << QStringList{"syn-expected-end-of-line@3:14"};
    QTest::newRow("brace on statement line") << head + "  on main {\n    cta.sync }\n}\n"
                                             << QStringList{"syn-expected-end-of-line@3:14"};
    QTest::newRow("unclosed block") << head + "  on main {\n    cta.sync\n"
                                    << QStringList{"syn-unclosed-block@2:11",
                                                   "syn-unclosed-block@3:13"};
    QTest::newRow("unmatched brace") << head + "}\n}\n" << QStringList{"syn-unmatched-brace@3:1"};
    QTest::newRow("missing kernel") << "// nothing here\n" << QStringList{"syn-missing-kernel@1:1"};
    QTest::newRow("extra kernel") << head + "}\nkernel j target=sm_80 {\n}\n"
                                  << QStringList{"syn-extra-kernel@3:1"};
    QTest::newRow("duplicate attribute") << head + "  role r warps=0..1 warps=0..2\n}\n"
                                         << QStringList{"syn-duplicate-attribute@2:21"};
    QTest::newRow("declaration in block")
        << head + "  on main {\n    const A = 1\n  }\n}\n"
        << QStringList{"sem-declaration-placement@3:5"};
    QTest::newRow("block without header") << head + "  {\n  }\n}\n"
                                          << QStringList{"syn-unexpected-token@2:3"};
    QTest::newRow("missing in") << head + "  on main {\n    for k 0..4 {\n    }\n  }\n}\n"
                                << QStringList{"syn-unexpected-token@3:11"};
    QTest::newRow("bad operand list") << head + "  on main {\n    tma.load a, , b\n  }\n}\n"
                                      << QStringList{"syn-unexpected-token@3:17"};
    QTest::newRow("unclosed subscript") << head + "  on main {\n    tma.load a[1, b\n  }\n}\n"
                                        << QStringList{"syn-unexpected-token@3:20"};
    QTest::newRow("attribute without value") << head + "  role r warps=\n}\n"
                                             << QStringList{"syn-unexpected-token@2:16"};
    QTest::newRow("truncated header") << "kernel k target=" << QStringList{
        "syn-unexpected-token@1:17", "syn-unclosed-block@1:17"};
  }
  void errorClasses() {
    QFETCH(QString, text);
    QFETCH(QStringList, expected);
    auto p = parse(text.toStdString());
    QCOMPARE(test::codes(p->diags, p->sources), expected);
  }

  void recoversAndReportsEveryLine() {
    std::string text = "kernel k target=sm_90a {\n"
                       "  const A = $\n"
                       "  const B = 1 2\n"
                       "  on main {\n"
                       "    op.one a b\n"
                       "    for i in 0..4 {\n"
                       "      op.two x[\n"
                       "    }\n"
                       "    op.three c\n"
                       "  }\n"
                       "}\n";
    auto p = parse(text);
    QCOMPARE(test::codes(p->diags, p->sources),
             (QStringList{"syn-invalid-character@2:13", "syn-unexpected-token@2:14",
                          "syn-expected-end-of-line@3:15", "syn-unexpected-token@5:14",
                          "syn-unexpected-token@7:16"}));
    // The statements after the bad ones are still in the tree.
    QVERIFY(p->module.kernel);
    const ir::Stmt& on = *p->module.kernel->body.at(0);
    QCOMPARE(on.body.size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(on.body[1]->opName.name), QStringLiteral("op.three"));
    QCOMPARE(p->module.poisonedNames, (std::vector<std::string>{"A", "B"}));
  }

  void deepBlocksAreBounded() {
    std::string text = "kernel k target=sm_90a {\n  on main {\n";
    for (int i = 0; i < 5000; ++i)
      text += "for i in 0..2 {\n";
    for (int i = 0; i < 5000; ++i)
      text += "}\n";
    text += "  }\n}\n";
    auto p = parse(text);
    QStringList c = test::codes(p->diags, p->sources);
    QCOMPARE(c.size(), 1);
    QVERIFY(c[0].startsWith("syn-nesting-too-deep"));
    QVERIFY(p->module.kernel);
  }

  void deepExpressionsAreBounded() {
    std::string text = "kernel k target=sm_90a {\n  const A = " + std::string(100000, '(') + "1" +
                       std::string(100000, ')') + "\n  const B = ----------------------------------------------------------1\n}\n";
    auto p = parse(text);
    QStringList c = test::codes(p->diags, p->sources);
    QCOMPARE(c.size(), 2);
    QVERIFY(c[0].startsWith("syn-nesting-too-deep@2:"));
    QVERIFY(c[1].startsWith("syn-nesting-too-deep@3:"));
  }

  void garbageFileIsBounded() {
    // 2 MB of pseudo-random bytes: findings are capped, parsing finishes.
    std::string text;
    std::uint32_t x = 12345;
    for (int i = 0; i < 2 * 1024 * 1024; ++i) {
      x = x * 1664525u + 1013904223u;
      text += static_cast<char>(x >> 24);
    }
    auto p = parse(text);
    QVERIFY(!p->diags.empty());
    QVERIFY(p->diags.size() <= 501);
  }

  void tenMegabyteFileParses() {
    std::string text = "kernel big target=sm_90a {\n";
    int i = 0;
    while (text.size() < 10u * 1024 * 1024) {
      text += "  const C" + std::to_string(i) + " = " + std::to_string(i + 1) + " * 2 + 1\n";
      ++i;
    }
    text += "}\n";
    auto p = parse(text);
    QVERIFY(p->diags.empty());
    QCOMPARE(p->module.kernel->decls.size(), std::size_t(i));
  }

  void oversizedFileIsRefused() {
    ParseOptions o;
    o.maxFileBytes = 100;
    auto p = parse(std::string(200, ' '), o);
    QCOMPARE(test::codes(p->diags, p->sources), QStringList{"syn-file-too-large@1:1"});
  }

  void tagsRangesAndFloats() {
    auto p = parse("kernel k target=sm_90a {\n  smem s : bf16[4] offset=0 swizzle=128B\n"
                   "  role r warps=0..4\n  const F = 1_024\n}\n");
    QVERIFY2(p->diags.empty(), qPrintable(test::messages(p->diags)));
    const ir::Kernel& k = *p->module.kernel;
    QCOMPARE(int(k.decls[0].attributes[1].value->kind), int(ir::ExprKind::Tag));
    QCOMPARE(int(k.decls[1].attributes[0].value->kind), int(ir::ExprKind::Range));
    QCOMPARE(k.decls[2].value->intValue, std::int64_t(1024));
  }

  void commentsAttach() {
    auto p = parse("// file\n\nkernel k target=sm_80 {  // header\n  // about A\n\n  // more\n"
                   "  const A = 1  // one\n  // closing\n}  // end\n// after\n");
    QVERIFY2(p->diags.empty(), qPrintable(test::messages(p->diags)));
    const ir::Kernel& k = *p->module.kernel;
    QCOMPARE(k.trivia.leadingComments.size(), std::size_t(1));
    QVERIFY(k.trivia.blankLineBefore);
    QCOMPARE(QString::fromStdString(k.trivia.trailingComment), QStringLiteral(" header"));
    const ir::Decl& a = k.decls[0];
    QCOMPARE(a.trivia.leadingComments.size(), std::size_t(2));
    QVERIFY(!a.trivia.leadingComments[0].blankLineBefore);
    QVERIFY(a.trivia.leadingComments[1].blankLineBefore);
    QCOMPARE(QString::fromStdString(a.trivia.trailingComment), QStringLiteral(" one"));
    QCOMPARE(k.closingComments.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(k.closeComment), QStringLiteral(" end"));
    QCOMPARE(p->module.trailingComments.size(), std::size_t(1));
  }

  // A block's closing comments live in its out-of-line StmtBlock; an operation has none.
  void blockPartsAttach() {
    auto p = parse("kernel k target=sm_80 {\n  role main warps=0..1\n  on main {  // on\n"
                   "    for i in 0..2 {\n      cta.sync\n      // inner end\n    }  // for\n"
                   "  }\n}\n");
    QVERIFY2(p->diags.empty(), qPrintable(test::messages(p->diags)));
    const ir::Stmt& on = *p->module.kernel->body[0];
    QCOMPARE(on.block().roles.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(on.block().roles[0].name), QStringLiteral("main"));
    const ir::Stmt& loop = *on.body[0];
    QCOMPARE(QString::fromStdString(loop.block().loopVar.name), QStringLiteral("i"));
    QVERIFY(loop.block().loopRange != nullptr);
    QCOMPARE(loop.block().closingComments.size(), std::size_t(1));
    QVERIFY(loop.block().hasCloseComment);
    QCOMPARE(QString::fromStdString(loop.block().closeComment), QStringLiteral(" for"));
    const ir::Stmt& op = *loop.body[0];
    QCOMPARE(op.kind, ir::StmtKind::Op);
    QVERIFY(op.block().roles.empty());
    QVERIFY(op.block().loopRange == nullptr);
  }

  // ExprList keeps two children inline and more on the heap; every count keeps its order
  // through growth, moves and clear().
  void exprListGrowsAndMoves_data() {
    QTest::addColumn<int>("count");
    for (int n : {0, 1, 2, 3, 4, 5, 9})
      QTest::addRow("%d children", n) << n;
  }
  void exprListGrowsAndMoves() {
    QFETCH(int, count);
    ir::ExprList list;
    for (int i = 0; i < count; ++i) {
      auto e = std::make_unique<ir::Expr>();
      e->intValue = i;
      list.push_back(std::move(e));
    }
    auto check = [&](const ir::ExprList& l) {
      QCOMPARE(l.size(), std::size_t(count));
      QCOMPARE(l.empty(), count == 0);
      int i = 0;
      for (const ir::ExprPtr& c : l)
        QCOMPARE(c->intValue, std::int64_t(i++));
      QCOMPARE(i, count);
    };
    check(list);
    ir::ExprList moved(std::move(list));
    check(moved);
    QCOMPARE(list.size(), std::size_t(0));
    list.push_back(std::make_unique<ir::Expr>()); // a moved-from list is usable
    QCOMPARE(list.size(), std::size_t(1));
    list = std::move(moved);
    check(list);
    if (count > 0) { // moving a child out leaves its slot (the size stays), like a vector
      ir::ExprPtr first = std::move(list[0]);
      QCOMPARE(list.size(), std::size_t(count));
      QVERIFY(list[0] == nullptr);
    }
    list.clear();
    QCOMPARE(list.size(), std::size_t(0));
  }

  // Names of up to 8 characters live in the node's own word, longer ones in a block it owns:
  // both sides of the boundary, through clone, move and reassignment.
  void exprTextInlineAndHeap_data() {
    QTest::addColumn<int>("length");
    for (int n : {0, 1, 7, 8, 9, 16, 70000})
      QTest::addRow("%d characters", n) << n;
  }
  void exprTextInlineAndHeap() {
    QFETCH(int, length);
    std::string text;
    for (int i = 0; i < length; ++i)
      text += char('a' + i % 26);
    ir::Expr e;
    e.kind = ir::ExprKind::Name;
    QVERIFY(!e.hasText());
    e.setText(text);
    QVERIFY(e.hasText());
    QCOMPARE(std::string(e.text()), text);
    ir::ExprPtr copy = ir::cloneExpr(e);
    QCOMPARE(std::string(copy->text()), text);
    QVERIFY(ir::equal(e, *copy));
    ir::Expr moved(std::move(e));
    QCOMPARE(std::string(moved.text()), text);
    QVERIFY(!e.hasText());
    QCOMPARE(e.text().size(), std::size_t(0));
    ir::Expr other;
    other.kind = ir::ExprKind::Name;
    other.setText("a_much_longer_name_on_the_heap");
    other = std::move(moved);
    QCOMPARE(std::string(other.text()), text);
    other.setText("x"); // replacing heap text with inline text frees the block (ASan sees it)
    QCOMPARE(std::string(other.text()), std::string("x"));
    // A numeric node has no text, and its value round-trips.
    ir::Expr number;
    number.intValue = -42;
    QVERIFY(!number.hasText());
    QCOMPARE(number.text().size(), std::size_t(0));
    QCOMPARE(ir::cloneExpr(number)->intValue, std::int64_t(-42));
  }
};

QTEST_APPLESS_MAIN(TestParser)
#include "tst_parser.moc"
