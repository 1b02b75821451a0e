// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: a named barrier that lists a role which never reaches it
// Two softmax warpgroups hand a row-max scratch buffer to each other through the named
// barrier 'rows'; its roles= list also names the loader warp, which never executes
// bar.sync rows. The hardware barrier counts 288 threads, the softmax warpgroups bring 256 and
// wait forever. The decision that breaks the protocol is the roles= list.
kernel two_wg_rowmax target=sm_90a {
  const M = 8192
  const N = 128

  param X : f32[M, N] role=input
  param Y : f32[M, N] role=output

  tensormap tX : f32[64, N] source=X swizzle=none

  grid tiles=[M / 64]

  role sm0 warps=0..4
  role sm1 warps=4..8
  role loader warps=8..9

  smem x_s : f32[64, N] offset=0
  smem m_s : f32[8] offset=32768

  mbarrier full count=1 producers=[loader] consumers=[sm0, sm1]
  nbarrier rows roles=[sm0, sm1, loader]  // expected-blocking: ps-named-barrier-divergence

  reg x_r : f32[8] scope=thread
  reg m_r : f32[1] scope=thread

  on loader {
    mbarrier.init full
    fence.mbarrier_init
  }
  on all {
    cta.sync
  }
  on loader {
    for t in tiles {
      mbarrier.arrive_expect_tx full bytes=32768
      tma.load x_s, tX[t.x * 64, 0], full
    }
  }
  on sm0 {
    for t in tiles {
      mbarrier.try_wait full parity=0
      ld.shared x_r, x_s[warp * 8 + lane / 4, lane % 4 * 8 +: 8]
      reduce.warp m_r, x_r op=max
      st.shared m_s[warp +: 1], m_r
      bar.sync rows
      st.global Y[t.x * 64 + warp * 8 + lane / 4, lane % 4 * 8 +: 8], x_r
    }
  }
  on sm1 {
    for t in tiles {
      mbarrier.try_wait full parity=0
      bar.sync rows
      ld.shared m_r, m_s[warp +: 1]
      ld.shared x_r, x_s[32 + warp * 8 + lane / 4, lane % 4 * 8 +: 8]
      ew.binary x_r, x_r, m_r fn=sub broadcast=scalar
      st.global Y[t.x * 64 + 32 + warp * 8 + lane / 4, lane % 4 * 8 +: 8], x_r
    }
  }
}
