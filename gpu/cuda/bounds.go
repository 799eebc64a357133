package cuda

import (
	"math/big"

	"github.com/rigel-db/rigel/gpu"
)

// bound returns an upper bound of |value| for an integer or decimal
// expression, from its type and the bounds of its arguments. Code
// generation uses it to skip overflow checks that cannot fire and to
// multiply values known to fit 64 bits with one 64x64->128 multiply.
func bound(e *gpu.Expr) *big.Int {
	typeBound := func(t gpu.Type) *big.Int {
		_, hi := rangeOf(t)
		return new(big.Int).Add(hi, big.NewInt(1)) // covers the most negative value
	}
	tb := typeBound(e.Type)
	var b *big.Int
	switch e.Op {
	case gpu.OpConst:
		switch {
		case e.Const.Null:
			b = big.NewInt(0)
		case e.Type.Kind == gpu.Decimal128 && e.Const.I128 != nil:
			b = bitBound(e.Const.I128)
		case e.Type.Kind.IsInteger():
			b = bitBound(big.NewInt(e.Const.I64))
		}
	case gpu.OpCast:
		if len(e.Args) == 1 && e.Args[0].Type.Kind.IsInteger() {
			sIn, sOut := scaleOf(e.Args[0].Type), scaleOf(e.Type)
			if sOut >= sIn && sOut-sIn <= 38 {
				b = new(big.Int).Mul(bound(e.Args[0]), pow10(sOut-sIn))
			}
		}
	case gpu.OpAdd, gpu.OpSub:
		if len(e.Args) == 2 {
			b = new(big.Int).Add(bound(e.Args[0]), bound(e.Args[1]))
		}
	case gpu.OpMul:
		if len(e.Args) == 2 {
			b = new(big.Int).Mul(bound(e.Args[0]), bound(e.Args[1]))
		}
	case gpu.OpNeg:
		if len(e.Args) == 1 {
			b = bound(e.Args[0])
		}
	}
	// An overflow check clamps every value to its type's range.
	if b == nil || b.Cmp(tb) > 0 {
		return tb
	}
	return b
}

// bitBound bounds |v| by 2^k - 1, k being |v|'s bit length: a constant's
// bound depends on its size alone, so that two values of one size generate
// the same source (constants travel in constant memory, constants.go).
func bitBound(v *big.Int) *big.Int {
	k := uint(new(big.Int).Abs(v).BitLen())
	return new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), k), big.NewInt(1))
}

// fits64 reports whether every value of e fits int64.
func fits64(e *gpu.Expr) bool {
	return bound(e).Cmp(new(big.Int).Lsh(big.NewInt(1), 63)) < 0
}

// withinType reports whether b (a bound of |value|) cannot exceed t's range.
func withinType(b *big.Int, t gpu.Type) bool {
	_, hi := rangeOf(t)
	return b.Cmp(hi) <= 0
}
