package host

import (
	"fmt"
	"math"

	"github.com/rigel-db/rigel/gpu"
)

// Variance and standard deviation (gpu/agg_stats.go). Each group keeps the
// count of non-null values (accum.count), their running mean (accum.f64)
// and the sum of squared deviations from that mean (accum.m2), updated by
// Welford's method and merged across workers by Chan et al.'s pairwise
// formula. Both stay accurate where sum(x^2) - n*mean^2 cancels
// catastrophically (large values with a small spread).

// checkStatAgg checks a statistical aggregate's types: a float argument,
// a Float64 result.
func checkStatAgg(i int, a gpu.Agg, at gpu.Type) error {
	if !at.Kind.IsFloat() {
		return fmt.Errorf("aggregate %d: %s of %s: %w", i, a.Kind, at, gpu.ErrUnsupported)
	}
	if a.Type.Kind != gpu.Float64 {
		return fmt.Errorf("aggregate %d: %s of %s gives float64, not %s", i, a.Kind, at, a.Type)
	}
	return nil
}

// updateStat folds a batch into the groups' (count, mean, m2).
func updateStat(acc *accum, x *vec, gids []int32) {
	for i, g := range gids {
		if !x.isValid(i) {
			continue
		}
		v := x.f64[i]
		acc.count[g]++
		d := v - acc.f64[g]
		acc.f64[g] += d / float64(acc.count[g])
		acc.m2[g] += d * (v - acc.f64[g])
	}
}

// mergeStat folds group sg of s into group dg of d. d.count[dg] already
// holds the merged count (mergeGroup adds it first); nd is d's count before.
func mergeStat(d *accum, dg int32, s *accum, sg int32, nd int64) {
	ns := s.count[sg]
	if nd == 0 {
		d.f64[dg], d.m2[dg] = s.f64[sg], s.m2[sg]
		return
	}
	n := float64(nd + ns)
	delta := s.f64[sg] - d.f64[dg]
	d.f64[dg] += delta * float64(ns) / n
	d.m2[dg] += s.m2[sg] + delta*delta*float64(nd)*float64(ns)/n
}

// statValue is a group's result, and whether it has one.
func statValue(k gpu.AggKind, acc *accum, g int32) (float64, bool) {
	n := acc.count[g]
	if n < k.StatMinCount() {
		return 0, false
	}
	div := float64(n)
	if k == gpu.AggVarSamp || k == gpu.AggStdDevSamp {
		div = float64(n - 1)
	}
	// An infinite or NaN input makes m2 NaN (inf - inf in the update):
	// the spread is not defined, and NaN says so.
	v := acc.m2[g] / div
	if k == gpu.AggStdDevSamp || k == gpu.AggStdDevPop {
		v = math.Sqrt(v)
	}
	return v, true
}

// OpStatMoments (gpu/agg_stats.go): a variance or deviation from a count,
// the exact sum and the exact sum of squares, through gpu.StatFromMoments
// (big-number arithmetic: it runs once per group).

func checkStatMoments(e *gpu.Expr) error {
	kind, ok := constArg(e, 3)
	switch {
	case len(e.Args) != 4 || e.Type.Kind != gpu.Float64:
		return fmt.Errorf("ill-typed expression %s: stat_moments takes (count, sum, sum of squares, kind) and gives float64", e)
	case e.Args[0].Type.Kind != gpu.Int64 || e.Args[0].Type.Nullable:
		return fmt.Errorf("ill-typed expression %s: the count is %s, not a non-null int64", e, e.Args[0].Type)
	case !isIntClass(e.Args[1].Type.Kind) || e.Args[1].Type.Kind == gpu.Date32 || scaleOf(e.Args[1].Type) > gpu.MaxStatScale:
		return fmt.Errorf("ill-typed expression %s: the sum is %s, not an integer or a decimal of scale <= %d", e, e.Args[1].Type, gpu.MaxStatScale)
	case !isIntClass(e.Args[2].Type.Kind) || e.Args[2].Type.Kind == gpu.Date32 || scaleOf(e.Args[2].Type) != 2*scaleOf(e.Args[1].Type):
		return fmt.Errorf("ill-typed expression %s: the sum of squares is %s, not of twice the sum's scale", e, e.Args[2].Type)
	case !ok || !gpu.AggKind(kind).IsStatAgg():
		return fmt.Errorf("ill-typed expression %s: the kind is not a statistical aggregate's constant", e)
	}
	return nil
}

func evalStatMoments(e *gpu.Expr, b *batch) (*vec, error) {
	var args [3]*vec
	for i := range args {
		v, err := eval(e.Args[i], b)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	kind, _ := constArg(e, 3)
	k := gpu.AggKind(kind)
	s1, s2 := as128(args[1], b.n), as128(args[2], b.n)
	r := &vec{valid: make([]bool, b.n), f64: make([]float64, b.n)}
	for i := 0; i < b.n; i++ {
		n := args[0].i64[i]
		if n < k.StatMinCount() || !args[1].isValid(i) || !args[2].isValid(i) {
			continue
		}
		r.valid[i] = true
		r.f64[i] = gpu.StatFromMoments(k, n, toBig(s1[i]), toBig(s2[i]), scaleOf(e.Args[1].Type))
	}
	return r, nil
}
