# lit configuration: FileCheck tests of `cake` text outputs (printer, diagnostics, JSON).
# SPDX-License-Identifier: GPL-3.0-or-later
import os
import lit.formats

config.name = "cake"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cake", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(config.cake_bin_dir), "tests", "lit-out")

config.substitutions.append(("%cake", os.path.join(config.cake_bin_dir, "cake")))
config.substitutions.append(("%FileCheck", config.filecheck))
config.substitutions.append(("%not", os.path.join(config.llvm_tools_dir, "not")))
config.substitutions.append(("%corpus", os.path.join(config.cake_source_dir, "corpus")))
config.substitutions.append(("%srcroot", config.cake_source_dir))
config.substitutions.append(("%python", config.python))
config.environment["NO_COLOR"] = "1"
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.cake_bin_dir, os.environ.get("PATH", "")])

# The CUDA toolkit is optional: tests that run ptxas / nvcc say `REQUIRES: cuda`.
cuda_home = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
cuda_bin = os.path.join(cuda_home, "bin")
if os.access(os.path.join(cuda_bin, "ptxas"), os.X_OK):
    config.available_features.add("cuda")
    config.substitutions.append(("%ptxas", os.path.join(cuda_bin, "ptxas")))
    config.substitutions.append(("%nvcc", os.path.join(cuda_bin, "nvcc")))
else:
    lit_config.warning("no CUDA toolkit (%s not found; set CUDA_HOME): the tests that say "
                       "'REQUIRES: cuda' are UNSUPPORTED" % os.path.join(cuda_bin, "ptxas"))

# The SASS disassembler is not in every CUDA toolkit (docs/workbench.md, "SASS"): tests of real
# SASS say `REQUIRES: nvdisasm` and run when $CAKE_NVDISASM names it (e.g. the pip package
# nvidia-cuda-nvdisasm in a venv); the missing-tool tests always run.
nvdisasm = os.environ.get("CAKE_NVDISASM", "")
if nvdisasm and os.path.isdir(nvdisasm):
    nvdisasm = os.path.join(nvdisasm, "nvdisasm")
if nvdisasm and os.access(nvdisasm, os.X_OK):
    config.available_features.add("nvdisasm")
    config.environment["CAKE_NVDISASM"] = nvdisasm
else:
    lit_config.note("no nvdisasm (set CAKE_NVDISASM): the real-SASS tests are UNSUPPORTED")
