// SPDX-License-Identifier: GPL-3.0-or-later
// 2-CTA Blackwell GEMM: C[M, N] = A[M, K] * B[N, K]^T, bf16 in, fp32 accumulate in tensor memory,
// bf16 out, M = N = K = 4096 on B200 (sm_100a).
//
// Follows CUTLASS's sm100 2-SM kernels (structure only): KernelTmaWarpSpecialized2SmSm100 in
// gemm/kernel/sm100_gemm_tma_warpspecialized.hpp with the collective
// gemm/collective/sm100_mma_warpspecialized.hpp and PipelineTmaUmmaAsync. A cluster of two CTAs
// is one CTA pair that computes a 256x256 tile with tcgen05.mma.cta_group::2: each CTA loads its
// own 128 rows of A and one 128-row half of B (so each CTA streams half of the pair's B tile),
// and the MMA reads A and B from both CTAs' shared memory at the same offsets and accumulates
// into both CTAs' tensor memory (128 lanes x 256 columns each). Roles:
// - producer (one warp, both CTAs): its copies use .cta_group::2, completing their bytes on the
//   full barrier of the pair's leader (the even CTA); the leader alone announces the pair's
//   64 KiB per stage (arrive_expect_tx cta_group=2), as PipelineTmaUmmaAsync's is_leader does;
// - mma (one warp; the loop runs in the leader only, `on mma cta=leader`, CUTLASS's
//   is_mma_leader_cta): one elected thread issues the pair's MMAs; tcgen05.commit with
//   .multicast::cluster releases the smem stage in both CTAs (umma_arrive_multicast_2x1SM) and
//   hands the accumulator to both CTAs' epilogues. Both CTAs' mma warps allocate and free the
//   pair's 256 TMEM columns (tcgen05.alloc/dealloc cta_group::2 is collective over the pair);
// - epilogue (one warpgroup, both CTAs): TMEM -> registers (tcgen05.ld 32x32b, each warp its
//   32-lane quarter) -> bf16 -> shared memory (st.shared, two staging buffers) -> fence.proxy.async
//   -> TMA store of 128x32 subtiles; the TMEM is released to the leader's MMA (acc_empty counts
//   both CTAs' 4 warps, remote arrive cta_mask=1).
// Persistent over 32 x 16 pair tiles (t.x: this CTA's 128-row block; its pair partner has the
// neighbouring t.x, so t.x % 2 is the CTA's rank in the pair and picks its half of B), in
// CUTLASS's rasterised order (PersistentTileSchedulerSm100, raster along N with a swizzle of 8:
// the pairs in flight walk bands of 8 M blocks, sharing their A and B panels in L2); a clustered
// grid orders whole clusters, so the two CTAs of a pair keep one pair tile in any order. Cluster
// barriers publish the barrier initialisation to the peer and keep both CTAs alive until no
// remote arrive or commit can reach them; the producer's tail waits out the last releases.
kernel gemm_bf16_2cta target=sm_100a {
  const M = 4096
  const N = 4096
  const K = 4096
  const BM = 128
  const BN = 256
  const BK = 64
  const EN = 32
  const STAGES = 6

  param A : bf16[M, K] role=input align=16
  param B : bf16[N, K] role=input align=16
  param C : bf16[M, N] role=output align=16

  tensormap tA : bf16[BM, BK] source=A swizzle=128B
  tensormap tB : bf16[BN / 2, BK] source=B swizzle=128B
  tensormap tC : bf16[BM, EN] source=C swizzle=64B

  grid tiles=[M / BM, N / BN] schedule=persistent cluster=[2, 1, 1] raster=n swizzle=8

  role epilogue warps=0..4
  role producer warps=4..5
  role mma warps=5..6

  pipeline ring stages=STAGES
  pipeline accp stages=1

  // Six stages of 16 KiB of A and 16 KiB of B per CTA, and two 8 KiB epilogue staging buffers.
  smem a_s : bf16[BM, BK] offset=0 stages=STAGES swizzle=128B pipeline=ring
  smem b_s : bf16[BN / 2, BK] offset=98304 stages=STAGES swizzle=128B pipeline=ring
  smem c_s : bf16[BM, EN] offset=196608 stages=2 swizzle=64B

  tmem d_t : f32[BM, BN] cols=0..256

  // The leader's full barrier receives its own arrive_expect_tx and both CTAs' copies.
  mbarrier full count=1 producers=[producer] consumers=[mma] pipeline=ring
  mbarrier empty count=1 producers=[mma] consumers=[producer] pipeline=ring
  mbarrier acc_full count=1 producers=[mma] consumers=[epilogue] pipeline=accp
  // Four epilogue warps in each CTA of the pair release the accumulator to the leader.
  mbarrier acc_empty count=8 producers=[epilogue] consumers=[mma] pipeline=accp
  nbarrier epi roles=[epilogue]

  reg acc_r : f32[32, EN] scope=warp
  reg out_r : bf16[32, EN] scope=warp

  on producer {
    mbarrier.init full
    mbarrier.init empty
    mbarrier.init acc_full
    mbarrier.init acc_empty
    // The TMA unit and the peer CTA signal these barriers.
    fence.mbarrier_init
  }
  on mma {
    tcgen05.alloc d_t cta_group=2
    tcgen05.relinquish cta_group=2
  }
  // Barrier initialisation (both CTAs) and the TMEM base address become visible cluster-wide.
  on all {
    cluster.sync
  }
  on producer {
    for t in tiles {
      for k in 0..K / BK pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        // 2 CTAs x (16 KiB of A + 16 KiB of B), announced by the leader.
        mbarrier.arrive_expect_tx full[ring.slot] bytes=65536 cta_group=2
        tma.load a_s[ring.slot], tA[t.x * BM, k * BK], full[ring.slot] cta_group=2
        tma.load b_s[ring.slot], tB[t.y * BN + t.x % 2 * (BN / 2), k * BK], full[ring.slot] cta_group=2
      }
    }
    // Producer tail: the leader's last commits arrive on this CTA's empty barrier; wait for
    // them so that no release is in flight when the CTA exits.
    for k in 0..STAGES pipeline=ring {
      mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
    }
  }
  on mma cta=leader {
    for t in tiles pipeline=accp {
      // Wait until both CTAs' epilogues have drained the accumulator of the previous tile.
      mbarrier.try_wait acc_empty[accp.slot] parity=accp.phase ^ 1
      tcgen05.fence_after
      // The first K step overwrites the accumulator; the rest accumulate.
      for k in 0..1 pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        tcgen05.fence_after
        tcgen05.mma d_t, a_s[ring.slot], b_s[ring.slot] accumulate=false cta_group=2
        tcgen05.commit empty[ring.slot] cta_group=2 multicast=3
      }
      for k in 1..K / BK pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        tcgen05.fence_after
        tcgen05.mma d_t, a_s[ring.slot], b_s[ring.slot] cta_group=2
        tcgen05.commit empty[ring.slot] cta_group=2 multicast=3
      }
      tcgen05.commit acc_full[accp.slot] cta_group=2 multicast=3
    }
  }
  on epilogue {
    for t in tiles pipeline=accp {
      mbarrier.try_wait acc_full[accp.slot] parity=accp.phase
      tcgen05.fence_after
      for c in 0..BN / EN {
        tcgen05.ld acc_r, d_t[warp * 32 +: 32, c * EN +: EN]
        tcgen05.wait_ld
        cast out_r, acc_r
        // The TMA store issued two subtiles ago has read this staging buffer.
        bulk.wait_group pending=1 read=true
        bar.sync epi
        st.shared c_s[c % 2, warp * 32 +: 32, :], out_r
        // Generic-proxy writes become visible to the TMA store (async proxy).
        fence.proxy.async
        bar.sync epi
        tma.store tC[t.x * BM, t.y * BN + c * EN], c_s[c % 2]
        bulk.commit_group
      }
      // This warp's accumulator lanes are read: release them to the leader's MMA.
      tcgen05.fence_before
      mbarrier.arrive acc_empty[accp.slot] scope=warp cta_mask=1
    }
    bulk.wait_group pending=0
  }
  // No CTA exits while its peer can still reach its barriers or tensor memory.
  on all {
    cluster.sync
  }
  on mma {
    tcgen05.dealloc d_t cta_group=2
  }
}
