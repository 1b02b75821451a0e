// SPDX-License-Identifier: GPL-3.0-or-later
// A thread-scoped fragment of 300 u32 registers: more than a thread can address.
kernel xork target=sm_90a {
  const N = 4096
  const VEC = 8

  param X : u32[N] role=input align=16
  param K : u32[N] role=input align=16
  param Z : u32[N] role=output align=16

  grid tiles=[N / 1024]

  role main warps=0..4

  reg x : u32[VEC] scope=thread
  reg k : u32[VEC] scope=thread
  reg big : u32[300] scope=thread

  on main {
    for t in tiles {
      ld.global x, X[t.x * 1024 + tid * VEC +: VEC]
      ld.global k, K[t.x * 1024 + tid * VEC +: VEC]
      ew.binary x, x, k fn=add
      st.global Z[t.x * 1024 + tid * VEC +: VEC], x
    }
  }
}
