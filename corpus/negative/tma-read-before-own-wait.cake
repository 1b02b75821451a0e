// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: a single-role kernel reads its TMA destination before the wait
// One role issues the TMA load of a 64x64 tile and consumes it itself, but reads the tile before
// waiting on the load's barrier: the copy may not have landed.
kernel tile_read_before_wait target=sm_90a {
  param X : bf16[4096, 64] role=input
  param Y : bf16[4096, 64] role=output
  tensormap tX : bf16[64, 64] source=X
  grid tiles=[64]
  role main warps=0..4
  pipeline p stages=1
  smem x_s : bf16[64, 64] offset=0 pipeline=p
  mbarrier ld count=1 producers=[main] consumers=[main] pipeline=p
  reg v : bf16[32] scope=thread
  on main {
    mbarrier.init ld
    fence.mbarrier_init
    cta.sync
    for t in tiles pipeline=p {
      mbarrier.arrive_expect_tx ld[p.slot] bytes=8192
      tma.load x_s, tX[t.x * 64, 0], ld[p.slot]
      ld.shared v, x_s[tid / 2, tid % 2 * 32 +: 32]  // expected-blocking: ps-tma-read-before-wait
      mbarrier.try_wait ld[p.slot] parity=p.phase
      ew.unary v, v fn=exp
      st.global Y[t.x * 64 + tid / 2, tid % 2 * 32 +: 32], v
      cta.sync
    }
  }
}
