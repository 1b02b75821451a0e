// SPDX-License-Identifier: GPL-3.0-or-later
// Uses two primitives defined only in data (tests/lit/lower/data-primitive*.test).
kernel exp2k target=sm_90a {
  const N = 4096
  const VEC = 8

  param X : f32[N] role=input align=16
  param S : f32[1] role=input align=16
  param Y : f32[N] role=output align=16

  grid tiles=[N / 1024]

  role main warps=0..4

  reg x : f32[VEC] scope=thread
  reg y : f32[VEC] scope=thread
  reg s : f32[1] scope=thread

  on main {
    ld.global s, S[0 +: 1]
    for t in tiles {
      ld.global x, X[t.x * 1024 + tid * VEC +: VEC]
      frag.exp2 y, x
      frag.scale_exp2 x, y, s
      st.global Y[t.x * 1024 + tid * VEC +: VEC], x
    }
  }
}
