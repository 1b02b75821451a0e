// The Proposals dock's data, built in background jobs: queue scan, one proposal's detail with its
// definition rendered readably, the lowering preview and a gate case's findings before / after.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/ProposalData.h"

#include "cake/Driver/Output.h"
#include "cake/Proposal/Review.h"
#include "cake/views/LoweredCode.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QSet>

#include <algorithm>

namespace cake::views {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

/// The folder of a proposal, without a trailing separator, absolute when it exists.
QString normalDir(const QString& dir) {
  QFileInfo fi(dir);
  return fi.exists() ? QDir::cleanPath(fi.absoluteFilePath()) : QDir::cleanPath(dir);
}

struct Loaded {
  std::optional<proposal::Proposal> proposal;
  QString findings;
};

Loaded loadFolder(const QString& dir) {
  Loaded out;
  SourceManager sources;
  DiagnosticEngine diags;
  out.proposal = proposal::loadProposal(dir.toStdString(), sources, diags);
  diags.sortByLocation();
  for (const Diagnostic& d : diags.diagnostics())
    out.findings += qs(driver::renderText(d, sources));
  return out;
}

/// The workspace, created on first use (the user chose its directory).
std::optional<ws::Workspace> openWorkspace(const QString& dir, QString& error) {
  if (dir.isEmpty())
    return std::nullopt;
  auto w = ws::Workspace::open(dir.toStdString(), ws::OpenMode::CreateIfMissing);
  if (!w) {
    error = qs(w.error().text());
    return std::nullopt;
  }
  return std::move(*w);
}

QString authorText(const proposal::Author& a) {
  return a.kind.empty() ? qs(a.name) : QStringLiteral("%1 (%2)").arg(qs(a.name), qs(a.kind));
}

QString authorFromRecord(const std::string& json) {
  QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
  QString kind = o.value("kind").toString();
  return kind.isEmpty() ? o.value("name").toString()
                        : QStringLiteral("%1 (%2)").arg(o.value("name").toString(), kind);
}

/// Fills state, turn and the approval refusal of `e` (the folder's current content `p`) from
/// the workspace.
void applyStatus(ProposalEntry& e, ws::Workspace* workspace, const proposal::Proposal& p) {
  if (!workspace) {
    e.state = QStringLiteral("unregistered");
    e.turn = ProposalTurn::NeedsEvaluation;
    return;
  }
  auto st = proposal::reviewStatus(*workspace, p);
  if (!st) {
    e.state = QStringLiteral("unreadable");
    e.turn = ProposalTurn::NeedsEvaluation;
    e.blocked = qs(st.error().text());
    return;
  }
  e.state = st->registered         ? qs(std::string(ws::toString(st->record.state)))
            : st->registeredAtPath ? QStringLiteral("new content")
                                   : QStringLiteral("unregistered");
  QString code = st->approvalBlocked ? qs(st->approvalBlocked->code) : QString();
  e.blocked = st->approvalBlocked ? qs(st->approvalBlocked->message) : QString();
  e.turn =
      proposalTurn(st->registered ? e.state : QString(), st->latestEvaluation.has_value(), code);
}

QString escape(const QString& s) {
  return s.toHtmlEscaped();
}

QString compact(const QJsonValue& v) {
  if (v.isString())
    return v.toString();
  if (v.isDouble())
    return QString::number(v.toDouble());
  if (v.isBool())
    return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
  if (v.isArray()) {
    QStringList parts;
    bool scalars = true;
    for (const QJsonValue& x : v.toArray())
      scalars &= !x.isObject() && !x.isArray();
    if (scalars) {
      for (const QJsonValue& x : v.toArray())
        parts << compact(x);
      return parts.join(QStringLiteral(", "));
    }
    return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
  }
  if (v.isObject())
    return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
  return {};
}

QString row(const QString& key, const QString& value) {
  return QStringLiteral("<tr><td valign=top><b>%1</b></td><td>%2</td></tr>")
      .arg(escape(key), escape(value));
}

QString table(const QStringList& header, const QList<QStringList>& rows) {
  QString h = QStringLiteral("<table border=1 cellspacing=0 cellpadding=3><tr>");
  for (const QString& c : header)
    h += QStringLiteral("<th align=left>%1</th>").arg(escape(c));
  h += "</tr>";
  for (const QStringList& r : rows) {
    h += "<tr>";
    for (const QString& c : r)
      h += QStringLiteral("<td valign=top>%1</td>").arg(escape(c));
    h += "</tr>";
  }
  return h + "</table>";
}

QString renderPrimitive(const QJsonObject& o) {
  QString h = QStringLiteral("<table>");
  h += row(QStringLiteral("name"), o.value("name").toString());
  h += row(QStringLiteral("category"), o.value("category").toString());
  h += row(QStringLiteral("summary"), o.value("summary").toString());
  h += row(QStringLiteral("targets"), compact(o.value("targets")));
  h += row(QStringLiteral("issued by"), o.value("issue").toString());
  h += "</table><h4>Operands</h4>";
  QList<QStringList> ops;
  for (const QJsonValue& v : o.value("operands").toArray()) {
    QJsonObject op = v.toObject();
    ops << QStringList{op.value("name").toString(),   op.value("kind").toString(),
                       compact(op.value("spaces")),   compact(op.value("dtypes")),
                       op.value("access").toString(), op.value("doc").toString()};
  }
  h += table({"operand", "kind", "spaces", "dtypes", "access", "meaning"}, ops);
  QList<QStringList> cons;
  for (const QJsonValue& v : o.value("constraints").toArray()) {
    QJsonObject c = v.toObject();
    cons << QStringList{c.value("check").toString(), c.value("code").toString(),
                        c.value("message").toString()};
  }
  if (!cons.isEmpty())
    h += "<h4>Constraints</h4>" + table({"check", "code", "message"}, cons);
  QStringList effects;
  for (const QJsonValue& v : o.value("effects").toArray()) {
    QJsonObject e = v.toObject();
    QStringList parts;
    for (auto it = e.begin(); it != e.end(); ++it)
      if (it.key() != QLatin1String("kind"))
        parts << QStringLiteral("%1 %2").arg(it.key(), compact(it.value()));
    effects << QStringLiteral("%1 (%2)").arg(e.value("kind").toString(), parts.join(", "));
  }
  if (!effects.isEmpty())
    h += "<h4>Effects</h4><p>" + escape(effects.join(QStringLiteral("; "))) + "</p>";
  QJsonObject hw = o.value("hardware").toObject();
  QJsonObject cost = o.value("cost").toObject();
  h += "<h4>Hardware and cost</h4><table>";
  for (auto it = hw.begin(); it != hw.end(); ++it)
    h += row(QStringLiteral("hardware.") + it.key(), compact(it.value()));
  for (auto it = cost.begin(); it != cost.end(); ++it)
    h += row(QStringLiteral("cost.") + it.key(), compact(it.value()));
  h += "</table>";
  // The semantic form the CPU interpreter runs (an expansion runs its steps instead).
  QJsonObject sem = o.value("semantics").toObject();
  if (!sem.isEmpty())
    h += "<h4>CPU semantics</h4><p><code>" + escape(sem.value("elementwise").toString()) +
         "</code> (" + escape(sem.value("dtype").toString(QStringLiteral("f32"))) + ")</p>";
  return h;
}

QString renderRule(const QJsonObject& o) {
  QString h = QStringLiteral("<table>");
  for (const char* key : {"code", "family", "severity", "title", "analysis", "kind"})
    if (o.contains(QLatin1String(key)))
      h += row(QString::fromLatin1(key), compact(o.value(QLatin1String(key))));
  h += "</table><h4>Pattern</h4><table>";
  for (const char* key : {"match", "require", "message", "bad", "good"})
    if (o.contains(QLatin1String(key)))
      h += row(QString::fromLatin1(key), compact(o.value(QLatin1String(key))));
  h += "</table>";
  if (o.contains("doc"))
    h += "<p>" + escape(o.value("doc").toString()) + "</p>";
  return h;
}

QString renderKeyValues(const QJsonObject& o) {
  QString h = QStringLiteral("<table>");
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (it.key().startsWith('$'))
      continue;
    if (it.value().isObject()) {
      QJsonObject inner = it.value().toObject();
      for (auto jt = inner.begin(); jt != inner.end(); ++jt)
        h += row(it.key() + "." + jt.key(), compact(jt.value()));
    } else {
      h += row(it.key(), compact(it.value()));
    }
  }
  return h + "</table>";
}

