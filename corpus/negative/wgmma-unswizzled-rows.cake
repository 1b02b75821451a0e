// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: wgmma reads an unswizzled cp.async tile through core-matrix descriptors
// A LoRA up-projection (Y = X * U with the rank 32 as K): one warpgroup copies a [64, 32] tile
// of X with cp.async into a buffer without a swizzle, so each row of the tile is 64 plain bytes.
// A descriptor without a swizzle reads core matrices whose 8 rows are 16 bytes apart: row 1 of
// the tile would be read from byte 16, where row 0's ninth element sits. The up-projection tile
// is fine without a swizzle: it is N-major with N = 8 (16-byte rows, one core matrix wide).
kernel lora_up_unswizzled target=sm_90a {
  const M = 8192
  const N = 512
  const RANK = 32

  param X : bf16[M, RANK] role=input
  param U : bf16[RANK, N] role=input
  param Y : f32[M, N] role=output

  grid tiles=[M / 64, N / 8]

  role main warps=0..4

  smem x_s : bf16[64, RANK] offset=0
  smem u_s : bf16[RANK, 8] offset=4096

  reg acc : f32[64, 8] scope=warpgroup

  on main {
    for t in tiles {
      cp.async x_s, X[t.x * 64 +: 64, :]
      cp.async u_s, U[:, t.y * 8 +: 8]
      cp.async.commit
      cp.async.wait pending=0
      cta.sync
      // cp.async writes through the generic proxy; wgmma reads through the async one.
      fence.proxy.async
      wgmma.fence
      wgmma.mma acc, x_s, u_s accumulate=false b_major=mn  // expected-blocking: dc-mma-descriptor-layout
      wgmma.commit
      wgmma.wait pending=0
      epilogue.store Y[t.x * 64 +: 64, t.y * 8 +: 8], acc
    }
  }
}
