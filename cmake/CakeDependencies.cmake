# Finds every third-party dependency; a missing one stops configure with the Debian package
# that provides it. See docs/toolchain notes in shared/docs/toolchain.md.
# SPDX-License-Identifier: GPL-3.0-or-later

function(cake_missing what apt)
  message(FATAL_ERROR
    "cake: ${what} not found.\n"
    "Install it with:\n"
    "  apt-get install -y --no-install-recommends ${apt}\n"
    "(scripts/run and scripts/test install every required package when run as root.)")
endfunction()

find_package(PkgConfig QUIET)
if(NOT PkgConfig_FOUND)
  cake_missing("pkg-config" "pkg-config")
endif()

if(CAKE_BUILD_GUI OR CAKE_BUILD_TESTS)
  # Pitfall 3: PrintSupport and Widgets must be found before QCustomPlotQt6.
  find_package(Qt6 6.4 QUIET COMPONENTS Core Gui Widgets Concurrent Test PrintSupport Svg)
  if(NOT Qt6_FOUND)
    cake_missing("Qt 6 (Core Gui Widgets Concurrent Test PrintSupport Svg)"
                 "qt6-base-dev qt6-base-dev-tools qt6-svg-dev")
  endif()
endif()

if(CAKE_BUILD_GUI)
  find_package(QCustomPlotQt6 QUIET)
  if(NOT QCustomPlotQt6_FOUND)
    cake_missing("QCustomPlot (Qt 6 build)" "libqcustomplot-dev libqcustomplot2.1-qt6")
  endif()
  pkg_check_modules(GRAPHVIZ QUIET IMPORTED_TARGET libcgraph libgvc)
  if(NOT GRAPHVIZ_FOUND)
    cake_missing("Graphviz cgraph/gvc" "libgraphviz-dev")
  endif()
endif()

# Pitfall 1 and 2: LLVM's config needs zstd, and the version must be asked as 19.1.
find_package(ZLIB QUIET)
find_package(LLVM 19.1 QUIET CONFIG HINTS /usr/lib/llvm-19/lib/cmake/llvm)
if(NOT LLVM_FOUND)
  cake_missing("LLVM 19.1 (with NVPTX)" "llvm-19-dev llvm-19-tools libzstd-dev")
endif()
message(STATUS "cake: LLVM ${LLVM_PACKAGE_VERSION} in ${LLVM_TOOLS_BINARY_DIR}")
find_program(CAKE_FILECHECK FileCheck HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
find_program(CAKE_LIT lit.py HINTS /usr/lib/llvm-19/build/utils/lit NO_DEFAULT_PATH)
if(CAKE_BUILD_TESTS AND (NOT CAKE_FILECHECK OR NOT CAKE_LIT))
  cake_missing("FileCheck/lit of LLVM 19" "llvm-19-tools")
endif()

find_package(Python3 QUIET COMPONENTS Interpreter)
if(CAKE_BUILD_TESTS AND NOT Python3_Interpreter_FOUND)
  cake_missing("python3 (runs lit)" "python3")
endif()

# The workspace store (revisions, audit log, proposals) is one SQLite database per workspace.
find_package(SQLite3 QUIET)
if(NOT SQLite3_FOUND)
  cake_missing("SQLite 3 (the workspace store)" "libsqlite3-dev")
endif()

# The reference operators of workload contracts compute GEMMs through OpenBLAS (cblas.h).
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(OPENBLAS QUIET IMPORTED_TARGET openblas)
endif()
if(NOT OPENBLAS_FOUND)
  cake_missing("OpenBLAS (reference operators of cake run)" "libopenblas-dev pkg-config")
endif()

# The CUDA toolkit is not a Debian-main package here (NVIDIA's /usr/local/cuda). It is needed
# by lowering evidence (ptxas, nvcc, NVRTC); the IR core works without it, so it is optional and
# every tool that needs it reports its absence as a located finding.
find_package(CUDAToolkit QUIET)
if(CUDAToolkit_FOUND)
  message(STATUS "cake: CUDA toolkit ${CUDAToolkit_VERSION} at ${CUDAToolkit_BIN_DIR}")
else()
  message(STATUS "cake: CUDA toolkit not found (ptxas/nvcc evidence disabled)")
endif()

if(CAKE_BUILD_BENCHMARKS)
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    cake_missing("Google Benchmark" "libbenchmark-dev")
  endif()
endif()
