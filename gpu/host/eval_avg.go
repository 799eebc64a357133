package host

import (
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

// OpAvgDivide (gpu/ir_avg.go): DuckDB's average from an exact sum and a
// count, through gpu.AvgDivide (big-number arithmetic: it runs once per
// group).

func checkAvgDivide(e *gpu.Expr) error {
	mode, ok := constArg(e, 2)
	switch {
	case len(e.Args) != 3 || e.Type.Kind != gpu.Float64:
		return fmt.Errorf("ill-typed expression %s: avg_divide takes (sum, count, mode) and gives float64", e)
	case !isIntClass(e.Args[0].Type.Kind) || e.Args[0].Type.Kind == gpu.Date32 || scaleOf(e.Args[0].Type) > gpu.MaxAvgScale:
		return fmt.Errorf("ill-typed expression %s: the sum is %s, not an integer or a decimal of scale <= %d", e, e.Args[0].Type, gpu.MaxAvgScale)
	case e.Args[1].Type.Kind != gpu.Int64 || e.Args[1].Type.Nullable:
		return fmt.Errorf("ill-typed expression %s: the count is %s, not a non-null int64", e, e.Args[1].Type)
	case !ok || (mode != gpu.AvgLongDouble && mode != gpu.AvgDouble):
		return fmt.Errorf("ill-typed expression %s: the mode is not an AvgLongDouble or AvgDouble constant", e)
	}
	return nil
}

func evalAvgDivide(e *gpu.Expr, b *batch) (*vec, error) {
	s, err := eval(e.Args[0], b)
	if err != nil {
		return nil, err
	}
	c, err := eval(e.Args[1], b)
	if err != nil {
		return nil, err
	}
	mode, _ := constArg(e, 2)
	scale := scaleOf(e.Args[0].Type)
	sums := as128(s, b.n)
	r := &vec{valid: s.valid, f64: make([]float64, b.n)}
	for i := 0; i < b.n; i++ {
		if !r.isValid(i) {
			continue
		}
		if c.i64[i] <= 0 {
			return nil, fmt.Errorf("%s: a count of %d", e, c.i64[i])
		}
		r.f64[i] = gpu.AvgDivide(toBig(sums[i]), c.i64[i], scale, mode)
	}
	return r, nil
}
