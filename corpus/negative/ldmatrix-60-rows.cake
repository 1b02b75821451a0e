// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: ldmatrix over a 60-row slice of the B tile
// N = 3840 is tiled with BN = 120 (32 column tiles) and the 2 x 2 warp arrangement of the
// 128-wide kernel is kept, so each warp owns 60 columns of the output. ldmatrix moves whole
// 8x8 matrices and cannot load the last 4 rows of a 60-row B slice, and mma.sync (m16n8k16)
// has no instruction for the 4-column remainder of the accumulator either. Split the warps
// at a multiple of 8 columns or keep BN a multiple of 16.
kernel ldmatrix_60_rows target=sm_80 {
  const M = 4096
  const N = 3840
  const K = 4096
  const BM = 128
  const BN = 120
  const BK = 32
  const KT = K / BK
  const WN = BN / 2

  param A : bf16[M, K] role=input
  param B : bf16[N, K] role=input
  param C : bf16[M, N] role=output

  grid tiles=[M / BM, N / BN]

  role main warps=0..4

  // 3 stages x (8 KiB A + 7.5 KiB B); 64-byte rows use the 64B swizzle.
  smem a_s : bf16[BM, BK] offset=0 stages=3 swizzle=64B
  smem b_s : bf16[BN, BK] offset=24576 stages=3 swizzle=64B

  reg a_f : bf16[64, 16] scope=warp
  reg b_f : bf16[WN, 16] scope=warp
  reg c_f : f32[64, WN] scope=warp

  on main {
    for t in tiles {
      ew.fill c_f value=0.0
      // Prologue: stages 0 and 1 in flight.
      for p in 0..2 {
        cp.async a_s[p], A[t.x * BM +: BM, p * BK +: BK]
        cp.async b_s[p], B[t.y * BN +: BN, p * BK +: BK]
        cp.async.commit
      }
      // Steady state: consume stage k, prefetch stage k + 2 into the slot stage k - 1 used.
      for k in 0..KT - 2 {
        cp.async.wait pending=1
        cta.sync
        cp.async a_s[(k + 2) % 3], A[t.x * BM +: BM, (k + 2) * BK +: BK]
        cp.async b_s[(k + 2) % 3], B[t.y * BN +: BN, (k + 2) * BK +: BK]
        cp.async.commit
        for kk in 0..BK / 16 {
          ldmatrix a_f, a_s[k % 3, warp / 2 * 64 +: 64, kk * 16 +: 16]
          ldmatrix b_f, b_s[k % 3, warp % 2 * WN +: WN, kk * 16 +: 16]  // expected-blocking: hw-ldmatrix-shape
          mma.sync c_f, a_f, b_f  // expected-blocking: hw-mma-instruction-shape
        }
      }
      // Drain: the last two stages are already in flight.
      for k in KT - 2..KT {
        cp.async.wait pending=0
        cta.sync
        for kk in 0..BK / 16 {
          ldmatrix a_f, a_s[k % 3, warp / 2 * 64 +: 64, kk * 16 +: 16]
          ldmatrix b_f, b_s[k % 3, warp % 2 * WN +: WN, kk * 16 +: 16]  // expected-blocking: hw-ldmatrix-shape
          mma.sync c_f, a_f, b_f  // expected-blocking: hw-mma-instruction-shape
        }
      }
      epilogue.store C[t.x * BM + warp / 2 * 64 +: 64, t.y * BN + warp % 2 * WN +: WN], c_f
      // The next tile's prologue overwrites stages still read by slower warps.
      cta.sync
    }
  }
}
