// Shared helpers of the compiler tests: a compiler loaded from the source tree and shortcuts
// to parse/check text.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"
#include "cake/Parse/Parser.h"

#include <QDir>
#include <QDirIterator>
#include <QString>
#include <QStringList>
#include <memory>
#include <string>

namespace cake::test {

/// The compiler with the repository's primitives and targets (loaded once per test binary).
inline const driver::Compiler& compiler() {
  static std::unique_ptr<driver::Compiler> c =
      driver::Compiler::load({std::string(CAKE_SOURCE_DIR) + "/compiler/primitives",
                              std::string(CAKE_SOURCE_DIR) + "/compiler/targets",
                              std::string(CAKE_SOURCE_DIR) + "/compiler/rules"});
  return *c;
}

/// "code@line:col" of every finding, for compact comparisons.
inline QStringList codes(const std::vector<Diagnostic>& diags, const SourceManager& sources) {
  QStringList out;
  for (const Diagnostic& d : diags) {
    QString where;
    if (sources.contains(d.range.file)) {
      LineColumn lc = sources.lineColumn(d.range.file, d.range.begin);
      where = QStringLiteral("@%1:%2").arg(lc.line).arg(lc.column);
    }
    out << QString::fromStdString(d.code) + where;
  }
  return out;
}

inline QString messages(const std::vector<Diagnostic>& diags) {
  QStringList out;
  for (const Diagnostic& d : diags)
    out << QString::fromStdString("[" + d.code + "] " + d.message);
  return out.join(QStringLiteral("\n"));
}

#ifdef CAKE_CORPUS_DIR
/// Which corpus kernels corpusKernels() lists.
enum class CorpusKernels {
  All,      ///< positive and negative kernels
  Positive, ///< without negative/
};

/// The corpus's kernels, absolute paths, sorted. Never the proposals' examples (judged by
/// `cake proposal evaluate`) nor campaign candidates, refused ones among them (judged by
/// `cake campaign import`).
inline QStringList corpusKernels(CorpusKernels which) {
  const QDir corpus(QStringLiteral(CAKE_CORPUS_DIR));
  QStringList paths;
  QDirIterator it(corpus.path(), {QStringLiteral("*.cake")}, QDir::Files,
                  QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString p = it.next();
    const QString top = corpus.relativeFilePath(p).section(QLatin1Char('/'), 0, 0);
    if (top == QLatin1String("proposals") || top == QLatin1String("campaigns") ||
        (which == CorpusKernels::Positive && top == QLatin1String("negative")))
      continue;
    paths << p;
  }
  paths.sort();
  return paths;
}
#endif

} // namespace cake::test
