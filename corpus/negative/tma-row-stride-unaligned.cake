// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: a tensor map over a tensor whose rows are 200 bytes apart
// Key-cache gather for a decoder with head dimension 100: each CTA pulls one 64 x 64 box of
// the bf16 cache with TMA and writes it out as a contiguous block. The cache rows are
// 100 x 2 = 200 bytes apart; cuTensorMapEncodeTiled needs every global stride to be a
// multiple of 16 bytes, so the host cannot encode the map and the launch fails.
kernel kv_block_gather target=sm_90a {
  const TOKENS = 4096
  const HEAD = 100

  param Kc : bf16[TOKENS, HEAD] role=input align=16
  param Out : bf16[TOKENS, 64] role=output align=16

  tensormap tK : bf16[64, 64] source=Kc swizzle=128B  // expected-blocking: hw-tma-global-layout

  grid tiles=[TOKENS / 64]

  role main warps=0..4

  smem k_s : bf16[64, 64] offset=0 swizzle=128B

  mbarrier ready count=1 producers=[main] consumers=[main]

  reg v : bf16[32] scope=thread

  on main {
    mbarrier.init ready
    fence.mbarrier_init
    cta.sync
    for t in tiles {
      mbarrier.arrive_expect_tx ready bytes=8192
      tma.load k_s, tK[t.x * 64, 0], ready
      mbarrier.try_wait ready parity=0
      ld.shared v, k_s[tid / 2, tid % 2 * 32 +: 32]
      st.global Out[t.x * 64 + tid / 2, tid % 2 * 32 +: 32], v
    }
  }
}
