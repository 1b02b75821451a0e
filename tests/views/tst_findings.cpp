// Findings, names and completion of the view library: the findings tree and its filter proxy
// through QAbstractItemModelTester, data-driven filter rows, copy as text/JSON/SARIF and Explain
// identical to the CLI, the name index behind go-to-definition, and completion of a primitive
// added to a registry directory at run time (no rebuild).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ViewsTestUtil.h"
#include "cake/views/CakeHighlighter.h"
#include "cake/views/Completion.h"
#include "cake/views/FindingsExport.h"
#include "cake/views/FindingsModel.h"
#include "cake/views/SymbolIndex.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QtTest>
#include <cmath>

using namespace cake;

namespace {

const char* kMixed = "negative/accumulator-overwrite.cake";       // 4 blocking, 2 reports, 1 hint
const char* kWithReport = "negative/tma-store-box-too-wide.cake"; // 1 blocking, 3 reports

QStringList codesOf(const QJsonArray& findings) {
  QStringList out;
  for (const QJsonValue& f : findings)
    out << f.toObject().value("code").toString();
  return out;
}

/// Runs the CLI built alongside the tests.
QByteArray runCake(const QStringList& args) {
  QProcess p;
  p.start(QStringLiteral(CAKE_CLI), args);
  p.waitForFinished(60000);
  return p.readAllStandardOutput();
}

/// WCAG contrast ratio of two colours.
double contrast(const QColor& a, const QColor& b) {
  auto lum = [](const QColor& c) {
    auto ch = [](double v) {
      return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * ch(c.redF()) + 0.7152 * ch(c.greenF()) + 0.0722 * ch(c.blueF());
  };
  double x = lum(a), y = lum(b);
  return (std::max(x, y) + 0.05) / (std::min(x, y) + 0.05);
}

} // namespace

class TestFindings : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void treeModelHasNotesAndFix() {
    views::FindingsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto snap = test::corpusSnapshot(kMixed);
    model.setSnapshot(snap);
    const auto& diags = snap->result.diagnostics;
    QCOMPARE(model.rowCount(), int(diags.size()));
    for (int i = 0; i < model.rowCount(); ++i) {
      QModelIndex top = model.index(i, 0);
      const Diagnostic& d = diags[std::size_t(i)];
      QCOMPARE(model.rowCount(top), int(d.notes.size()) + (d.fix ? 1 : 0));
      QCOMPARE(top.data(views::FindingsModel::FindingRole).toInt(), i);
      QCOMPARE(top.data(views::FindingsModel::CodeRole).toString(), QString::fromStdString(d.code));
      for (int n = 0; n < int(d.notes.size()); ++n) {
        QModelIndex note = model.index(n, 0, top);
        QCOMPARE(note.parent(), top);
        QCOMPARE(note.data(views::FindingsModel::KindRole).toInt(),
                 int(views::FindingsModel::NoteItem));
        QCOMPARE(model.index(n, views::FindingsModel::MessageColumn, top).data().toString(),
                 QString::fromStdString(d.notes[std::size_t(n)].message));
        LineColumn lc = snap->result.sources->lineColumn(d.notes[std::size_t(n)].range.file,
                                                         d.notes[std::size_t(n)].range.begin);
        QCOMPARE(note.data(views::FindingsModel::LineRole).toInt(), int(lc.line));
        QCOMPARE(note.data(views::FindingsModel::FindingRole).toInt(), i);
      }
      if (d.fix) {
        QModelIndex fix =
            model.index(int(d.notes.size()), views::FindingsModel::MessageColumn, top);
        QCOMPARE(fix.data().toString(), QString::fromStdString(d.fix->message));
        QCOMPARE(fix.data(views::FindingsModel::KindRole).toInt(),
                 int(views::FindingsModel::FixItem));
        QCOMPARE(model.rowCount(fix.siblingAtColumn(0)), 0);
      }
    }
    QCOMPARE(model.families(),
             QStringList({"hardware-conformance", "performance", "program-safety"}));
    model.setSnapshot(test::corpusSnapshot("hopper_gemm/gemm_ws.cake"));
    model.setSnapshot(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  void consequencesHangUnderTheirCause() {
    // A root cause (ps-parity-convention) and the race it lets happen (caused_by): the race is
    // a child of the cause, after its notes and fix, with its own notes below it.
    views::FindingsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto snap = test::corpusSnapshot("negative/publish-wait-passes-fresh.cake");
    model.setSnapshot(snap);
    const auto& diags = snap->result.diagnostics;
    int cause = -1, consequence = -1, roots = 0;
    for (int i = 0; i < int(diags.size()); ++i) {
      if (diags[std::size_t(i)].code == "ps-parity-convention")
        cause = i;
      if (diags[std::size_t(i)].causedBy)
        consequence = i;
      else
        ++roots;
    }
    QVERIFY2(cause >= 0 && consequence >= 0, "the kernel must report a cause and a consequence");
    QCOMPARE(model.findingCount(), int(diags.size()));
    QCOMPARE(model.rowCount(), roots);
    QModelIndex top;
    for (int i = 0; i < model.rowCount(); ++i)
      if (model.index(i, 0).data(views::FindingsModel::FindingRole).toInt() == cause)
        top = model.index(i, 0);
    QVERIFY(top.isValid());
    const Diagnostic& c = diags[std::size_t(cause)];
    int own = int(c.notes.size()) + (c.fix ? 1 : 0);
    QCOMPARE(model.rowCount(top), own + 1);
    QModelIndex child = model.index(own, 0, top);
    QCOMPARE(child.parent(), top);
    QCOMPARE(child.data(views::FindingsModel::KindRole).toInt(),
             int(views::FindingsModel::FindingItem));
    QCOMPARE(child.data(views::FindingsModel::FindingRole).toInt(), consequence);
    QCOMPARE(child.data(views::FindingsModel::CodeRole).toString(),
             QStringLiteral("ps-cross-role-race"));
    const Diagnostic& q = diags[std::size_t(consequence)];
    QCOMPARE(model.rowCount(child), int(q.notes.size()) + (q.fix ? 1 : 0));
    QModelIndex note = model.index(0, views::FindingsModel::MessageColumn, child);
    QCOMPARE(note.data().toString(), QString::fromStdString(q.notes[0].message));
    QCOMPARE(note.parent(), child);
    // The panel's count covers the consequence too, like its severity boxes.
    views::FindingsFilterModel proxy;
    proxy.setSourceModel(&model);
    QCOMPARE(proxy.totalCount(), int(diags.size()));
    QCOMPARE(proxy.shownCount(), int(diags.size()));
    proxy.setSeverityShown(Severity::Blocking, false); // hides the cause and what hangs under it
    QCOMPARE(proxy.shownCount(), roots - 1);
  }

  void filter_data() {
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<bool>("blocking");
    QTest::addColumn<bool>("report");
    QTest::addColumn<bool>("hint");
    QTest::addColumn<QString>("family");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("codes");
    const QString mixed = kMixed;
    // Two coverage reports (hw-requirement-unchecked: the params' base alignment and the
    // wgmma register budget) sit among the blocking findings.
    const QStringList blockingCodes{"ps-cross-role-race", "ps-cross-role-race",
                                    "ps-async-overwrite", "ps-async-pending-at-exit"};
    const QStringList all{"perf-unused",
                          "hw-requirement-unchecked",
                          "ps-cross-role-race",
                          "ps-cross-role-race",
                          "ps-async-overwrite",
                          "hw-requirement-unchecked",
                          "ps-async-pending-at-exit"};
    QTest::newRow("everything") << mixed << true << true << true << "" << "" << all;
    QTest::newRow("no blocking") << mixed << false << true << true << ""
                                 << ""
                                 << QStringList{"perf-unused", "hw-requirement-unchecked",
                                                "hw-requirement-unchecked"};
    QTest::newRow("blocking only") << mixed << true << false << false << ""
                                   << "" << blockingCodes;
    QTest::newRow("hints only") << mixed << false << false << true << ""
                                << "" << QStringList{"perf-unused"};
    QTest::newRow("family") << mixed << true << true << true << "performance"
                            << "" << QStringList{"perf-unused"};
    QTest::newRow("family without its severities") << mixed << false << true << true
                                                   << "program-safety" << "" << QStringList{};
    QTest::newRow("text in code, any case")
        << mixed << true << true << true << ""
        << "CROSS-ROLE" << QStringList{"ps-cross-role-race", "ps-cross-role-race"};
    QTest::newRow("text in message") << mixed << true << true << true << ""
                                     << "parameter 'C'" << QStringList{"perf-unused"};
    QTest::newRow("text and severity") << mixed << false << true << true << ""
                                       << "ps-" << QStringList{};
    QTest::newRow("no match") << mixed << true << true << true << ""
                              << "no such finding" << QStringList{};
    // A kernel with a report-level finding: the report switch alone shows and hides it.
    const QString withReport = kWithReport;
    QTest::newRow("reports only") << withReport << false << true << false << ""
                                  << ""
                                  << QStringList{"hw-requirement-unchecked",
                                                 "hw-requirement-unchecked", "perf-bank-conflict"};
    QTest::newRow("all but reports") << withReport << true << false << true << ""
                                     << "" << QStringList{"hw-tma-inner-box-swizzle"};
  }

  void filter() {
    QFETCH(QString, kernel);
    QFETCH(bool, blocking);
    QFETCH(bool, report);
    QFETCH(bool, hint);
    QFETCH(QString, family);
    QFETCH(QString, text);
    QFETCH(QStringList, codes);
    views::FindingsModel model;
    views::FindingsFilterModel proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSnapshot(test::corpusSnapshot(kernel));
    const int total = model.rowCount();
    QSignalSpy changed(&proxy, &views::FindingsFilterModel::filterChanged);
    proxy.setSeverityShown(Severity::Blocking, blocking);
    proxy.setSeverityShown(Severity::Report, report);
    proxy.setSeverityShown(Severity::Hint, hint);
    proxy.setFamily(family);
    proxy.setText(text);
    QStringList shown;
    for (int r = 0; r < proxy.rowCount(); ++r) {
      QModelIndex i = proxy.index(r, 0);
      shown << i.data(views::FindingsModel::CodeRole).toString();
      // A shown finding keeps all its notes.
      int source = proxy.mapToSource(i).row();
      QCOMPARE(proxy.rowCount(i), model.rowCount(model.index(source, 0)));
    }
    QCOMPARE(shown, codes);
    QCOMPARE(proxy.shownCount(), int(codes.size()));
    QCOMPARE(proxy.totalCount(), total);
    int changes = (!blocking) + (!report) + (!hint) + !family.isEmpty() + !text.isEmpty();
    QCOMPARE(changed.count(), changes);
    // The filter survives a new snapshot of the same kernel.
    model.setSnapshot(test::corpusSnapshot(kernel));
    QCOMPARE(proxy.rowCount(), int(codes.size()));
  }

  void exportMatchesTheCli() {
    QString path = test::corpusPath(kMixed);
    auto snap = test::corpusSnapshot(kMixed);
    const driver::Compiler& compiler = *test::compiler();
    // All findings as JSON: byte-identical to `cake check --format json`.
    QString json = views::exportFindings(compiler, *snap, nullptr, views::FindingsFormat::Json);
    QCOMPARE(json.trimmed().toUtf8(), runCake({"check", "--format", "json", path}).trimmed());
    // A selection: parseable, only the selected codes, in the CLI's schema.
    std::vector<std::size_t> picked{0, 4};
    QJsonParseError error;
    QJsonDocument doc = QJsonDocument::fromJson(
        views::exportFindings(compiler, *snap, &picked, views::FindingsFormat::Json).toUtf8(),
        &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QJsonObject file = doc.object().value("files").toArray().at(0).toObject();
    QCOMPARE(file.value("path").toString(), path);
    QCOMPARE(codesOf(file.value("findings").toArray()),
             QStringList({"perf-unused", "ps-async-overwrite"}));
    QVERIFY(file.value("findings").toArray().at(1).toObject().value("notes").isArray());
    // SARIF of the selection: results and rules of exactly those codes.
    doc = QJsonDocument::fromJson(
        views::exportFindings(compiler, *snap, &picked, views::FindingsFormat::Sarif).toUtf8(),
        &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QJsonObject run = doc.object().value("runs").toArray().at(0).toObject();
    QCOMPARE(doc.object().value("version").toString(), QStringLiteral("2.1.0"));
    QStringList results;
    for (const QJsonValue& r : run.value("results").toArray())
      results << r.toObject().value("ruleId").toString();
    QCOMPARE(results, QStringList({"perf-unused", "ps-async-overwrite"}));
    QCOMPARE(
        run.value("tool").toObject().value("driver").toObject().value("rules").toArray().size(), 2);
    // SARIF of everything: the CLI's log except the run's working directory base.
    QJsonObject cliRun = QJsonDocument::fromJson(runCake({"check", "--format", "sarif", path}))
                             .object()
                             .value("runs")
                             .toArray()
                             .at(0)
                             .toObject();
    QJsonObject allRun =
        QJsonDocument::fromJson(
            views::exportFindings(compiler, *snap, nullptr, views::FindingsFormat::Sarif).toUtf8())
            .object()
            .value("runs")
            .toArray()
            .at(0)
            .toObject();
    QCOMPARE(allRun.value("results"), cliRun.value("results"));
    // Text: the CLI's caret blocks.
    QString text = views::exportFindings(compiler, *snap, &picked, views::FindingsFormat::Text);
    QVERIFY(text.contains(QStringLiteral("hint[perf-unused]")));
    QVERIFY(text.contains(QStringLiteral("error[ps-async-overwrite]")));
    QVERIFY(!text.contains(QStringLiteral("ps-cross-role-race")));
    QVERIFY(
        runCake({"check", "--color", "never", path}).contains(text.section('\n', 0, 3).toUtf8()));
    // Explain: `cake explain CODE`, word for word.
    for (const char* code : {"ps-async-overwrite", "perf-unused", "hw-tma-box-limit"})
      QCOMPARE(views::explainCode(compiler, code).toUtf8(), runCake({"explain", code}));
    QVERIFY(views::explainCode(compiler, "no-such-code").isEmpty());
  }

  void symbolIndexResolvesDeclarationsAndScopes() {
    auto snap = test::corpusSnapshot(kMixed);
    QVERIFY(snap->views && snap->views->symbols);
    const views::SymbolIndex& index = *snap->views->symbols;
    // Every declaration of the kernel plus the two loop variables of each role block.
    for (const char* name : {"producer", "consumer", "ring", "A", "B", "C", "tA", "tB", "a_s",
                             "b_s", "full", "empty", "acc", "t", "k"})
      QVERIFY2(index.find(name) >= 0, name);
    // A declaration's own name resolves to itself.
    int acc = index.find("acc");
    const views::SymbolDef& d = index.defs[acc];
    QCOMPARE(d.kind, QStringLiteral("reg"));
    QCOMPARE(index.definitionAt(d.nameSpan.line, d.nameSpan.column), acc);
    // `k` in the consumer's loop is that loop's variable, not the producer's.
    QStringList lines = snap->text.split('\n');
    int line45 = 45, col = int(lines[line45 - 1].indexOf("wg * 64")) + 1;
    QVERIFY(col > 0);
    QCOMPARE(index.definitionAt(line45, col), -1); // `wg` is a builtin, not declared
    int kUse = index.definitionAt(34, int(lines[33].indexOf("k * 64")) + 1);
    QVERIFY(kUse >= 0);
    QCOMPARE(index.defs[kUse].kind, QStringLiteral("for"));
    QCOMPARE(index.defs[kUse].nameSpan.line, 31);
    // Keywords and attribute names are not references.
    QCOMPARE(index.definitionAt(31, int(lines[30].indexOf("pipeline")) + 1), -1);
  }

  void highlighterReadableOnBothPalettes_data() {
    QTest::addColumn<bool>("dark");
    QTest::addColumn<QColor>("base");
    QTest::newRow("light") << false << QColor(Qt::white);
    QTest::newRow("dark") << true << QColor(0x1e, 0x1e, 0x1e);
  }

  void highlighterReadableOnBothPalettes() {
    QFETCH(bool, dark);
    QFETCH(QColor, base);
    QTextDocument doc(test::readFile(test::corpusPath(kMixed)));
    views::CakeHighlighter highlighter(&doc);
    highlighter.setDark(dark);
    int formats = 0;
    QSet<QRgb> colours;
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next())
      for (const QTextLayout::FormatRange& r : b.layout()->formats()) {
        QColor fg = r.format.foreground().color();
        ++formats;
        colours.insert(fg.rgb());
        // WCAG AA for text: 4.5:1 against the editor's background.
        QVERIFY2(contrast(fg, base) >= 4.5, qPrintable(QStringLiteral("%1 on %2 at line %3: %4")
                                                           .arg(fg.name(), base.name())
                                                           .arg(b.blockNumber() + 1)
                                                           .arg(contrast(fg, base))));
      }
    QVERIFY(formats > 100);
    QVERIFY(colours.size() >=
            6); // keywords, declarations, ops, numbers, types, attributes, comments
  }

  void completionContext_data() {
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<QString>("primitive");
    QTest::newRow("empty line") << "    " << int(views::CompletionContext::Statement) << ""
                                << "";
    QTest::newRow("primitive prefix")
        << "    tma.lo" << int(views::CompletionContext::Statement) << "tma.lo"
        << "";
    QTest::newRow("after primitive") << "    tma.load a_s[ring.slot], tA[0, 0], full[ring.slot] "
                                     << int(views::CompletionContext::Attribute) << ""
                                     << "tma.load";
    QTest::newRow("attribute prefix")
        << "    ew.fill acc val" << int(views::CompletionContext::Attribute) << "val"
        << "ew.fill";
    QTest::newRow("inside brackets")
        << "    tma.load a_s[ri" << int(views::CompletionContext::None) << "ri"
        << "";
    QTest::newRow("attribute value")
        << "    ew.fill acc value=" << int(views::CompletionContext::None) << ""
        << "";
    QTest::newRow("member") << "    mbarrier.try_wait full[ring.slot] parity=ring.ph"
                            << int(views::CompletionContext::None) << "ring.ph"
                            << "";
    QTest::newRow("comment") << "    // tma.lo" << int(views::CompletionContext::None) << ""
                             << "";
  }

  void completionContext() {
    QFETCH(QString, line);
    QFETCH(int, kind);
    QFETCH(QString, prefix);
    QFETCH(QString, primitive);
    views::CompletionContext ctx = views::completionContext(line, int(line.size()));
    QCOMPARE(int(ctx.kind), kind);
    if (kind != int(views::CompletionContext::None))
      QCOMPARE(ctx.prefix, prefix);
    QCOMPARE(ctx.primitive, primitive);
  }

  void dottedWordAt_data() {
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("word");
    QTest::newRow("inside") << "    tma.load a_s[0], tA[0, 0]" << 6 << "tma.load";
    QTest::newRow("start") << "    tma.load a_s" << 4 << "tma.load";
    QTest::newRow("just after") << "    tma.load a_s" << 12 << "tma.load";
    QTest::newRow("operand") << "    tma.load a_s[ring.slot]" << 18 << "ring.slot";
    QTest::newRow("trailing dot") << "x = y." << 5 << "y";
    QTest::newRow("space") << "a  b" << 2 << "";
    QTest::newRow("empty") << "" << 0 << "";
  }

  void dottedWordAt() {
    QFETCH(QString, line);
    QFETCH(int, column);
    QFETCH(QString, word);
    QCOMPARE(views::dottedWordAt(line, column), word);
  }

  void primitiveDescriptionOfARunTimePrimitive() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto compiler = test::compilerWithAddedPrimitive(dir.path());
    QString added = views::primitiveDescription(compiler->registry(), "ew.scaled_fill");
    QVERIFY2(added.contains("<b>ew.scaled_fill</b>"), qPrintable(added));
    QVERIFY(added.contains(dir.path()));
    QVERIFY(views::primitiveDescription(test::compiler()->registry(), "ew.scaled_fill").isEmpty());
  }

  void completionOfAPrimitiveAddedAtRunTime() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto compiler = test::compilerWithAddedPrimitive(dir.path());
    QVERIFY(compiler);

    views::CompletionContext ctx = views::completionContext("    ew.", 7);
    QStringList bundled = views::completions(test::compiler()->registry(), ctx);
    QStringList extended = views::completions(compiler->registry(), ctx);
    QVERIFY(bundled.contains("ew.fill"));
    QVERIFY(!bundled.contains("ew.scaled_fill"));
    QVERIFY(extended.contains("ew.scaled_fill"));
    QCOMPARE(extended.size(), bundled.size() + 1);
    for (const QString& c : extended)
      QVERIFY(c.startsWith("ew."));
    // Its attributes, after its name; those already written are not offered again.
    QString line = "    ew.scaled_fill acc ";
    QCOMPARE(views::completions(compiler->registry(),
                                views::completionContext(line, int(line.size())), line),
             QStringList({"scale=", "value="}));
    line = "    ew.scaled_fill acc value=1.0 ";
    QCOMPARE(views::completions(compiler->registry(),
                                views::completionContext(line, int(line.size())), line),
             QStringList({"scale="}));
    // The same line against the bundled registry: an unknown primitive has no attributes.
    QVERIFY(views::completions(test::compiler()->registry(),
                               views::completionContext(line, int(line.size())), line)
                .isEmpty());
  }
};

QTEST_MAIN(TestFindings)
#include "tst_findings.moc"
