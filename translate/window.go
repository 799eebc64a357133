package translate

import (
	"fmt"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/physical"
	"github.com/rigel-db/rigel/substrait"
)

// hasWindow reports whether a projection computes window functions (how
// DuckDB's LOGICAL_WINDOW arrives, duckdb-bridge/producer_window.go).
func hasWindow(x *plan.ProjectRel) bool {
	for _, e := range x.Expressions() {
		if _, ok := e.(*expr.WindowFunction); ok {
			return true
		}
	}
	return false
}

// windowProject translates a ProjectRel with window functions into a
// physical.Window over its input: the functions' partition keys, order
// keys and arguments become columns of the input, each function a column
// the Window appends, and the projection's other expressions read the
// Window's output. avg is a running sum and count, divided above.
func (t *translator) windowProject(x *plan.ProjectRel, in *stream) (*stream, error) {
	if why, ok := t.onDuckDB[physical.RefusedWindow]; ok {
		return nil, unsupported("refused while running: " + why)
	}
	width := len(in.exprs)
	conv := exprConv{in.exprs}
	type pending struct {
		window   bool
		avg      bool     // the funcs at at and at+1 are avg's sum and count
		avgArg   gpu.Type // the type avg's values have
		at       int      // the first of its functions, among w.Funcs
		out      gpu.Type
		original expr.Expression
	}
	var w physical.Window
	var items []pending
	for i, e := range x.Expressions() {
		f, ok := e.(*expr.WindowFunction)
		if !ok {
			items = append(items, pending{original: e})
			continue
		}
		fs, avg, out, err := t.windowFuncs(f, in, conv)
		if err != nil {
			return nil, fmt.Errorf("ProjectRel expression %d: %w", i, err)
		}
		it := pending{window: true, avg: avg, at: len(w.Funcs), out: out}
		if avg {
			it.avgArg = in.exprs[fs[0].Arg].Type
		}
		items = append(items, it)
		w.Funcs = append(w.Funcs, fs...)
	}
	src, err := t.materialize(in)
	if err != nil {
		return nil, err
	}
	w.Input = src
	out := identity(&w)
	cols := out.exprs
	base := cols[:width]
	exprs := append([]*gpu.Expr(nil), base...)
	first := len(src.OutputTypes()) // the Window's first own column
	for i, it := range items {
		if !it.window {
			g, err := exprConv{base}.convert(it.original)
			if err != nil {
				return nil, fmt.Errorf("ProjectRel expression %d: %w", i, err)
			}
			exprs = append(exprs, g)
			continue
		}
		g := cols[first+it.at]
		if it.avg { // as the aggregate's (aggregate.go)
			var err error
			if g, err = average(g, cols[first+it.at+1], it.avgArg, it.out); err != nil {
				return nil, err
			}
		}
		exprs = append(exprs, g)
	}
	out.exprs = exprs
	return out, nil
}

