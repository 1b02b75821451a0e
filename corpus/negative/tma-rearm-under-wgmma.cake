// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: the elected thread re-arms a TMA load while the other warpgroup still reads
// A non-specialised GEMM: one role of two warpgroups loads each K step with TMA and consumes it
// with wgmma. Nothing orders warpgroup 1's wgmma of step k before the elected thread (in
// warpgroup 0) re-arms the single stage for step k+1, so the copy can overwrite operands still
// being read.
kernel panel_gemm_rearm target=sm_90a {
  param A : bf16[2048, 512] role=input
  param B : bf16[2048, 512] role=input
  param C : f32[2048, 2048] role=output
  tensormap tA : bf16[128, 64] source=A swizzle=128B
  tensormap tB : bf16[64, 64] source=B swizzle=128B
  grid tiles=[16, 32]
  role main warps=0..8
  pipeline p stages=1
  smem a_s : bf16[128, 64] offset=0 swizzle=128B pipeline=p
  smem b_s : bf16[64, 64] offset=16384 swizzle=128B pipeline=p
  mbarrier full count=1 producers=[main] consumers=[main] pipeline=p
  reg acc : f32[64, 64] scope=warpgroup
  on main {
    mbarrier.init full
    fence.mbarrier_init
    cta.sync
    for t in tiles {
      ew.fill acc value=0.0
      for k in 0..8 pipeline=p {
        mbarrier.arrive_expect_tx full[p.slot] bytes=24576
        tma.load a_s, tA[t.x * 128, k * 64], full[p.slot]  // expected-blocking: ps-tma-rearm-while-read
        tma.load b_s, tB[t.y * 64, k * 64], full[p.slot]  // expected-blocking: ps-tma-rearm-while-read
        mbarrier.try_wait full[p.slot] parity=p.phase
        wgmma.fence
        wgmma.mma acc, a_s[wg * 64 +: 64, :], b_s
        wgmma.commit
        wgmma.wait pending=0
      }
      epilogue.store C[t.x * 128 + wg * 64 +: 64, t.y * 64 +: 64], acc
    }
  }
}
