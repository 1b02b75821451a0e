// Reviewing proposals in a workspace: every refusal code reached by a row (and nothing written
// when refused), approval installing the definition as a new revision the compiler then loads,
// approval with explicitly accepted gate changes, staleness after new content at the same path,
// votes on stale content refused, and the status an agent reads back.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Driver/Manifest.h"
#include "cake/Proposal/Review.h"
#include "cake/Support/Json.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

using namespace cake;

namespace {

const std::string kSource = CAKE_SOURCE_DIR;

driver::DataPaths dataPaths() {
  return {kSource + "/compiler/primitives", kSource + "/compiler/targets",
          kSource + "/compiler/rules"};
}

bool copySample(const QString& to, const char* sample = "frag-xor") {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::remove_all(to.toStdString(), ec);
  fs::copy(std::string(CAKE_CORPUS_DIR "/proposals/") + sample, to.toStdString(),
           fs::copy_options::recursive, ec);
  return !ec;
}

bool appendTo(const QString& path, const QByteArray& text) {
  QFile f(path);
  return f.open(QIODevice::Append) && f.write(text) == text.size();
}

std::optional<proposal::Proposal> load(const QString& dir) {
  SourceManager sources;
  DiagnosticEngine diags;
  return proposal::loadProposal(dir.toStdString(), sources, diags);
}

/// An evaluation report as `cake proposal evaluate` stores it, reduced to what review reads.
std::string report(const std::string& verdict, const std::vector<std::string>& newlyRejected = {},
                   const std::vector<std::string>& changedFindings = {}) {
  json::Writer w(false);
  w.beginObject().key("verdict").value(verdict).key("gate").beginObject();
  w.key("newly_accepted").beginArray().endArray();
  w.key("newly_rejected").beginArray();
  for (const std::string& c : newlyRejected)
    w.value(c);
  w.endArray().key("changed_findings").beginArray();
  for (const std::string& c : changedFindings)
    w.value(c);
  w.endArray().endObject().endObject();
  return w.take();
}

template <class E> QString name(E value) {
  return QString::fromStdString(std::string(ws::toString(value)));
}

std::vector<std::string> toStd(const QStringList& list) {
  std::vector<std::string> out;
  for (const QString& s : list)
    out.push_back(s.toStdString());
  return out;
}

QStringList toQt(const std::vector<std::string>& list) {
  QStringList out;
  for (const std::string& s : list)
    out << QString::fromStdString(s);
  return out;
}

/// A workspace and the frag-xor sample copied to a folder of its own.
struct Fixture {
  QTemporaryDir dir;
  QString folder = dir.filePath("P");
  std::optional<ws::Workspace> workspace;

  bool init() {
    if (!dir.isValid() || !copySample(folder))
      return false;
    auto w = ws::Workspace::open(dir.filePath("ws").toStdString(), ws::OpenMode::CreateIfMissing);
    if (!w)
      return false;
    workspace.emplace(std::move(*w));
    return true;
  }
  /// Registers the folder's current content; with a report, records it at the head.
  std::optional<std::string> submit(const std::optional<std::string>& evaluation) {
    auto p = load(folder);
    if (!p)
      return std::nullopt;
    if (!workspace->registerProposal(proposal::proposalRecord(*p), "agent"))
      return std::nullopt;
    if (evaluation) {
      auto head = workspace->head();
      if (!head || !workspace->addEvaluation(p->hash, *head, *evaluation, "agent"))
        return std::nullopt;
    }
    return p->hash;
  }
  std::int64_t auditEntries() {
    auto log = workspace->auditLog();
    return log ? static_cast<std::int64_t>(log->size()) : -1;
  }
  proposal::ReviewResult act(ws::Decision decision, const std::string& reviewer,
                             const std::string& comment = "looks right",
                             const std::vector<std::string>& accept = {}) {
    auto p = load(folder);
    if (!p)
      return {std::nullopt, std::nullopt, ws::Error{ws::ErrorCode::Io, "folder does not load"}};
    proposal::ReviewRequest r;
    r.decision = decision;
    r.reviewer = reviewer;
    r.comment = comment;
    r.acceptChanges = accept;
    return proposal::review(*workspace, *p, r);
  }
};

} // namespace

