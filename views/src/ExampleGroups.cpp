// Examples menu data: corpus manifest cases and proposals' examples grouped and sorted.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/ExampleGroups.h"

#include "cake/Support/Diagnostic.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QSet>
#include <QRegularExpression>
#include <QTextStream>

#include <algorithm>

namespace cake::views {

namespace {

/// Natural order, case-insensitive: digit runs compare by value ("k2" before "k10",
/// "tma-box-800" before "tma-box-1024"). QCollator's numeric mode needs ICU, which the Qt
/// build may lack, so it is done here.
bool naturalLess(const QString& a, const QString& b) {
  qsizetype i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].isDigit() && b[j].isDigit()) {
      qsizetype ei = i, ej = j;
      while (ei < a.size() && a[ei].isDigit())
        ++ei;
      while (ej < b.size() && b[ej].isDigit())
        ++ej;
      // Compare by value without overflow: strip leading zeros, then length, then digits.
      QStringView da = QStringView(a).mid(i, ei - i), db = QStringView(b).mid(j, ej - j);
      while (da.size() > 1 && da.front() == QLatin1Char('0'))
        da = da.mid(1);
      while (db.size() > 1 && db.front() == QLatin1Char('0'))
        db = db.mid(1);
      if (da.size() != db.size())
        return da.size() < db.size();
      if (int c = da.compare(db); c != 0)
        return c < 0;
      i = ei;
      j = ej;
      continue;
    }
    QChar ca = a[i].toCaseFolded(), cb = b[j].toCaseFolded();
    if (ca != cb)
      return ca < cb;
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

void sortGroup(ExampleGroup& g) {
  std::stable_sort(
      g.entries.begin(), g.entries.end(),
      [](const ExampleEntry& a, const ExampleEntry& b) { return naturalLess(a.label, b.label); });
  for (ExampleGroup& sub : g.groups)
    sortGroup(sub);
}

/// "Program safety (ps-)" for a code's family prefix; the prefix itself when no family has it.
QString familyTitle(const QString& code) {
  static const Family families[] = {Family::ProgramSafety,   Family::HardwareConformance,
                                    Family::DataConsistency, Family::ScheduleSemantics,
                                    Family::Performance,     Family::Syntax,
                                    Family::Definition};
  for (Family f : families) {
    QString prefix = QString::fromUtf8(familyPrefix(f).data(), qsizetype(familyPrefix(f).size()));
    if (code.startsWith(prefix)) {
      QString name = QString::fromUtf8(toString(f).data(), qsizetype(toString(f).size()));
      name.replace(QLatin1Char('-'), QLatin1Char(' '));
      name[0] = name[0].toUpper();
      return QStringLiteral("%1 (%2)").arg(name, prefix);
    }
  }
  return code.isEmpty() ? QStringLiteral("Other") : code.section(QLatin1Char('-'), 0, 0);
}

QString folderTitle(const QString& folder) {
  if (folder == QLatin1String("negative"))
    return QStringLiteral("Negative kernels");
  if (folder == QLatin1String("numerical"))
    return QStringLiteral("Numerical (wrong results)");
  QString t = folder;
  t.replace(QLatin1Char('_'), QLatin1Char(' '));
  if (!t.isEmpty())
    t[0] = t[0].toUpper();
  return t;
}

void addProposals(const QString& corpusDir, QList<ExampleGroup>& out) {
  ExampleGroup proposals{QStringLiteral("Proposals' examples"), {}, {}};
  QDir root(QDir(corpusDir).filePath(QStringLiteral("proposals")));
  const QStringList names = root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
  for (const QString& name : names) {
    ExampleGroup g{name, {}, {}};
    QDir examples(root.filePath(name + QStringLiteral("/examples")));
    QDirIterator it(examples.path(), {QStringLiteral("*.cake")}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
      QString path = it.next();
      QString rel = examples.relativeFilePath(path);
      rel.chop(5); // ".cake"
      g.entries.append({QStringLiteral("proposals/%1/%2").arg(name, rel), rel,
                        QFileInfo(path).absoluteFilePath()});
    }
    if (!g.entries.isEmpty())
      proposals.groups.append(g);
  }
  if (!proposals.groups.isEmpty())
    out.append(proposals);
}

} // namespace

int ExampleGroup::size() const {
  int n = int(entries.size());
  for (const ExampleGroup& g : groups)
    n += g.size();
  return n;
}

