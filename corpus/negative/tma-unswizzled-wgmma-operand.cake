// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: a TMA box without a swizzle feeds wgmma's K-major B operand
// Attention scores S = Q * K^T for one 64-query block against a stream of 64-key blocks. The
// key tile's tensor map and buffer have swizzle=none: the TMA unit writes the [64, 64] box as
// 64 plain rows of 128 bytes, but a descriptor without a swizzle reads 8 x 16-byte core
// matrices whose rows are 16 bytes apart. The query tile (128B swizzle, one span per row) is
// read correctly.
kernel qk_scores_unswizzled target=sm_90a {
  const S = 4096
  const D = 64
  const BQ = 64
  const BKV = 64

  param Q : bf16[S, D] role=input
  param Kt : bf16[S, D] role=input
  param P : f32[S, S] role=output

  tensormap tQ : bf16[BQ, D] source=Q swizzle=128B
  tensormap tK : bf16[BKV, D] source=Kt swizzle=none

  grid tiles=[S / BQ]

  role loader warps=0..4
  role scorer warps=4..8

  pipeline kv stages=2

  smem q_s : bf16[BQ, D] offset=0 swizzle=128B
  smem k_s : bf16[BKV, D] offset=8192 stages=2 pipeline=kv

  mbarrier q_full count=1 producers=[loader] consumers=[scorer]
  mbarrier k_full count=1 producers=[loader] consumers=[scorer] pipeline=kv
  mbarrier k_free count=1 producers=[scorer] consumers=[loader] pipeline=kv

  reg s_acc : f32[BQ, BKV] scope=warpgroup

  on loader {
    mbarrier.init q_full
    mbarrier.init k_full
    mbarrier.init k_free
    fence.mbarrier_init
  }
  on all {
    cta.sync
  }
  on loader {
    for t in tiles {
      mbarrier.arrive_expect_tx q_full bytes=8192
      tma.load q_s, tQ[t.x * BQ, 0], q_full
      for j in 0..S / BKV pipeline=kv {
        mbarrier.try_wait k_free[kv.slot] parity=kv.phase ^ 1
        mbarrier.arrive_expect_tx k_full[kv.slot] bytes=8192
        tma.load k_s[kv.slot], tK[j * BKV, 0], k_full[kv.slot]
      }
    }
  }
  on scorer {
    for t in tiles {
      mbarrier.try_wait q_full parity=0
      for j in 0..S / BKV pipeline=kv {
        mbarrier.try_wait k_full[kv.slot] parity=kv.phase
        wgmma.fence
        wgmma.mma s_acc, q_s, k_s[kv.slot] accumulate=false  // expected-blocking: dc-mma-descriptor-layout
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive k_free[kv.slot] scope=warpgroup
        epilogue.store P[t.x * BQ +: BQ, j * BKV +: BKV], s_acc
      }
    }
  }
}
