package host

import (
	"fmt"
	"math"
	"math/big"

	"github.com/rigel-db/rigel/gpu"
)

// The numeric operators of gpu/ir_num.go. The reference evaluates exact
// types row by row through math/big: obviously correct before fast, and
// these functions are rare in the queries that matter for speed.

var floatFuncs = map[gpu.Op]func(float64) float64{
	gpu.OpSqrt: math.Sqrt, gpu.OpExp: math.Exp, gpu.OpLn: math.Log, gpu.OpLog10: math.Log10,
	gpu.OpLog2: math.Log2, gpu.OpSin: math.Sin, gpu.OpCos: math.Cos, gpu.OpTan: math.Tan,
	gpu.OpAsin: math.Asin, gpu.OpAcos: math.Acos, gpu.OpAtan: math.Atan, gpu.OpSinh: math.Sinh,
	gpu.OpCosh: math.Cosh, gpu.OpTanh: math.Tanh, gpu.OpAsinh: math.Asinh, gpu.OpAcosh: math.Acosh,
	gpu.OpAtanh: math.Atanh,
}

func isNumOp(op gpu.Op) bool { return op >= gpu.OpSqrt && op <= gpu.OpRound }

// checkNum type-checks a numeric operator; handled is false for other ops.
func checkNum(e *gpu.Expr) (handled bool, err error) {
	if !isNumOp(e.Op) {
		return false, nil
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("ill-typed expression %s: %s", e, fmt.Sprintf(format, a...))
	}
	want := 1
	switch e.Op {
	case gpu.OpAtan2, gpu.OpPow, gpu.OpMod, gpu.OpIntDiv, gpu.OpBitAnd, gpu.OpBitOr, gpu.OpBitXor,
		gpu.OpShl, gpu.OpShr, gpu.OpShrU, gpu.OpIntPow, gpu.OpCheck, gpu.OpRound:
		want = 2
	}
	if len(e.Args) != want {
		return true, bad("%s takes %d argument(s), got %d", e.Op, want, len(e.Args))
	}
	t := e.Type
	a := e.Args[0].Type
	isPlainInt := func(t gpu.Type) bool { return t.Kind.IsInteger() && !isDecimal(t.Kind) && t.Kind != gpu.Date32 }
	scale0 := func(t gpu.Type) bool { return isPlainInt(t) || (isDecimal(t.Kind) && t.Scale == 0) }
	switch {
	case e.Op.IsFloatFunc():
		for _, x := range e.Args {
			if x.Type.Kind != t.Kind || !t.Kind.IsFloat() {
				return true, bad("%s takes and gives one float kind", e.Op)
			}
		}
	case e.Op == gpu.OpAbs:
		if a.Kind != t.Kind || scaleOf(a) != scaleOf(t) || !(t.Kind.IsFloat() || isIntClass(t.Kind)) || t.Kind == gpu.Date32 {
			return true, bad("abs of %s cannot give %s", a, t)
		}
	case e.Op == gpu.OpMod || e.Op == gpu.OpIntDiv:
		if !isPlainInt(a) || a.Kind != e.Args[1].Type.Kind || a.Kind != t.Kind {
			return true, bad("%s takes and gives one integer kind", e.Op)
		}
	case e.Op == gpu.OpBitAnd || e.Op == gpu.OpBitOr || e.Op == gpu.OpBitXor || e.Op == gpu.OpBitNot:
		for _, x := range e.Args {
			if !scale0(x.Type) {
				return true, bad("%s takes integers or scale-0 decimals, not %s", e.Op, x.Type)
			}
		}
		if !scale0(t) {
			return true, bad("%s gives an integer or scale-0 decimal, not %s", e.Op, t)
		}
	case e.Op == gpu.OpShl || e.Op == gpu.OpShr || e.Op == gpu.OpShrU || e.Op == gpu.OpIntPow:
		if !isPlainInt(a) || a.Kind != t.Kind || !isPlainInt(e.Args[1].Type) {
			return true, bad("%s takes an integer and an integer count, giving the first's kind", e.Op)
		}
	case e.Op == gpu.OpFactorial || e.Op == gpu.OpSaturate || e.Op == gpu.OpWrap:
		if !scale0(a) || !scale0(t) || (e.Op != gpu.OpFactorial && !isPlainInt(t)) {
			return true, bad("%s of %s cannot give %s", e.Op, a, t)
		}
	case e.Op == gpu.OpCheck:
		if a.Kind != gpu.Bool || !sameType(e.Args[1].Type, t) {
			return true, bad("check takes a bool condition and a value of the result's type")
		}
	case e.Op == gpu.OpCeil || e.Op == gpu.OpFloor:
		ok := (a.Kind.IsFloat() && a.Kind == t.Kind) ||
			(isIntClass(a.Kind) && isIntClass(t.Kind) && a.Kind != gpu.Date32 && t.Kind != gpu.Date32 && scaleOf(t) <= scaleOf(a))
		if !ok {
			return true, bad("%s of %s cannot give %s", e.Op, a, t)
		}
	case e.Op == gpu.OpRound:
		if a.Kind != t.Kind || scaleOf(a) != scaleOf(t) || a.Kind == gpu.Date32 || !(a.Kind.IsFloat() || isIntClass(a.Kind)) || e.Args[1].Type.Kind != gpu.Int32 {
			return true, bad("round of %s by %s cannot give %s", a, e.Args[1].Type, t)
		}
	}
	return true, nil
}

