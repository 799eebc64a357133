package translate

import (
	"fmt"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/physical"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// aggregate lowers an AggregateRel into a pipeline with an aggregate sink
// over its input stream, then a stream of finishing expressions over the
// sink's output (avg = sum / count, casts to the plan's result types).
func (t *translator) aggregate(r *plan.AggregateRel) (*stream, error) {
	in, err := t.rel(r.Input())
	if err != nil {
		return nil, err
	}
	if in, err = t.unsliced(in); err != nil {
		return nil, err
	}
	refs := r.GroupingReferences()
	if len(refs) > 1 {
		return nil, unsupported("AggregateRel with several grouping sets")
	}
	conv := exprConv{in.exprs}
	var keyExprs []*gpu.Expr
	if len(refs) == 1 {
		groupExprs := r.GroupingExpressions()
		for _, ref := range refs[0] {
			if int(ref) >= len(groupExprs) {
				return nil, fmt.Errorf("AggregateRel grouping reference %d out of range", ref)
			}
			g, err := conv.convert(groupExprs[ref])
			if err != nil {
				return nil, fmt.Errorf("AggregateRel grouping expression %d: %w", ref, err)
			}
			keyExprs = append(keyExprs, g)
		}
	}
	groups, err := measureGroups(r.Measures())
	if err != nil {
		return nil, err
	}
	if len(groups) == 1 {
		return t.measureGroup(in, conv, keyExprs, groups[0])
	}
	// Several groups (plain measures, DISTINCT ones over different
	// arguments): one aggregation each, joined on the grouping keys, which
	// every aggregation yields the same set of.
	k := len(keyExprs)
	pos := make([]int, len(r.Measures()))
	var node physical.Node
	for gi, g := range groups {
		s, err := t.measureGroup(in, conv, keyExprs, g)
		if err != nil {
			return nil, err
		}
		part, err := t.materialize(s)
		if err != nil {
			return nil, err
		}
		offset := 0
		if gi == 0 {
			node = part
		} else {
			offset = len(node.OutputTypes())
			node = joinOnLeading(node, part, k, physical.JoinInner)
		}
		for n, m := range g.measures {
			pos[m] = offset + k + n
		}
	}
	out := identity(node)
	exprs := append([]*gpu.Expr(nil), out.exprs[:k]...)
	for _, p := range pos {
		exprs = append(exprs, out.exprs[p])
	}
	out.exprs = exprs
	return out, nil
}

// measureGroup is the measures one aggregation computes: plain ones, or
// DISTINCT ones over one argument.
type measureGroup struct {
	distinct expr.Expression // nil for plain measures
	measures []int           // indexes into the AggregateRel's measures
	rels     []plan.AggRelMeasure
}

// measureGroups sorts the measures into groups, plain ones first. min, max
// and any_value are the same with DISTINCT, so they count as plain.
func measureGroups(measures []plan.AggRelMeasure) ([]measureGroup, error) {
	groups := []measureGroup{{}}
	byArg := map[string]int{}
	for i, m := range measures {
		f := m.Measure()
		g := 0
		if (f.Invocation() == types.AggInvocationDistinct && !distinctIsPlain(f)) || isApproxCountDistinct(f) {
			if f.NArgs() != 1 {
				return nil, unsupported(fmt.Sprintf("%s(DISTINCT ...) with %d arguments", f.Name(), f.NArgs()))
			}
			a, ok := f.Arg(0).(expr.Expression)
			if !ok {
				return nil, unsupported(fmt.Sprintf("%s(DISTINCT ...): non-value argument", f.Name()))
			}
			var seen bool
			if g, seen = byArg[a.String()]; !seen {
				g = len(groups)
				byArg[a.String()] = g
				groups = append(groups, measureGroup{distinct: a})
			}
		}
		groups[g].measures = append(groups[g].measures, i)
		groups[g].rels = append(groups[g].rels, m)
	}
	if len(groups[0].measures) == 0 && len(groups) > 1 {
		groups = groups[1:] // no plain measures
	}
	return groups, nil
}

// isApproxCountDistinct: approx_count_distinct(x) runs as an exact
// count(DISTINCT x).
func isApproxCountDistinct(f *expr.AggregateFunction) bool {
	fn, err := substrait.Resolve(f.ID())
	return err == nil && fn == substrait.FnApproxCountDistinct
}

func distinctIsPlain(f *expr.AggregateFunction) bool {
	fn, err := substrait.Resolve(f.ID())
	return err == nil && (fn == substrait.FnMin || fn == substrait.FnMax || fn == substrait.FnAnyValue)
}

// measureGroup aggregates one group of measures.
func (t *translator) measureGroup(in *stream, conv exprConv, keyExprs []*gpu.Expr, g measureGroup) (*stream, error) {
	if g.distinct == nil {
		return t.aggregateStream(in, keyExprs, g.rels, conv.convert)
	}
	// agg(DISTINCT x): group on the keys and x first, then aggregate x
	// over those distinct rows, grouped on the keys alone.
	x, err := conv.convert(g.distinct)
	if err != nil {
		return nil, fmt.Errorf("AggregateRel DISTINCT argument: %w", err)
	}
	inner, err := t.aggregateStream(in, append(keyExprs[:len(keyExprs):len(keyExprs)], x), nil, nil)
	if err != nil {
		return nil, err
	}
	keys := inner.exprs[:len(keyExprs)]
	xcol := inner.exprs[len(keyExprs)]
	return t.aggregateStream(inner, keys, g.rels, func(expr.Expression) (*gpu.Expr, error) { return xcol, nil })
}

// aggregateStream groups the stream on keyExprs and computes the measures,
// whose arguments argConv converts.
func (t *translator) aggregateStream(in *stream, keyExprs []*gpu.Expr, measures []plan.AggRelMeasure, argConv func(expr.Expression) (*gpu.Expr, error)) (*stream, error) {
	b := &aggBuilder{moments: t.refusesStatAggs()}
	for _, k := range keyExprs {
		b.keys = append(b.keys, b.project(k))
	}
	var finals []func(out []*gpu.Expr) (*gpu.Expr, error)
	for i, m := range measures {
		f, err := b.measure(argConv, m)
		if err != nil {
			return nil, fmt.Errorf("AggregateRel measure %d: %w", i, err)
		}
		finals = append(finals, f)
	}
	src, inputs, project, filter := prune(in.src, b.project_, in.filter)
	pipe := &gpu.Pipeline{
		Inputs: inputs, Filter: filter, Project: project,
		Sink: gpu.SinkAggregate, Keys: b.keys, Aggs: b.aggs,
	}
	node := &physical.Pipeline{Input: src, Pipe: pipe}
	out := identity(node)
	sinkCols := out.exprs
	exprs := append([]*gpu.Expr(nil), sinkCols[:len(b.keys)]...)
	for _, f := range finals {
		e, err := f(sinkCols)
		if err != nil {
			return nil, err
		}
		exprs = append(exprs, e)
	}
	out.exprs = exprs
	return out, nil
}

type aggBuilder struct {
	project_ []*gpu.Expr
	keys     []int
	aggs     []gpu.Agg
	// moments: the device cannot keep variances (agg_stats.go); those of
	// integers and small decimals are computed from exact sums instead.
	moments bool
}

// project adds e to the pipeline's projection (once) and returns its index.
func (b *aggBuilder) project(e *gpu.Expr) int {
	for i, p := range b.project_ {
		if p == e {
			return i
		}
	}
	b.project_ = append(b.project_, e)
	return len(b.project_) - 1
}

// agg adds an aggregate (once) and returns its output column index (after keys).
func (b *aggBuilder) agg(a gpu.Agg) int {
	for i, x := range b.aggs {
		if x == a {
			return len(b.keys) + i
		}
	}
	b.aggs = append(b.aggs, a)
	return len(b.keys) + len(b.aggs) - 1
}

// count adds count(arg), or count(*) when arg is nil or never null: one
// shared row counter instead of one per column.
func (b *aggBuilder) count(arg *gpu.Expr) int {
	if arg == nil || !arg.Type.Nullable {
		return b.agg(gpu.Agg{Kind: gpu.AggCountStar, Type: gpu.Type{Kind: gpu.Int64}})
	}
	return b.agg(gpu.Agg{Kind: gpu.AggCount, Arg: b.project(arg), Type: gpu.Type{Kind: gpu.Int64}})
}

func (b *aggBuilder) measure(argConv func(expr.Expression) (*gpu.Expr, error), m plan.AggRelMeasure) (func([]*gpu.Expr) (*gpu.Expr, error), error) {
	f := m.Measure()
	if m.Filter() != nil {
		if lit, ok := m.Filter().(*expr.PrimitiveLiteral[bool]); !ok || !lit.Value {
			return nil, unsupported("aggregate measure with a FILTER")
		}
	}
	if p := f.Phase(); p != types.AggPhaseInitialToResult && p != types.AggPhaseUnspecified {
		return nil, unsupported(fmt.Sprintf("aggregate phase %v", p))
	}
	fn, err := substrait.Resolve(f.ID())
	if err != nil {
		return nil, err
	}
	out, err := gpuType(f.GetType())
	if err != nil {
		return nil, err
	}
	if final, ok, err := b.statsMeasure(fn, f, argConv, out); ok {
		return final, err
	}
	var args []*gpu.Expr
	for i := 0; i < f.NArgs(); i++ {
		a, ok := f.Arg(i).(expr.Expression)
		if !ok {
			return nil, unsupported(fmt.Sprintf("%s: non-value argument", fn))
		}
		g, err := argConv(a)
		if err != nil {
			return nil, err
		}
		args = append(args, g)
	}
	col := func(i int) func([]*gpu.Expr) (*gpu.Expr, error) {
		return func(cols []*gpu.Expr) (*gpu.Expr, error) { return cast(cols[i], out) }
	}
	switch fn {
	case substrait.FnCount, substrait.FnApproxCountDistinct: // the latter over distinct rows (measureGroups)
		if len(args) == 0 {
			return col(b.count(nil)), nil
		}
		return col(b.count(args[0])), nil
	case substrait.FnSum, substrait.FnAvg:
		if len(args) != 1 {
			return nil, fmt.Errorf("%s: %d arguments, want 1", fn, len(args))
		}
		arg := args[0]
		sumType, ok := sumResult(arg.Type)
		if !ok {
			return nil, unsupported(fmt.Sprintf("%s of %s", fn, arg.Type))
		}
		sum := b.agg(gpu.Agg{Kind: gpu.AggSum, Arg: b.project(arg), Type: sumType})
		if fn == substrait.FnSum {
			return col(sum), nil
		}
		if !out.Kind.IsFloat() {
			return nil, unsupported(fmt.Sprintf("avg returning %s (only floating-point averages yet)", out))
		}
		count := b.count(arg)
		argType := arg.Type
		return func(cols []*gpu.Expr) (*gpu.Expr, error) {
			return average(cols[sum], cols[count], argType, out)
		}, nil
	case substrait.FnMin, substrait.FnMax, substrait.FnAnyValue, substrait.FnBoolAnd, substrait.FnBoolOr:
		if len(args) != 1 {
			return nil, fmt.Errorf("%s: %d arguments, want 1", fn, len(args))
		}
		// any_value may give any value of the group; the smallest is one,
		// and the same on every device.
		// bool_and is the minimum of booleans (false < true), bool_or the
		// maximum; both ignore nulls and give null over no values.
		kind := gpu.AggMin
		if fn == substrait.FnMax || fn == substrait.FnBoolOr {
			kind = gpu.AggMax
		}
		return col(b.agg(gpu.Agg{Kind: kind, Arg: b.project(args[0]), Type: args[0].Type.WithNullable(true)})), nil
	}
	return nil, unsupported(fmt.Sprintf("aggregate function %s", fn))
}

// sumResult is the type gpu.AggSum gives for an argument type.
func sumResult(t gpu.Type) (gpu.Type, bool) {
	switch {
	case t.Kind.IsFloat():
		return gpu.Type{Kind: gpu.Float64, Nullable: true}, true
	case isInt(t) || isDecimal(t):
		d, _ := asDecimal(t)
		return gpu.Type{Kind: gpu.Decimal128, Precision: 38, Scale: d.Scale, Nullable: true}, true
	}
	return gpu.Type{}, false
}

// average is avg from the sum and the count of values of type arg (a null
// sum, of no rows, gives null): DuckDB's division for integers and
// decimals (gpu.OpAvgDivide, the same DOUBLE to the bit), sum / count in
// double for floats.
func average(sum, count *gpu.Expr, arg, out gpu.Type) (*gpu.Expr, error) {
	ft := gpu.Type{Kind: gpu.Float64, Nullable: true}
	if mode, ok := avgMode(arg); ok && sum.Type.Kind != gpu.Float64 {
		c, err := cast(count, gpu.Type{Kind: gpu.Int64})
		if err != nil {
			return nil, err
		}
		return cast(gpu.Call(gpu.OpAvgDivide, ft, sum, c, gpu.Const(gpu.Type{Kind: gpu.Int64}, gpu.Value{I64: mode})), out)
	}
	s, err := cast(sum, ft)
	if err != nil {
		return nil, err
	}
	c, err := cast(count, gpu.Type{Kind: gpu.Float64})
	if err != nil {
		return nil, err
	}
	return cast(gpu.Call(gpu.OpDiv, ft, s, c), out)
}

// avgMode is how DuckDB divides an average of values of type t
// (gpu/ir_avg.go): in double for SMALLINT, TINYINT and DECIMAL(p <= 4),
// in long double for the other integers and decimals; false for floats
// and for scales beyond gpu.MaxAvgScale.
func avgMode(t gpu.Type) (int64, bool) {
	switch {
	case t.Kind == gpu.Int8 || t.Kind == gpu.Int16:
		return gpu.AvgDouble, true
	case t.Kind == gpu.Int32 || t.Kind == gpu.Int64:
		return gpu.AvgLongDouble, true
	case !isDecimal(t) || t.Scale > gpu.MaxAvgScale:
		return 0, false
	case t.Precision <= 4:
		return gpu.AvgDouble, true
	}
	return gpu.AvgLongDouble, true
}