QString kernelTarget(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text))
    return {};
  static const QRegularExpression kernel(
      QStringLiteral("^\\s*kernel\\s+\\w+\\s+.*\\btarget\\s*=\\s*([A-Za-z0-9_]+)"));
  QTextStream in(&f);
  for (int i = 0; i < 200 && !in.atEnd(); ++i) {
    QRegularExpressionMatch m = kernel.match(in.readLine());
    if (m.hasMatch())
      return m.captured(1);
  }
  return {};
}

QList<ExampleGroup> groupExamples(const QString& corpusDir) {
  QDir dir(corpusDir);
  QList<ExampleGroup> out;
  QFile manifest(dir.filePath(QStringLiteral("manifest.json")));
  if (!manifest.open(QIODevice::ReadOnly)) {
    ExampleGroup files{QStringLiteral("Kernels"), {}, {}};
    const QFileInfoList list = dir.entryInfoList({QStringLiteral("*.cake")}, QDir::Files);
    for (const QFileInfo& f : list)
      files.entries.append({f.fileName(), f.completeBaseName(), f.absoluteFilePath()});
    if (!files.entries.isEmpty())
      out.append(files);
  } else {
    struct Case {
      QString id, path, folder, firstCode;
    };
    QList<Case> cases;
    QMap<QString, int> perFolder;
    // A folder of expert kernels (every case accepted and expected to compute the right thing,
    // e.g. hopper_gemm's two schedules) stays in the expert group; negatives and numerical cases
    // get their own submenus.
    QSet<QString> notExpert{QStringLiteral("negative"), QStringLiteral("numerical")};
    const QJsonArray list =
        QJsonDocument::fromJson(manifest.readAll()).object().value("cases").toArray();
    for (const QJsonValue& v : list) {
      QJsonObject o = v.toObject();
      QString rel = o.value("path").toString();
      if (rel.isEmpty())
        continue;
      QString folder =
          rel.contains(QLatin1Char('/')) ? rel.section(QLatin1Char('/'), 0, 0) : QString();
      QJsonObject expect = o.value("expect").toObject();
      QJsonArray codes = expect.value("codes").toArray();
      if (!expect.value("accepted").toBool() ||
          (expect.contains("run") && !expect.value("run").toObject().value("correct").toBool()))
        notExpert.insert(folder);
      cases.append({o.value("id").toString(), QFileInfo(dir.filePath(rel)).absoluteFilePath(),
                    folder, codes.isEmpty() ? QString() : codes.first().toString()});
      ++perFolder[folder];
    }
    ExampleGroup expert{QStringLiteral("Expert kernels"), {}, {}};
    QMap<QString, ExampleGroup> folders; // ordered by folder name
    for (const Case& c : cases) {
      QString label = QFileInfo(c.path).completeBaseName();
      if (c.folder.isEmpty() || perFolder.value(c.folder) == 1 || !notExpert.contains(c.folder)) {
        QString target = kernelTarget(c.path);
        QString name = c.id.isEmpty() ? label : c.id;
        expert.entries.append(
            {c.id, target.isEmpty() ? name : QStringLiteral("%1 (%2)").arg(name, target), c.path});
        continue;
      }
      ExampleGroup& g = folders[c.folder];
      g.title = folderTitle(c.folder);
      if (c.folder == QLatin1String("negative")) {
        // Negatives by the family of the finding they exist for.
        QString family = familyTitle(c.firstCode);
        auto sub = std::find_if(g.groups.begin(), g.groups.end(),
                                [&](const ExampleGroup& s) { return s.title == family; });
        if (sub == g.groups.end()) {
          g.groups.append({family, {}, {}});
          sub = g.groups.end() - 1;
        }
        sub->entries.append({c.id, label, c.path});
      } else {
        g.entries.append({c.id, label, c.path});
      }
    }
    if (!expert.entries.isEmpty())
      out.append(expert);
    // Negatives first (the largest teaching set), then the other folders by name.
    if (folders.contains(QStringLiteral("negative"))) {
      ExampleGroup neg = folders.take(QStringLiteral("negative"));
      std::sort(neg.groups.begin(), neg.groups.end(),
                [](const ExampleGroup& a, const ExampleGroup& b) { return a.title < b.title; });
      out.append(neg);
    }
    for (const ExampleGroup& g : std::as_const(folders))
      out.append(g);
  }
  addProposals(corpusDir, out);
  for (ExampleGroup& g : out)
    sortGroup(g);
  return out;
}

} // namespace cake::views
