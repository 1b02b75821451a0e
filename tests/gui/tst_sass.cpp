// The SASS tab (issue 17 item 7): nvdisasm's line info mapped to IR lines (direct and through the
// CUDA export), the disassembler found at run time or a clear message of what to install, the
// SASS job of the compile façade, and the code view offscreen. The real-SASS rows run when
// nvdisasm is found ($CAKE_NVDISASM, e.g. the pip package nvidia-cuda-nvdisasm) and are skipped
// with that reason otherwise; the missing-tool rows always run.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "../views/ViewsTestUtil.h"
#include "cake/Lower/Sass.h"
#include "cake/Lower/Toolchain.h"
#include "cake/views/LoweredCode.h"
#include "cake/views/SelectionModel.h"
#include "cake/widgets/LoweredCodeView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <optional>

using namespace cake;

namespace {

/// Sets (or unsets, with a null value) environment variables for one scope.
class EnvGuard {
public:
  void set(const char* name, const QByteArray& value) {
    if (!m_saved.contains(name))
      m_saved.insert(name, qEnvironmentVariableIsSet(name)
                               ? std::optional<QByteArray>(qgetenv(name))
                               : std::nullopt);
    if (value.isNull())
      qunsetenv(name);
    else
      qputenv(name, value);
  }
  ~EnvGuard() {
    for (auto it = m_saved.begin(); it != m_saved.end(); ++it)
      if (it.value())
        qputenv(it.key().constData(), *it.value());
      else
        qunsetenv(it.key().constData());
  }

private:
  QHash<QByteArray, std::optional<QByteArray>> m_saved;
};

bool makeExecutable(const QString& path) {
  QFile f(path);
  if (!QDir().mkpath(QFileInfo(path).path()) || !f.open(QIODevice::WriteOnly))
    return false;
  f.write("#!/bin/sh\nexit 0\n");
  f.close();
  return f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
}

const QString kGelu = QStringLiteral("bias_gelu/bias_gelu.cake");
const QString kHopper = QStringLiteral("hopper_gemm/gemm_ws.cake");
const QString kBlackwell = QStringLiteral("blackwell_gemm/gemm_tcgen05.cake");

/// The 1-based IR line of the first operation named `name` in a snapshot.
int opLine(const views::CheckSnapshotPtr& snap, const QString& name) {
  for (const auto& op : snap->views->ops)
    if (op.name == name)
      return op.span.line;
  return 0;
}

} // namespace

