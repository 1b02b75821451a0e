// SPDX-License-Identifier: GPL-3.0-or-later
// Blackwell GEMM with tf32 inputs (kind::tf32): the bf16 corpus schedule with K tiles of 128 bytes.
kernel gemm_tf32_tcgen05 target=sm_100a {
  const M = 4096
  const N = 4096
  const K = 4096
  const BM = 128
  const BN = 256
  const BK = 32

  param A : tf32[M, K] role=input align=16
  param B : tf32[N, K] role=input align=16
  param C : bf16[M, N] role=output align=16

  tensormap tA : tf32[BM, BK] source=A swizzle=128B
  tensormap tB : tf32[BN, BK] source=B swizzle=128B

  grid tiles=[M / BM, N / BN] schedule=persistent

  role epilogue warps=0..4
  role producer warps=4..5
  role mma warps=5..6

  pipeline ring stages=4
  pipeline accp stages=1

  smem a_s : tf32[BM, BK] offset=0 stages=4 swizzle=128B pipeline=ring
  smem b_s : tf32[BN, BK] offset=65536 stages=4 swizzle=128B pipeline=ring

  tmem d_t : f32[BM, BN] cols=0..256

  mbarrier full count=1 producers=[producer] consumers=[mma] pipeline=ring
  mbarrier empty count=1 producers=[mma] consumers=[producer] pipeline=ring
  mbarrier acc_full count=1 producers=[mma] consumers=[epilogue] pipeline=accp
  mbarrier acc_empty count=4 producers=[epilogue] consumers=[mma] pipeline=accp

  reg acc_r : f32[32, 32] scope=warp
  reg out_r : bf16[32, 32] scope=warp

  on producer {
    mbarrier.init full
    mbarrier.init empty
    mbarrier.init acc_full
    mbarrier.init acc_empty
    // The TMA unit signals these barriers through the async proxy.
    fence.mbarrier_init
  }
  on mma {
    tcgen05.alloc d_t
    tcgen05.relinquish
  }
  // Barrier initialisation and the TMEM base address become visible to every warp.
  on all {
    cta.sync
  }
  on producer {
    for t in tiles {
      for k in 0..K / BK pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        mbarrier.arrive_expect_tx full[ring.slot] bytes=49152
        tma.load a_s[ring.slot], tA[t.x * BM, k * BK], full[ring.slot]
        tma.load b_s[ring.slot], tB[t.y * BN, k * BK], full[ring.slot]
      }
    }
  }
  on mma {
    for t in tiles pipeline=accp {
      // Wait until the epilogue has drained the accumulator of the previous tile.
      mbarrier.try_wait acc_empty[accp.slot] parity=accp.phase ^ 1
      tcgen05.fence_after
      // The first K step overwrites the accumulator; the rest accumulate.
      for k in 0..1 pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        tcgen05.fence_after
        tcgen05.mma d_t, a_s[ring.slot], b_s[ring.slot] accumulate=false
        tcgen05.commit empty[ring.slot]
      }
      for k in 1..K / BK pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        tcgen05.fence_after
        tcgen05.mma d_t, a_s[ring.slot], b_s[ring.slot]
        tcgen05.commit empty[ring.slot]
      }
      tcgen05.commit acc_full[accp.slot]
    }
  }
  on epilogue {
    for t in tiles pipeline=accp {
      mbarrier.try_wait acc_full[accp.slot] parity=accp.phase
      tcgen05.fence_after
      for c in 0..BN / 32 {
        tcgen05.ld acc_r, d_t[warp * 32 +: 32, c * 32 +: 32]
        tcgen05.wait_ld
        cast out_r, acc_r
        epilogue.store C[t.x * BM + warp * 32 +: 32, t.y * BN + c * 32 +: 32], out_r
      }
      tcgen05.fence_before
      mbarrier.arrive acc_empty[accp.slot] scope=warp
    }
  }
  // Every TMEM reader has finished; the allocating warp returns the columns.
  on all {
    cta.sync
  }
  on mma {
    tcgen05.dealloc d_t
  }
}