func domainErr(e *gpu.Expr, why string) error {
	return fmt.Errorf("evaluating %s: %s: %w", e, why, gpu.ErrDomain)
}

// evalNum evaluates a numeric operator; handled is false for other ops.
func evalNum(e *gpu.Expr, b *batch) (r *vec, handled bool, err error) {
	if !isNumOp(e.Op) {
		return nil, false, nil
	}
	args := make([]*vec, len(e.Args))
	for i, a := range e.Args {
		if args[i], err = eval(a, b); err != nil {
			return nil, true, err
		}
	}
	n := b.n
	if e.Op == gpu.OpCheck {
		c := args[0]
		for i := 0; i < n; i++ {
			if c.isValid(i) && c.i64[i] != 0 {
				return nil, true, domainErr(e, "the condition holds")
			}
		}
		return args[1], true, nil
	}
	r = newVec(e.Type.Kind, n, false)
	r.valid = andValid(n, args...)
	if e.Type.Kind.IsFloat() {
		for i := 0; i < n; i++ {
			if !r.isValid(i) {
				continue
			}
			x := args[0].f64[i]
			switch {
			case e.Op == gpu.OpAtan2:
				r.f64[i] = math.Atan2(x, args[1].f64[i])
			case e.Op == gpu.OpPow:
				r.f64[i] = math.Pow(x, args[1].f64[i])
			case e.Op == gpu.OpAbs:
				r.f64[i] = math.Abs(x)
			case e.Op == gpu.OpCeil:
				r.f64[i] = math.Ceil(x)
			case e.Op == gpu.OpFloor:
				r.f64[i] = math.Floor(x)
			case e.Op == gpu.OpRound:
				r.f64[i] = gpu.RoundFloat(x, args[1].i64[i])
			default:
				f, ok := floatFuncs[e.Op]
				if !ok {
					return nil, true, fmt.Errorf("expression %s: %s of a float: %w", e, e.Op, gpu.ErrUnsupported)
				}
				r.f64[i] = f(x)
			}
		}
		finishFloat(e.Type, r)
		return r, true, nil
	}
	if r.i64 = fastInt(e, args, r); r.i64 != nil {
		return r, true, nil
	}
	out := make([]*big.Int, n)
	for i := 0; i < n; i++ {
		if !r.isValid(i) {
			continue
		}
		xs := make([]*big.Int, len(args))
		for j, a := range args {
			xs[j] = rowBig(a, i)
		}
		if out[i], err = exactNum(e, xs); err != nil {
			return nil, true, err
		}
	}
	return r, true, storeBig(e, r, out)
}

func rowBig(v *vec, i int) *big.Int {
	if v.i128 != nil {
		return toBig(v.i128[i])
	}
	return big.NewInt(v.i64[i])
}

