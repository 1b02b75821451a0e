// SPDX-License-Identifier: GPL-3.0-or-later
// X declares a 4-byte base alignment and each thread loads one 4-byte element: no vector load.
kernel xork target=sm_90a {
  const N = 4096
  const VEC = 1

  param X : u32[N] role=input align=4
  param K : u32[N] role=input align=16
  param Z : u32[N] role=output align=16

  grid tiles=[N / 128]

  role main warps=0..4

  reg x : u32[VEC] scope=thread
  reg k : u32[VEC] scope=thread

  on main {
    for t in tiles {
      ld.global x, X[t.x * 128 + tid * VEC +: VEC]
      ld.global k, K[t.x * 128 + tid * VEC +: VEC]
      ew.binary x, x, k fn=add
      st.global Z[t.x * 128 + tid * VEC +: VEC], x
    }
  }
}