/// The manifest's case id → absolute kernel path.
QMap<QString, QString> manifestCases(const QString& manifest) {
  QMap<QString, QString> out;
  QFile f(manifest);
  if (manifest.isEmpty() || !f.open(QIODevice::ReadOnly))
    return out;
  QDir dir = QFileInfo(manifest).absoluteDir();
  const QJsonArray cases = QJsonDocument::fromJson(f.readAll()).object().value("cases").toArray();
  for (const QJsonValue& c : cases)
    out.insert(c.toObject().value("id").toString(),
               dir.absoluteFilePath(c.toObject().value("path").toString()));
  return out;
}

void readReport(ProposalDetail& d, const std::string& report, const QMap<QString, QString>& cases) {
  QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(report)).object();
  d.verdict = o.value("verdict").toString();
  for (const QJsonValue& v : o.value("examples").toArray()) {
    QJsonObject e = v.toObject();
    QStringList codes;
    for (const QJsonValue& c : e.value("codes").toArray())
      codes << c.toString();
    d.examples << ProposalExampleRow{e.value("path").toString(),
                                     e.value("expected").toString(),
                                     e.value("observed").toString(),
                                     e.value("observed_without_proposal").toString(),
                                     codes.join(", "),
                                     e.value("problem").toString(),
                                     e.value("ok").toBool(),
                                     e.value("lowered_to_ptx").toBool()};
  }
  QJsonObject gate = o.value("gate").toObject();
  d.gateRan = o.value("gate").isObject();
  // One row per case with every group it is in, the verdict changes first: a rule that refuses
  // six kernels also changes their findings, predictions and code.
  for (const char* group : {"newly_accepted", "newly_rejected", "changed_findings",
                            "changed_predictions", "changed_code"})
    for (const QJsonValue& v : gate.value(QLatin1String(group)).toArray()) {
      auto it = std::find_if(d.deltas.begin(), d.deltas.end(),
                             [&](const ProposalDeltaRow& r) { return r.caseId == v.toString(); });
      if (it != d.deltas.end())
        it->group += ", " + QString::fromLatin1(group);
      else
        d.deltas << ProposalDeltaRow{QString::fromLatin1(group), v.toString(),
                                     cases.value(v.toString())};
    }
  for (const QJsonValue& v : o.value("cpu_semantics").toArray())
    d.cpuSemantics << v.toObject().value("primitive").toString() + QStringLiteral(": ") +
                          v.toObject().value("text").toString();
  d.mismatchedBefore = gate.value("mismatched_before").toInt();
  d.mismatchedAfter = gate.value("mismatched_after").toInt();
}