// storeBig writes exact results into r's storage, checking the range of
// the result type.
func storeBig(e *gpu.Expr, r *vec, vals []*big.Int) error {
	w := make([]int128, len(vals))
	for i, v := range vals {
		if v == nil {
			continue
		}
		x, ok := fromBig(v)
		if !ok {
			return overflow(e)
		}
		w[i] = x
	}
	return store128(e, r, w)
}

// bitsOf is the storage width in bits of an integer kind (decimals: 128,
// the width their two's complement is taken in).
func bitsOf(k gpu.Kind) uint {
	if isDecimal(k) {
		return 128
	}
	return uint(k.Width() * 8)
}

func exactNum(e *gpu.Expr, xs []*big.Int) (*big.Int, error) {
	x := xs[0]
	t := e.Type
	switch e.Op {
	case gpu.OpAbs:
		return new(big.Int).Abs(x), nil
	case gpu.OpMod, gpu.OpIntDiv:
		if xs[1].Sign() == 0 {
			return nil, domainErr(e, "division by zero")
		}
		q, m := new(big.Int).QuoRem(x, xs[1], new(big.Int)) // truncated
		if e.Op == gpu.OpMod {
			return m, nil
		}
		return q, nil
	case gpu.OpBitAnd:
		return new(big.Int).And(x, xs[1]), nil
	case gpu.OpBitOr:
		return new(big.Int).Or(x, xs[1]), nil
	case gpu.OpBitXor:
		return new(big.Int).Xor(x, xs[1]), nil
	case gpu.OpBitNot:
		return new(big.Int).Not(x), nil
	case gpu.OpShl, gpu.OpShr, gpu.OpShrU:
		width := bitsOf(e.Args[0].Type.Kind)
		k := xs[1]
		if k.Sign() < 0 || k.Cmp(big.NewInt(int64(width))) >= 0 {
			return nil, domainErr(e, fmt.Sprintf("shift count %s outside 0..%d", k, width-1))
		}
		s := uint(k.Int64())
		switch e.Op {
		case gpu.OpShl:
			return wrapBits(new(big.Int).Lsh(x, s), width), nil
		case gpu.OpShr:
			return new(big.Int).Rsh(x, s), nil // big.Int's Rsh on negatives floors: arithmetic shift
		}
		u := new(big.Int).Set(x)
		if u.Sign() < 0 {
			u.Add(u, new(big.Int).Lsh(big.NewInt(1), width))
		}
		return wrapBits(u.Rsh(u, s), width), nil
	case gpu.OpIntPow:
		if xs[1].Sign() < 0 {
			return nil, domainErr(e, "negative exponent of an integer power")
		}
		// Bound the work: any |x| >= 2 with an exponent above 128 cannot fit.
		if xs[1].Cmp(big.NewInt(128)) > 0 && x.CmpAbs(big.NewInt(1)) > 0 {
			return nil, overflow(e)
		}
		return new(big.Int).Exp(x, xs[1], nil), nil
	case gpu.OpFactorial:
		if x.Sign() < 0 {
			return nil, domainErr(e, "factorial of a negative number")
		}
		if x.Cmp(big.NewInt(34)) > 0 { // 34! > 10^38: fits nothing
			return nil, overflow(e)
		}
		return new(big.Int).MulRange(1, x.Int64()), nil
	case gpu.OpSaturate:
		bd := boundsOf(t)
		lo, hi := big.NewInt(bd.lo), big.NewInt(bd.hi)
		if x.Cmp(lo) < 0 {
			return lo, nil
		}
		if x.Cmp(hi) > 0 {
			return hi, nil
		}
		return x, nil
	case gpu.OpWrap:
		return wrapBits(x, bitsOf(t.Kind)), nil
	case gpu.OpCeil, gpu.OpFloor:
		d := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scaleOf(e.Args[0].Type)-scaleOf(t))), nil)
		q, m := new(big.Int).QuoRem(x, d, new(big.Int))
		if e.Op == gpu.OpCeil && m.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
		if e.Op == gpu.OpFloor && m.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		}
		return q, nil
	case gpu.OpRound:
		// Keep scale s; round to `digits` places: drop s-digits digits.
		drop := int64(scaleOf(t)) - xs[1].Int64()
		if drop <= 0 {
			return x, nil
		}
		if drop > 40 { // |x| < 10^39: rounds to zero
			return new(big.Int), nil
		}
		d := new(big.Int).Exp(big.NewInt(10), big.NewInt(drop), nil)
		q, m := new(big.Int).QuoRem(x, d, new(big.Int))
		if new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2)).Cmp(d) >= 0 { // ties away from zero
			if x.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
		return q.Mul(q, d), nil
	}
	return nil, fmt.Errorf("expression %s: %s of an exact number: %w", e, e.Op, gpu.ErrUnsupported)
}

