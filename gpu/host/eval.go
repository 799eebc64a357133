package host

import (
	"context"
	"fmt"
	"math"
	"math/big"

	"github.com/rigel-db/rigel/gpu"
)

// batch is a set of rows of the pipeline's input columns: either the
// contiguous rows lo..lo+n, or the listed rows idx. Input vectors are sliced
// or gathered on first use.
type batch struct {
	// ctx is the run's: eval checks it at every expression node, so that
	// an expression of a million nodes (an IN list of a million values is
	// an OR of as many comparisons) stops within one node's rows.
	ctx   context.Context
	n     int
	cols  []*column
	lo    int
	idx   []int32
	cache []*vec
	// tabs: the string operations' tables, from the checker.
	tabs map[*gpu.Expr]*strTab
}

func newBatch(ctx context.Context, cols []*column, lo, hi int) *batch {
	return &batch{ctx: ctx, n: hi - lo, cols: cols, lo: lo, cache: make([]*vec, len(cols))}
}

func (b *batch) input(i int) *vec {
	if v := b.cache[i]; v != nil {
		return v
	}
	var v *vec
	if b.idx == nil {
		v = b.cols[i].data.slice(b.lo, b.lo+b.n)
	} else {
		v = b.cols[i].data.gather(b.idx)
	}
	b.cache[i] = v
	return v
}

// sub returns the rows at positions sel (ascending positions within b).
func (b *batch) sub(sel []int32) *batch {
	if len(sel) == b.n {
		return b // sel is every position, in order
	}
	idx := make([]int32, len(sel))
	for j, p := range sel {
		if b.idx == nil {
			idx[j] = int32(b.lo) + p
		} else {
			idx[j] = b.idx[p]
		}
	}
	s := &batch{ctx: b.ctx, n: len(sel), cols: b.cols, idx: idx, cache: make([]*vec, len(b.cols)), tabs: b.tabs}
	for i, v := range b.cache {
		if v != nil {
			s.cache[i] = v.gather(sel) // reuse work already done
		}
	}
	return s
}

func overflow(e *gpu.Expr) error {
	return fmt.Errorf("evaluating %s as %s: %w", e, e.Type, gpu.ErrOverflow)
}

// andValid combines the validity of arguments (nil = all valid).
func andValid(n int, vs ...*vec) []bool {
	var out []bool
	for _, v := range vs {
		if v.valid == nil {
			continue
		}
		if out == nil {
			out = make([]bool, n)
			copy(out, v.valid)
			continue
		}
		for i, ok := range v.valid {
			out[i] = out[i] && ok
		}
	}
	return out
}

