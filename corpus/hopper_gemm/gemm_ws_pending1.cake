// SPDX-License-Identifier: GPL-3.0-or-later
// Hopper warp-specialized persistent GEMM, one wgmma batch in flight: C[M, N] = A[M, K] * B[N, K]^T
// bf16 in, fp32 accumulate, bf16 out, M = N = K = 4096, H100 SXM (sm_90a).
//
// Schedule: 128x128x64 CTA tiles; one TMA producer warpgroup and two wgmma consumer
// warpgroups (64 rows of the tile each); a 4-stage full/empty mbarrier ring; setmaxnreg
// split 40 / 232; persistent loop over the 32x32 output tiles; epilogue through shared
// memory (stmatrix, proxy fence, TMA store) in two 64-column halves so that every TMA box
// row is exactly one 128-byte swizzle span.
//
// The mainloop keeps one wgmma batch in flight as CUTLASS's sm90 warp-specialized mainloop
// does (K_PIPE_MMAS = 1: warpgroup_wait<1> after each commit, the stage of the previous batch
// released only then): batch k is issued while batch k - 1 still runs, so the tensor core never
// idles on the issue/wait round trip. gemm_ws.cake is the same kernel waiting for every batch
// (wgmma.wait pending=0), kept as the baseline the gate compares against.
kernel gemm_bf16_ws_pending1 target=sm_90a {
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
  tensormap tC : bf16[BM, 64] source=C swizzle=128B

  grid tiles=[M / BM, N / BN] schedule=persistent

  role producer warps=0..4 regs=40
  role consumer warps=4..12 regs=232

  pipeline ring stages=4

  // 64 KiB of A and 64 KiB of B stages, then the two epilogue halves; every buffer starts on
  // a 1024-byte boundary as 128B swizzling requires.
  smem a_s : bf16[BM, BK] offset=0 stages=4 swizzle=128B pipeline=ring
  smem b_s : bf16[BN, BK] offset=65536 stages=4 swizzle=128B pipeline=ring
  smem c_s : bf16[BM, 64] offset=131072 stages=2 swizzle=128B

  mbarrier full count=1 producers=[producer] consumers=[consumer] pipeline=ring
  mbarrier empty count=2 producers=[consumer] consumers=[producer] pipeline=ring
  nbarrier epi roles=[consumer]

  reg acc : f32[64, BN] scope=warpgroup
  reg acc_bf : bf16[64, BN] scope=warpgroup

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
  on consumer {
    for t in tiles {
      ew.fill acc value=0.0
      // The first K block only starts a batch (peeled: the ring continues across both loops).
      for k in 0..1 pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        wgmma.fence
        wgmma.mma acc, a_s[ring.slot, wg * 64 +: 64, :], b_s[ring.slot]
        wgmma.commit
      }
      for k in 1..K / BK pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        wgmma.fence
        wgmma.mma acc, a_s[ring.slot, wg * 64 +: 64, :], b_s[ring.slot]
        wgmma.commit
        // Batch k - 1 is complete: release its stage (deferred release).
        wgmma.wait pending=1
        mbarrier.arrive empty[(ring.slot + 3) % 4] scope=warpgroup
      }
      // The last batch used stage 3 (K / BK = 64 is a multiple of the 4 stages).
      wgmma.wait pending=0
      mbarrier.arrive empty[3] scope=warpgroup
      // Epilogue: registers -> shared memory (stmatrix) -> global memory (TMA store).
      cast acc_bf, acc
      // The previous tile's TMA store must have read c_s before it is overwritten.
      bulk.wait_group pending=0 read=true
      bar.sync epi
      for h in 0..2 {
        stmatrix c_s[h, wg * 64 +: 64, :], acc_bf[:, h * 64 +: 64]
      }
      // stmatrix writes through the generic proxy; the TMA store reads through the async one.
      fence.proxy.async
      bar.sync epi
      for h in 0..2 {
        tma.store tC[t.x * BM, t.y * BN + h * 64], c_s[h]
      }
      bulk.commit_group
    }
    bulk.wait_group pending=0
  }
}