// windowFuncs translates one window function: its physical functions (two
// for avg), whether it is avg, and its result type.
func (t *translator) windowFuncs(f *expr.WindowFunction, in *stream, conv exprConv) ([]physical.WindowFunc, bool, gpu.Type, error) {
	out, err := gpuType(f.GetType())
	if err != nil {
		return nil, false, out, err
	}
	if f.Invocation() == types.AggInvocationDistinct {
		return nil, false, out, unsupported("DISTINCT window aggregate")
	}
	var base physical.WindowFunc
	for _, p := range f.Partitions {
		g, err := conv.convert(p)
		if err != nil {
			return nil, false, out, fmt.Errorf("window partition: %w", err)
		}
		base.Partition = append(base.Partition, in.columnOf(g))
	}
	offsetUnit := int64(1) // the key's units per RANGE offset unit
	for _, sf := range f.Sorts {
		key := sf.Expr
		if date, perDay, ok := dateMidnight(key); ok && len(f.Sorts) == 1 {
			// DuckDB sorts a DATE on its midnight as a TIMESTAMP where a
			// RANGE frame's offsets are intervals: the same order as the
			// date's, and a frame of whole days (windowFrameRows).
			key, offsetUnit = date, perDay
		}
		g, err := conv.convert(key)
		if err != nil {
			return nil, false, out, fmt.Errorf("window order: %w", err)
		}
		k, err := sortKey(sf, in.columnOf(g))
		if err != nil {
			return nil, false, out, err
		}
		base.Order = append(base.Order, k)
	}
	rankType := func() error {
		if !isInt(out) {
			return unsupported(fmt.Sprintf("window function %s giving %s", f.Name(), out))
		}
		return nil
	}
	switch f.Name() {
	case "row_number", "rank", "dense_rank":
		if f.NArgs() != 0 {
			return nil, false, out, fmt.Errorf("window function %s with %d arguments", f.Name(), f.NArgs())
		}
		if err := rankType(); err != nil {
			return nil, false, out, err
		}
		base.Kind = map[string]physical.WindowKind{"row_number": physical.WindowRowNumber, "rank": physical.WindowRank, "dense_rank": physical.WindowDenseRank}[f.Name()]
		base.Type = out
		return []physical.WindowFunc{base}, false, out, nil
	case "percent_rank", "cume_dist":
		if f.NArgs() != 0 {
			return nil, false, out, fmt.Errorf("window function %s with %d arguments", f.Name(), f.NArgs())
		}
		if out.Kind != gpu.Float64 {
			return nil, false, out, unsupported(fmt.Sprintf("window function %s giving %s", f.Name(), out))
		}
		base.Kind, base.Type = physical.WindowCumeDist, out
		if f.Name() == "percent_rank" {
			base.Kind = physical.WindowPercentRank
		}
		return []physical.WindowFunc{base}, false, out, nil
	case "ntile", "first_value", "last_value", "lag", "lead":
		fs, err := t.valueWindow(f, base, out, in, conv, offsetUnit)
		return fs, false, out, err
	}
	fn, err := substrait.Resolve(f.ID())
	if err != nil {
		return nil, false, out, unsupported(fmt.Sprintf("window function %s", f.Name()))
	}
	base.Kind = physical.WindowAggregate
	if base.Frame, base.From, base.To, err = windowFrameRows(f, base.Order, in, offsetUnit); err != nil {
		return nil, false, out, err
	}
	var arg *gpu.Expr
	switch {
	case f.NArgs() == 1:
		a, ok := f.Arg(0).(expr.Expression)
		if !ok {
			return nil, false, out, unsupported(fmt.Sprintf("window %s: non-value argument", fn))
		}
		if arg, err = conv.convert(a); err != nil {
			return nil, false, out, err
		}
		base.Arg = in.columnOf(arg)
	case f.NArgs() != 0 || fn != substrait.FnCount:
		return nil, false, out, unsupported(fmt.Sprintf("window %s with %d arguments", fn, f.NArgs()))
	}
	count := base
	count.Agg, count.Type = gpu.AggCount, gpu.Type{Kind: gpu.Int64}
	if arg == nil {
		count.Agg = gpu.AggCountStar
	}
	switch fn {
	case substrait.FnCount:
		if err := rankType(); err != nil {
			return nil, false, out, err
		}
		count.Type = out
		return []physical.WindowFunc{count}, false, out, nil
	case substrait.FnSum, substrait.FnMin, substrait.FnMax, substrait.FnAvg:
	default:
		return nil, false, out, unsupported(fmt.Sprintf("window function %s", fn))
	}
	base.Agg = map[substrait.Func]gpu.AggKind{substrait.FnSum: gpu.AggSum, substrait.FnAvg: gpu.AggSum, substrait.FnMin: gpu.AggMin, substrait.FnMax: gpu.AggMax}[fn]
	st, ok := physical.WindowScanType(base.Agg, arg.Type)
	if !ok {
		return nil, false, out, unsupported(fmt.Sprintf("window %s of %s", fn, arg.Type))
	}
	if fn != substrait.FnAvg {
		if _, err := cast(gpu.Col(0, st), out); err != nil {
			return nil, false, out, unsupported(fmt.Sprintf("window %s of %s giving %s", fn, arg.Type, out))
		}
		base.Type = out.WithNullable(true)
		return []physical.WindowFunc{base}, false, out, nil
	}
	if !out.Kind.IsFloat() {
		return nil, false, out, unsupported(fmt.Sprintf("window avg giving %s (only floating-point averages yet)", out))
	}
	base.Type = st.WithNullable(true)
	return []physical.WindowFunc{base, count}, true, out, nil
}

