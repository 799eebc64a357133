package translate

import (
	"errors"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/substrait"
)

func opts(kv ...string) *fnOpts {
	o := &fnOpts{fn: "f", vals: map[string]string{}, used: map[string]bool{}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.vals[kv[i]] = kv[i+1]
	}
	return o
}

// Options a translation does not implement are refused, never ignored.
func TestNumericOptionsRefused(t *testing.T) {
	f64, i64 := gpu.Type{Kind: gpu.Float64}, gpu.Type{Kind: gpu.Int64}
	dec := decimalType(10, 2, false)
	x := gpu.Col(0, f64)
	n := gpu.Col(0, i64)
	for _, tc := range []struct {
		fn   substrait.Func
		o    *fnOpts
		out  gpu.Type
		args []*gpu.Expr
	}{
		{substrait.FnRound, opts("rounding", "TIE_TO_EVEN"), f64, []*gpu.Expr{x, gpu.Col(1, gpu.Type{Kind: gpu.Int32})}},
		{substrait.FnSqrt, opts("on_domain_error", "SATURATE"), f64, []*gpu.Expr{x}},
		{substrait.FnLn, opts("on_log_zero", "NULL"), f64, []*gpu.Expr{x}},
		{substrait.FnSqrt, opts("rounding", "CEILING"), f64, []*gpu.Expr{x}},
		{substrait.FnAbs, opts("overflow", "SATURATE"), dec, []*gpu.Expr{gpu.Col(0, dec)}},
		{substrait.FnDivide, opts("overflow", "SATURATE"), i64, []*gpu.Expr{n, n}},
		{substrait.FnDivide, opts("on_division_by_zero", "NAN"), i64, []*gpu.Expr{n, n}},
		{substrait.FnModulus, opts("division_type", "EUCLIDEAN"), i64, []*gpu.Expr{n, n}},
		{substrait.FnDivide, opts("division_type", "FLOOR"), i64, []*gpu.Expr{n, n}},
		{substrait.FnFactorial, opts("overflow", "SATURATE"), i64, []*gpu.Expr{n}},
	} {
		_, err := exprConv{}.numericCall(tc.fn, tc.o, tc.out, tc.args)
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s %v: got %v, want ErrUnsupported", tc.fn, tc.o.vals, err)
		}
	}
	// An option nothing looked at is refused by rest().
	o := opts("spin", "LEFT")
	if _, err := (exprConv{}).numericCall(substrait.FnSqrt, o, f64, []*gpu.Expr{x}); err != nil {
		t.Fatal(err)
	}
	if err := o.rest(); !errors.Is(err, ErrUnsupported) {
		t.Errorf("unknown option: got %v, want ErrUnsupported", err)
	}
}

// The error options shape the IR: ERROR checks, NULL nulls, NAN keeps the
// IEEE result.
func TestNumericDomainOptions(t *testing.T) {
	f64 := gpu.Type{Kind: gpu.Float64}
	x := gpu.Col(0, f64)
	for mode, want := range map[string]gpu.Op{"ERROR": gpu.OpCheck, "NULL": gpu.OpCase, "NAN": gpu.OpSqrt} {
		g, err := exprConv{}.numericCall(substrait.FnSqrt, opts("on_domain_error", mode), f64, []*gpu.Expr{x})
		if err != nil {
			t.Fatal(err)
		}
		if g.Op != want {
			t.Errorf("sqrt on_domain_error=%s: %s, want top operator %s", mode, g, want)
		}
		if mode == "NULL" && !g.Type.Nullable {
			t.Errorf("sqrt on_domain_error=NULL gives non-nullable %s", g.Type)
		}
	}
}
