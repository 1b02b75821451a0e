# CPack: `cpack -G DEB` in the build directory turns `cmake --install` into a Debian package
# (binaries stripped, run-time dependencies computed by dpkg-shlibdeps from the installed
# binaries, so the package names exactly the Qt, LLVM, Graphviz and SQLite libraries it links).
# SPDX-License-Identifier: GPL-3.0-or-later
set(CPACK_PACKAGE_NAME "cake-workbench")
set(CPACK_PACKAGE_VENDOR "The Cake Workbench developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Workbench and compiler for Cake IR GPU kernel schedules (check, cost, lower, review)")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "Cake Workbench developers <cake@localhost>")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# ptxas and nvcc come from the CUDA toolkit, which Debian ships in non-free; lowering to PTX
# works without them, so they are a suggestion, not a dependency.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nvidia-cuda-toolkit")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Cake Workbench is a desktop workbench for compiler-agent co-design of GPU kernels.\n\
AI agents write Cake IR, a typed, hardware-explicit schedule language; the cake\n\
compiler verifies it, predicts its time and lowers it to PTX or CUDA C++, and the\n\
workbench shows findings, the operation graph, memory layout, barrier timeline and\n\
performance, and records the review of agent-proposed primitives and rules.")
include(CPack)