// eval evaluates a checked expression over the rows of b.
func eval(e *gpu.Expr, b *batch) (*vec, error) {
	if err := gpu.CtxErr(b.ctx); err != nil {
		return nil, err
	}
	switch e.Op {
	case gpu.OpCol:
		return b.input(e.Col), nil
	case gpu.OpConst:
		return constVec(e, b.n), nil
	case gpu.OpAdd, gpu.OpSub, gpu.OpMul, gpu.OpDiv:
		x, err := eval(e.Args[0], b)
		if err != nil {
			return nil, err
		}
		y, err := eval(e.Args[1], b)
		if err != nil {
			return nil, err
		}
		return arith(e, b.n, x, y)
	case gpu.OpNeg:
		x, err := eval(e.Args[0], b)
		if err != nil {
			return nil, err
		}
		return negate(e, b.n, x)
	case gpu.OpEq, gpu.OpNe, gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe:
		x, err := eval(e.Args[0], b)
		if err != nil {
			return nil, err
		}
		y, err := eval(e.Args[1], b)
		if err != nil {
			return nil, err
		}
		if t := b.tabs[e]; t != nil && t.cross != nil {
			x, y = crossCodes(t.cross, x, y)
		}
		return compare(e.Op, storageOf(e.Args[0].Type.Kind), b.n, x, y), nil
	case gpu.OpAnd, gpu.OpOr:
		return logic(e, b)
	case gpu.OpNot:
		x, err := eval(e.Args[0], b)
		if err != nil {
			return nil, err
		}
		r := &vec{i64: make([]int64, b.n), valid: x.valid}
		for i, v := range x.i64 {
			r.i64[i] = 1 - v
		}
		if r.valid != nil {
			for i, ok := range r.valid {
				if !ok {
					r.i64[i] = 0
				}
			}
		}
		return r, nil
	case gpu.OpIsNull, gpu.OpIsNotNull:
		x, err := eval(e.Args[0], b)
		if err != nil {
			return nil, err
		}
		r := &vec{i64: make([]int64, b.n)}
		want := e.Op == gpu.OpIsNotNull
		for i := range r.i64 {
			if x.isValid(i) == want {
				r.i64[i] = 1
			}
		}
		return r, nil
	case gpu.OpCast:
		x, err := eval(e.Args[0], b)
		if err != nil {
			return nil, err
		}
		return cast(e, b.n, x)
	case gpu.OpCase:
		return evalCase(e, b)
	case gpu.OpStrRow:
		return evalStrRow(e, b)
	case gpu.OpTimePart, gpu.OpAddMonths, gpu.OpAddDayInterval:
		return evalTemporal(e, b)
	case gpu.OpAddMonthsTs:
		return evalTemporalTs(e, b)
	case gpu.OpMakeDate: // eval_datetime.go
		return evalMakeDate(e, b)
	case gpu.OpAvgDivide: // eval_avg.go
		return evalAvgDivide(e, b)
	case gpu.OpStatMoments: // agg_stats.go
		return evalStatMoments(e, b)
	case gpu.OpStrPred, gpu.OpStrMap, gpu.OpYear, gpu.OpMonth, gpu.OpDay:
		if len(e.Args) != 1 {
			return nil, fmt.Errorf("expression %s: %s takes one argument", e, e.Op)
		}
		x, err := eval(e.Args[0], b)
		if err != nil {
			return nil, err
		}
		if e.Op == gpu.OpStrPred || e.Op == gpu.OpStrMap {
			return evalStr(e, b, x)
		}
		return evalDatePart(e, b.n, x), nil
	}
	if r, ok, err := evalNum(e, b); ok {
		return r, err
	}
	return nil, fmt.Errorf("expression %s: unknown operator: %w", e, gpu.ErrUnsupported)
}

func constVec(e *gpu.Expr, n int) *vec {
	v := newVec(e.Type.Kind, n, e.Const.Null)
	if e.Const.Null {
		return v // all invalid, zero values
	}
	switch storageOf(e.Type.Kind) {
	case stInt:
		for i := range v.i64 {
			v.i64[i] = e.Const.I64
		}
	case stFloat:
		f := e.Const.F64
		if e.Type.Kind == gpu.Float32 {
			f = float64(float32(f))
		}
		for i := range v.f64 {
			v.f64[i] = f
		}
	case st128:
		w, _ := fromBig(e.Const.I128) // checked before the run
		for i := range v.i128 {
			v.i128[i] = w
		}
	}
	return v
}

// as128 returns x's integer values widened to 128 bits.
func as128(x *vec, n int) []int128 {
	if x.i128 != nil {
		return x.i128
	}
	out := make([]int128, n)
	for i, v := range x.i64 {
		out[i] = i128(v)
	}
	return out
}

// store128 writes exact results into the result type's storage, checking
// the range; invalid rows are skipped (they hold zero).
func store128(e *gpu.Expr, r *vec, vals []int128) error {
	t := e.Type
	if storageOf(t.Kind) == st128 {
		for i, w := range vals {
			if r.isValid(i) && !fitsPrecision(w, t.Precision) {
				return overflow(e)
			}
		}
		r.i128 = vals
		return nil
	}
	bd := boundsOf(t)
	r.i64 = make([]int64, len(vals))
	for i, w := range vals {
		if !r.isValid(i) {
			continue
		}
		if !w.isInt64() || int64(w.lo) < bd.lo || int64(w.lo) > bd.hi {
			return overflow(e)
		}
		r.i64[i] = int64(w.lo)
	}
	return nil
}