// windowFrameRows maps a frame to one the Window computes: from the
// partition's start to this row (ROWS), to this row's last peer (RANGE) or
// to the partition's end (simpleFrame), or a ROWS frame of any other
// constant ends, physical.FrameRowsBetween from..to rows from this one, or
// a RANGE frame of other constant ends over one ascending order key of a
// numeric or date type (order, its key), physical.FrameRangeBetween
// from..to of the key's units from this row's. A RANGE offset counts
// unit of the key's units where the plan's key was a date's midnight in a
// timestamp's units (dateMidnight): a date k lies within n such units
// after d when k <= d + floor(n / unit) days, and before alike.
func windowFrameRows(f *expr.WindowFunction, order []gpu.SortKey, in *stream, unit int64) (frame physical.WindowFrame, from, to int64, err error) {
	if frame, err = simpleFrame(f); err == nil || len(f.Sorts) == 0 {
		return frame, 0, 0, err
	}
	sliding := physical.FrameRowsBetween
	switch {
	case f.BoundsType == types.BoundsTypeRows:
		unit = 1 // rows, whatever the key
	case f.BoundsType == types.BoundsTypeRange && len(order) == 1 && !order[0].Descending && rangeOrderKey(in.exprs[order[0].Col].Type):
		sliding = physical.FrameRangeBetween
	default:
		return frame, 0, 0, err
	}
	offset := func(b expr.Bound, unbounded int64) (int64, bool) {
		switch x := b.(type) {
		case nil, expr.Unbounded, *expr.Unbounded:
			return unbounded, true
		case expr.CurrentRow, *expr.CurrentRow:
			return 0, true
		case expr.PrecedingBound:
			return -(int64(x) / unit), int64(x) >= 0
		case expr.FollowingBound:
			return int64(x) / unit, int64(x) >= 0
		}
		return 0, false
	}
	from, okFrom := offset(f.LowerBound, physical.FrameUnboundedPreceding)
	to, okTo := offset(f.UpperBound, physical.FrameUnboundedFollowing)
	if !okFrom || !okTo || from == physical.FrameUnboundedFollowing || to == physical.FrameUnboundedPreceding {
		return 0, 0, 0, err
	}
	return sliding, from, to, nil
}

// dateMidnight reports whether e is CAST(date AS TIMESTAMP) (without a
// time zone): the date, and the timestamp's units in a day.
func dateMidnight(e expr.Expression) (date expr.Expression, perDay int64, ok bool) {
	c, isCast := e.(*expr.Cast)
	if !isCast || c.FailureBehavior == types.BehaviorReturnNil || !isDateType(c.Input.GetType()) {
		return nil, 0, false
	}
	tt, ok := temporalOf(c.Type)
	if !ok || tt.class != tsClass || tt.tz {
		return nil, 0, false
	}
	return c.Input, tt.perSec * 86400, true
}

// rangeOrderKey reports whether a RANGE frame's offsets apply to an order
// key of type t: integers, decimals, floats and dates (physical's
// rangeKey; timestamps ride as Int64, temporal.go). The offsets count the
// key's unit: days for a date, a timestamp's unit for a timestamp.
func rangeOrderKey(t gpu.Type) bool {
	switch t.Kind {
	case gpu.Int8, gpu.Int16, gpu.Int32, gpu.Int64, gpu.Decimal64, gpu.Decimal128, gpu.Float32, gpu.Float64, gpu.Date32:
		return true
	}
	return false
}

// simpleFrame maps frames that start at the partition's start.
func simpleFrame(f *expr.WindowFunction) (physical.WindowFrame, error) {
	unbounded := func(b expr.Bound) bool {
		switch b.(type) {
		case nil, expr.Unbounded, *expr.Unbounded:
			return true
		}
		return false
	}
	current := func(b expr.Bound) bool {
		switch b.(type) {
		case expr.CurrentRow, *expr.CurrentRow:
			return true
		}
		return false
	}
	lo, hi := f.LowerBound, f.UpperBound
	switch {
	case lo == nil || hi == nil || f.BoundsType == types.BoundsTypeUnspecified:
		return 0, unsupported("window aggregate without both frame bounds and their type")
	case !unbounded(lo):
		return 0, unsupported(fmt.Sprintf("window frame from %s", lo))
	case unbounded(hi):
		return physical.FramePartition, nil
	case !current(hi):
		return 0, unsupported(fmt.Sprintf("window frame to %s", hi))
	case f.BoundsType == types.BoundsTypeRows && len(f.Sorts) == 0:
		return 0, unsupported("a ROWS frame over unordered rows")
	case f.BoundsType == types.BoundsTypeRows:
		return physical.FrameRows, nil
	case len(f.Sorts) == 0:
		return physical.FramePartition, nil // every row is a peer of every other
	}
	return physical.FramePeers, nil
}