class TestReview : public QObject {
  Q_OBJECT
private Q_SLOTS:
  /// Each refusal code from one situation; a refused act writes nothing (audit, head, state).
  void refused_data() {
    QTest::addColumn<QString>("setup");
    QTest::addColumn<QString>("decision");
    QTest::addColumn<QString>("reviewer");
    QTest::addColumn<QString>("comment");
    QTest::addColumn<QStringList>("accept");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QStringList>("cases");
    const QStringList none;
    QTest::newRow("not-registered") << "none"
                                    << "approve"
                                    << "bob"
                                    << "ok" << none << "prop-not-registered" << none;
    QTest::newRow("not-evaluated") << "registered"
                                   << "approve"
                                   << "bob"
                                   << "ok" << none << "prop-not-evaluated" << none;
    QTest::newRow("stale-evaluation") << "head-moved"
                                      << "approve"
                                      << "bob"
                                      << "ok" << none << "prop-stale-evaluation" << none;
    QTest::newRow("stale-content-edited") << "edited"
                                          << "approve"
                                          << "bob"
                                          << "ok" << none << "prop-stale-content" << none;
    QTest::newRow("stale-content-superseded") << "superseded"
                                              << "approve"
                                              << "bob"
                                              << "ok" << none << "prop-stale-content" << none;
    QTest::newRow("vote-on-superseded") << "superseded"
                                        << "comment"
                                        << "bob"
                                        << "ok" << none << "prop-stale-content" << none;
    QTest::newRow("reject-superseded") << "superseded"
                                       << "reject"
                                       << "bob"
                                       << "no" << none << "prop-stale-content" << none;
    QTest::newRow("vote-on-edited") << "edited"
                                    << "request-changes"
                                    << "bob"
                                    << "ok" << none << "prop-stale-content" << none;
    QTest::newRow("self-approval") << "clean"
                                   << "approve"
                                   << "E"
                                   << "ok" << none << "prop-self-approval" << none;
    QTest::newRow("self-approval-spelled") << "clean"
                                           << "approve"
                                           << " e "
                                           << "ok" << none << "prop-self-approval" << none;
    QTest::newRow("not-clean") << "examples-fail"
                               << "approve"
                               << "bob"
                               << "ok" << none << "prop-evaluation-not-clean" << none;
    QTest::newRow("invalid") << "invalid"
                             << "approve"
                             << "bob"
                             << "ok" << none << "prop-evaluation-not-clean" << none;
    QTest::newRow("unaccepted") << "regressions"
                                << "approve"
                                << "bob"
                                << "ok" << none << "prop-unaccepted-change"
                                << QStringList{"k1", "k2"};
    QTest::newRow("partly-accepted")
        << "regressions"
        << "approve"
        << "bob"
        << "ok" << QStringList{"k2"} << "prop-unaccepted-change" << QStringList{"k1"};
    QTest::newRow("unknown-accept")
        << "clean"
        << "approve"
        << "bob"
        << "ok" << QStringList{"rmsnorm"} << "prop-unknown-accept" << QStringList{"rmsnorm"};
    QTest::newRow("already-approved") << "approved"
                                      << "approve"
                                      << "carol"
                                      << "ok" << none << "prop-already-decided" << none;
    QTest::newRow("reject-approved") << "approved"
                                     << "reject"
                                     << "carol"
                                     << "no" << none << "prop-already-decided" << none;
    QTest::newRow("approve-rejected") << "rejected"
                                      << "approve"
                                      << "carol"
                                      << "ok" << none << "prop-already-decided" << none;
    QTest::newRow("empty-reviewer") << "clean"
                                    << "approve"
                                    << "  "
                                    << "ok" << none << "prop-empty-reviewer" << none;
    QTest::newRow("empty-comment") << "clean"
                                   << "reject"
                                   << "bob"
                                   << "" << none << "prop-empty-comment" << none;
  }
  void refused() {
    QFETCH(QString, setup);
    QFETCH(QString, decision);
    QFETCH(QString, reviewer);
    QFETCH(QString, comment);
    QFETCH(QStringList, accept);
    QFETCH(QString, code);
    QFETCH(QStringList, cases);
    Fixture f;
    QVERIFY(f.init());
    const QString definition = f.folder + "/primitives/elementwise/frag.xor.json";
    if (setup == "registered") {
      QVERIFY(f.submit(std::nullopt));
    } else if (setup == "head-moved") {
      QVERIFY(f.submit(report("clean")));
      QVERIFY(f.workspace->installRevision({{ws::FileKind::Rule, "x/other.json", "{}", {}}},
                                           "admin", "another change"));
    } else if (setup == "edited") {
      QVERIFY(f.submit(report("clean")));
      QVERIFY(appendTo(f.folder + "/examples/negative/shape.cake", "// edited\n"));
    } else if (setup == "superseded") {
      // New content at the same path supersedes the old; then the folder holds the old again.
      QFile::copy(definition, f.dir.filePath("saved.json"));
      QVERIFY(f.submit(report("clean")));
      QVERIFY(appendTo(definition, "\n"));
      QVERIFY(f.submit(report("clean")));
      QVERIFY(QFile::remove(definition));
      QVERIFY(QFile::copy(f.dir.filePath("saved.json"), definition));
    } else if (setup == "regressions") {
      QVERIFY(f.submit(report("regressions", {"k1"}, {"k2"})));
    } else if (setup == "approved" || setup == "rejected") {
      QVERIFY(f.submit(report("clean")));
      auto r = f.act(setup == "approved" ? ws::Decision::Approve : ws::Decision::Reject, "bob");
      QVERIFY(r.outcome);
    } else if (setup != "none") {
      QVERIFY(f.submit(report(setup.toStdString())));
    }
    auto headBefore = f.workspace->head();
    QVERIFY(headBefore);
    std::int64_t entries = f.auditEntries();
    auto p = load(f.folder);
    QVERIFY(p);
    auto stateBefore = f.workspace->proposal(p->hash);
    QVERIFY(stateBefore);

    proposal::ReviewResult r = f.act(*ws::decisionFromString(decision.toStdString()),
                                     reviewer.toStdString(), comment.toStdString(), toStd(accept));
    QVERIFY2(!r.error, r.error ? r.error->text().c_str() : "");
    QVERIFY(!r.outcome);
    QVERIFY(r.refusal);
    QCOMPARE(QString::fromStdString(r.refusal->code), code);
    QVERIFY(!r.refusal->message.empty());
    QCOMPARE(toQt(r.refusal->cases), cases);
    // Nothing written.
    QCOMPARE(f.auditEntries(), entries);
    QCOMPARE(*f.workspace->head(), *headBefore);
    auto stateAfter = f.workspace->proposal(p->hash);
    QVERIFY(stateAfter);
    QCOMPARE(stateAfter->has_value(), stateBefore->has_value());
    if (*stateAfter)
      QCOMPARE(name((*stateAfter)->state), name((*stateBefore)->state));
    QVERIFY(f.workspace->verifyAudit()->ok);
  }

