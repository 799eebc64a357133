package host

import (
	"math/big"
	"math/bits"
)

// int128 is a two's complement 128-bit integer (the layout of Arrow's
// decimal128: low word, then high word). Every operation that can overflow
// reports it instead of wrapping, so decimal arithmetic stays exact without
// math/big on the hot path.
type int128 struct {
	lo uint64
	hi int64
}

func i128(v int64) int128 { return int128{lo: uint64(v), hi: v >> 63} }

func (a int128) neg() bool { return a.hi < 0 }

// isInt64 reports whether a fits an int64.
func (a int128) isInt64() bool { return a.hi == int64(a.lo)>>63 }

func add128(a, b int128) (int128, bool) {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(uint64(a.hi), uint64(b.hi), c)
	r := int128{lo, int64(hi)}
	// Signed overflow: both operands have the same sign and the result not.
	ok := (a.hi < 0) != (b.hi < 0) || (r.hi < 0) == (a.hi < 0)
	return r, ok
}

// addI64 adds a sign-extended int64 (the sum accumulators' hot path).
func addI64(a int128, v int64) (int128, bool) { return add128(a, i128(v)) }

func negate128(a int128) (int128, bool) {
	lo, b := bits.Sub64(0, a.lo, 0)
	hi, _ := bits.Sub64(0, uint64(a.hi), b)
	r := int128{lo, int64(hi)}
	// Only the minimum value negates to itself.
	return r, !(a.hi == -1<<63 && a.lo == 0)
}

func sub128(a, b int128) (int128, bool) {
	lo, c := bits.Sub64(a.lo, b.lo, 0)
	hi, _ := bits.Sub64(uint64(a.hi), uint64(b.hi), c)
	r := int128{lo, int64(hi)}
	ok := (a.hi < 0) == (b.hi < 0) || (r.hi < 0) == (a.hi < 0)
	return r, ok
}

// abs128 returns |a| as an unsigned 128-bit value (hi, lo); it cannot
// overflow because the unsigned range holds |min|.
func abs128(a int128) (hi, lo uint64) {
	if a.hi >= 0 {
		return uint64(a.hi), a.lo
	}
	lo, b := bits.Sub64(0, a.lo, 0)
	hi, _ = bits.Sub64(0, uint64(a.hi), b)
	return hi, lo
}

// fromUnsigned gives the signed value of magnitude (hi, lo) and sign neg,
// reporting whether it fits.
func fromUnsigned(hi, lo uint64, neg bool) (int128, bool) {
	if !neg {
		return int128{lo, int64(hi)}, hi>>63 == 0
	}
	if hi>>63 != 0 && !(hi == 1<<63 && lo == 0) {
		return int128{}, false
	}
	l, b := bits.Sub64(0, lo, 0)
	h, _ := bits.Sub64(0, hi, b)
	return int128{l, int64(h)}, true
}

// mul128 multiplies exactly, reporting overflow of 128 bits.
func mul128(a, b int128) (int128, bool) {
	ah, al := abs128(a)
	bh, bl := abs128(b)
	neg := a.neg() != b.neg()
	if ah != 0 && bh != 0 {
		return int128{}, false
	}
	// (ah*2^64 + al) * (bh*2^64 + bl) with at most one high word non-zero.
	hi, lo := bits.Mul64(al, bl)
	c1h, c1 := bits.Mul64(ah, bl)
	c2h, c2 := bits.Mul64(al, bh)
	if c1h != 0 || c2h != 0 {
		return int128{}, false
	}
	var carry uint64
	hi, carry = bits.Add64(hi, c1, 0)
	if carry != 0 {
		return int128{}, false
	}
	hi, carry = bits.Add64(hi, c2, 0)
	if carry != 0 {
		return int128{}, false
	}
	if neg && hi == 0 && lo == 0 {
		return int128{}, true
	}
	return fromUnsigned(hi, lo, neg)
}

// mulI64 multiplies two int64 exactly (never overflows 128 bits).
func mulI64(a, b int64) int128 {
	r, _ := mul128(i128(a), i128(b))
	return r
}

func cmp128(a, b int128) int {
	switch {
	case a.hi < b.hi:
		return -1
	case a.hi > b.hi:
		return 1
	case a.lo < b.lo:
		return -1
	case a.lo > b.lo:
		return 1
	}
	return 0
}

// pow10 holds 10^0 .. 10^38 (10^38 < 2^127).
var pow10 [39]int128

func init() {
	p := i128(1)
	for i := range pow10 {
		pow10[i] = p
		p, _ = mul128(p, i128(10))
	}
}

// fitsPrecision reports |a| < 10^p for 1 <= p <= 38.
func fitsPrecision(a int128, p int32) bool {
	if p < 1 || p > 38 {
		return p > 38
	}
	hi, lo := abs128(a)
	ph, pl := uint64(pow10[p].hi), pow10[p].lo
	return hi < ph || (hi == ph && lo < pl)
}

// divPow10Round divides a by 10^k (0 <= k <= 38), rounding half away from
// zero (the IR's rule for decimal scale-down and decimal->integer casts).
func divPow10Round(a int128, k int32) int128 {
	if k == 0 {
		return a
	}
	hi, lo := abs128(a)
	var qh, ql, rh, rl uint64
	if k <= 19 {
		d := uint64(pow10[k].lo)
		// Long division of the 128-bit magnitude by a 64-bit divisor.
		qh = hi / d
		var r uint64
		ql, r = bits.Div64(hi%d, lo, d)
		rh, rl = 0, r
	} else {
		// Rare (scale changes above 19 digits): math/big is fine here.
		x := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
		x.Or(x, new(big.Int).SetUint64(lo))
		q, r := new(big.Int).QuoRem(x, toBig(pow10[k]), new(big.Int))
		qv, _ := fromBig(q)
		rv, _ := fromBig(r)
		qh, ql = uint64(qv.hi), qv.lo
		rh, rl = uint64(rv.hi), rv.lo
	}
	// Round up when 2*remainder >= 10^k; 2*r < 2*10^38 fits unsigned 128.
	r2h := rh<<1 | rl>>63
	r2l := rl << 1
	ph, pl := uint64(pow10[k].hi), pow10[k].lo
	if r2h > ph || (r2h == ph && r2l >= pl) {
		var c uint64
		ql, c = bits.Add64(ql, 1, 0)
		qh += c
	}
	r, _ := fromUnsigned(qh, ql, a.neg())
	return r
}

func toBig(a int128) *big.Int {
	hi, lo := abs128(a)
	x := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
	x.Or(x, new(big.Int).SetUint64(lo))
	if a.neg() {
		x.Neg(x)
	}
	return x
}

var (
	bigMax128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	bigMin128 = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))
)

// fromBig converts x, reporting whether it fits 128 bits.
func fromBig(x *big.Int) (int128, bool) {
	if x.Cmp(bigMax128) > 0 || x.Cmp(bigMin128) < 0 {
		return int128{}, false
	}
	m := new(big.Int).Abs(x)
	mask := new(big.Int).SetUint64(^uint64(0))
	lo := new(big.Int).And(m, mask).Uint64()
	hi := new(big.Int).Rsh(m, 64).Uint64()
	return fromUnsigned(hi, lo, x.Sign() < 0)
}
