// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: three 256-column accumulators in 512 columns of tensor memory
// A fused QKV projection computes the Q, K and V tiles of one row block together so that
// every X tile is loaded once. With BN = 256 each fp32 accumulator needs 256 TMEM columns:
// 768 in all, but an SM has 512. tcgen05.alloc for v_t would wait forever for columns that
// never become free. Use BN = 128: three accumulators in 384 columns.
kernel tmem_three_accumulators target=sm_100a {
  const M = 4096
  const N = 4096
  const K = 4096
  const BM = 128
  const BN = 256
  const BK = 64

  param X : bf16[M, K] role=input
  // Wq, Wk and Wv stacked: rows 0..N, N..2N and 2N..3N.
  param W : bf16[3 * N, K] role=input
  param QKV : bf16[M, 3 * N] role=output

  tensormap tX : bf16[BM, BK] source=X swizzle=128B
  tensormap tW : bf16[BN, BK] source=W swizzle=128B

  grid tiles=[M / BM, N / BN] schedule=persistent

  role epilogue warps=0..4
  role producer warps=4..5
  role mma warps=5..6

  pipeline ring stages=2
  pipeline accp stages=1

  // Per stage: 16 KiB of X and 3 x 32 KiB of weights.
  smem x_s : bf16[BM, BK] offset=0 stages=2 swizzle=128B pipeline=ring
  smem w_s : bf16[3, BN, BK] offset=32768 stages=2 swizzle=128B pipeline=ring

  tmem q_t : f32[BM, BN] cols=0..256
  tmem k_t : f32[BM, BN] cols=256..512
  tmem v_t : f32[BM, BN] cols=512..768  // expected-blocking: hw-tmem-capacity

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
    fence.mbarrier_init
  }
  on mma {
    tcgen05.alloc q_t
    tcgen05.alloc k_t
    tcgen05.alloc v_t
    tcgen05.relinquish
  }
  on all {
    cta.sync
  }
  on producer {
    for t in tiles {
      for k in 0..K / BK pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        mbarrier.arrive_expect_tx full[ring.slot] bytes=114688
        tma.load x_s[ring.slot], tX[t.x * BM, k * BK], full[ring.slot]
        tma.load w_s[ring.slot, 0, :, :], tW[t.y * BN, k * BK], full[ring.slot]
        tma.load w_s[ring.slot, 1, :, :], tW[N + t.y * BN, k * BK], full[ring.slot]
        tma.load w_s[ring.slot, 2, :, :], tW[2 * N + t.y * BN, k * BK], full[ring.slot]
      }
    }
  }
  on mma {
    for t in tiles pipeline=accp {
      mbarrier.try_wait acc_empty[accp.slot] parity=accp.phase ^ 1
      tcgen05.fence_after
      for k in 0..1 pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        tcgen05.fence_after
        tcgen05.mma q_t, x_s[ring.slot], w_s[ring.slot, 0, :, :] accumulate=false
        tcgen05.mma k_t, x_s[ring.slot], w_s[ring.slot, 1, :, :] accumulate=false
        tcgen05.mma v_t, x_s[ring.slot], w_s[ring.slot, 2, :, :] accumulate=false
        tcgen05.commit empty[ring.slot]
      }
      for k in 1..K / BK pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        tcgen05.fence_after
        tcgen05.mma q_t, x_s[ring.slot], w_s[ring.slot, 0, :, :]
        tcgen05.mma k_t, x_s[ring.slot], w_s[ring.slot, 1, :, :]
        tcgen05.mma v_t, x_s[ring.slot], w_s[ring.slot, 2, :, :]
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
        tcgen05.ld acc_r, q_t[warp * 32 +: 32, c * 32 +: 32]
        tcgen05.wait_ld
        cast out_r, acc_r
        epilogue.store QKV[t.x * BM + warp * 32 +: 32, t.y * BN + c * 32 +: 32], out_r
        tcgen05.ld acc_r, k_t[warp * 32 +: 32, c * 32 +: 32]
        tcgen05.wait_ld
        cast out_r, acc_r
        epilogue.store QKV[t.x * BM + warp * 32 +: 32, N + t.y * BN + c * 32 +: 32], out_r
        tcgen05.ld acc_r, v_t[warp * 32 +: 32, c * 32 +: 32]
        tcgen05.wait_ld
        cast out_r, acc_r
        epilogue.store QKV[t.x * BM + warp * 32 +: 32, 2 * N + t.y * BN + c * 32 +: 32], out_r
      }
      tcgen05.fence_before
      mbarrier.arrive acc_empty[accp.slot] scope=warp
    }
  }
  on all {
    cta.sync
  }
  on mma {
    tcgen05.dealloc q_t
    tcgen05.dealloc k_t
    tcgen05.dealloc v_t
  }
}
