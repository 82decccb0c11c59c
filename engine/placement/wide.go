package placement

import (
	"cmp"
	"math/bits"
)

// wide is a signed 128-bit integer: bytes times capacities (2^50 by 2^60
// at most) compared exactly, so that a trade gains or not without
// rounding (a trade whose gain rounds to a hair above zero can be undone
// by the next one, and the two repeat).
type wide struct {
	hi int64
	lo uint64
}

func mulWide(a, b int64) wide {
	neg := (a < 0) != (b < 0)
	hi, lo := bits.Mul64(absU(a), absU(b))
	w := wide{hi: int64(hi), lo: lo}
	if neg {
		return w.neg()
	}
	return w
}

func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-a)
	}
	return uint64(a)
}

func (x wide) neg() wide {
	lo, borrow := bits.Sub64(0, x.lo, 0)
	hi, _ := bits.Sub64(0, uint64(x.hi), borrow)
	return wide{hi: int64(hi), lo: lo}
}

func (x wide) add(y wide) wide {
	lo, carry := bits.Add64(x.lo, y.lo, 0)
	hi, _ := bits.Add64(uint64(x.hi), uint64(y.hi), carry)
	return wide{hi: int64(hi), lo: lo}
}

func (x wide) sub(y wide) wide { return x.add(y.neg()) }

func (x wide) cmp(y wide) int {
	if c := cmp.Compare(x.hi, y.hi); c != 0 {
		return c
	}
	return cmp.Compare(x.lo, y.lo)
}

func (x wide) abs() wide {
	if x.hi < 0 {
		return x.neg()
	}
	return x
}

func (x wide) positive() bool { return x.hi > 0 || x.hi == 0 && x.lo > 0 }

// evener measures bytes moved from broker h to l against the amount that
// leaves both at the same usage, even = n / (ch + cl) with n = wh·cl −
// wl·ch (w: used bytes, c: capacities; 1 when unknown, so that even is
// half the difference). Moving t bytes lowers sum(w^2 / c) by
// t·(2n − t·(ch + cl)) / (ch·cl): the nearer t to even, the more, and
// any t strictly between 0 and 2·even gains.
type evener struct {
	n      wide
	ch, cl int64
}

func (st *state) evenerOf(h, l int) evener {
	ch, cl := int64(1), int64(1)
	if st.capsKnown {
		ch, cl = st.cap[h], st.cap[l]
	}
	return evener{n: mulWide(st.bytes[h], cl).sub(mulWide(st.bytes[l], ch)), ch: ch, cl: cl}
}

// scaled is t·(ch + cl), on the scale of n.
func (e evener) scaled(t int64) wide { return mulWide(t, e.ch).add(mulWide(t, e.cl)) }

// gains: moving t bytes lowers the sum.
func (e evener) gains(t int64) bool { return t > 0 && e.scaled(t).cmp(e.n.add(e.n)) < 0 }

// atLeast: t is at least even; atMost: at most.
func (e evener) atLeast(t int64) bool { return e.scaled(t).cmp(e.n) >= 0 }
func (e evener) atMost(t int64) bool  { return e.scaled(t).cmp(e.n) <= 0 }

// closer compares moving a bytes with moving b (negative: a is nearer to
// even); nearer breaks a tie with the smaller.
func (e evener) closer(a, b int64) int {
	return e.scaled(a).sub(e.n).abs().cmp(e.scaled(b).sub(e.n).abs())
}

func (e evener) nearer(a, b int64) int {
	if c := e.closer(a, b); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}
