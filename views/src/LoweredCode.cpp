// Lowering and ptxas jobs of the code view, and the lowered-line ↔ .cake-line mapping.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/LoweredCode.h"

#include "cake/views/GutterMetrics.h"

#include "cake/Driver/Compiler.h"
#include "cake/Lower/CudaEmitter.h"
#include "cake/Lower/Sass.h"
#include "cake/Lower/Toolchain.h"
#include "cake/LowerLLVM/LlvmBackend.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <algorithm>

namespace cake::views {

QString loweredEmitName(LoweredEmit kind) {
  switch (kind) {
  case LoweredEmit::Ptx:
    return QStringLiteral("PTX");
  case LoweredEmit::LlvmIr:
    return QStringLiteral("LLVM IR");
  case LoweredEmit::Cuda:
    return QStringLiteral("CUDA");
  case LoweredEmit::Sass:
    return QStringLiteral("SASS");
  }
  return {};
}

// ------------------------------------------------------------------------------ filters

int FilteredLines::shownLine(int line) const {
  auto it = std::lower_bound(original.begin(), original.end(), line);
  return it != original.end() && *it == line ? int(it - original.begin()) + 1 : 0;
}

FilteredLines filterLowered(const QString& text, const LoweredFilter& filter) {
  FilteredLines out;
  const QStringList lines = text.split(QLatin1Char('\n'));
  QStringList kept;
  for (int i = 0; i < lines.size(); ++i) {
    const QString t = lines[i].trimmed();
    bool hide = (filter.hideLoc && t.startsWith(QLatin1String(".loc")) &&
                 (t.size() == 4 || t[4].isSpace())) ||
                (filter.hideAsmMarkers && (t == QLatin1String("// begin inline asm") ||
                                           t == QLatin1String("// end inline asm")));
    if (hide)
      continue;
    kept << lines[i];
    out.original << i + 1;
  }
  out.text = kept.join(QLatin1Char('\n'));
  return out;
}

// ------------------------------------------------------------------------------ line map

LoweredLineMap LoweredLineMap::build(const QString& text, LoweredEmit kind,
                                     const QString& sourcePath, const QString& cudaExport) {
  LoweredLineMap m;
  const QStringList lines = text.split('\n');
  m.m_source.fill(0, lines.size());
  auto take = [&m](const std::vector<int>& from) {
    for (int i = 0; i < m.m_source.size() && i < int(from.size()); ++i)
      m.m_source[i] = from[size_t(i)];
  };
  if (kind == LoweredEmit::Sass) {
    // Each instruction takes the innermost location of the latest `//## File` comment that is
    // in the .cake file, or in the CUDA export (then mapped through its `// L<n>:` comments).
    std::vector<int> cuda;
    if (!cudaExport.isEmpty())
      cuda = lower::cudaIrLines(cudaExport.toStdString());
    take(lower::sassIrLines(text.toStdString(), sourcePath.toStdString(),
                            cudaExport.isEmpty() ? nullptr : &cuda));
  } else if (kind == LoweredEmit::Ptx) {
    // `.file N "path"` entries (LLVM prints them after the code); `.loc N line col` sets the
    // source line of the instructions that follow, up to the next `.loc` or the end of the
    // function.
    static const QRegularExpression fileRe(QStringLiteral(R"(^\s*\.file\s+(\d+)\s+"([^"]*)\")"));
    static const QRegularExpression locRe(QStringLiteral(R"(^\s*\.loc\s+(\d+)\s+(\d+))"));
    QSet<int> files;
    int fileEntries = 0;
    QString wanted = QFileInfo(sourcePath).fileName();
    for (const QString& l : lines)
      if (auto f = fileRe.match(l); f.hasMatch()) {
        ++fileEntries;
        if (f.captured(2) == sourcePath || QFileInfo(f.captured(2)).fileName() == wanted)
          files.insert(f.captured(1).toInt());
      }
    int cur = 0;
    for (int i = 0; i < lines.size(); ++i) {
      const QString& l = lines[i];
      if (auto loc = locRe.match(l); loc.hasMatch()) {
        bool ours = fileEntries == 0 || files.contains(loc.captured(1).toInt());
        cur = ours ? loc.captured(2).toInt() : 0;
      }
      QString t = l.trimmed();
      if (t.startsWith('}')) {
        cur = 0;
        continue;
      }
      if (!t.isEmpty() && !t.startsWith(QLatin1String("//")))
        m.m_source[i] = cur;
    }
  } else if (kind == LoweredEmit::LlvmIr) {
    // `!dbg !N` on an instruction, `!N = !DILocation(line: L, ...)` (or the function's
    // DISubprogram) in the metadata at the end.
    static const QRegularExpression defRe(QStringLiteral(
        R"(^!(\d+)\s*=\s*(?:distinct\s+)?!(?:DILocation|DISubprogram)\(.*?\bline:\s*(\d+))"));
    static const QRegularExpression useRe(QStringLiteral(R"(!dbg\s+!(\d+))"));
    QHash<int, int> lineOfNode;
    for (const QString& l : lines)
      if (auto d = defRe.match(l); d.hasMatch())
        lineOfNode.insert(d.captured(1).toInt(), d.captured(2).toInt());
    for (int i = 0; i < lines.size(); ++i)
      if (!lines[i].startsWith('!'))
        if (auto u = useRe.match(lines[i]); u.hasMatch())
          m.m_source[i] = lineOfNode.value(u.captured(1).toInt(), 0);
  } else {
    // The CUDA emitter writes `// L<n>: <op>` before the code of each operation (shared with
    // the SASS of the export, whose nvcc line info names lines of it).
    take(lower::cudaIrLines(text.toStdString()));
  }
  for (int i = 0; i < m.m_source.size(); ++i)
    if (m.m_source[i] > 0)
      m.m_lowered[m.m_source[i]].append(i + 1);
  return m;
}

int LoweredLineMap::mappedLines() const {
  return int(std::count_if(m_source.begin(), m_source.end(), [](int l) { return l > 0; }));
}

// ------------------------------------------------------------------------------ lowering job

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

QString findingsText(const std::vector<Diagnostic>& findings, const driver::CheckResult& r) {
  QStringList out;
  for (const Diagnostic& d : findings) {
    int line = r.sources && d.range.valid() && r.sources->contains(d.range.file)
                   ? int(r.sources->lineColumn(d.range.file, d.range.begin).line)
                   : 0;
    out << QStringLiteral("%1[%2]: %3")
               .arg(line > 0 ? QStringLiteral("line %1: ").arg(line) : QString(), qs(d.code),
                    qs(d.message));
  }
  return out.join('\n');
}

/// SASS of an accepted, lowered kernel: the LLVM path's PTX through ptxas, or (a target beyond
/// the LLVM path, sm_100a) the CUDA export through nvcc -lineinfo, then nvdisasm. Without the
/// disassembler the pane says what to install and still shows the compile's resource report.
void fillSass(LowerSnapshot& s, const driver::Compiler& compiler, const CheckSnapshot& check,
              const lower::LoweredKernel& lk, const std::atomic<bool>* cancel, double timeout) {
  const driver::CheckResult& r = check.result;
  std::string target = lk.program.target;
  std::string path = check.path.toStdString();
  bool viaCuda = !lower::llvmSupportsTarget(target);
  std::string code;
  if (viaCuda) {
    lower::Provenance prov{path, driver::Compiler::version(), compiler.revision()};
    code = lower::emitCuda(lk.program, lk.metadata, prov);
  } else {
    lower::LlvmOptions lo;
    lo.wantPtx = true;
    lower::LlvmResult res = lower::emitLlvm(lk.program, lo);
    if (!res.ok) {
      s.unavailable = QStringLiteral("LLVM path: ") + qs(res.error);
      return;
    }
    code = std::move(res.ptx);
  }
  lower::EvidenceContext ctx;
  ctx.module = &r.module;
  ctx.model = &r.model;
  ctx.metadata = &lk.metadata;
  ctx.timeoutSeconds = timeout;
  ctx.cancel = cancel;
  lower::SassResult sr = lower::sassEvidence(code, viaCuda, target, ctx);
  s.compileTool = qs(sr.compile.tool);
  s.compiled = sr.compile.ok;
  for (const lower::PtxasEntry& e : sr.compile.report.entries)
    s.compileEntries << e;
  for (const Diagnostic& d : sr.compile.findings)
    if (sr.compile.ok)
      s.compileFindings << findingsText({d}, r);
  s.toolMissing = sr.toolMissing;
  if (sr.disassembled) {
    s.text = qs(sr.sass);
    s.ok = true;
    s.lines = LoweredLineMap::build(s.text, LoweredEmit::Sass, check.path,
                                    viaCuda ? qs(code) : QString());
    s.instructions = lineInstructions(s.text, LoweredEmit::Sass, s.lines);
    return;
  }
  QStringList why;
  if (!sr.compile.ok)
    why << QStringLiteral("No cubin to disassemble: %1").arg(findingsText(sr.compile.findings, r));
  why << findingsText(sr.findings, r);
  if (sr.compile.ok && !s.compileEntries.isEmpty()) {
    // The compile's own report is still worth showing (sm_100a: nvcc --resource-usage of the
    // CUDA export, which no other pane shows).
    QStringList report;
    for (const QString& l : qs(sr.compile.log).split('\n'))
      if (l.contains(QLatin1String("ptxas info")) || l.contains(QLatin1String("bytes stack")))
        report << l.trimmed();
    why << QStringLiteral("\nResource report of %1:\n%2").arg(s.compileTool, report.join('\n'));
  }
  why.removeAll(QString());
  s.unavailable = why.join('\n');
}

} // namespace

LowerSnapshotPtr buildLowerSnapshot(const driver::Compiler& compiler, const CheckSnapshotPtr& check,
                                    LoweredEmit kind, quint64 jobId,
                                    const std::atomic<bool>* cancel, double timeoutSeconds) {
  QElapsedTimer timer;
  timer.start();
  auto s = std::make_shared<LowerSnapshot>();
  s->jobId = jobId;
  s->checkJob = check->jobId;
  s->check = check;
  s->kind = kind;
  const driver::CheckResult& r = check->result;
  s->target = qs(r.model.targetName);
  auto done = [&] {
    s->elapsedMs = timer.elapsed();
    return LowerSnapshotPtr(s);
  };
  if (!r.accepted) {
    s->unavailable = QStringLiteral(
        "not lowered: the kernel has blocking findings (lowering needs an accepted kernel)");
    return done();
  }
  std::string path = check->path.toStdString();
  auto lk = std::make_shared<lower::LoweredKernel>(
      lower::lowerKernel(r.module, r.model, compiler.registry(), *r.sources, path));
  if (!lk->ok) {
    s->unavailable =
        QStringLiteral("lowering cannot emit this kernel:\n") + findingsText(lk->findings, r);
    return done();
  }
  s->lowered = lk;
  std::string target = lk->program.target;
  if (kind == LoweredEmit::Sass) {
    fillSass(*s, compiler, *check, *lk, cancel, timeoutSeconds);
    return done();
  }
  if (kind == LoweredEmit::Cuda) {
    lower::Provenance prov{path, driver::Compiler::version(), compiler.revision()};
    s->text = qs(lower::emitCuda(lk->program, lk->metadata, prov));
    s->ok = true;
  } else if (!lower::llvmSupportsTarget(target)) {
    // The same finding `cake lower --emit ptx` reports; never another target.
    Diagnostic d = lower::makeFinding(
        lower::LowerId::LoweringUnsupported, {},
        "LLVM path: " + target + " is not available in LLVM " + lower::llvmVersion() +
            " (its NVPTX back end emits up to sm_90a); use the CUDA path (--emit cuda, or "
            "--emit cubin --via cuda)");
    s->unavailable = findingsText({d}, r);
    s->cudaOffered = true;
  } else {
    lower::LlvmOptions lo;
    lo.wantIr = kind == LoweredEmit::LlvmIr;
    lo.wantPtx = kind == LoweredEmit::Ptx;
    lower::LlvmResult res = lower::emitLlvm(lk->program, lo);
    if (!res.ok) {
      s->unavailable = QStringLiteral("LLVM path: ") + qs(res.error);
    } else {
      s->text = qs(kind == LoweredEmit::Ptx ? res.ptx : res.ir);
      s->ok = true;
    }
  }
  if (s->ok) {
    s->lines = LoweredLineMap::build(s->text, kind, check->path);
    s->instructions = lineInstructions(s->text, kind, s->lines);
  }
  return done();
}

// ------------------------------------------------------------------------------ ptxas job

PtxasSnapshotPtr buildPtxasSnapshot(const LowerSnapshotPtr& lowered, quint64 jobId,
                                    double timeoutSeconds, const std::atomic<bool>& cancel) {
  QElapsedTimer timer;
  timer.start();
  auto s = std::make_shared<PtxasSnapshot>();
  s->jobId = jobId;
  s->lowerJob = lowered->jobId;
  s->checkJob = lowered->checkJob;
  auto done = [&] {
    s->elapsedMs = timer.elapsed();
    return PtxasSnapshotPtr(s);
  };
  std::optional<std::string> ptxas = lower::findCudaTool("ptxas");
  if (!ptxas) {
    s->message = QStringLiteral(
        "CUDA toolkit not found (no ptxas in $CUDA_HOME/bin, /usr/local/cuda/bin or PATH): "
        "no resource report");
    return done();
  }
  s->toolFound = true;
  const lower::LoweredKernel& lk = *lowered->lowered;
  const driver::CheckResult& r = lowered->check->result;
  s->derivedSmemBytes = lk.metadata.smemTotal;
  QTemporaryDir dir;
  if (!dir.isValid()) {
    s->message = QStringLiteral("cannot create a temporary directory for ptxas");
    return done();
  }
  QString arch = QStringLiteral("-arch=") + lowered->target;
  auto assemble = [&](const std::string& ptx, const QString& name, lower::ToolRun& run) {
    QString in = dir.filePath(name + ".ptx");
    QFile f(in);
    if (!f.open(QIODevice::WriteOnly) || f.write(QByteArray::fromStdString(ptx)) < 0)
      return false;
    f.close();
    run = lower::runTool({*ptxas, arch.toStdString(), "-v", in.toStdString(), "-o",
                          dir.filePath(name + ".cubin").toStdString()},
                         timeoutSeconds, &cancel);
    return true;
  };
  lower::ToolRun run;
  s->tool = QStringLiteral("%1 %2 -v").arg(qs(*ptxas), arch);
  if (!assemble(lowered->text.toStdString(), QStringLiteral("kernel"), run)) {
    s->message = QStringLiteral("cannot write the PTX for ptxas");
    return done();
  }
  s->log = qs(run.output);
  s->seconds = run.seconds;
  if (run.cancelled) {
    s->message = QStringLiteral("ptxas killed (cancelled)");
    return done();
  }
  if (run.timedOut) {
    s->timedOut = true;
    s->message = QStringLiteral("ptxas killed after the %1 s timeout").arg(timeoutSeconds);
    return done();
  }
  if (!run.started) {
    s->message = QStringLiteral("ptxas could not be started (%1)").arg(qs(*ptxas));
    return done();
  }
  s->ran = true;
  lower::Evidence ev;
  ev.ran = true;
  ev.ok = run.exitCode == 0;
  ev.tool = s->tool.toStdString();
  ev.log = run.output;
  ev.seconds = run.seconds;
  ev.report = lower::parsePtxasOutput(run.output);
  for (const lower::PtxasEntry& e : ev.report.entries)
    s->entries << e;
  for (const std::string& w : ev.report.warnings)
    s->warnings << qs(w);
  if (!ev.ok) {
    QStringList errors;
    for (const std::string& e : ev.report.errors)
      errors << qs(e);
    s->message =
        QStringLiteral("ptxas rejected the PTX: %1")
            .arg(errors.isEmpty() ? s->log.section('\n', 0, 0) : errors.join(QStringLiteral("; ")));
    return done();
  }
  lower::EvidenceContext ctx;
  ctx.module = &r.module;
  ctx.model = &r.model;
  ctx.metadata = &lk.metadata;
  ctx.timeoutSeconds = timeoutSeconds;
  lower::judgeResources(ev, ctx);
  // Register budgets: each budgeted role's code assembled alone.
  ctx.cancel = &cancel;
  for (const lower::RoleNeed& n : lower::judgeRoleBudgets(
           ev, ctx, lk.program, lk.metadata,
           [&](const lower::Program&variant, const lower::EvidenceContext&q) {
             lower::LlvmOptions lo;
             lo.debugInfo = false;
             lower::LlvmResult vr = lower::emitLlvm(variant, lo);
             return vr.ok ? lower::ptxasEvidence(vr.ptx, lowered->target.toStdString(), q)
                          : lower::Evidence{};
           }))
    s->roles << n;
  if (cancel.load()) {
    s->message = QStringLiteral("ptxas killed (cancelled)");
    return done();
  }
  s->ok = true;
  for (const Diagnostic& d : ev.findings)
    s->findings << findingsText({d}, r);
  std::int64_t regs = 0, spills = 0;
  for (const lower::PtxasEntry& e : s->entries) {
    regs = std::max(regs, e.registers);
    spills += e.spillStores + e.spillLoads;
  }
  s->message = QStringLiteral("%1 registers, %2 bytes spilled, %3 finding(s) in %4 s")
                   .arg(regs)
                   .arg(spills)
                   .arg(s->findings.size())
                   .arg(double(timer.elapsed()) / 1000.0, 0, 'f', 1);
  return done();
}

} // namespace cake::views