std::optional<DataOverlay> headOverlay(const QString& workspace, QString& error) {
  std::optional<ws::Workspace> w = openWorkspace(workspace, error);
  if (!w)
    return error.isEmpty() ? std::optional<DataOverlay>(DataOverlay{}) : std::nullopt;
  auto head = w->head();
  auto o = head ? w->dataOverlay(*head) : ws::Expected<DataOverlay>(head.error());
  if (!o) {
    error = qs(o.error().text());
    return std::nullopt;
  }
  return std::move(*o);
}

QStringList findingLines(const driver::CheckResult& r) {
  QStringList out;
  for (const Diagnostic& d : r.diagnostics) {
    LineColumn lc = r.sources->lineColumn(d.range.file, d.range.begin);
    out << QStringLiteral("%1 %2:%3 %4")
               .arg(qs(d.code))
               .arg(lc.line)
               .arg(lc.column)
               .arg(qs(d.message));
  }
  return out;
}

} // namespace

QString proposalTurnName(ProposalTurn turn) {
  switch (turn) {
  case ProposalTurn::NeedsEvaluation:
    return QStringLiteral("needs evaluation");
  case ProposalTurn::Reviewer:
    return QStringLiteral("reviewer");
  case ProposalTurn::AuthorChanges:
    return QStringLiteral("author: changes requested");
  case ProposalTurn::Done:
    return QStringLiteral("done");
  case ProposalTurn::Stale:
    return QStringLiteral("stale");
  case ProposalTurn::Invalid:
    return QStringLiteral("invalid");
  }
  return {};
}

