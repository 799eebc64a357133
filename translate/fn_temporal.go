package translate

import (
	"fmt"
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/substrait"
)

// Arithmetic of functions_datetime.yaml that gives a timestamp or an
// interval, on the Int64 carriage of temporal.go (the plan's result
// gets its Arrow type from physical.Retype):
//   - add_intervals(interval_day<P>, interval_day<P>), (interval_year,
//     interval_year): Int64 addition, overflow an error;
//   - add/subtract(timestamp, interval_day): both rescaled to the result's
//     unit, then added: exact, overflow an error;
//   - add/subtract(timestamp, interval_year): calendar months
//     (gpu.OpAddMonthsTs), the time of day kept, the day clamped;
//   - add(date, interval_day) giving a timestamp: the date's midnight plus
//     the interval.
// Timestamps with time zone are refused: calendar arithmetic on them
// depends on a zone (a day is not always 86400 s there), which rigel does
// not model.

// temporalScalar converts the functions above; ok is false for what other
// paths convert (date results: datetime.go).
func (c exprConv) temporalScalar(fn substrait.Func, f *expr.ScalarFunction) (g *gpu.Expr, ok bool, err error) {
	if !strings.Contains(f.ID().URN, "functions_datetime") {
		return nil, false, nil
	}
	switch fn {
	case substrait.FnAddIntervals:
		g, err := c.addIntervals(f)
		return g, true, err
	case substrait.FnAdd, substrait.FnSubtract:
		out, isTemporal := temporalOf(f.GetType())
		if !isTemporal {
			return nil, false, nil
		}
		g, err := c.timestampArithmetic(fn, f, out)
		return g, true, err
	}
	return nil, false, nil
}

// twoValues converts a function's two value arguments.
func (c exprConv) twoValues(f *expr.ScalarFunction) (a, b expr.Expression, x, y *gpu.Expr, err error) {
	if f.NArgs() != 2 {
		return nil, nil, nil, nil, unsupported(fmt.Sprintf("%s with %d arguments", f.Name(), f.NArgs()))
	}
	if err := checkOptions(f); err != nil {
		return nil, nil, nil, nil, err
	}
	if a, err = valueArg(f, 0); err != nil {
		return
	}
	if b, err = valueArg(f, 1); err != nil {
		return
	}
	if x, err = c.convert(a); err != nil {
		return
	}
	y, err = c.convert(b)
	return
}

func (c exprConv) addIntervals(f *expr.ScalarFunction) (*gpu.Expr, error) {
	a, b, x, y, err := c.twoValues(f)
	if err != nil {
		return nil, err
	}
	out, okOut := temporalOf(f.GetType())
	ta, okA := temporalOf(a.GetType())
	tb, okB := temporalOf(b.GetType())
	if !okOut || !okA || !okB || (out.class != idayClass && out.class != iyearClass) ||
		ta.class != out.class || tb.class != out.class {
		return nil, unsupported(fmt.Sprintf("add_intervals of %s and %s giving %s", a.GetType(), b.GetType(), f.GetType()))
	}
	if x, err = rescaleExpr(x, ta, out); err != nil {
		return nil, err
	}
	if y, err = rescaleExpr(y, tb, out); err != nil {
		return nil, err
	}
	return gpu.Call(gpu.OpAdd, carriage(f.GetType(), x, y), x, y), nil
}

// carriage is the Int64 type of a temporal result of args.
func carriage(t types.Type, args ...*gpu.Expr) gpu.Type {
	n := t.GetNullability() != types.NullabilityRequired
	for _, a := range args {
		n = n || a.Type.Nullable
	}
	return gpu.Type{Kind: gpu.Int64, Nullable: n}
}

// rescaleExpr converts x from from's units to to's (finer or equal only:
// the other direction would round).
func rescaleExpr(x *gpu.Expr, from, to temporal) (*gpu.Expr, error) {
	if from.class == iyearClass || from.perSec == to.perSec {
		return x, nil
	}
	if to.perSec < from.perSec || to.perSec%from.perSec != 0 {
		return nil, unsupported(fmt.Sprintf("a value in 1/%d s into a result in 1/%d s (it would round)", from.perSec, to.perSec))
	}
	i64 := gpu.Type{Kind: gpu.Int64}
	return gpu.Call(gpu.OpMul, x.Type, x, gpu.Const(i64, gpu.Value{I64: to.perSec / from.perSec})), nil
}

func (c exprConv) timestampArithmetic(fn substrait.Func, f *expr.ScalarFunction, out temporal) (*gpu.Expr, error) {
	a, b, x, y, err := c.twoValues(f)
	if err != nil {
		return nil, err
	}
	refuse := func(why string) (*gpu.Expr, error) {
		return nil, unsupported(fmt.Sprintf("%s of %s and %s giving %s: %s", fn, a.GetType(), b.GetType(), f.GetType(), why))
	}
	it, isInterval := temporalOf(b.GetType())
	if out.class != tsClass || !isInterval || (it.class != idayClass && it.class != iyearClass) {
		return refuse("not a timestamp plus an interval")
	}
	if out.tz {
		return refuse("calendar arithmetic with time zones is not implemented")
	}
	i64 := gpu.Type{Kind: gpu.Int64}
	var base *gpu.Expr
	if isDateType(a.GetType()) {
		if it.class != idayClass {
			return refuse("a date plus months gives a date")
		}
		// The date's midnight: whole seconds since the epoch, in the
		// result's unit.
		secs := gpu.Call(gpu.OpTimePart, i64.WithNullable(x.Type.Nullable), x,
			gpu.Const(i64, gpu.Value{I64: int64(gpu.PartUnixTime)}), gpu.Const(i64, gpu.Value{I64: 1}))
		base, err = rescaleExpr(secs, temporal{class: tsClass, perSec: 1}, out)
	} else {
		ts, ok := temporalOf(a.GetType())
		if !ok || ts.class != tsClass || ts.tz {
			return refuse("not a timestamp plus an interval")
		}
		base, err = rescaleExpr(x, ts, out)
	}
	if err != nil {
		return nil, err
	}
	t := carriage(f.GetType(), base, y)
	if it.class == iyearClass {
		if fn == substrait.FnSubtract {
			y = gpu.Call(gpu.OpNeg, y.Type, y)
		}
		return gpu.Call(gpu.OpAddMonthsTs, t, base, y, gpu.Const(i64, gpu.Value{I64: out.perSec})), nil
	}
	if y, err = rescaleExpr(y, it, out); err != nil {
		return nil, err
	}
	op := gpu.OpAdd
	if fn == substrait.FnSubtract {
		op = gpu.OpSub
	}
	return gpu.Call(op, t, base, y), nil
}
