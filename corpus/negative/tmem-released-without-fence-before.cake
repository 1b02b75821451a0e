// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: the accumulator released without tcgen05.fence_before
// Blackwell projection Y[M, N] = X[M, K] * W[N, K]^T, bf16 in, fp32 in tensor memory: one TMA
// warp, one MMA warp, an epilogue warpgroup draining a 128-lane x 128-column accumulator per
// tile through a 2-stage ring and an acc_full / acc_empty hand-off.
// // The drain arrives on acc_empty right after its last tcgen05.ld/wait: without
// tcgen05.fence_before the issuer's next MMA may overwrite cells the drain still reads.
kernel proj_no_fence_before target=sm_100a {
  const M = 8192
  const N = 1024
  const K = 1024
  const BM = 128
  const BN = 128
  const BK = 64

  param X : bf16[M, K] role=input
  param W : bf16[N, K] role=input
  param Y : bf16[M, N] role=output

  tensormap tX : bf16[BM, BK] source=X swizzle=128B
  tensormap tW : bf16[BN, BK] source=W swizzle=128B

  grid tiles=[M / BM, N / BN] schedule=persistent

  role loader warps=4..5
  role issuer warps=5..6
  role drain warps=0..4

  pipeline ring stages=2
  pipeline accp stages=1

  smem x_s : bf16[BM, BK] offset=0 stages=2 swizzle=128B pipeline=ring
  smem w_s : bf16[BN, BK] offset=32768 stages=2 swizzle=128B pipeline=ring

  tmem d_t : f32[BM, BN] cols=0..128

  mbarrier full count=1 producers=[loader] consumers=[issuer] pipeline=ring
  mbarrier empty count=1 producers=[issuer] consumers=[loader] pipeline=ring
  mbarrier acc_full count=1 producers=[issuer] consumers=[drain] pipeline=accp
  mbarrier acc_empty count=4 producers=[drain] consumers=[issuer] pipeline=accp

  reg part : f32[32, 32] scope=warp
  reg part_bf : bf16[32, 32] scope=warp

  on loader {
    mbarrier.init full
    mbarrier.init empty
    mbarrier.init acc_full
    mbarrier.init acc_empty
    fence.mbarrier_init
  }
  on issuer {
    tcgen05.alloc d_t
    tcgen05.relinquish
  }
  on all {
    cta.sync
  }
  on loader {
    for t in tiles {
      for k in 0..K / BK pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        mbarrier.arrive_expect_tx full[ring.slot] bytes=32768
        tma.load x_s[ring.slot], tX[t.x * BM, k * BK], full[ring.slot]
        tma.load w_s[ring.slot], tW[t.y * BN, k * BK], full[ring.slot]
      }
    }
  }
  on issuer {
    for t in tiles pipeline=accp {
      mbarrier.try_wait acc_empty[accp.slot] parity=accp.phase ^ 1
      tcgen05.fence_after
      // The first K block overwrites the accumulator, the others add to it.
      for k in 0..1 pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        tcgen05.fence_after
        tcgen05.mma d_t, x_s[ring.slot], w_s[ring.slot] accumulate=false
        tcgen05.commit empty[ring.slot]
      }
      for k in 1..K / BK pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        tcgen05.fence_after
        tcgen05.mma d_t, x_s[ring.slot], w_s[ring.slot]
        tcgen05.commit empty[ring.slot]
      }
      tcgen05.commit acc_full[accp.slot]
    }
  }
  on drain {
    for t in tiles pipeline=accp {
      mbarrier.try_wait acc_full[accp.slot] parity=accp.phase
      tcgen05.fence_after
      for c in 0..BN / 32 {
        tcgen05.ld part, d_t[warp * 32 +: 32, c * 32 +: 32]  // expected-blocking: ps-tcgen05-fence-before
        tcgen05.wait_ld
        cast part_bf, part
        epilogue.store Y[t.x * BM + warp * 32 +: 32, t.y * BN + c * 32 +: 32], part_bf
      }

      mbarrier.arrive acc_empty[accp.slot] scope=warp
    }
  }
  on all {
    cta.sync
  }
  on issuer {
    tcgen05.dealloc d_t
  }
}
