package translate

import (
	"fmt"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
)

// statsMeasure translates std_dev and variance (functions_arithmetic.yaml)
// to gpu.AggVarSamp/AggVarPop/AggStdDevSamp/AggStdDevPop. The distribution
// comes from the enum argument (std_dev(SAMPLE, x)) or, in the YAML's older
// signature, from the distribution option. ok is false for other functions.
//
// Options: the devices compute in float64 and the result is rounded to the
// declared fp32/fp64 to nearest, ties to even, so rounding TIE_TO_EVEN (the
// default) is honoured and every other rounding value is refused.
func (b *aggBuilder) statsMeasure(fn substrait.Func, f *expr.AggregateFunction, argConv func(expr.Expression) (*gpu.Expr, error), out gpu.Type) (final func([]*gpu.Expr) (*gpu.Expr, error), ok bool, err error) {
	if fn != substrait.FnStdDev && fn != substrait.FnVariance {
		return nil, false, nil
	}
	if f.Invocation() == types.AggInvocationDistinct {
		return nil, true, unsupported(fmt.Sprintf("%s(DISTINCT ...)", fn))
	}
	dist := ""
	var x expr.Expression
	for i := 0; i < f.NArgs(); i++ {
		switch a := f.Arg(i).(type) {
		case types.Enum:
			dist = string(a)
		case expr.Expression:
			if x != nil {
				return nil, true, fmt.Errorf("%s: more than one value argument", fn)
			}
			x = a
		default:
			return nil, true, unsupported(fmt.Sprintf("%s: argument %d of kind %T", fn, i, a))
		}
	}
	if x == nil {
		return nil, true, fmt.Errorf("%s: no value argument", fn)
	}
	for _, o := range f.GetOptions() {
		prefs := o.GetPreference()
		if len(prefs) == 0 {
			continue
		}
		switch o.GetName() {
		case "distribution":
			if dist != "" && dist != prefs[0] {
				return nil, true, fmt.Errorf("%s: distribution %s as argument and %s as option", fn, dist, prefs[0])
			}
			dist = prefs[0]
		case "rounding":
			if prefs[0] != "TIE_TO_EVEN" {
				return nil, true, unsupported(fmt.Sprintf("function %s option rounding=%s", fn, prefs[0]))
			}
		default:
			return nil, true, unsupported(fmt.Sprintf("function %s option %s=%s", fn, o.GetName(), prefs[0]))
		}
	}
	var kind gpu.AggKind
	switch {
	case dist == "SAMPLE" && fn == substrait.FnVariance:
		kind = gpu.AggVarSamp
	case dist == "POPULATION" && fn == substrait.FnVariance:
		kind = gpu.AggVarPop
	case dist == "SAMPLE":
		kind = gpu.AggStdDevSamp
	case dist == "POPULATION":
		kind = gpu.AggStdDevPop
	case dist == "":
		// The YAML names no default: guessing one would be ignoring it.
		return nil, true, unsupported(fmt.Sprintf("%s without a distribution", fn))
	default:
		return nil, true, fmt.Errorf("%s: distribution %q, want SAMPLE or POPULATION", fn, dist)
	}
	arg, err := argConv(x)
	if err != nil {
		return nil, true, err
	}
	if !arg.Type.Kind.IsFloat() {
		return nil, true, unsupported(fmt.Sprintf("%s of %s (fp32 and fp64 only)", fn, arg.Type))
	}
	if !out.Kind.IsFloat() {
		return nil, true, unsupported(fmt.Sprintf("%s returning %s", fn, out))
	}
	if x, ok := exactStatArg(arg); ok && b.moments {
		final, err := b.statFromMoments(kind, x, out)
		return final, true, err
	}
	i := b.agg(gpu.Agg{Kind: kind, Arg: b.project(arg), Type: gpu.Type{Kind: gpu.Float64, Nullable: true}})
	return func(cols []*gpu.Expr) (*gpu.Expr, error) { return cast(cols[i], out) }, true, nil
}

// exactStatArg is x when arg is x cast to a float, x an integer or a
// decimal of at most 18 digits (and scale MaxStatScale): then x*x fits 128
// bits and the sums of x and x*x are exact (gpu.OpStatMoments); a sum
// beyond 128 bits is an overflow, which DuckDB then answers. DuckDB's plans
// cast an integer column to DOUBLE for stddev_samp (TPC-DS q17, q39).
func exactStatArg(arg *gpu.Expr) (*gpu.Expr, bool) {
	if arg.Op != gpu.OpCast || len(arg.Args) != 1 {
		return nil, false
	}
	x := arg.Args[0]
	switch t := x.Type; t.Kind {
	case gpu.Int8, gpu.Int16, gpu.Int32, gpu.Int64:
		return x, true
	case gpu.Decimal64:
		return x, t.Scale <= gpu.MaxStatScale
	}
	return nil, false
}

// statFromMoments is a variance or deviation of x from count(x), sum(x)
// and sum(x*x), all exact (gpu.OpStatMoments), for a device that refuses
// the statistical aggregates themselves (Options.Device): the CUDA
// device's partials combine in any order, which a running mean cannot.
// The squares are 64-bit where they fit (integers of up to 32 bits,
// decimals of up to 9 digits), else 128-bit.
func (b *aggBuilder) statFromMoments(kind gpu.AggKind, x *gpu.Expr, out gpu.Type) (func([]*gpu.Expr) (*gpu.Expr, error), error) {
	var sq *gpu.Expr
	switch t := x.Type; {
	case t.Kind == gpu.Int8 || t.Kind == gpu.Int16 || t.Kind == gpu.Int32:
		x64, err := cast(x, gpu.Type{Kind: gpu.Int64})
		if err != nil {
			return nil, err
		}
		sq = gpu.Call(gpu.OpMul, x64.Type, x64, x64)
	case t.Kind == gpu.Decimal64 && t.Precision <= 9:
		sq = gpu.Call(gpu.OpMul, decimalType(18, 2*t.Scale, t.Nullable), x, x)
	default:
		wide, err := cast(x, decimalType(38, t.Scale, t.Nullable))
		if err != nil {
			return nil, err
		}
		sq = gpu.Call(gpu.OpMul, decimalType(38, 2*t.Scale, t.Nullable), wide, wide)
	}
	t1, _ := sumResult(x.Type)
	t2, _ := sumResult(sq.Type)
	count := b.count(x)
	s1 := b.agg(gpu.Agg{Kind: gpu.AggSum, Arg: b.project(x), Type: t1})
	s2 := b.agg(gpu.Agg{Kind: gpu.AggSum, Arg: b.project(sq), Type: t2})
	k := gpu.Const(gpu.Type{Kind: gpu.Int64}, gpu.Value{I64: int64(kind)})
	return func(cols []*gpu.Expr) (*gpu.Expr, error) {
		n, err := cast(cols[count], gpu.Type{Kind: gpu.Int64})
		if err != nil {
			return nil, err
		}
		return cast(gpu.Call(gpu.OpStatMoments, gpu.Type{Kind: gpu.Float64, Nullable: true}, n, cols[s1], cols[s2], k), out)
	}, nil
}

// refusesStatAggs: the device (Options.Device) refuses variances of doubles.
func (t *translator) refusesStatAggs() bool {
	f := gpu.Type{Kind: gpu.Float64, Nullable: true}
	return t.device != nil && t.device.RefuseAgg(gpu.Agg{Kind: gpu.AggVarSamp, Type: f}, f) != nil
}
