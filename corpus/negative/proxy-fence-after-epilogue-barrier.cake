// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: the proxy fence of the epilogue comes after the barrier
// Each warp of the math role writes its rows of c_s with stmatrix; the named barrier then hands
// the tile to the elected thread that issues the TMA store. The fence.proxy.async that follows the
// barrier orders only each thread's own writes from then on, so the other warps' writes are not
// ordered before the store's async-proxy read.
kernel wave_gemm_late_proxy_fence target=sm_90a {
  const BM = 128
  const BN = 64
  const BK = 64
  param A : bf16[2048, 512] role=input
  param B : bf16[2048, 512] role=input
  param C : bf16[2048, 2048] role=output
  tensormap tA : bf16[BM, BK] source=A swizzle=128B
  tensormap tB : bf16[BN, BK] source=B swizzle=128B
  tensormap tC : bf16[BM, BN] source=C swizzle=128B
  grid tiles=[16, 32] schedule=persistent
  role loader warps=0..4 regs=40
  role math warps=4..12 regs=232
  pipeline ring stages=3
  smem a_s : bf16[BM, BK] offset=0 stages=3 swizzle=128B pipeline=ring
  smem b_s : bf16[BN, BK] offset=49152 stages=3 swizzle=128B pipeline=ring
  smem c_s : bf16[BM, BN] offset=73728 swizzle=128B
  mbarrier full count=1 producers=[loader] consumers=[math] pipeline=ring
  mbarrier empty count=2 producers=[math] consumers=[loader] pipeline=ring
  nbarrier epi roles=[math]
  reg acc : f32[64, BN] scope=warpgroup
  reg acc_bf : bf16[64, BN] scope=warpgroup
  on loader {
    mbarrier.init full
    mbarrier.init empty
    fence.mbarrier_init
  }
  on all {
    cta.sync
  }
  on loader {
    for t in tiles {
      for k in 0..8 pipeline=ring {
        mbarrier.try_wait empty[ring.slot] parity=ring.phase ^ 1
        mbarrier.arrive_expect_tx full[ring.slot] bytes=24576
        tma.load a_s[ring.slot], tA[t.x * BM, k * BK], full[ring.slot]
        tma.load b_s[ring.slot], tB[t.y * BN, k * BK], full[ring.slot]
      }
    }
  }
  on math {
    for t in tiles {
      ew.fill acc value=0.0
      for k in 0..8 pipeline=ring {
        mbarrier.try_wait full[ring.slot] parity=ring.phase
        wgmma.fence
        wgmma.mma acc, a_s[ring.slot, wg * 64 +: 64, :], b_s[ring.slot]
        wgmma.commit
        wgmma.wait pending=0
        mbarrier.arrive empty[ring.slot] scope=warpgroup
      }
      cast acc_bf, acc
      bulk.wait_group pending=0 read=true
      bar.sync epi
      stmatrix c_s[wg * 64 +: 64, :], acc_bf
      bar.sync epi
      fence.proxy.async  // expected-blocking: ps-proxy-fence-after-barrier
      tma.store tC[t.x * BM, t.y * BN], c_s
      bulk.commit_group
    }
    bulk.wait_group pending=0
  }
}