// wrapBits reduces x modulo 2^width into the signed range of width bits.
func wrapBits(x *big.Int, width uint) *big.Int {
	m := new(big.Int).Lsh(big.NewInt(1), width)
	r := new(big.Int).Mod(x, m) // 0 <= r < m
	if r.Bit(int(width)-1) == 1 {
		r.Sub(r, m)
	}
	return r
}

// shiftInt is x shifted by count within the width of kind k (see
// ir_num.go: a left shift wraps, a right one fills with the sign or,
// unsigned, with zeros); false when the count is outside the width.
func shiftInt(op gpu.Op, k gpu.Kind, x, count int64) (int64, bool) {
	w := int64(k.Width() * 8)
	if count < 0 || count >= w {
		return 0, false
	}
	signExtend := func(u uint64) int64 { return int64(u<<(64-w)) >> (64 - w) }
	switch op {
	case gpu.OpShl:
		return signExtend(uint64(x) << count), true
	case gpu.OpShr:
		return x >> count, true
	}
	return signExtend(uint64(x) & (^uint64(0) >> (64 - w)) >> count), true
}

// fastInt evaluates the common integer operators whose arguments and
// result are all plain integers in int64 storage without math/big (the
// DuckDB bridge sends // and % this way); nil when it does not apply or
// when a row needs the exact path (an error, an overflow), which then
// recomputes every row and reports it.
func fastInt(e *gpu.Expr, args []*vec, r *vec) []int64 {
	switch e.Op {
	case gpu.OpMod, gpu.OpIntDiv, gpu.OpBitAnd, gpu.OpBitOr, gpu.OpBitXor, gpu.OpBitNot, gpu.OpAbs,
		gpu.OpShl, gpu.OpShr, gpu.OpShrU:
	default:
		return nil
	}
	if storageOf(e.Type.Kind) != stInt { // Decimal64 too: boundsOf checks its precision
		return nil
	}
	for _, a := range args {
		if a.i64 == nil {
			return nil
		}
	}
	bd := boundsOf(e.Type)
	x := args[0].i64
	var y []int64
	if len(args) > 1 {
		y = args[1].i64
	}
	out := make([]int64, len(x))
	for i := range out {
		if !r.isValid(i) {
			continue
		}
		var v int64
		switch e.Op {
		case gpu.OpMod, gpu.OpIntDiv:
			if y[i] == 0 || (x[i] == math.MinInt64 && y[i] == -1) {
				return nil // a domain error or the one overflowing quotient
			}
			if e.Op == gpu.OpMod {
				v = x[i] % y[i] // Go's % truncates, as the IR's modulus
			} else {
				v = x[i] / y[i]
			}
		case gpu.OpBitAnd:
			v = x[i] & y[i]
		case gpu.OpBitOr:
			v = x[i] | y[i]
		case gpu.OpBitXor:
			v = x[i] ^ y[i]
		case gpu.OpBitNot:
			v = ^x[i]
		case gpu.OpShl, gpu.OpShr, gpu.OpShrU:
			var ok bool
			if v, ok = shiftInt(e.Op, e.Args[0].Type.Kind, x[i], y[i]); !ok {
				return nil // a count outside the width: the exact path says so
			}
		case gpu.OpAbs:
			if x[i] == math.MinInt64 {
				return nil
			}
			v = x[i]
			if v < 0 {
				v = -v
			}
		}
		if v < bd.lo || v > bd.hi {
			return nil
		}
		out[i] = v
	}
	return out
}