ProposalTurn proposalTurn(const QString& state, bool evaluated, const QString& blockedCode) {
  if (state == QLatin1String("approved") || state == QLatin1String("rejected"))
    return ProposalTurn::Done;
  if (state == QLatin1String("stale") || blockedCode == QLatin1String("prop-stale-content"))
    return ProposalTurn::Stale;
  if (state == QLatin1String("changes-requested"))
    return ProposalTurn::AuthorChanges;
  if (state.isEmpty() || !evaluated)
    return ProposalTurn::NeedsEvaluation;
  // Evaluated, but at an older head: the evaluation has to run again before anyone decides.
  if (blockedCode == QLatin1String("prop-stale-evaluation"))
    return ProposalTurn::Stale;
  return ProposalTurn::Reviewer;
}

ProposalQueue scanProposals(const QStringList& roots, const QStringList& extra,
                            const QString& workspace) {
  ProposalQueue q;
  q.workspace = workspace;
  QSet<QString> dirs;
  for (const QString& root : roots) {
    if (QFileInfo::exists(QDir(root).filePath(QStringLiteral("proposal.json")))) {
      dirs.insert(normalDir(root));
      continue;
    }
    const QFileInfoList subs =
        QDir(root).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QFileInfo& s : subs)
      if (QFileInfo::exists(QDir(s.filePath()).filePath(QStringLiteral("proposal.json"))))
        dirs.insert(normalDir(s.filePath()));
  }
  for (const QString& e : extra)
    dirs.insert(normalDir(e));
  std::optional<ws::Workspace> w = openWorkspace(workspace, q.error);
  std::vector<ws::ProposalRecord> records;
  if (w) {
    if (auto h = w->head())
      q.head = *h;
    if (auto r = w->proposals())
      records = std::move(*r);
    else
      q.error = qs(r.error().text());
    for (const ws::ProposalRecord& r : records)
      dirs.insert(normalDir(qs(r.path)));
  }
  QStringList sorted(dirs.begin(), dirs.end());
  sorted.sort();
  for (const QString& dir : sorted) {
    ProposalEntry e;
    e.dir = dir;
    Loaded l = loadFolder(dir);
    if (l.proposal) {
      e.hash = qs(l.proposal->hash);
      e.kind = qs(std::string(proposal::toString(l.proposal->kind)));
      e.title = qs(l.proposal->title);
      e.author = authorText(l.proposal->author);
      applyStatus(e, w ? &*w : nullptr, *l.proposal);
    } else {
      // The folder is gone or broken: the newest record registered from it, if any.
      const ws::ProposalRecord* rec = nullptr;
      for (const ws::ProposalRecord& r : records)
        if (normalDir(qs(r.path)) == dir)
          rec = &r;
      e.state = QStringLiteral("invalid");
      e.turn = ProposalTurn::Invalid;
      if (rec) {
        e.kind = qs(std::string(ws::toString(rec->kind)));
        e.title = qs(rec->title);
        e.author = authorFromRecord(rec->author);
      } else {
        e.title = QFileInfo(dir).fileName();
      }
      e.blocked = l.findings.section('\n', 0, 0);
    }
    q.entries << e;
  }
  return q;
}

