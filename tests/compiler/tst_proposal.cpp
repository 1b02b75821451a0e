// Proposal folders: the content hash (stable, sensitive to every hashed byte and name, blind to
// README.md), the loader's refusals (one row per prop-* code) and an evaluation without a gate.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"
#include "cake/Proposal/Proposal.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

using namespace cake;

namespace {

const char* kManifest = R"({
  "kind": "primitive",
  "title": "t",
  "author": {"kind": "agent", "name": "a"},
  "motivation": "m",
  "evidence": [],
  "files": [{"path": "primitives/elementwise/frag.xor.json", "kind": "primitive"}]
})";

/// Copies the frag-xor sample into `dir`.
bool copySample(const QString& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::copy(CAKE_CORPUS_DIR "/proposals/frag-xor", dir.toStdString(),
           fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
  return !ec;
}

bool write(const QString& path, const QByteArray& content) {
  QDir().mkpath(QFileInfo(path).path());
  QFile f(path);
  return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(content) == content.size();
}

std::optional<proposal::Proposal> load(const QString& dir,
                                       std::vector<std::string>* codes = nullptr) {
  SourceManager sources;
  DiagnosticEngine diags;
  auto p = proposal::loadProposal(dir.toStdString(), sources, diags);
  if (codes)
    for (const Diagnostic& d : diags.diagnostics())
      codes->push_back(d.code);
  return p;
}

} // namespace

class TestProposal : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void hash_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<bool>("changes");
    QTest::newRow("readme") << "README.md" << QByteArray("notes") << false;
    QTest::newRow("example-byte") << "examples/positive/xor.cake" << QByteArray() << true;
    QTest::newRow("new-example") << "examples/negative/extra.cake" << QByteArray("x") << true;
    QTest::newRow("definition") << "primitives/elementwise/frag.xor.json" << QByteArray() << true;
  }
  void hash() {
    QFETCH(QString, file);
    QFETCH(QByteArray, content);
    QFETCH(bool, changes);
    QTemporaryDir dir;
    QVERIFY(copySample(dir.path()));
    auto before = load(dir.path());
    QVERIFY(before);
    QCOMPARE(QString::fromStdString(before->hash).size(), 64);
    QCOMPARE(before->hash, proposal::proposalHash(*before));
    QCOMPARE(load(dir.path())->hash, before->hash); // stable
    QString path = QDir(dir.path()).filePath(file);
    if (content.isEmpty()) { // one byte more in an existing file
      QFile f(path);
      QVERIFY(f.open(QIODevice::Append));
      f.write(" ");
    } else {
      QVERIFY(write(path, content));
    }
    auto after = load(dir.path());
    QVERIFY(after);
    QCOMPARE(after->hash != before->hash, changes);
  }

  void refused_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("code");
    QByteArray m(kManifest);
    QTest::newRow("escape") << "proposal.json"
                            << QByteArray(m).replace("primitives/elementwise/frag.xor.json",
                                                     "primitives/../../x.json")
                            << "prop-path-escape";
    QTest::newRow("absolute") << "proposal.json"
                              << QByteArray(m).replace("primitives/elementwise/frag.xor.json",
                                                       "/tmp/x.json")
                              << "prop-path-escape";
    QTest::newRow("wrong-folder") << "proposal.json"
                                  << QByteArray(m).replace("primitives/elementwise/frag.xor.json",
                                                           "rules/frag.xor.json")
                                  << "prop-file-kind";
    QTest::newRow("author") << "proposal.json" << QByteArray(m).replace("agent", "bot")
                            << "prop-invalid-value";
    QTest::newRow("unknown-field")
        << "proposal.json" << QByteArray(m).replace("\"title\"", "\"titel\"")
        << "prop-unknown-field";
    QTest::newRow("syntax") << "proposal.json" << QByteArray(m).replace("],", "]")
                            << "prop-json-syntax";
    QTest::newRow("unlisted") << "tools/x.py" << QByteArray("print(1)") << "prop-unexpected-file";
    QTest::newRow("too-large") << "examples/positive/big.cake" << QByteArray(300 * 1024, 'x')
                               << "prop-too-large";
  }
  void refused() {
    QFETCH(QString, file);
    QFETCH(QByteArray, content);
    QFETCH(QString, code);
    QTemporaryDir dir;
    QVERIFY(copySample(dir.path()));
    QVERIFY(write(QDir(dir.path()).filePath("proposal.json"), kManifest));
    QVERIFY(load(dir.path())); // the base folder loads
    QVERIFY(write(QDir(dir.path()).filePath(file), content));
    std::vector<std::string> codes;
    QVERIFY(!load(dir.path(), &codes));
    QVERIFY2(std::find(codes.begin(), codes.end(), code.toStdString()) != codes.end(),
             qPrintable(QString::fromStdString(codes.empty() ? "(none)" : codes.front())));
  }

  void symlink() {
    QTemporaryDir dir;
    QVERIFY(copySample(dir.path()));
    QVERIFY(QFile::link(QStringLiteral("/etc/hostname"),
                        QDir(dir.path()).filePath("examples/positive/h.cake")));
    std::vector<std::string> codes;
    QVERIFY(!load(dir.path(), &codes));
    QCOMPARE(codes.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(codes[0]), QStringLiteral("prop-symlink"));
  }

  void evaluateWithoutGate() {
    auto p = load(QStringLiteral(CAKE_CORPUS_DIR "/proposals/frag-xor"));
    QVERIFY(p);
    driver::DataPaths paths{std::string(CAKE_SOURCE_DIR) + "/compiler/primitives",
                            std::string(CAKE_SOURCE_DIR) + "/compiler/targets",
                            std::string(CAKE_SOURCE_DIR) + "/compiler/rules"};
    proposal::Evaluation ev = proposal::evaluateProposal(*p, paths, {}, nullptr);
    QVERIFY(ev.valid);
    QCOMPARE(QString::fromStdString(ev.verdict), QStringLiteral("clean"));
    QVERIFY(ev.baseRevision != ev.revision);
    QCOMPARE(ev.examples.size(), std::size_t(2));
    for (const proposal::ExampleResult& e : ev.examples) {
      QVERIFY2(e.ok(), e.problem.c_str());
      QCOMPARE(e.accepted, e.positive);
      if (e.positive) {
        QVERIFY(!e.acceptedWithout); // not expressible without the proposal
        QVERIFY(e.lowered && *e.lowered);
      }
    }
    // A broken file in the workspace's head makes the evaluation invalid: the proposal is
    // judged on top of the head, never on top of data that does not load.
    DataOverlay ws;
    ws.primitives.push_back({"elementwise/frag.broken.json", "ws:rev2/primitives/x", "{}"});
    proposal::Evaluation over = proposal::evaluateProposal(*p, paths, ws, nullptr);
    QVERIFY(!over.valid);
    QVERIFY(!over.findingsText.empty());
    QCOMPARE(QString::fromStdString(over.verdict), QStringLiteral("invalid"));
  }
};

QTEST_GUILESS_MAIN(TestProposal)
#include "tst_proposal.moc"
