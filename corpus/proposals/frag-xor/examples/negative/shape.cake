// SPDX-License-Identifier: GPL-3.0-or-later
// frag.xor needs one element of each source per result: an 8-element and a 4-element fragment are refused.
kernel xork target=sm_90a {
  const N = 4096
  const VEC = 8

  param X : u32[N] role=input align=16
  param K : u32[N] role=input align=16
  param Z : u32[N] role=output align=16

  grid tiles=[N / 1024]

  role main warps=0..4

  reg x : u32[VEC] scope=thread
  reg k : u32[4] scope=thread

  on main {
    for t in tiles {
      ld.global x, X[t.x * 1024 + tid * VEC +: VEC]
      ld.global k, K[t.x * 1024 + tid * 4 +: 4]
      frag.xor x, x, k
      st.global Z[t.x * 1024 + tid * VEC +: VEC], x
    }
  }
}