func arith(e *gpu.Expr, n int, x, y *vec) (*vec, error) {
	r := &vec{valid: andValid(n, x, y)}
	if e.Type.Kind.IsFloat() {
		r.f64 = make([]float64, n)
		xs, ys := x.f64, y.f64
		switch e.Op {
		case gpu.OpAdd:
			for i := range r.f64 {
				r.f64[i] = xs[i] + ys[i]
			}
		case gpu.OpSub:
			for i := range r.f64 {
				r.f64[i] = xs[i] - ys[i]
			}
		case gpu.OpMul:
			for i := range r.f64 {
				r.f64[i] = xs[i] * ys[i]
			}
		case gpu.OpDiv:
			for i := range r.f64 {
				r.f64[i] = xs[i] / ys[i]
			}
		}
		finishFloat(e.Type, r)
		return r, nil
	}
	// Fast path: both sides and the result in int64 storage.
	if x.i64 != nil && y.i64 != nil && storageOf(e.Type.Kind) == stInt {
		bd := boundsOf(e.Type)
		r.i64 = make([]int64, n)
		xs, ys := x.i64[:n], y.i64[:n]
		for i := range r.i64 {
			a, b := xs[i], ys[i]
			var s int64
			ok := true
			switch e.Op {
			case gpu.OpAdd:
				s = a + b
				ok = (a^s)&(b^s) >= 0
			case gpu.OpSub:
				s = a - b
				ok = (a^b)&(a^s) >= 0
			case gpu.OpMul:
				w := mulI64(a, b)
				s, ok = int64(w.lo), w.isInt64()
			}
			if !ok || s < bd.lo || s > bd.hi {
				if r.isValid(i) {
					return nil, overflow(e)
				}
				s = 0
			}
			r.i64[i] = s
		}
		return r, nil
	}
	xs, ys := as128(x, n), as128(y, n)
	out := make([]int128, n)
	for i := range out {
		if !r.isValid(i) {
			continue
		}
		var w int128
		var ok bool
		switch e.Op {
		case gpu.OpAdd:
			w, ok = add128(xs[i], ys[i])
		case gpu.OpSub:
			w, ok = sub128(xs[i], ys[i])
		case gpu.OpMul:
			w, ok = mul128(xs[i], ys[i])
		}
		if !ok {
			return nil, overflow(e)
		}
		out[i] = w
	}
	return r, store128(e, r, out)
}

// finishFloat rounds Float32 results (computed exactly enough in float64:
// double rounding is harmless for + - * / since 53 >= 2*24+2) and zeroes
// null slots.
func finishFloat(t gpu.Type, r *vec) {
	for i := range r.f64 {
		if !r.isValid(i) {
			r.f64[i] = 0
		} else if t.Kind == gpu.Float32 {
			r.f64[i] = float64(float32(r.f64[i]))
		}
	}
}

func negate(e *gpu.Expr, n int, x *vec) (*vec, error) {
	r := &vec{valid: x.valid}
	if e.Type.Kind.IsFloat() {
		r.f64 = make([]float64, n)
		for i, v := range x.f64 {
			r.f64[i] = -v
		}
		finishFloat(e.Type, r)
		return r, nil
	}
	xs := as128(x, n)
	out := make([]int128, n)
	for i := range out {
		if !r.isValid(i) {
			continue
		}
		w, ok := negate128(xs[i])
		if !ok {
			return nil, overflow(e)
		}
		out[i] = w
	}
	return r, store128(e, r, out)
}

