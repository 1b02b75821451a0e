// SPDX-License-Identifier: GPL-3.0-or-later
// Z = X ^ K: mixes a stream of counters with a key, 8 u32 elements per thread.
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

  on main {
    for t in tiles {
      ld.global x, X[t.x * 1024 + tid * VEC +: VEC]
      ld.global k, K[t.x * 1024 + tid * VEC +: VEC]
      frag.xor x, x, k
      st.global Z[t.x * 1024 + tid * VEC +: VEC], x
    }
  }
}
