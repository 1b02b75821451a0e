// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: a TMA store from a staging buffer 64 bytes past a 128-byte boundary
// Bias-add epilogue written out with TMA: the CTA adds a bias to a 32 x 64 fp16 block, stages
// it in shared memory and stores it with one TMA store. The staging buffer was placed after a
// 64-byte bias vector at byte 64; a bulk tensor copy reads shared memory at 128-byte aligned
// addresses, so the store reads the wrong bytes (or faults).
kernel bias_block_store target=sm_90a {
  const ROWS = 8192

  param X : f16[ROWS, 64] role=input align=16
  param Bias : f16[64] role=input align=16
  param Y : f16[ROWS, 64] role=output align=16

  tensormap tY : f16[32, 64] source=Y swizzle=none

  grid tiles=[ROWS / 32]

  role main warps=0..2

  smem b_s : f16[32] offset=0
  smem y_s : f16[32, 64] offset=64

  reg x : f16[32] scope=thread
  reg b : f16[32] scope=thread

  on main {
    for t in tiles {
      ld.global x, X[t.x * 32 + tid / 2, tid % 2 * 32 +: 32]
      ld.global b, Bias[tid % 2 * 32 +: 32]
      ew.binary x, x, b fn=add
      bulk.wait_group pending=0 read=true
      cta.sync
      st.shared y_s[tid / 2, tid % 2 * 32 +: 32], x
      fence.proxy.async
      cta.sync
      tma.store tY[t.x * 32, 0], y_s  // expected-blocking: hw-bulk-copy-smem-alignment
      bulk.commit_group
    }
    bulk.wait_group pending=0
  }
}
