# Compiler flags, ccache and linker choices shared by every target.
# SPDX-License-Identifier: GPL-3.0-or-later
find_program(CAKE_CCACHE ccache)
if(CAKE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CAKE_CCACHE})
  message(STATUS "cake: using ccache (${CAKE_CCACHE})")
endif()

# The project's libraries are shared by default: some sixty test programs, the benchmarks and
# the three applications link the same compiler and view code, and linking it statically into
# each (with debug info) made a build tree of 7.5 GB and links that ran a 2-core CI machine out of
# disk (ld: Bus error). Shared: each program is a few MB. OFF for fuzzing or a static install.
option(CAKE_SHARED_LIBS "Build the compiler and view libraries as shared libraries" ON)
if(CAKE_SHARED_LIBS)
  set(CAKE_LIBRARY_TYPE SHARED)
else()
  set(CAKE_LIBRARY_TYPE STATIC)
endif()
# Build-tree programs find the libraries by their build RPATH; installed ones in <prefix>/lib.
set(CMAKE_INSTALL_RPATH "$ORIGIN/../lib")

add_library(cake_warnings INTERFACE)
target_compile_options(cake_warnings INTERFACE -Wall -Wextra -pedantic -Wno-missing-field-initializers)

# lld links LLVM-heavy binaries several times faster than GNU ld.
find_program(CAKE_LLD ld.lld)
if(CAKE_LLD)
  add_link_options(-fuse-ld=lld)
endif()
