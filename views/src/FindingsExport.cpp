// Findings export for the workbench (copy as text/JSON/SARIF, Explain): thin wrappers over the
// compiler's writers so the workbench and `cake check`/`cake explain` never disagree.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/FindingsExport.h"

#include "cake/Driver/Output.h"
#include "cake/Driver/Reports.h"
#include "cake/Driver/Sarif.h"

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

} // namespace cake::views
