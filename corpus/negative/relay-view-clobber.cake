// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: a faster warp overwrites an aliased view another warp still reads
// p_s and q_s are views of one pool; q_s starts 128 rows into p_s. Each thread reads its row of
// p_s and writes its row of q_s with no barrier in between: warps 0..3 write the bytes of p_s
// rows 128..255 while warps 4..7 may still be reading them.
kernel relay_view_clobber target=sm_80 {
  param X : f32[65536, 8] role=input
  param Y : f32[65536, 8] role=output
  grid tiles=[256]
  role main warps=0..8
  pool relay bytes=12288
  smem p_s : f32[256, 8] offset=0 pool=relay
  smem q_s : f32[256, 8] offset=4096 pool=relay
  reg a : f32[8] scope=thread
  reg b : f32[8] scope=thread
  on main {
    for t in tiles {
      ld.global a, X[t.x * 256 + tid, :]
      st.shared p_s[tid, :], a
      ld.shared b, p_s[tid, :]
      ew.unary b, b fn=exp
      st.shared q_s[tid, :], b  // expected-blocking: ps-instance-view-clobber
      ld.shared a, q_s[tid, :]  // expected-blocking: ps-instance-view-clobber
      st.global Y[t.x * 256 + tid, :], a
      cta.sync
    }
  }
}
