// Findings export for the workbench (copy as text/JSON/SARIF, Explain): thin wrappers over the
// compiler's writers so the workbench and `cake check`/`cake explain` never disagree.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/FindingsExport.h"

#include "cake/Driver/Output.h"
#include "cake/Driver/Reports.h"
#include "cake/Driver/Sarif.h"
#include "cake/Registry/Registry.h"

#include <algorithm>

namespace cake::views {

QString exportFindings(const driver::Compiler& compiler, const CheckSnapshot& snapshot,
                       const std::vector<std::size_t>* indices, FindingsFormat format) {
  const driver::CheckResult& r = snapshot.result;
  const std::string path = snapshot.path.toStdString();
  switch (format) {
  case FindingsFormat::Json:
    return QString::fromStdString(driver::checkJson(compiler, path, r, indices));
  case FindingsFormat::Sarif: {
    driver::SarifFile file{path, &r, {}, indices};
    return QString::fromStdString(driver::toSarif(compiler, {file}));
  }
  case FindingsFormat::Text:
    break;
  }
  std::string out;
  auto add = [&](const Diagnostic& d) { out += driver::renderText(d, *r.sources); };
  if (indices) {
    for (std::size_t i : *indices)
      if (i < r.diagnostics.size())
        add(r.diagnostics[i]);
  } else {
    for (const Diagnostic& d : r.diagnostics)
      add(d);
  }
  return QString::fromStdString(out);
}

QString explainCode(const driver::Compiler& compiler, const QString& code) {
  const verify::Rule* rule = compiler.rules().find(code.toStdString());
  return rule ? QString::fromStdString(driver::explainText(compiler, *rule)) : QString();
}

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s).toHtmlEscaped();
}
QString q(std::string_view s) {
  return q(std::string(s));
}

/// A code block that keeps its indentation but wraps long lines instead of widening the pane.
QString codeBlock(const std::string& text) {
  return QStringLiteral("<pre style=\"white-space: pre-wrap\">%1</pre>").arg(q(text));
}

} // namespace

QString explainHtml(const driver::Compiler& compiler, const QString& code) {
  const verify::Rule* rule = compiler.rules().find(code.toStdString());
  if (!rule)
    return {};
  QString html =
      QStringLiteral("<p><b>%1</b> — %2<br/><small>%3, %4; analysis: %5; %6 "
                     "rule</small></p>")
          .arg(q(rule->code), q(rule->title), q(toString(rule->family)),
               q(toString(rule->severity)), q(rule->analysis), q(verify::toString(rule->kind)));
  // Paragraphs of the documentation are separated by blank lines in the rule files.
  const QStringList paragraphs =
      QString::fromStdString(rule->doc).split(QStringLiteral("\n\n"), Qt::SkipEmptyParts);
  for (const QString& para : paragraphs)
    html += QStringLiteral("<p>%1</p>").arg(para.trimmed().toHtmlEscaped());
  if (!rule->bad.empty())
    html += QStringLiteral("<p><b>Bad:</b></p>") + codeBlock(rule->bad);
  if (!rule->good.empty())
    html += QStringLiteral("<p><b>Good:</b></p>") + codeBlock(rule->good);
  if (rule->pattern)
    html += QStringLiteral("<p><b>Pattern:</b></p>") + codeBlock(rule->pattern->require);
  std::vector<std::string> prims;
  for (const auto& p : compiler.registry().all())
    for (const reg::ConstraintDef& c : p->constraints)
      if (c.code == rule->code && std::find(prims.begin(), prims.end(), p->name) == prims.end())
        prims.push_back(p->name);
  if (!prims.empty()) {
    QStringList names;
    for (const std::string& p : prims)
      names << QStringLiteral("<code>%1</code>").arg(q(p));
    html += QStringLiteral("<p><b>Reported by primitive constraints of:</b> %1</p>")
                .arg(names.join(QStringLiteral(", ")));
  }
  std::vector<reg::RequirementRef> reqs = driver::requirementsOf(compiler.registry(), *rule);
  if (!reqs.empty()) {
    bool gaps = reqs.front().requirement->status == reg::RequirementStatus::Unchecked;
    html += QStringLiteral("<p><b>%1 (%2):</b></p><ul>")
                .arg(gaps ? QStringLiteral("Requirements no rule checks")
                          : QStringLiteral("Checks these requirements"))
                .arg(reqs.size());
    for (const reg::RequirementRef& ref : reqs) {
      html += QStringLiteral("<li><code>%1/%2</code>: %3")
                  .arg(q(ref.primitive->name), q(ref.requirement->id), q(ref.requirement->text));
      if (gaps)
        html += QStringLiteral("<br/><i>not checked:</i> %1").arg(q(ref.requirement->reason));
      html += QStringLiteral("</li>");
    }
    html += QStringLiteral("</ul>");
  }
  return html;
}

} // namespace cake::views
