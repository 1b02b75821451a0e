// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: ldmatrix from rows padded by 4 elements (72-byte rows)
// An attention-score tile Q K^T on A100: K is staged as 64 x 32 bf16 and padded by four
// elements per row (36 columns, 72 bytes) to spread the rows over the banks. ldmatrix reads
// every 8x8 matrix row from one 16-byte aligned address; with 72-byte rows every odd row starts
// 8 bytes off, so the loaded fragments are wrong (or the access faults). Pad by 8 elements.
kernel qk_scores_padded target=sm_80 {
  const SEQ = 4096

  param Q : bf16[SEQ, 32] role=input align=16
  param Kt : bf16[SEQ, 32] role=input align=16
  param S : f32[SEQ, 64] role=output align=16

  grid tiles=[SEQ / 64]

  role main warps=0..1

  smem q_s : bf16[64, 32] offset=0
  smem k_s : bf16[64, 36] offset=4096

  reg q_f : bf16[64, 16] scope=warp
  reg k_f : bf16[64, 16] scope=warp
  reg s_f : f32[64, 64] scope=warp

  on main {
    for t in tiles {
      cp.async q_s, Q[t.x * 64 +: 64, :]
      cp.async k_s[:, 0 +: 32], Kt[t.x * 64 +: 64, :] chunk=8 cache=ca
      cp.async.commit
      cp.async.wait pending=0
      cta.sync
      ew.fill s_f value=0.0
      for kk in 0..2 {
        ldmatrix q_f, q_s[:, kk * 16 +: 16]
        ldmatrix k_f, k_s[:, kk * 16 +: 16]  // expected-blocking: hw-ldmatrix-shape
        mma.sync s_f, q_f, k_f
      }
      epilogue.store S[t.x * 64 +: 64, :], s_f
      cta.sync
    }
  }
}
