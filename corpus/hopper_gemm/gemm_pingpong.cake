// SPDX-License-Identifier: GPL-3.0-or-later
// Hopper ping-pong GEMM: C[M, N] = A[M, K] * B[N, K]^T, bf16 in, fp32 accumulate, bf16 out,
// M = N = K = 4096, H100 SXM (sm_90a).
//
// Production kernel it follows: CUTLASS 3.x KernelTmaWarpSpecializedPingpong
// (include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp, its tile scheduler
// include/cutlass/gemm/kernel/sm90_tile_scheduler.hpp (PersistentTileSchedulerSm90: raster
// order and swizzle), the math-warpgroup order barrier cutlass/pipeline/sm90_pipeline.hpp
// (OrderedSequenceBarrier) and the mainloop collective
// include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp). The schedule, not
// the code:
// - persistent CTAs (one per SM) walk the 32 x 32 output tiles of 128 x 128 in CUTLASS's
//   rasterised order: along N with a swizzle band of 8 M tiles (raster=n swizzle=8), so a wave
//   of 132 tiles in flight reads ~11 A row blocks and ~17 B column blocks instead of 32 and ~5
//   (`cake cost`: 220 instead of 295 panels of HBM traffic for A and B);
// - one TMA producer warpgroup loads every tile of the CTA, in order, through a 4-stage
//   full/empty ring (40 registers);
// - two consumer warpgroups own alternate tiles of the CTA's sequence: consumer0 tiles
//   0, 2, 4, ..., consumer1 tiles 1, 3, 5, ... (stride=2 offset=0|1); each computes a whole
//   128 x 128 tile (two m64n128k16 wgmma rows) and, for each tile the other owns, moves its
//   ring state past that tile's K / BK stages (skip=K / BK: CUTLASS's
//   mainloop_pipe_consumer_state.advance(k_tile_count) at start-up and after each tile);
// - the math-warpgroup order barrier: a consumer bar.syncs on its own named barrier before its
//   mainloop and bar.arrives on the other's after the last wgmma is issued, so one
//   warpgroup's epilogue (convert, stmatrix, TMA store) overlaps the other's mainloop on the
//   tensor cores; consumer1 arrives once up front so that consumer0 goes first (the token left
//   on a barrier at exit is harmless);
// - release of a stage once its wgmma batch has retired (wait pending=0), 232 registers per
//   consumer (setmaxnreg), an epilogue buffer per consumer so the two epilogues never share
//   shared memory.
kernel gemm_bf16_pingpong target=sm_90a {
  const M = 4096
  const N = 4096
  const K = 4096
  const BM = 128
  const BN = 128
  const BK = 64

  param A : bf16[M, K] role=input align=16
  param B : bf16[N, K] role=input align=16
  param C : bf16[M, N] role=output align=16

  tensormap tA : bf16[BM, BK] source=A swizzle=128B
  tensormap tB : bf16[BN, BK] source=B swizzle=128B
  tensormap tC : bf16[64, 64] source=C swizzle=128B

  grid tiles=[M / BM, N / BN] schedule=persistent raster=n swizzle=8

  role producer warps=0..4 regs=40
  role consumer0 warps=4..8 regs=232
  role consumer1 warps=8..12 regs=232

  pipeline ring stages=4

  // 4 x (16 KiB of A + 16 KiB of B), then one 32 KiB epilogue buffer per consumer; every
  // buffer starts on a 1024-byte boundary as 128B swizzling requires.
  smem a_s : bf16[BM, BK] offset=0 stages=4 swizzle=128B pipeline=ring
  smem b_s : bf16[BN, BK] offset=65536 stages=4 swizzle=128B pipeline=ring
  smem c0_s : bf16[64, 64] offset=131072 stages=4 swizzle=128B
  smem c1_s : bf16[64, 64] offset=163840 stages=4 swizzle=128B

  mbarrier full count=1 producers=[producer] consumers=[consumer0, consumer1] pipeline=ring
  // One warpgroup consumes each stage: one arrival releases it.
  mbarrier empty count=1 producers=[consumer0, consumer1] consumers=[producer] pipeline=ring
  // The math-warpgroup order barrier: whose turn it is on the tensor cores.
  nbarrier turn0 roles=[consumer0, consumer1]
  nbarrier turn1 roles=[consumer0, consumer1]
  nbarrier epi0 roles=[consumer0]
  nbarrier epi1 roles=[consumer1]

  // A consumer's 128 x 128 tile as two m64 wgmma accumulators (rows 0..63 and 64..127).
  reg acc0 : f32[64, BN] scope=warpgroup
  reg acc1 : f32[64, BN] scope=warpgroup
  reg acc0_bf : bf16[64, BN] scope=warpgroup
  reg acc1_bf : bf16[64, BN] scope=warpgroup

  on producer {
    mbarrier.init full
    mbarrier.init empty
    // The TMA unit signals these barriers through the async proxy.
    fence.mbarrier_init
  }
  on all {
    cta.sync
  }
  on producer {
    for t in tiles {
      for k in 0..K / BK pipeline=ring {
        // Producers start on the opposite parity: a fresh empty barrier counts as released.
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        mbarrier.arrive_expect_tx full[ring.slot] bytes=32768
        tma.load a_s[ring.slot], tA[t.x * BM, k * BK], full[ring.slot]
        tma.load b_s[ring.slot], tB[t.y * BN, k * BK], full[ring.slot]
      }
    }
  }
  on consumer0 {
    for t in tiles stride=2 offset=0 {
      ew.fill acc0 value=0.0
      ew.fill acc1 value=0.0
      // Our turn on the tensor cores.
      bar.sync turn0
      for k in 0..K / BK pipeline=ring skip=K / BK {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        wgmma.fence
        wgmma.mma acc0, a_s[ring.slot, 0 +: 64, :], b_s[ring.slot]
        wgmma.mma acc1, a_s[ring.slot, 64 +: 64, :], b_s[ring.slot]
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive empty[ring.slot] scope=warpgroup
      }
      // The mainloop is done: consumer1's mainloop overlaps this epilogue.
      bar.arrive turn1
      cast acc0_bf, acc0
      cast acc1_bf, acc1
      // The previous tile's TMA store must have read c0_s before it is overwritten.
      bulk.wait_group pending=0 read=true
      bar.sync epi0
      for h in 0..2 {
        stmatrix c0_s[h * 2], acc0_bf[:, h * 64 +: 64]
        stmatrix c0_s[h * 2 + 1], acc1_bf[:, h * 64 +: 64]
      }
      // stmatrix writes through the generic proxy; the TMA store reads through the async one.
      fence.proxy.async
      bar.sync epi0
      for h in 0..2 {
        for r in 0..2 {
          tma.store tC[t.x * BM + r * 64, t.y * BN + h * 64], c0_s[h * 2 + r]
        }
      }
      bulk.commit_group
    }
    bulk.wait_group pending=0
  }
  on consumer1 {
    // consumer0 goes first.
    bar.arrive turn0
    for t in tiles stride=2 offset=1 {
      ew.fill acc0 value=0.0
      ew.fill acc1 value=0.0
      bar.sync turn1
      for k in 0..K / BK pipeline=ring skip=K / BK {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        wgmma.fence
        wgmma.mma acc0, a_s[ring.slot, 0 +: 64, :], b_s[ring.slot]
        wgmma.mma acc1, a_s[ring.slot, 64 +: 64, :], b_s[ring.slot]
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive empty[ring.slot] scope=warpgroup
      }
      bar.arrive turn0
      cast acc0_bf, acc0
      cast acc1_bf, acc1
      bulk.wait_group pending=0 read=true
      bar.sync epi1
      for h in 0..2 {
        stmatrix c1_s[h * 2], acc0_bf[:, h * 64 +: 64]
        stmatrix c1_s[h * 2 + 1], acc1_bf[:, h * 64 +: 64]
      }
      fence.proxy.async
      bar.sync epi1
      for h in 0..2 {
        for r in 0..2 {
          tma.store tC[t.x * BM + r * 64, t.y * BN + h * 64], c1_s[h * 2 + r]
        }
      }
      bulk.commit_group
    }
    bulk.wait_group pending=0
  }
}