func compare(op gpu.Op, st storage, n int, x, y *vec) *vec {
	r := &vec{i64: make([]int64, n), valid: andValid(n, x, y)}
	for i := range r.i64 {
		var c int // -1, 0, 1
		switch st {
		case stInt:
			a, b := x.i64[i], y.i64[i]
			c = cmpInt(a, b)
		case st128:
			c = cmp128(x.i128[i], y.i128[i])
		case stFloat:
			// SQL (DuckDB) order, not IEEE: NaN equals NaN and is above
			// every number.
			c = gpu.FloatOrder(x.f64[i], y.f64[i])
		}
		if gpu.CompareHolds(op, c) && r.isValid(i) {
			r.i64[i] = 1
		}
	}
	return r
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// logic is n-ary Kleene AND/OR: a dominant value (false for AND, true for
// OR) wins over null; otherwise any null makes the result null.
func logic(e *gpu.Expr, b *batch) (*vec, error) {
	dominant := int64(0)
	if e.Op == gpu.OpOr {
		dominant = 1
	}
	n := b.n
	r := &vec{i64: make([]int64, n)}
	decided := make([]bool, n) // a dominant value was seen
	var sawNull []bool
	for _, a := range e.Args {
		x, err := eval(a, b)
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			if !x.isValid(i) {
				if sawNull == nil {
					sawNull = make([]bool, n)
				}
				sawNull[i] = true
			} else if x.i64[i] == dominant {
				decided[i] = true
			}
		}
	}
	for i := 0; i < n; i++ {
		switch {
		case decided[i]:
			r.i64[i] = dominant
		case sawNull != nil && sawNull[i]:
			if r.valid == nil {
				r.valid = make([]bool, n)
				for j := range r.valid {
					r.valid[j] = true
				}
			}
			r.valid[i] = false
		default:
			r.i64[i] = 1 - dominant
		}
	}
	return r, nil
}

// evalCase evaluates each branch only on the rows that take it, so that an
// error (overflow) in a branch not taken is not raised.
func evalCase(e *gpu.Expr, b *batch) (*vec, error) {
	n := b.n
	r := newVec(e.Type.Kind, n, true)
	remaining := make([]int32, n)
	for i := range remaining {
		remaining[i] = int32(i)
	}
	var recode map[int][]int32 // a CASE over two dictionaries: mergeCaseDicts
	if t := b.tabs[e]; t != nil {
		recode = t.caseCodes
	}
	scatter := func(arg int, val *vec, pos []int32) {
		codes := recode[arg]
		for j, p := range pos {
			r.valid[p] = val.isValid(j)
			switch {
			case codes != nil:
				if r.valid[p] {
					r.i64[p] = int64(codes[val.i64[j]])
				}
			case r.i64 != nil:
				r.i64[p] = val.i64[j]
			case r.f64 != nil:
				r.f64[p] = val.f64[j]
			case r.i128 != nil:
				r.i128[p] = val.i128[j]
			}
		}
	}
	last := len(e.Args) - 1
	for k := 0; k < last && len(remaining) > 0; k += 2 {
		sb := b.sub(remaining)
		cond, err := eval(e.Args[k], sb)
		if err != nil {
			return nil, err
		}
		var take, rest []int32
		for j, p := range remaining {
			if cond.isValid(j) && cond.i64[j] != 0 {
				take = append(take, p)
			} else {
				rest = append(rest, p)
			}
		}
		if len(take) > 0 {
			val, err := eval(e.Args[k+1], b.sub(take))
			if err != nil {
				return nil, err
			}
			scatter(k+1, val, take)
		}
		remaining = rest
	}
	if len(remaining) > 0 {
		val, err := eval(e.Args[last], b.sub(remaining))
		if err != nil {
			return nil, err
		}
		scatter(last, val, remaining)
	}
	return r, nil
}