  /// A real evaluation (examples, the gate over three corpus cases), then approval by another
  /// reviewer: one revision holding the definition; the compiler of the new head accepts the
  /// positive example. The same evaluation without the gate cannot be approved.
  void approveInstalls() {
    Fixture f;
    QVERIFY(f.init());
    auto p = load(f.folder);
    QVERIFY(p);
    proposal::Evaluation noGate = proposal::evaluateProposal(*p, dataPaths(), {}, nullptr);
    QCOMPARE(QString::fromStdString(noGate.verdict), QStringLiteral("clean"));
    QVERIFY(f.submit(proposal::toJson(noGate)));
    auto r0 = f.act(ws::Decision::Approve, "bob");
    QVERIFY(r0.refusal);
    QCOMPARE(QString::fromStdString(r0.refusal->code), QStringLiteral("prop-evaluation-not-clean"));

    SourceManager sources;
    DiagnosticEngine diags;
    auto manifest = driver::loadManifest(CAKE_CORPUS_DIR, sources, diags);
    QVERIFY(manifest);
    manifest->cases.resize(3);
    proposal::Evaluation ev = proposal::evaluateProposal(*p, dataPaths(), {}, &*manifest);
    QVERIFY(ev.gateRan);
    QCOMPARE(QString::fromStdString(ev.verdict), QStringLiteral("clean"));
    QVERIFY(f.submit(proposal::toJson(ev)));
    auto before = proposal::reviewStatus(*f.workspace, p->hash);
    QVERIFY(before);
    QCOMPARE(name(before->record.state), name(ws::ProposalState::Evaluated));
    QVERIFY(!before->approvalBlocked);

    auto r = f.act(ws::Decision::Approve, "bob", "xor is what the kernel needs");
    QVERIFY(r.outcome);
    QCOMPARE(name(r.outcome->state), name(ws::ProposalState::Approved));
    QCOMPARE(r.outcome->installedRevision, std::optional<std::int64_t>(2));
    QCOMPARE(*f.workspace->head(), std::int64_t(2));
    auto files = f.workspace->overlayFiles(2);
    QVERIFY(files);
    QCOMPARE(files->size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(files->front().path),
             QStringLiteral("elementwise/frag.xor.json"));
    QCOMPARE(files->front().content, p->files.front().content);

    auto after = proposal::reviewStatus(*f.workspace, p->hash);
    QVERIFY(after);
    QCOMPARE(name(after->record.state), name(ws::ProposalState::Approved));
    QCOMPARE(after->installedRevision, std::optional<std::int64_t>(2));
    QCOMPARE(after->votes.size(), std::size_t(1));
    QCOMPARE(name(after->votes[0].decision), name(ws::Decision::Approve));
    QCOMPARE(QString::fromStdString(after->approvalBlocked->code),
             QStringLiteral("prop-already-decided"));
    QVERIFY(f.workspace->verifyAudit()->ok);

    auto overlay = f.workspace->dataOverlay(2);
    QVERIFY(overlay);
    auto compiler = driver::Compiler::load(dataPaths(), *overlay);
    QVERIFY(compiler->ok());
    for (const proposal::Example& e : p->examples)
      QCOMPARE(compiler->check(e.path, e.content).accepted, e.positive);
    auto plain = driver::Compiler::load(dataPaths());
    for (const proposal::Example& e : p->examples)
      QVERIFY(!plain->check(e.path, e.content).accepted);
  }