QString renderDefinitionHtml(const QString& kind, const QString& name, const QString& content) {
  QJsonParseError err{};
  QJsonDocument doc = QJsonDocument::fromJson(content.toUtf8(), &err);
  QString h = QStringLiteral("<h3>%1 <small>(%2)</small></h3>").arg(escape(name), escape(kind));
  if (err.error != QJsonParseError::NoError || !doc.isObject())
    return h + "<pre>" + escape(content) + "</pre>";
  QJsonObject o = doc.object();
  if (kind == QLatin1String("primitive"))
    return h + renderPrimitive(o);
  if (kind == QLatin1String("rule"))
    return h + renderRule(o);
  return h + renderKeyValues(o);
}

QString loweringTemplateText(const QString& content) {
  QJsonObject lowering =
      QJsonDocument::fromJson(content.toUtf8()).object().value("lowering").toObject();
  if (lowering.isEmpty())
    return {};
  QString out = QStringLiteral("strategy: %1").arg(lowering.value("strategy").toString());
  for (auto it = lowering.begin(); it != lowering.end(); ++it) {
    if (it.key() == QLatin1String("strategy"))
      continue;
    if (it.value().isArray()) {
      out += QStringLiteral("\n%1:").arg(it.key());
      for (const QJsonValue& v : it.value().toArray())
        out += "\n  " + (v.isString() ? v.toString() : compact(v));
    } else {
      out += QStringLiteral("\n%1: %2").arg(it.key(), compact(it.value()));
    }
  }
  return out;
}

ProposalDetail buildProposalDetail(const QString& dir, const QString& workspace,
                                   const QString& manifest) {
  ProposalDetail d;
  d.entry.dir = normalDir(dir);
  Loaded l = loadFolder(d.entry.dir);
  if (!l.proposal) {
    d.loadFindings = l.findings;
    d.entry.state = QStringLiteral("invalid");
    d.entry.turn = ProposalTurn::Invalid;
    d.entry.title = QFileInfo(d.entry.dir).fileName();
    return d;
  }
  const proposal::Proposal& p = *l.proposal;
  d.entry.hash = qs(p.hash);
  d.entry.kind = qs(std::string(proposal::toString(p.kind)));
  d.entry.title = qs(p.title);
  d.entry.author = authorText(p.author);
  d.authorName = qs(p.author.name);
  d.motivation = qs(p.motivation);
  QDir base(d.entry.dir);
  for (const proposal::DefinitionFile& f : p.files) {
    QString content = qs(f.content);
    QString kind = qs(std::string(proposal::toString(f.kind)));
    d.definitionHtml += renderDefinitionHtml(kind, qs(f.name), content);
    if (f.kind == proposal::Kind::Primitive && d.loweringTemplate.isEmpty())
      d.loweringTemplate = loweringTemplateText(content);
  }
  for (const proposal::Example& e : p.examples)
    if (e.positive && d.previewExample.isEmpty())
      d.previewExample = base.absoluteFilePath(qs(e.path));
  QMap<QString, QString> cases = manifestCases(manifest);
  for (const std::string& ev : p.evidence) {
    QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(ev)).object();
    ProposalEvidence e;
    // "kind: value" first (what the evidence is), then its other fields.
    QStringList parts;
    if (o.contains("kind"))
      parts << compact(o.value("kind")) + ":";
    for (auto it = o.begin(); it != o.end(); ++it)
      if (it.key() != QLatin1String("kind"))
        parts << QStringLiteral("%1 %2;").arg(it.key(), compact(it.value()));
    e.text = o.isEmpty() ? qs(ev) : parts.join(' ');
    e.text.chop(e.text.endsWith(';') ? 1 : 0);
    QString path = o.value("path").toString();
    // Only a kernel inside the proposal folder or a corpus case: evidence is untrusted text.
    if (path.endsWith(QLatin1String(".cake")) && !QDir::isAbsolutePath(path) &&
        !path.contains(QLatin1String("..")))
      e.target = base.absoluteFilePath(path);
    else if (cases.contains(o.value("case").toString()))
      e.target = cases.value(o.value("case").toString());
    d.evidence << e;
  }
  QString error;
  std::optional<ws::Workspace> w = openWorkspace(workspace, error);
  if (!w) {
    d.entry.state = QStringLiteral("unregistered");
    d.entry.turn = ProposalTurn::NeedsEvaluation;
    d.blockedCode = QStringLiteral("no-workspace");
    d.blockedMessage =
        error.isEmpty() ? QStringLiteral("no workspace is open (File > Open Workspace)") : error;
    return d;
  }
  applyStatus(d.entry, &*w, p);
  auto st = proposal::reviewStatus(*w, p);
  if (!st) {
    d.blockedCode = qs(std::string(ws::toString(st.error().code)));
    d.blockedMessage = qs(st.error().message);
    return d;
  }
  d.head = st->head;
  d.canApprove = !st->approvalBlocked.has_value();
  if (st->approvalBlocked) {
    d.blockedCode = qs(st->approvalBlocked->code);
    d.blockedMessage = qs(st->approvalBlocked->message);
  }
  for (const std::string& c : st->changedCases)
    d.changedCases << qs(c);
  for (const ws::Vote& v : st->votes)
    d.votes << ProposalVoteRow{qs(v.reviewer), qs(std::string(ws::toString(v.decision))),
                               qs(v.comment), qs(v.createdAt)};
  if (st->latestEvaluation) {
    d.evaluated = true;
    d.evaluationRevision = st->latestEvaluation->revision;
    readReport(d, st->latestEvaluation->report, cases);
  }
  return d;
}