class TestSass : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // ---------------------------------------------------------------- line info
  void lineInfoSynthetic() {
    const QString sass =
        ".text.k:\n"                                                            // 1
        "\t//## File \"/build/x/k.cake\", line 5\n"                             // 2
        "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"           // 3
        "        /*0010*/                   S2R R0, SR_TID.X ;\n"               // 4
        "\t//## File \"/x/other.h\", line 9 inlined at \"/x/k.cake\", line 7\n" // 5
        "        /*0020*/                   IADD3 R2, R0, 0x1, RZ ;\n"          // 6
        "\t//## File \"/tmp/cake-sass-1/kernel.cu\", line 3\n"                  // 7
        "        /*0030*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"    // 8
        ".L_x_0:\n"                                                             // 9
        "        /*0040*/                   EXIT ;\n";                          // 10
    auto m = views::LoweredLineMap::build(sass, views::LoweredEmit::Sass, "/src/k.cake");
    QCOMPARE(m.sourceLine(1), 0);
    QCOMPARE(m.sourceLine(2), 0); // the comment itself is no instruction
    QCOMPARE(m.sourceLine(3), 5);
    QCOMPARE(m.sourceLine(4), 5);
    QCOMPARE(m.sourceLine(6), 7); // inlined: the location in the .cake file
    QCOMPARE(m.sourceLine(8), 0); // the .cu file without its export
    QCOMPARE(m.sourceLine(9), 0);
    QCOMPARE(m.sourceLine(10), 0); // still kernel.cu line 3
    QCOMPARE(m.loweredLines(5), (QVector<int>{3, 4}));
    // Through the CUDA export's provenance comments: .cu line 3 is the code of IR line 12.
    const QString cu = "__global__ void k() {\n  // L12: mbarrier.arrive full\n  arrive();\n}\n";
    auto c = views::LoweredLineMap::build(sass, views::LoweredEmit::Sass, "/src/k.cake", cu);
    QCOMPARE(c.sourceLine(8), 12);
    QCOMPARE(c.sourceLine(10), 12);
    QCOMPARE(c.sourceLine(3), 5);
    QCOMPARE(c.loweredLines(12), (QVector<int>{8, 10}));
    // Another kernel file with a different name never links.
    auto other = views::LoweredLineMap::build(sass, views::LoweredEmit::Sass, "/src/q.cake");
    QCOMPARE(other.mappedLines(), 0);
  }

  // ---------------------------------------------------------------- finding the tool
  void toolFromEnvironment() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    EnvGuard env;
    env.set("CAKE_NVDISASM", dir.filePath("none").toUtf8());
    lower::SassToolSearch s = lower::findSassTool();
    QVERIFY(!s.path);
    QVERIFY(QString::fromStdString(s.problem).contains("names no executable nvdisasm"));
    QString msg = QString::fromStdString(lower::sassToolMissingMessage(s));
    QVERIFY2(msg.contains("pip install nvidia-cuda-nvdisasm") && msg.contains("CAKE_NVDISASM"),
             qPrintable(msg));
    // The folder holding the binary, or the binary itself.
    QString bin = dir.filePath("bin/nvdisasm");
    QVERIFY(makeExecutable(bin));
    env.set("CAKE_NVDISASM", dir.filePath("bin").toUtf8());
    QCOMPARE(QString::fromStdString(lower::findSassTool().path.value_or("")), bin);
    env.set("CAKE_NVDISASM", bin.toUtf8());
    QCOMPARE(QString::fromStdString(lower::findSassTool().path.value_or("")), bin);
  }

  void toolInPipVenv() {
    if (QFileInfo(QStringLiteral("/usr/local/cuda/bin/nvdisasm")).isExecutable())
      QSKIP("this CUDA toolkit has nvdisasm: it is found before any venv");
    QTemporaryDir home, empty;
    EnvGuard env;
    env.set("CAKE_NVDISASM", QByteArray());
    env.set("VIRTUAL_ENV", QByteArray());
    env.set("CUDA_HOME", empty.path().toUtf8());
    env.set("PATH", empty.path().toUtf8());
    env.set("HOME", home.path().toUtf8());
    lower::SassToolSearch none = lower::findSassTool();
    QVERIFY(!none.path);
    QString msg = QString::fromStdString(lower::sassToolMissingMessage(none));
    QVERIFY2(msg.startsWith("nvdisasm was not found (looked in: PATH, ") &&
                 msg.contains("~/.venv/lib/python3*/site-packages/nvidia/cu*/bin"),
             qPrintable(msg));
    // The layout `pip install nvidia-cuda-nvdisasm` makes; the newest CUDA major wins.
    QString old = home.filePath(".venv/lib/python3.11/site-packages/nvidia/cu12/bin/nvdisasm");
    QString cu13 = home.filePath(".venv/lib/python3.11/site-packages/nvidia/cu13/bin/nvdisasm");
    QVERIFY(makeExecutable(old) && makeExecutable(cu13));
    QCOMPARE(QString::fromStdString(lower::findSassTool().path.value_or("")), cu13);
    // $VIRTUAL_ENV comes first.
    QTemporaryDir venv;
    QString active = venv.filePath("lib/python3.12/site-packages/nvidia/cu13/bin/nvdisasm");
    QVERIFY(makeExecutable(active));
    env.set("VIRTUAL_ENV", venv.path().toUtf8());
    QCOMPARE(QString::fromStdString(lower::findSassTool().path.value_or("")), active);
  }

  // ---------------------------------------------------------------- without the tool
  void missingToolSaysWhatToInstall() {
    QTemporaryDir dir;
    EnvGuard env;
    env.set("CAKE_NVDISASM", dir.filePath("none").toUtf8());
    auto snap = test::corpusSnapshot(kGelu);
    QVERIFY(snap->result.accepted);
    auto l = views::buildLowerSnapshot(*test::compiler(), snap, views::LoweredEmit::Sass, 7);
    QCOMPARE(l->kind, views::LoweredEmit::Sass);
    QVERIFY(!l->ok);
    QVERIFY(l->toolMissing);
    QVERIFY2(l->unavailable.contains("[hw-toolchain-missing]") &&
                 l->unavailable.contains("pip install nvidia-cuda-nvdisasm"),
             qPrintable(l->unavailable));
    if (lower::findCudaTool("ptxas")) {
      QVERIFY(l->compiled);
      QCOMPARE(l->compileTool, QStringLiteral("ptxas -arch=sm_80 -v"));
      QCOMPARE(l->compileEntries.size(), 1);
      QVERIFY(l->compileEntries[0].registers > 0);
    }

    // The view: never an empty pane; the status names the missing tool, the resource line
    // still shows the compile's report.
    views::SelectionModel selection;
    selection.setSnapshot(snap);
    widgets::LoweredCodeView code(&selection);
    code.resize(900, 500);
    auto* selector = code.findChild<QComboBox*>(QStringLiteral("loweredEmitSelector"));
    QVERIFY(selector);
    QVERIFY(selector->findText(QStringLiteral("SASS")) >= 0);
    code.setCheck(snap);
    QSignalSpy wants(&code, &widgets::LoweredCodeView::emitRequested);
    code.setEmitKind(views::LoweredEmit::Sass);
    QCOMPARE(wants.count(), 1);
    QCOMPARE(code.emitKind(), views::LoweredEmit::Sass);
    QVERIFY(!code.ready());
    QVERIFY(code.findChild<QCheckBox*>(QStringLiteral("hideLocFilter"))->isHidden());
    code.setLowered(l);
    QVERIFY(code.ready());
    QString pane = code.loweredText()->toPlainText();
    QVERIFY2(pane.contains("nvdisasm") && pane.contains("pip install nvidia-cuda-nvdisasm"),
             qPrintable(pane));
    QVERIFY2(code.statusText().contains("CAKE_NVDISASM"), qPrintable(code.statusText()));
    if (l->compiled)
      QVERIFY2(code.resourcesText().contains("registers") &&
                   code.resourcesText().contains("no nvdisasm"),
               qPrintable(code.resourcesText()));
    saveShot(code, QStringLiteral("sass-missing.png"));
  }

  // ---------------------------------------------------------------- the façade's job
  void sessionRunsASassJob() {
    QTemporaryDir dir;
    EnvGuard env;
    env.set("CAKE_NVDISASM", dir.filePath("none").toUtf8());
    views::CompileSession session;
    session.setCompiler(test::compiler());
    QSignalSpy checks(&session, &views::CompileSession::checkFinished);
    QSignalSpy lowered(&session, &views::CompileSession::lowerFinished);
    QSignalSpy queued(&session, &views::CompileSession::jobQueued);
    QString path = test::corpusPath(kGelu);
    session.requestCheck(path, test::readFile(path));
    QVERIFY(checks.wait(20000));
    quint64 id = session.requestLower(checks.last().at(0).value<views::CheckSnapshotPtr>(),
                                      views::LoweredEmit::Sass);
    bool sassJob = false;
    for (const QList<QVariant>& args : queued) {
      auto job = args.at(0).value<views::JobInfo>();
      sassJob |= job.id == id && job.kind == views::JobKind::Sass;
    }
    QVERIFY(sassJob);
    QTRY_COMPARE_WITH_TIMEOUT(lowered.count(), 1, 60000);
    auto l = lowered.last().at(0).value<views::LowerSnapshotPtr>();
    QCOMPARE(l->jobId, id);
    QCOMPARE(l->kind, views::LoweredEmit::Sass);
    QVERIFY(l->toolMissing);
    session.waitForIdle();
    QCoreApplication::processEvents();
    QCOMPARE(session.latestPtxasJob(), quint64(0)); // the SASS job made its own cubin
    QCOMPARE(session.activeJobs(), 0);
  }

  // ---------------------------------------------------------------- real SASS
  void realSassLinksIrLines() {
    if (QString why = missingTools(); !why.isEmpty())
      QSKIP(qPrintable(why));
    auto snap = test::corpusSnapshot(kHopper);
    auto l = views::buildLowerSnapshot(*test::compiler(), snap, views::LoweredEmit::Sass, 9);
    QVERIFY2(l->ok, qPrintable(l->unavailable));
    QVERIFY(!l->toolMissing);
    QVERIFY(l->text.contains("/*0000*/"));
    QVERIFY2(l->lines.mappedLines() > 100, qPrintable(QString::number(l->lines.mappedLines())));
    // The wgmma.mma of the IR is the SASS's HGMMA instructions, and every linked line is an
    // instruction.
    int wgmma = opLine(snap, QStringLiteral("wgmma.mma"));
    QCOMPARE(wgmma, 72);
    const QStringList lines = l->text.split('\n');
    QVector<int> sass = l->lines.loweredLines(wgmma);
    QVERIFY(!sass.isEmpty());
    bool hgmma = false;
    for (int s : sass) {
      QVERIFY2(lines[s - 1].contains("/*"), qPrintable(lines[s - 1]));
      hgmma |= lines[s - 1].contains("HGMMA");
    }
    QVERIFY2(hgmma, "no HGMMA linked to the wgmma.mma line");
    // ptxas keeps the line info of the fence and the wait on their own instructions; it may
    // schedule an HGMMA among the loop's last operations (line 75, the mbarrier.arrive, in
    // CUDA 13), never outside the k loop's body (lines 70-75).
    for (int i = 1; i <= lines.size(); ++i) {
      int ir = l->lines.sourceLine(i);
      if (lines[i - 1].contains("HGMMA"))
        QVERIFY2(ir >= 70 && ir <= 75,
                 qPrintable(QStringLiteral("%1: %2").arg(ir).arg(lines[i - 1])));
      if (lines[i - 1].contains("WARPGROUP.ARRIVE"))
        QCOMPARE(ir, opLine(snap, QStringLiteral("wgmma.fence")));
      if (lines[i - 1].contains("WARPGROUP.DEPBAR"))
        QCOMPARE(ir, opLine(snap, QStringLiteral("wgmma.wait")));
    }
    QVERIFY(l->compiled);
    QCOMPARE(l->compileEntries.size(), 1);

    // The view: clicking a SASS line selects its IR operation, and back.
    views::SelectionModel selection;
    selection.setSnapshot(snap);
    widgets::LoweredCodeView code(&selection);
    code.resize(1100, 700);
    code.setCheck(snap);
    code.setEmitKind(views::LoweredEmit::Sass);
    code.setLowered(l);
    QVERIFY(code.ready());
    QVERIFY(code.statusText().startsWith("SASS of "));
    code.activateLoweredLine(sass.first());
    QCOMPARE(selection.sourceOf(selection.current()).line, wgmma);
    QCOMPARE(code.highlightedLoweredLines(), sass);
    QVERIFY2(code.resourcesText().contains("registers"), qPrintable(code.resourcesText()));
    saveShot(code, QStringLiteral("sass-hopper.png"));
  }

  void blackwellThroughTheCudaExport() {
    if (!lower::findCudaTool("nvcc"))
      QSKIP("no nvcc: the sm_100a SASS goes through the CUDA export");
    auto snap = test::corpusSnapshot(kBlackwell);
    QVERIFY(snap->result.accepted);
    {
      // The PTX tab of sm_100a (no LLVM path) points to the SASS tab's nvcc report.
      views::SelectionModel selection;
      selection.setSnapshot(snap);
      widgets::LoweredCodeView code(&selection);
      code.setCheck(snap);
      code.setLowered(
          views::buildLowerSnapshot(*test::compiler(), snap, views::LoweredEmit::Ptx, 4));
      QVERIFY2(code.resourcesText().contains("select SASS for nvcc's resource report"),
               qPrintable(code.resourcesText()));
    }
    QTemporaryDir dir;
    {
      // Without the disassembler: nvcc's resource report is still shown.
      EnvGuard env;
      env.set("CAKE_NVDISASM", dir.filePath("none").toUtf8());
      auto l = views::buildLowerSnapshot(*test::compiler(), snap, views::LoweredEmit::Sass, 5);
      QVERIFY(!l->ok && l->toolMissing);
      QVERIFY2(l->compiled, qPrintable(l->unavailable));
      QVERIFY(l->compileTool.startsWith("nvcc -cubin"));
      QVERIFY(!l->compileEntries.isEmpty());
      QVERIFY2(l->unavailable.contains("Resource report of nvcc") &&
                   l->unavailable.contains("Used "),
               qPrintable(l->unavailable));
    }
    if (QString why = missingTools(); !why.isEmpty())
      QSKIP(qPrintable(why));
    auto l = views::buildLowerSnapshot(*test::compiler(), snap, views::LoweredEmit::Sass, 6);
    QVERIFY2(l->ok, qPrintable(l->unavailable));
    QVERIFY(l->text.contains("sm_100a"));
    QVERIFY2(l->lines.mappedLines() > 20, qPrintable(QString::number(l->lines.mappedLines())));
    // Every linked IR line is a line of the kernel text.
    int irLines = int(snap->text.count('\n')) + 1;
    const QStringList lines = l->text.split('\n');
    for (int i = 1; i <= lines.size(); ++i)
      QVERIFY(l->lines.sourceLine(i) <= irLines);
  }

private:
  /// Why the real-SASS part cannot run here ("" when it can).
  static QString missingTools() {
    if (!lower::findCudaTool("ptxas"))
      return QStringLiteral("no CUDA toolkit (ptxas): no cubin to disassemble");
    if (!lower::findSassTool().path)
      return QStringLiteral("no nvdisasm (set CAKE_NVDISASM, e.g. to the pip package "
                            "nvidia-cuda-nvdisasm's binary): the real-SASS part is skipped");
    return {};
  }

  /// Saves a grab of `w` under $CAKE_TEST_SHOTS (when set) to be looked at.
  static void saveShot(QWidget& w, const QString& name) {
    QByteArray dir = qgetenv("CAKE_TEST_SHOTS");
    if (dir.isEmpty())
      return;
    w.show();
    QCoreApplication::processEvents();
    QVERIFY(w.grab().save(QDir(QString::fromUtf8(dir)).filePath(name)));
  }
};

QTEST_MAIN(TestSass)
#include "tst_sass.moc"