  /// Changed gate cases approved only when each is accepted; the acceptances name the proposal
  /// and the new revision.
  void approveWithAcceptedChanges() {
    Fixture f;
    QVERIFY(f.init());
    auto hash = f.submit(report("regressions", {"k1"}, {"k2"}));
    QVERIFY(hash);
    auto st = proposal::reviewStatus(*f.workspace, *hash);
    QVERIFY(st);
    QCOMPARE(toQt(st->changedCases), (QStringList{"k1", "k2"}));
    QCOMPARE(QString::fromStdString(st->approvalBlocked->code),
             QStringLiteral("prop-unaccepted-change"));
    auto r = f.act(ws::Decision::Approve, "bob", "k1 was wrong before", {"k2", "k1"});
    QVERIFY(r.outcome);
    auto acc = f.workspace->gateAcceptances(*r.outcome->installedRevision);
    QVERIFY(acc);
    QCOMPARE(acc->size(), std::size_t(2));
    for (const ws::GateAcceptance& a : *acc) {
      QCOMPARE(a.proposal, std::optional<std::string>(*hash));
      QCOMPARE(QString::fromStdString(a.actor), QStringLiteral("bob"));
    }
    QCOMPARE(QString::fromStdString((*acc)[0].caseId), QStringLiteral("k1"));
    QCOMPARE(QString::fromStdString((*acc)[1].caseId), QStringLiteral("k2"));
  }

