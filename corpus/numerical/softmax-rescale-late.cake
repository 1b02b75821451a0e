// SPDX-License-Identifier: GPL-3.0-or-later
// Numerical negative: the row softmax that rescales after the CTA reduction instead of before
// it: each thread's partial sum must be brought to the row maximum before the sums are added;
// rescaling the combined sum with one thread's maximum gives a wrong normaliser.
kernel softmax_rescale_late target=sm_80 {
  const ROWS = 16384
  const COLS = 8192
  const VEC = 8
  const THREADS = 256
  const CHUNK = VEC * THREADS
  const CHUNKS = COLS / CHUNK

  param X : bf16[ROWS, COLS] role=input align=16
  param Y : bf16[ROWS, COLS] role=output align=16

  grid tiles=[ROWS]

  role main warps=0..8

  smem red_s : f32[8] offset=0

  reg x_r : bf16[VEC] scope=thread
  reg x_f : f32[VEC] scope=thread
  reg m_t : f32[1] scope=thread
  reg s_t : f32[1] scope=thread
  reg m_c : f32[1] scope=thread
  reg m_new : f32[1] scope=thread
  reg s_c : f32[1] scope=thread
  reg m_row : f32[1] scope=role
  reg s_row : f32[1] scope=role
  reg inv : f32[1] scope=role

  on main {
    for t in tiles {
      ew.fill m_t value=-3.0e38
      ew.fill s_t value=0.0
      for c in 0..CHUNKS {
        ld.global x_r, X[t.x, c * CHUNK + tid * VEC +: VEC]
        cast x_f, x_r
        reduce.warp m_c, x_f op=max
        ew.binary m_new, m_t, m_c fn=max
        // s_t *= exp(m_t - m_new): softmax.rescale works in base 2, scale = log2(e).
        softmax.rescale s_t, m_t, m_new scale=1.4426950408889634
        ew.binary x_f, x_f, m_new fn=sub broadcast=scalar
        ew.unary x_f, x_f fn=exp
        reduce.warp s_c, x_f op=sum
        ew.binary s_t, s_t, s_c fn=add
        cast m_t, m_new
      }
      // Combine the per-thread statistics of the row.
      reduce.cta m_row, m_t, red_s op=max
      reduce.cta s_row, s_t, red_s op=sum
      softmax.rescale s_row, m_t, m_row scale=1.4426950408889634
      ew.unary inv, s_row fn=rcp
      for c in 0..CHUNKS {
        ld.global x_r, X[t.x, c * CHUNK + tid * VEC +: VEC]
        cast x_f, x_r
        ew.binary x_f, x_f, m_row fn=sub broadcast=scalar
        ew.unary x_f, x_f fn=exp
        ew.binary x_f, x_f, inv fn=mul broadcast=scalar
        cast x_r, x_f
        st.global Y[t.x, c * CHUNK + tid * VEC +: VEC], x_r
      }
    }
  }
}
