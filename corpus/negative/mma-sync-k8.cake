// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: an mma.sync K step of 8 bf16 elements
// The inner loop walks the 32-wide K slice in steps of 8, as for the m16n8k8 shape that exists
// for f16 and tf32, and loads 64 x 8 fragments. A bf16 mma.sync step consumes 16 elements of
// K (m16n8k16): a K extent of 8 is half an instruction, which cannot be issued.
kernel mma_sync_k8 target=sm_80 {
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

  reg a_f : bf16[64, 8] scope=warp
  reg b_f : bf16[64, 8] scope=warp
  reg c_f : f32[64, 64] scope=warp

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
        for kk in 0..BK / 8 {
          ldmatrix a_f, a_s[k % 3, warp / 2 * 64 +: 64, kk * 8 +: 8]
          ldmatrix b_f, b_s[k % 3, warp % 2 * 64 +: 64, kk * 8 +: 8]
          mma.sync c_f, a_f, b_f  // expected-blocking: hw-mma-instruction-shape
        }
      }
      // Drain: the last two stages are already in flight.
      for k in KT - 2..KT {
        cp.async.wait pending=0
        cta.sync
        for kk in 0..BK / 8 {
          ldmatrix a_f, a_s[k % 3, warp / 2 * 64 +: 64, kk * 8 +: 8]
          ldmatrix b_f, b_s[k % 3, warp % 2 * 64 +: 64, kk * 8 +: 8]
          mma.sync c_f, a_f, b_f  // expected-blocking: hw-mma-instruction-shape
        }
      }
      epilogue.store C[t.x * BM + warp / 2 * 64 +: 64, t.y * BN + warp % 2 * 64 +: 64], c_f
      // The next tile's prologue overwrites stages still read by slower warps.
      cta.sync
    }
  }
}
