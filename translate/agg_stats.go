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
	i := b.agg(gpu.Agg{Kind: kind, Arg: b.project(arg), Type: gpu.Type{Kind: gpu.Float64, Nullable: true}})
	return func(cols []*gpu.Expr) (*gpu.Expr, error) { return cast(cols[i], out) }, true, nil
}
