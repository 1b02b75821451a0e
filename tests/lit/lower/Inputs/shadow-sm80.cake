// SPDX-License-Identifier: GPL-3.0-or-later
// The Ampere GEMM with its loops named like the loops lowering introduces: cp.async copies
// with repeat("c") inside the user loops `c`, ldmatrix with repeat("blk") inside `blk`.
// Emitted names must stay unique (names.test) and both back ends agree (backend-diff).
kernel gemm_bf16_cp_async target=sm_80 {
  const M = 4096
  const N = 4096
  const K = 4096
  const BM = 128
  const BN = 128
  const BK = 32
  const KT = K / BK

  param A : bf16[M, K] role=input
  param B : bf16[N, K] role=input
  param C : bf16[M, N] role=output

  grid tiles=[M / BM, N / BN]

  role main warps=0..4

  // 3 stages x (8 KiB A + 8 KiB B) = 48 KiB; 64-byte rows use the 64B swizzle so that the
  // eight 16-byte rows an ldmatrix reads fall into distinct bank groups.
  smem a_s : bf16[BM, BK] offset=0 stages=3 swizzle=64B
  smem b_s : bf16[BN, BK] offset=24576 stages=3 swizzle=64B

  reg a_f : bf16[64, 16] scope=warp
  reg b_f : bf16[64, 16] scope=warp
  reg c_f : f32[64, 64] scope=warp

  on main {
    for t in tiles {
      ew.fill c_f value=0.0
      // Prologue: stages 0 and 1 in flight.
      for c in 0..2 {
        cp.async a_s[c], A[t.x * BM +: BM, c * BK +: BK]
        cp.async b_s[c], B[t.y * BN +: BN, c * BK +: BK]
        cp.async.commit
      }
      // Steady state: consume stage c, prefetch stage c + 2 into the slot stage c - 1 used.
      for c in 0..KT - 2 {
        cp.async.wait pending=1
        cta.sync
        cp.async a_s[(c + 2) % 3], A[t.x * BM +: BM, (c + 2) * BK +: BK]
        cp.async b_s[(c + 2) % 3], B[t.y * BN +: BN, (c + 2) * BK +: BK]
        cp.async.commit
        for blk in 0..BK / 16 {
          ldmatrix a_f, a_s[c % 3, warp / 2 * 64 +: 64, blk * 16 +: 16]
          ldmatrix b_f, b_s[c % 3, warp % 2 * 64 +: 64, blk * 16 +: 16]
          mma.sync c_f, a_f, b_f
        }
      }
      // Drain: the last two stages are already in flight.
      for c in KT - 2..KT {
        cp.async.wait pending=0
        cta.sync
        for blk in 0..BK / 16 {
          ldmatrix a_f, a_s[c % 3, warp / 2 * 64 +: 64, blk * 16 +: 16]
          ldmatrix b_f, b_s[c % 3, warp % 2 * 64 +: 64, blk * 16 +: 16]
          mma.sync c_f, a_f, b_f
        }
      }
      epilogue.store C[t.x * BM + warp / 2 * 64 +: 64, t.y * BN + warp % 2 * 64 +: 64], c_f
      // The next tile's prologue overwrites stages still read by slower warps.
      cta.sync
    }
  }
}
