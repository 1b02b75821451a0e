// SPDX-License-Identifier: GPL-3.0-or-later
// Negative case: more named barriers than the hardware has
// The CTA barrier takes id 0; sixteen named barriers would need ids up to 16, but sm_90a has
// 16 hardware barriers per CTA.
kernel too_many_named_barriers target=sm_90a {
  grid tiles=[1]
  role main warps=0..4
  nbarrier b0 roles=[main]
  nbarrier b1 roles=[main]
  nbarrier b2 roles=[main]
  nbarrier b3 roles=[main]
  nbarrier b4 roles=[main]
  nbarrier b5 roles=[main]
  nbarrier b6 roles=[main]
  nbarrier b7 roles=[main]
  nbarrier b8 roles=[main]
  nbarrier b9 roles=[main]
  nbarrier b10 roles=[main]
  nbarrier b11 roles=[main]
  nbarrier b12 roles=[main]
  nbarrier b13 roles=[main]
  nbarrier b14 roles=[main]
  nbarrier b15 roles=[main]  // expected-blocking: hw-named-barrier-limit
  on main {
    bar.sync b0
    bar.sync b1
    bar.sync b2
    bar.sync b3
    bar.sync b4
    bar.sync b5
    bar.sync b6
    bar.sync b7
    bar.sync b8
    bar.sync b9
    bar.sync b10
    bar.sync b11
    bar.sync b12
    bar.sync b13
    bar.sync b14
    bar.sync b15
  }
}