  /// New content at the same path makes the old one stale (with what superseded it); the
  /// folder's status names an unregistered content as stale; votes of the old content stay
  /// with it and the new one starts without any.
  void staleAfterNewContent() {
    Fixture f;
    QVERIFY(f.init());
    auto first = f.submit(report("clean"));
    QVERIFY(first);
    QVERIFY(f.act(ws::Decision::Comment, "bob", "one question").outcome);
    QVERIFY(appendTo(f.folder + "/examples/positive/xor.cake", "// v2\n"));
    auto p = load(f.folder);
    QVERIFY(p);
    auto unregistered = proposal::reviewStatus(*f.workspace, *p);
    QVERIFY(unregistered);
    QVERIFY(!unregistered->registered);
    QCOMPARE(name(unregistered->record.state), name(ws::ProposalState::Stale));
    QCOMPARE(unregistered->registeredAtPath, std::optional<std::string>(*first));
    QCOMPARE(QString::fromStdString(unregistered->approvalBlocked->code),
             QStringLiteral("prop-stale-content"));

    auto second = f.submit(report("clean"));
    QVERIFY(second);
    QVERIFY(*second != *first);
    auto old = proposal::reviewStatus(*f.workspace, *first);
    QVERIFY(old);
    QCOMPARE(name(old->record.state), name(ws::ProposalState::Stale));
    QCOMPARE(old->supersededBy, second);
    QCOMPARE(old->votes.size(), std::size_t(1));
    auto now = proposal::reviewStatus(*f.workspace, *second);
    QVERIFY(now);
    QCOMPARE(name(now->record.state), name(ws::ProposalState::Evaluated));
    QVERIFY(now->votes.empty());
    QVERIFY(!now->approvalBlocked);
    // The same folder named another way is the same path.
    auto other = load(f.dir.filePath("P/../P/"));
    QVERIFY(other);
    QCOMPARE(proposal::proposalPath(*other), proposal::proposalPath(*p));
  }

  /// request-changes and reject move the state; a comment does not; the status lists votes.
  void votes() {
    Fixture f;
    QVERIFY(f.init());
    auto hash = f.submit(report("clean"));
    QVERIFY(hash);
    auto r1 = f.act(ws::Decision::Comment, "bob", "why xor.b32?\n\x1b[2Jfake line");
    QVERIFY(r1.outcome);
    QCOMPARE(name(r1.outcome->state), name(ws::ProposalState::Evaluated));
    auto r2 = f.act(ws::Decision::RequestChanges, "carol", "add a negative example");
    QVERIFY(r2.outcome);
    QCOMPARE(name(r2.outcome->state), name(ws::ProposalState::ChangesRequested));
    auto r3 = f.act(ws::Decision::Reject, "carol", "not needed");
    QVERIFY(r3.outcome);
    QCOMPARE(name(r3.outcome->state), name(ws::ProposalState::Rejected));
    auto st = proposal::reviewStatus(*f.workspace, *hash);
    QVERIFY(st);
    QCOMPARE(st->votes.size(), std::size_t(3));
    QCOMPARE(name(st->votes[1].decision), name(ws::Decision::RequestChanges));
    QVERIFY(!st->installedRevision);
    QCOMPARE(*f.workspace->head(), std::int64_t(1));
    // Text shows control characters of a comment escaped (no terminal escape, no forged line).
    std::string text = proposal::toText(*st);
    QVERIFY(text.find("why xor.b32?\\x0a\\x1b[2Jfake line") != std::string::npos);
    QVERIFY(text.find('\x1b') == std::string::npos);
    // The JSON an agent reads back.
    std::string json = proposal::toJson(*st);
    QVERIFY(json.find("\"state\": \"rejected\"") != std::string::npos);
    QVERIFY(json.find("\"can_approve\": false") != std::string::npos);
    QVERIFY(json.find("\"code\": \"prop-already-decided\"") != std::string::npos);
  }

  /// The approved overlay replaces a head file with the same file name (as the evaluation's
  /// overlay did), wherever it lies, and keeps the others.
  void approvedOverlay() {
    Fixture f;
    QVERIFY(f.init());
    auto p = load(f.folder);
    QVERIFY(p);
    std::vector<ws::WorkspaceFile> head = {
        {ws::FileKind::Primitive, "misc/frag.xor.json", "old", {}},
        {ws::FileKind::Primitive, "misc/frag.other.json", "keep", {}},
        {ws::FileKind::Rule, "x/frag.xor.json", "rule", {}},
    };
    auto out = proposal::approvedOverlay(head, *p);
    QStringList got;
    for (const ws::WorkspaceFile& w : out)
      got << QString::fromStdString(std::string(ws::toString(w.kind)) + ":" + w.path);
    QCOMPARE(got, (QStringList{"primitive:elementwise/frag.xor.json",
                               "primitive:misc/frag.other.json", "rule:x/frag.xor.json"}));
  }
};

QTEST_GUILESS_MAIN(TestReview)
#include "tst_review.moc"