// sortKey is a SortField's direction as a key of column col.
func sortKey(sf expr.SortField, col int) (gpu.SortKey, error) {
	k := gpu.SortKey{Col: col}
	dir, ok := sf.Kind.(types.SortDirection)
	if !ok {
		return k, unsupported("a sort with a custom comparison function")
	}
	switch dir {
	case types.SortAscNullsFirst:
		k.NullsFirst = true
	case types.SortAscNullsLast:
	case types.SortDescNullsFirst:
		k.Descending, k.NullsFirst = true, true
	case types.SortDescNullsLast:
		k.Descending = true
	default:
		return k, unsupported(fmt.Sprintf("sort direction %v", dir))
	}
	return k, nil
}

// valueWindow translates ntile and the functions that take another row's
// value: first_value, last_value (their frame from the partition's start),
// lag and lead (a constant offset, a default of the value's type).
func (t *translator) valueWindow(f *expr.WindowFunction, base physical.WindowFunc, out gpu.Type, in *stream, conv exprConv, offsetUnit int64) ([]physical.WindowFunc, error) {
	args := make([]*gpu.Expr, f.NArgs())
	for i := range args {
		a, ok := f.Arg(i).(expr.Expression)
		if !ok {
			return nil, unsupported(fmt.Sprintf("window %s: non-value argument %d", f.Name(), i))
		}
		var err error
		if args[i], err = conv.convert(a); err != nil {
			return nil, err
		}
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("window function %s without an argument", f.Name())
	}
	base.Arg, base.Type, base.Default = in.columnOf(args[0]), out.WithNullable(true), -1
	switch f.Name() {
	case "ntile":
		if len(args) != 1 || !isInt(args[0].Type) || !isInt(out) {
			return nil, unsupported(fmt.Sprintf("ntile of %d arguments (%s) giving %s", len(args), args[0].Type, out))
		}
		base.Kind = physical.WindowNtile
		return []physical.WindowFunc{base}, nil
	case "first_value", "last_value":
		if len(args) != 1 {
			return nil, fmt.Errorf("window function %s with %d arguments", f.Name(), len(args))
		}
		var err error
		if base.Frame, base.From, base.To, err = windowFrameRows(f, base.Order, in, offsetUnit); err != nil {
			return nil, err
		}
		base.Kind = physical.WindowFirstValue
		if f.Name() == "last_value" {
			base.Kind = physical.WindowLastValue
		}
		return []physical.WindowFunc{base}, nil
	}
	base.Kind, base.Offset = physical.WindowLag, 1
	if f.Name() == "lead" {
		base.Kind = physical.WindowLead
	}
	if len(args) > 3 {
		return nil, fmt.Errorf("window function %s with %d arguments", f.Name(), len(args))
	}
	if len(args) >= 2 {
		a, _ := f.Arg(1).(expr.Expression)
		v, null, ok := intLiteral(a)
		if !ok || null {
			return nil, unsupported(fmt.Sprintf("%s with an offset that is not an integer constant", f.Name()))
		}
		base.Offset = v
	}
	if len(args) == 3 {
		d := args[2]
		switch {
		case d.Op == gpu.OpConst && d.Const.Null:
			// a null default is no default
		case args[0].Type.Kind == gpu.Dict:
			return nil, unsupported(fmt.Sprintf("%s of strings with a default", f.Name()))
		default:
			var err error
			if d, err = cast(d, args[0].Type); err != nil {
				return nil, err
			}
			base.Default = in.columnOf(d)
		}
	}
	return []physical.WindowFunc{base}, nil
}
