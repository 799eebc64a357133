package translate

import (
	"fmt"
	"github.com/rigel-db/rigel/substrait"
	"math/big"

	"github.com/rigel-db/rigel/gpu"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// DuckDB folds `date + interval` into a timestamp constant and compares
// `cast(date AS timestamp)` with it (TPC-H Q1, Q4, Q5, Q6, Q10, Q12, Q14,
// Q15, Q20). The device has no timestamps, but a date compared with a
// constant timestamp is exactly a date compared with a constant date: with
// D units a day and T the timestamp in units since the epoch, d*D < T iff
// d < ceil(T/D), d*D <= T iff d <= floor(T/D), and so on. Any other use of
// a timestamp is refused.

// timestampOf reports whether e is a timestamp: a cast of a date to one
// (returning the date), or a constant (returning its units since the epoch
// and the units per day).
func (c exprConv) timestampOf(e expr.Expression) (date *gpu.Expr, lit *big.Int, perDay *big.Int, isTS bool, err error) {
	switch x := e.(type) {
	case *expr.Cast:
		if !isTimestampType(x.Type) {
			return nil, nil, nil, false, nil
		}
		d, err := c.convert(x.Input)
		if err != nil {
			return nil, nil, nil, true, err
		}
		if d.Type.Kind != gpu.Date32 {
			return nil, nil, nil, true, unsupported(fmt.Sprintf("cast of %s to a timestamp (only dates compare with timestamps)", d.Type))
		}
		return d, nil, nil, true, nil
	case expr.Literal:
		switch l := literalProto(x).LiteralType.(type) {
		case *proto.Expression_Literal_PrecisionTimestamp_:
			p := l.PrecisionTimestamp.GetPrecision()
			if p < 0 || p > 12 {
				return nil, nil, nil, true, fmt.Errorf("timestamp literal with precision %d", p)
			}
			day := new(big.Int).Mul(big.NewInt(86400), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil))
			return nil, big.NewInt(l.PrecisionTimestamp.GetValue()), day, true, nil
		case *proto.Expression_Literal_Timestamp: // deprecated: microseconds
			return nil, big.NewInt(l.Timestamp), big.NewInt(86400_000000), true, nil
		case *proto.Expression_Literal_Null:
			if isTimestampType(x.GetType()) {
				return nil, nil, nil, true, unsupported("comparison with a null timestamp")
			}
		}
	}
	return nil, nil, nil, false, nil
}

func isTimestampType(t types.Type) bool {
	if t == nil {
		return false
	}
	p, err := substrait.TypeProto(t)
	if err != nil {
		return false
	}
	switch p.Kind.(type) {
	case *proto.Type_PrecisionTimestamp_, *proto.Type_Timestamp_:
		return true
	}
	return false
}

// timestampCompare rewrites op(a, b) with a timestamp on either side into a
// date comparison; ok is false when neither side is a timestamp.
func (c exprConv) timestampCompare(op gpu.Op, f *expr.ScalarFunction, out gpu.Type) (g *gpu.Expr, ok bool, err error) {
	if f.NArgs() != 2 {
		return nil, false, nil
	}
	a, err := valueArg(f, 0)
	if err != nil {
		return nil, false, nil
	}
	b, err := valueArg(f, 1)
	if err != nil {
		return nil, false, nil
	}
	da, la, pa, tsA, err := c.timestampOf(a)
	if err != nil {
		return nil, true, err
	}
	db, lb, pb, tsB, err := c.timestampOf(b)
	if err != nil {
		return nil, true, err
	}
	if !tsA && !tsB {
		return nil, false, nil
	}
	out.Kind = gpu.Bool
	switch {
	case da != nil && db != nil: // two dates cast alike compare as dates
		return gpu.Call(op, out, da, db), true, nil
	case da != nil && lb != nil:
		g, err := dateVsTimestamp(op, out, da, lb, pb)
		return g, true, err
	case la != nil && db != nil:
		g, err := dateVsTimestamp(flipped[op], out, db, la, pa)
		return g, true, err
	}
	return nil, true, unsupported(fmt.Sprintf("timestamp comparison %s (only a date against a constant timestamp runs)", f))
}

// dateVsTimestamp builds `d*perDay op t` as a comparison of dates.
func dateVsTimestamp(op gpu.Op, out gpu.Type, d *gpu.Expr, t, perDay *big.Int) (*gpu.Expr, error) {
	floor, mod := new(big.Int).DivMod(t, perDay, new(big.Int)) // Euclidean: mod >= 0
	exact := mod.Sign() == 0
	ceil := new(big.Int).Set(floor)
	if !exact {
		ceil.Add(ceil, big.NewInt(1))
	}
	var bound *big.Int
	switch op {
	case gpu.OpLt, gpu.OpGe: // d < ceil, d >= ceil
		bound = ceil
	case gpu.OpLe, gpu.OpGt: // d <= floor, d > floor
		bound = floor
	case gpu.OpEq, gpu.OpNe:
		if !exact {
			// No date equals a timestamp within a day: false (true for <>),
			// and null for a null date, which is d <> d (d = d).
			same := gpu.OpNe
			if op == gpu.OpNe {
				same = gpu.OpEq
			}
			return gpu.Call(same, out, d, d), nil
		}
		bound = floor
	default:
		return nil, fmt.Errorf("timestamp comparison with operator %s", op)
	}
	if !bound.IsInt64() || bound.Int64() < -1<<31 || bound.Int64() > 1<<31-1 {
		// Beyond every date: the answer is the same for all non-null dates.
		above := bound.Sign() > 0
		var always bool
		switch op {
		case gpu.OpLt, gpu.OpLe, gpu.OpNe:
			always = above
		case gpu.OpGt, gpu.OpGe:
			always = !above
		}
		same := gpu.OpNe // false, null for null
		if always {
			same = gpu.OpEq // true, null for null
		}
		return gpu.Call(same, out, d, d), nil
	}
	k := gpu.Const(gpu.Type{Kind: gpu.Date32}, gpu.Value{I64: bound.Int64()})
	return gpu.Call(op, out, d, k), nil
}
