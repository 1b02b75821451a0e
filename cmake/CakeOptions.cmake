# Compiler flags, ccache and linker choices shared by every target.
# SPDX-License-Identifier: GPL-3.0-or-later
find_program(CAKE_CCACHE ccache)
if(CAKE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CAKE_CCACHE})
  message(STATUS "cake: using ccache (${CAKE_CCACHE})")
endif()

add_library(cake_warnings INTERFACE)
target_compile_options(cake_warnings INTERFACE -Wall -Wextra -pedantic -Wno-missing-field-initializers)

# lld links LLVM-heavy binaries several times faster than GNU ld.
find_program(CAKE_LLD ld.lld)
if(CAKE_LLD)
  add_link_options(-fuse-ld=lld)
endif()