// cast implements OpCast's rules (see gpu/ir.go).
func cast(e *gpu.Expr, n int, x *vec) (*vec, error) {
	from, to := e.Args[0].Type, e.Type
	r := &vec{valid: x.valid}
	switch {
	case from.Kind == to.Kind && (to.Kind == gpu.Bool || to.Kind == gpu.Dict):
		r.i64 = x.i64
		return r, nil
	case from.Kind.IsFloat() && to.Kind.IsFloat():
		r.f64 = make([]float64, n)
		copy(r.f64, x.f64)
		finishFloat(to, r)
		return r, nil
	case from.Kind.IsFloat() && isPlainInt(to.Kind):
		// Half to even; the bounds of a two's complement type are -2^k and
		// 2^k - 1, and 2^k is exact where 2^k - 1 may not be.
		lo := float64(boundsOf(to).lo)
		r.i64 = make([]int64, n)
		for i := 0; i < n; i++ {
			if !r.isValid(i) {
				continue
			}
			v := math.RoundToEven(x.f64[i])
			if !(v >= lo && v < -lo) {
				return nil, castOverflow(e)
			}
			r.i64[i] = int64(v)
		}
		return r, nil
	case isIntClass(from.Kind) && to.Kind.IsFloat():
		r.f64 = make([]float64, n)
		for i := 0; i < n; i++ {
			if !r.isValid(i) {
				continue
			}
			var w int128
			if x.i64 != nil {
				w = i128(x.i64[i])
			} else {
				w = x.i128[i]
			}
			r.f64[i] = decimalToFloat(w, scaleOf(from), to.Kind == gpu.Float32)
		}
		return r, nil
	}
	// Integer/decimal to integer/decimal: rescale, then range check.
	shift := scaleOf(to) - scaleOf(from)
	if x.i64 != nil && storageOf(to.Kind) == stInt && shift == 0 {
		bd := boundsOf(to)
		r.i64 = make([]int64, n)
		for i, v := range x.i64[:n] {
			if v < bd.lo || v > bd.hi {
				if r.isValid(i) {
					return nil, castOverflow(e)
				}
				v = 0
			}
			r.i64[i] = v
		}
		return r, nil
	}
	xs := as128(x, n)
	out := make([]int128, n)
	for i := range out {
		if !r.isValid(i) {
			continue
		}
		w := xs[i]
		if shift > 0 {
			var ok bool
			if shift > 38 {
				ok = w == (int128{})
			} else if w, ok = mul128(w, pow10[shift]); !ok {
				return nil, castOverflow(e)
			}
			if !ok {
				return nil, castOverflow(e)
			}
		} else if shift < 0 {
			if -shift > 38 {
				w = int128{}
			} else {
				w = divPow10Round(w, -shift)
			}
		}
		out[i] = w
	}
	if err := store128(e, r, out); err != nil {
		return nil, castOverflow(e)
	}
	return r, nil
}

func castOverflow(e *gpu.Expr) error {
	return fmt.Errorf("cast %s to %s: %w", e.Args[0].Type, e.Type, gpu.ErrOverflow)
}

// exactPow10 holds the powers of ten that are exact doubles.
var exactPow10 = [23]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// decimalToFloat returns w / 10^scale rounded once to the nearest float64
// (or float32).
func decimalToFloat(w int128, scale int32, to32 bool) float64 {
	if w.isInt64() {
		v := int64(w.lo)
		if v >= -(1<<53) && v <= 1<<53 {
			if scale == 0 {
				if to32 {
					return float64(float32(float64(v))) // float64(v) is exact
				}
				return float64(v)
			}
			if !to32 && scale <= 22 {
				// Both operands are exact doubles, and IEEE division rounds
				// the exact quotient once.
				return float64(v) / exactPow10[scale]
			}
		}
	}
	q := new(big.Rat).SetFrac(toBig(w), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	if to32 {
		f, _ := q.Float32()
		return float64(f)
	}
	f, _ := q.Float64()
	return f
}