ProposalPreview buildProposalPreview(const QString& dir, const QString& workspace,
                                     const driver::DataPaths& paths) {
  ProposalPreview out;
  out.dir = normalDir(dir);
  Loaded l = loadFolder(out.dir);
  if (!l.proposal) {
    out.message = QStringLiteral("the proposal does not load:\n") + l.findings;
    return out;
  }
  const proposal::Example* example = nullptr;
  for (const proposal::Example& e : l.proposal->examples)
    if (e.positive && !example)
      example = &e;
  if (!example) {
    out.message = QStringLiteral("the proposal has no positive example to lower");
    return out;
  }
  out.example = QDir(out.dir).absoluteFilePath(qs(example->path));
  QString error;
  std::optional<DataOverlay> head = headOverlay(workspace, error);
  if (!head) {
    out.message = error;
    return out;
  }
  auto compiler = std::shared_ptr<const driver::Compiler>(
      driver::Compiler::load(paths, proposal::proposalOverlay(*l.proposal, std::move(*head))));
  if (!compiler->ok()) {
    out.message =
        QStringLiteral("the proposal's definitions do not load (evaluate it for the findings)");
    return out;
  }
  auto check = std::make_shared<CheckSnapshot>();
  check->path = out.example;
  check->text = qs(example->content);
  check->result = compiler->check(example->path, example->content);
  LowerSnapshotPtr lowered = buildLowerSnapshot(*compiler, check, LoweredEmit::Ptx, 0);
  out.ok = lowered->ok;
  out.ptx = lowered->text;
  out.message = lowered->ok ? QString() : lowered->unavailable;
  return out;
}

CaseComparison compareCase(const QString& dir, const QString& caseId, const QString& path,
                           const QString& workspace, const driver::DataPaths& paths) {
  CaseComparison out;
  out.dir = normalDir(dir);
  out.caseId = caseId;
  out.path = path;
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    out.error = QStringLiteral("cannot read '%1': %2").arg(path, f.errorString());
    return out;
  }
  std::string text = f.readAll().toStdString();
  Loaded l = loadFolder(out.dir);
  QString error;
  std::optional<DataOverlay> head = headOverlay(workspace, error);
  if (!l.proposal || !head) {
    out.error = l.proposal ? error : QStringLiteral("the proposal does not load");
    return out;
  }
  auto before = driver::Compiler::load(paths, *head);
  auto after = driver::Compiler::load(paths, proposal::proposalOverlay(*l.proposal, *head));
  driver::CheckResult rb = before->check(path.toStdString(), text);
  driver::CheckResult ra = after->check(path.toStdString(), text);
  out.acceptedBefore = rb.accepted;
  out.acceptedAfter = ra.accepted;
  out.before = findingLines(rb);
  out.after = findingLines(ra);
  return out;
}

} // namespace cake::views
