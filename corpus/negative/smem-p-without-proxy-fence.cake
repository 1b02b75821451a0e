// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: P handed to tcgen05.mma through shared memory without fence.proxy.async
// The softmax warpgroup writes P with st.shared (generic proxy) and the MMA warp reads it as
// the A operand through a matrix descriptor (async proxy). Unlike the tensor-memory hand-off
// (tcgen05.st, tcgen05.wait_st, tcgen05 fences), shared memory needs fence.proxy.async between
// the write and the barrier, or the tensor core may read stale P.
kernel attention_pv_smem_unfenced target=sm_100a {
  const ROWS = 8192
  const D = 128
  const BM = 128
  const BN = 64

  param V : bf16[D, ROWS] role=input
  param O : bf16[ROWS, D] role=output

  tensormap tV : bf16[D, BN] source=V swizzle=128B

  grid tiles=[ROWS / BM] schedule=persistent

  role softmax warps=0..4
  role loader warps=4..5
  role mma warps=5..6

  pipeline ring stages=2
  pipeline tile stages=1

  smem v_s : bf16[D, BN] offset=0 stages=2 swizzle=128B pipeline=ring
  smem p_s : bf16[BM, BN] offset=32768 swizzle=128B

  tmem o_t : f32[BM, D] cols=0..128

  mbarrier full count=1 producers=[loader] consumers=[mma] pipeline=ring
  mbarrier empty count=1 producers=[mma] consumers=[loader] pipeline=ring
  mbarrier p_full count=4 producers=[softmax] consumers=[mma] pipeline=tile
  mbarrier o_full count=1 producers=[mma] consumers=[softmax] pipeline=tile

  reg p_r : bf16[32, BN] scope=warp
  reg o_r : f32[32, 32] scope=warp
  reg out_r : bf16[32, 32] scope=warp

  on loader {
    mbarrier.init full
    mbarrier.init empty
    mbarrier.init p_full
    mbarrier.init o_full
    fence.mbarrier_init
  }
  on mma {
    tcgen05.alloc o_t
    tcgen05.relinquish
  }
  on all {
    cta.sync
  }
  on loader {
    for t in tiles {
      for j in 0..1 pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        mbarrier.arrive_expect_tx full[ring.slot] bytes=16384
        tma.load v_s[ring.slot], tV[0, t.x * BN], full[ring.slot]
      }
    }
  }
  on softmax {
    for t in tiles pipeline=tile {
      // P of this row block, 32 rows per warp.
      ew.fill p_r value=1.0
      st.shared p_s[warp * 32 +: 32, :], p_r
      tcgen05.fence_before
      mbarrier.arrive p_full[tile.slot] scope=warp
      // O of this row block: once it is read back, P and O may be written again.
      mbarrier.try_wait o_full[tile.slot] parity=tile.phase
      tcgen05.fence_after
      for c in 0..D / 32 {
        tcgen05.ld o_r, o_t[warp * 32 +: 32, c * 32 +: 32]
        tcgen05.wait_ld
        cast out_r, o_r
        epilogue.store O[t.x * BM + warp * 32 +: 32, c * 32 +: 32], out_r
      }
      tcgen05.fence_before
    }
  }
  on mma {
    for t in tiles pipeline=tile {
      mbarrier.try_wait p_full[tile.slot] parity=tile.phase
      tcgen05.fence_after
      for j in 0..1 pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        tcgen05.fence_after
        tcgen05.mma o_t, p_s, v_s[ring.slot] accumulate=false  // expected-blocking: ps-missing-proxy-fence
        tcgen05.commit empty[ring.slot]
      }
      tcgen05.commit o_full[tile.slot]
    }
  }
  on all {
    cta.sync
  }
  on mma {
    tcgen05.dealloc o_t
  }
}
