package physical

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rigel-db/rigel/gpu"
)

// WindowKind is what a window function computes.
type WindowKind uint8

const (
	WindowRowNumber WindowKind = iota + 1
	WindowRank
	WindowDenseRank
	WindowAggregate   // Agg over the frame
	WindowPercentRank // (rank - 1) / (rows - 1), 0 in a partition of one row
	WindowCumeDist    // the rows up to this one's last peer / rows
	WindowNtile       // the bucket of Arg buckets (DuckDB's split: the first rows % Arg buckets one row larger)
	WindowFirstValue  // Arg at the frame's first row (the partition's)
	WindowLastValue   // Arg at the frame's last row
	WindowLag         // Arg Offset rows before, in the partition; Default (or null) before its start
	WindowLead        // Arg Offset rows after; Default (or null) past its end
)

// WindowFrame is the rows of its partition an aggregate covers for a row.
type WindowFrame uint8

const (
	// FrameRows: the partition's rows up to this one (ROWS BETWEEN
	// UNBOUNDED PRECEDING AND CURRENT ROW): a running total.
	FrameRows WindowFrame = iota + 1
	// FramePeers: those and this row's peers, the rows after it with equal
	// order keys (RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, SQL's
	// default when the window orders).
	FramePeers
	// FramePartition: the whole partition.
	FramePartition
	// FrameRowsBetween: the rows From to To rows from this one (negative:
	// before it), within the partition (ROWS BETWEEN n PRECEDING AND m
	// FOLLOWING, and the like): sum, count and avg of exact values (the
	// running sums at the frame's ends subtracted), first_value and
	// last_value.
	FrameRowsBetween
	// FrameRangeBetween: the rows whose one (ascending) order key lies
	// From to To of the key's units from this row's (RANGE BETWEEN n
	// PRECEDING AND m FOLLOWING; CURRENT ROW is 0, this row's peers),
	// within the partition; the functions of FrameRowsBetween
	// (window_range.go).
	FrameRangeBetween
)

// sliding reports whether f's frame has ends of its own (FrameRowsBetween
// or FrameRangeBetween), found per row (frameBounds).
func (f WindowFunc) sliding() bool {
	return f.Frame == FrameRowsBetween || f.Frame == FrameRangeBetween
}

// Unbounded ends of a FrameRowsBetween or FrameRangeBetween.
const (
	FrameUnboundedPreceding int64 = math.MinInt64
	FrameUnboundedFollowing int64 = math.MaxInt64
)

// WindowFunc is one window function: its partition and order keys are
// columns of the Window's input.
type WindowFunc struct {
	Kind      WindowKind
	Agg       gpu.AggKind // WindowAggregate: AggSum, AggMin, AggMax, AggCount or AggCountStar
	Arg       int         // the aggregate's input column (not AggCountStar)
	Partition []int
	Order     []gpu.SortKey
	Frame     WindowFrame // WindowAggregate, WindowFirstValue, WindowLastValue
	Type      gpu.Type    // the result
	// Offset and Default: WindowLag and WindowLead's distance (any sign)
	// and the column that stands where it leaves the partition (-1: null).
	Offset  int64
	Default int
	// From and To: a FrameRowsBetween's or FrameRangeBetween's ends.
	From, To int64
}

// Window appends to its input's columns one column per function (SQL's
// OVER), computing each over the rows sorted by its partition and order
// keys from a device's window primitives (gpu.Windower): the output's
// rows come in the order the last function sorted them in, which SQL
// leaves free.
type Window struct {
	Input Node
	Funcs []WindowFunc
}

func (w *Window) OutputTypes() []gpu.Type {
	out := slices.Clone(w.Input.OutputTypes())
	for _, f := range w.Funcs {
		out = append(out, f.Type)
	}
	return out
}
func (w *Window) Children() []Node { return []Node{w.Input} }
func (w *Window) Describe() string {
	fs := make([]string, len(w.Funcs))
	for i, f := range w.Funcs {
		fs[i] = f.String()
	}
	return "Window [" + strings.Join(fs, ", ") + "]"
}

func (f WindowFunc) String() string {
	var name string
	switch f.Kind {
	case WindowRowNumber:
		name = "row_number()"
	case WindowRank:
		name = "rank()"
	case WindowDenseRank:
		name = "dense_rank()"
	case WindowPercentRank:
		name = "percent_rank()"
	case WindowCumeDist:
		name = "cume_dist()"
	case WindowNtile:
		name = fmt.Sprintf("ntile(#%d)", f.Arg)
	case WindowFirstValue:
		name = fmt.Sprintf("first_value(#%d)", f.Arg)
	case WindowLastValue:
		name = fmt.Sprintf("last_value(#%d)", f.Arg)
	case WindowLag, WindowLead:
		name = fmt.Sprintf("%s(#%d, %d", map[WindowKind]string{WindowLag: "lag", WindowLead: "lead"}[f.Kind], f.Arg, f.Offset)
		if f.Default >= 0 {
			name += fmt.Sprintf(", #%d", f.Default)
		}
		name += ")"
	default:
		if f.Agg == gpu.AggCountStar {
			name = "count(*)"
		} else {
			name = fmt.Sprintf("%s(#%d)", f.Agg, f.Arg)
		}
	}
	var over []string
	if len(f.Partition) > 0 {
		ps := make([]string, len(f.Partition))
		for i, c := range f.Partition {
			ps[i] = fmt.Sprintf("#%d", c)
		}
		over = append(over, "partition by "+strings.Join(ps, ", "))
	}
	if len(f.Order) > 0 {
		over = append(over, "order by "+sortKeysText(f.Order))
	}
	if f.Kind == WindowAggregate || f.Kind == WindowFirstValue || f.Kind == WindowLastValue {
		if f.sliding() {
			unit := map[WindowFrame]string{FrameRowsBetween: "rows", FrameRangeBetween: "range"}[f.Frame]
			over = append(over, fmt.Sprintf("%s %s to %s", unit, frameEnd(f.From), frameEnd(f.To)))
		} else {
			over = append(over, map[WindowFrame]string{FrameRows: "rows to current", FramePeers: "range to current", FramePartition: "whole partition"}[f.Frame])
		}
	}
	return name + " over (" + strings.Join(over, " ") + ")"
}

// frameEnd is a FrameRowsBetween end as EXPLAIN shows it.
func frameEnd(v int64) string {
	switch {
	case v == FrameUnboundedPreceding:
		return "unbounded preceding"
	case v == FrameUnboundedFollowing:
		return "unbounded following"
	case v < 0:
		return fmt.Sprintf("%d preceding", -v)
	case v > 0:
		return fmt.Sprintf("%d following", v)
	}
	return "current"
}

// sortKeys are the keys that group f's partitions and order their rows.
func (f WindowFunc) sortKeys() []gpu.SortKey {
	keys := make([]gpu.SortKey, 0, len(f.Partition)+len(f.Order))
	for _, c := range f.Partition {
		keys = append(keys, gpu.SortKey{Col: c, NullsFirst: true})
	}
	return append(keys, f.Order...)
}

// window runs w over its input's columns.
func (r *run) window(ctx context.Context, w *Window, in []gpu.Column) ([]gpu.Column, error) {
	dev, ok := r.x.Dev.(gpu.Windower)
	if !ok {
		return nil, fmt.Errorf("window functions on the %s device: %w", r.x.Dev.Info().Name, gpu.ErrUnsupported)
	}
	if len(in) == 0 {
		return nil, fmt.Errorf("a window over no columns: %w", gpu.ErrUnsupported)
	}
	cols := in
	var sorted []gpu.SortKey // what cols are sorted by, nil when not known
	for i, f := range w.Funcs {
		if keys := f.sortKeys(); len(keys) > 0 && !slices.Equal(keys, sorted) {
			out, err := r.x.Dev.Sort(ctx, cols, keys, 0)
			if err != nil {
				return nil, err
			}
			cols, sorted = r.keep(out), keys
		}
		col, err := r.windowFunc(ctx, dev, f, cols)
		if err != nil {
			return nil, fmt.Errorf("window function %d, %s: %w", i, f, err)
		}
		cols = append(slices.Clone(cols), r.keep([]gpu.Column{col})...)
	}
	return cols, nil
}

// windowFunc computes f over cols, sorted by f's keys.
func (r *run) windowFunc(ctx context.Context, dev gpu.Windower, f WindowFunc, cols []gpu.Column) (gpu.Column, error) {
	w := windowRun{r: r, dev: dev, n: cols[0].Len()}
	defer w.release()
	part, err := w.starts(ctx, cols, f.Partition, nil)
	if err != nil {
		return nil, err
	}
	peers := part
	if len(f.Order) > 0 {
		order := make([]int, len(f.Order))
		for i, k := range f.Order {
			order[i] = k.Col
		}
		if peers, err = w.starts(ctx, cols, order, part); err != nil {
			return nil, err
		}
	}
	i64 := gpu.Type{Kind: gpu.Int64}
	var res gpu.Column
	switch f.Kind {
	case WindowRowNumber, WindowRank:
		if res, err = w.runningRows(ctx, part); err != nil {
			return nil, err
		}
		if f.Kind == WindowRank {
			if res, err = w.rank(ctx, part, peers, res); err != nil {
				return nil, err
			}
		}
	case WindowDenseRank:
		counts, err := w.project(ctx, []gpu.Column{peers},
			gpu.Call(gpu.OpCase, i64, gpu.Col(0, peers.Type()), gpu.Const(i64, gpu.Value{I64: 1}), gpu.Const(i64, gpu.Value{})))
		if err != nil {
			return nil, err
		}
		if res, err = w.scan(ctx, counts, part, gpu.ScanSum, false); err != nil {
			return nil, err
		}
	case WindowAggregate:
		return w.aggregate(ctx, f, cols, part, peers)
	case WindowPercentRank, WindowCumeDist, WindowNtile:
		return w.distribution(ctx, f, cols, part, peers)
	case WindowFirstValue, WindowLastValue, WindowLag, WindowLead:
		return w.value(ctx, f, cols, part, peers)
	default:
		return nil, fmt.Errorf("window function kind %d", f.Kind)
	}
	return w.result(ctx, res, f.Type)
}

// windowRun holds one function's intermediates, released when it is done.
type windowRun struct {
	r     *run
	dev   gpu.Windower
	n     int
	temps []gpu.Column
}

func (w *windowRun) release() {
	for _, c := range w.temps {
		c.Release()
	}
}

func (w *windowRun) temp(c gpu.Column) gpu.Column {
	w.temps = append(w.temps, c)
	return c
}

// starts marks where the rows' values of cols[keys] change, or prev does.
func (w *windowRun) starts(ctx context.Context, cols []gpu.Column, keys []int, prev gpu.Column) (gpu.Column, error) {
	kc := make([]gpu.Column, len(keys))
	for i, k := range keys {
		kc[i] = cols[k]
	}
	c, err := w.dev.SegmentStarts(ctx, w.n, kc, prev)
	if err != nil {
		return nil, err
	}
	return w.temp(c), nil
}

func (w *windowRun) scan(ctx context.Context, vals, starts gpu.Column, op gpu.ScanOp, reverse bool) (gpu.Column, error) {
	c, err := w.dev.SegmentedScan(ctx, vals, starts, op, reverse)
	if err != nil {
		return nil, err
	}
	return w.temp(c), nil
}

// output runs a pipeline computing e over ins; the caller owns the column.
func (w *windowRun) output(ctx context.Context, ins []gpu.Column, e *gpu.Expr) (gpu.Column, error) {
	types := make([]gpu.Type, len(ins))
	for i, c := range ins {
		types[i] = c.Type()
	}
	out, err := w.r.x.Dev.Run(ctx, &gpu.Pipeline{Inputs: types, Project: []*gpu.Expr{e}, Sink: gpu.SinkMaterialize}, ins)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// project is output as an intermediate of the function.
func (w *windowRun) project(ctx context.Context, ins []gpu.Column, e *gpu.Expr) (gpu.Column, error) {
	c, err := w.output(ctx, ins, e)
	if err != nil {
		return nil, err
	}
	return w.temp(c), nil
}

// result is c, an intermediate, as the function's column of type t: c
// itself, handed to the caller, where it has t; else cast.
func (w *windowRun) result(ctx context.Context, c gpu.Column, t gpu.Type) (gpu.Column, error) {
	if c.Type() != t {
		return w.output(ctx, []gpu.Column{c}, gpu.Call(gpu.OpCast, t, gpu.Col(0, c.Type())))
	}
	for i, x := range w.temps {
		if x == c {
			w.temps = slices.Delete(w.temps, i, i+1)
			return c, nil
		}
	}
	return nil, fmt.Errorf("window result: a column that is not the function's intermediate")
}

// gather is cols' rows at places at (-1: null), as intermediates.
func (w *windowRun) gather(ctx context.Context, cols []gpu.Column, at gpu.Column) ([]gpu.Column, error) {
	out, err := w.r.x.Dev.Gather(ctx, cols, at, true)
	if err != nil {
		return nil, err
	}
	for _, c := range out {
		w.temp(c)
	}
	return out, nil
}

// runningRows is, in each segment starts begins, each row's number from 1.
func (w *windowRun) runningRows(ctx context.Context, starts gpu.Column) (gpu.Column, error) {
	ones, err := w.project(ctx, []gpu.Column{starts}, gpu.Const(gpu.Type{Kind: gpu.Int64}, gpu.Value{I64: 1}))
	if err != nil {
		return nil, err
	}
	return w.scan(ctx, ones, starts, gpu.ScanSum, false)
}

// rank is each row's rank in its partition: the row number (rn) of its
// peer group's first row.
func (w *windowRun) rank(ctx context.Context, part, peers, rn gpu.Column) (gpu.Column, error) {
	i64 := gpu.Type{Kind: gpu.Int64}
	atPeers, err := w.project(ctx, []gpu.Column{peers, rn},
		gpu.Call(gpu.OpCase, i64, gpu.Col(0, peers.Type()), gpu.Col(1, i64), gpu.Const(i64, gpu.Value{})))
	if err != nil {
		return nil, err
	}
	return w.scan(ctx, atPeers, part, gpu.ScanMax, false)
}

// nullWithoutValues is value (of the scan's type st) as t, null where the
// frame's count of values is zero.
func nullWithoutValues(value *gpu.Expr, st gpu.Type, count *gpu.Expr, t gpu.Type) *gpu.Expr {
	if st != t.WithNullable(false) {
		value = gpu.Call(gpu.OpCast, t.WithNullable(false), value)
	}
	t = t.WithNullable(true)
	none := gpu.Call(gpu.OpEq, gpu.Type{Kind: gpu.Bool}, count, gpu.Const(count.Type.WithNullable(false), gpu.Value{}))
	return gpu.Call(gpu.OpCase, t, none, gpu.Const(t, gpu.Value{Null: true}), value)
}

// aggregate computes an aggregate over f's frame: a running value and a
// running count of the values seen (nulls are skipped, and a frame of no
// values gives null), handed back from the frame's last row for peers and
// whole partitions.
func (w *windowRun) aggregate(ctx context.Context, f WindowFunc, cols []gpu.Column, part, peers gpu.Column) (gpu.Column, error) {
	if f.sliding() {
		return w.slidingAggregate(ctx, f, cols, part)
	}
	i64 := gpu.Type{Kind: gpu.Int64}
	counts, err := w.runningCounts(ctx, f, cols, part)
	if err != nil {
		return nil, err
	}
	if counts, err = w.frameEnd(ctx, counts, f.Frame, part, peers); err != nil {
		return nil, err
	}
	if f.Agg == gpu.AggCount || f.Agg == gpu.AggCountStar {
		return w.result(ctx, counts, f.Type)
	}
	if w.treeSummed(f, cols) {
		// From the partition's first row to this row or its last peer.
		from, to, err := w.runningFrame(ctx, f.Frame, cols, part, peers)
		if err != nil {
			return nil, err
		}
		sums, err := w.frameSums(ctx, f, cols, from, to)
		if err != nil {
			return nil, err
		}
		st := gpu.Type{Kind: gpu.Float64}
		return w.output(ctx, []gpu.Column{sums, counts}, nullWithoutValues(gpu.Col(0, st), st, gpu.Col(1, i64), f.Type))
	}
	op, ok := map[gpu.AggKind]gpu.ScanOp{gpu.AggSum: gpu.ScanSum, gpu.AggMin: gpu.ScanMin, gpu.AggMax: gpu.ScanMax}[f.Agg]
	if !ok {
		return nil, fmt.Errorf("window aggregate %s: %w", f.Agg, gpu.ErrUnsupported)
	}
	vals, st, err := w.runningValues(ctx, f, op, cols, part)
	if err != nil {
		return nil, err
	}
	if vals, err = w.frameEnd(ctx, vals, f.Frame, part, peers); err != nil {
		return nil, err
	}
	return w.output(ctx, []gpu.Column{vals, counts}, nullWithoutValues(gpu.Col(0, st), st, gpu.Col(1, i64), f.Type))
}

// treeSummed reports whether f is a sum of doubles over an ordered frame
// that DuckDB adds up in its segment tree's order (gpu/segmenttree.go):
// every frame but the whole partition, which DuckDB adds up row after
// row (its constant aggregator) as the scans do.
func (w *windowRun) treeSummed(f WindowFunc, cols []gpu.Column) bool {
	if f.Agg != gpu.AggSum || len(f.Order) == 0 || f.Frame == FramePartition {
		return false
	}
	st, ok := WindowScanType(f.Agg, cols[f.Arg].Type())
	return ok && st.Kind == gpu.Float64
}

// frameSums is, for every row, the sum of f's values (nulls adding
// nothing) over the rows from..to of the sorted rows (places from 0, -1
// for an empty frame), added in DuckDB's order (gpu.Windower.FrameSums).
func (w *windowRun) frameSums(ctx context.Context, f WindowFunc, cols []gpu.Column, from, to gpu.Column) (gpu.Column, error) {
	vals, _, err := w.scanValues(ctx, f, gpu.ScanSum, cols)
	if err != nil {
		return nil, err
	}
	sums, err := w.dev.FrameSums(ctx, vals, from, to)
	if err != nil {
		return nil, err
	}
	return w.temp(sums), nil
}

// runningFrame is each row's frame from its partition's first row to the
// row itself (FrameRows) or its last peer (FramePeers), as the places in
// the sorted rows from 0 that FrameSums takes.
func (w *windowRun) runningFrame(ctx context.Context, frame WindowFrame, cols []gpu.Column, part, peers gpu.Column) (from, to gpu.Column, err error) {
	pos, err := w.positions(ctx, cols)
	if err != nil {
		return nil, nil, err
	}
	rn, err := w.runningRows(ctx, part)
	if err != nil {
		return nil, nil, err
	}
	last := pos
	if frame == FramePeers {
		if last, err = w.scan(ctx, pos, peers, gpu.ScanFill, true); err != nil {
			return nil, nil, err
		}
	}
	i64 := gpu.Type{Kind: gpu.Int64}
	one := gpu.Const(i64, gpu.Value{I64: 1})
	// pos and rn count from 1: the partition's first row is at pos - rn.
	if from, err = w.project(ctx, []gpu.Column{pos, rn}, gpu.Call(gpu.OpCast, gpu.JoinIndexType, gpu.Call(gpu.OpSub, i64, gpu.Col(0, i64), gpu.Col(1, i64)))); err != nil {
		return nil, nil, err
	}
	to, err = w.project(ctx, []gpu.Column{last}, gpu.Call(gpu.OpCast, gpu.JoinIndexType, gpu.Call(gpu.OpSub, i64, gpu.Col(0, i64), one)))
	return from, to, err
}

// runningCounts is, in each partition, the running count of f's values
// that are not null (of rows, for count(*)).
func (w *windowRun) runningCounts(ctx context.Context, f WindowFunc, cols []gpu.Column, part gpu.Column) (gpu.Column, error) {
	i64 := gpu.Type{Kind: gpu.Int64}
	present := gpu.Const(i64, gpu.Value{I64: 1})
	ins := []gpu.Column{part}
	if f.Agg != gpu.AggCountStar {
		ins = []gpu.Column{cols[f.Arg]}
		if arg := gpu.Col(0, cols[f.Arg].Type()); arg.Type.Nullable {
			present = gpu.Call(gpu.OpCase, i64, gpu.Call(gpu.OpIsNull, gpu.Type{Kind: gpu.Bool}, arg), gpu.Const(i64, gpu.Value{}), present)
		}
	}
	counts, err := w.project(ctx, ins, present)
	if err != nil {
		return nil, err
	}
	return w.scan(ctx, counts, part, gpu.ScanSum, false)
}

// runningValues is, in each partition, the running op of f's values in
// the type its scan runs in (WindowScanType), nulls standing as op's
// identity, which changes nothing.
func (w *windowRun) runningValues(ctx context.Context, f WindowFunc, op gpu.ScanOp, cols []gpu.Column, part gpu.Column) (gpu.Column, gpu.Type, error) {
	vals, st, err := w.scanValues(ctx, f, op, cols)
	if err != nil {
		return nil, st, err
	}
	vals, err = w.scan(ctx, vals, part, op, false)
	return vals, st, err
}

// scanValues are f's values in the type its scan runs in, nulls as op's
// identity.
func (w *windowRun) scanValues(ctx context.Context, f WindowFunc, op gpu.ScanOp, cols []gpu.Column) (gpu.Column, gpu.Type, error) {
	arg := gpu.Col(0, cols[f.Arg].Type())
	st, ok := WindowScanType(f.Agg, arg.Type)
	if !ok {
		return nil, st, fmt.Errorf("window %s of %s: %w", f.Agg, arg.Type, gpu.ErrUnsupported)
	}
	v := arg
	if arg.Type.WithNullable(false) != st {
		v = gpu.Call(gpu.OpCast, st.WithNullable(arg.Type.Nullable), arg)
	}
	if arg.Type.Nullable {
		v = gpu.Call(gpu.OpCase, st, gpu.Call(gpu.OpIsNull, gpu.Type{Kind: gpu.Bool}, arg), gpu.Const(st, gpu.ScanIdentity(op, st.Kind)), v)
	}
	vals, err := w.project(ctx, []gpu.Column{cols[f.Arg]}, v)
	return vals, st, err
}

// frameEnd hands each row the running value of its frame's last row: its
// last peer's, or its partition's last row's.
func (w *windowRun) frameEnd(ctx context.Context, running gpu.Column, frame WindowFrame, part, peers gpu.Column) (gpu.Column, error) {
	switch frame {
	case FrameRows:
		return running, nil
	case FramePeers:
		return w.scan(ctx, running, peers, gpu.ScanFill, true)
	case FramePartition:
		return w.scan(ctx, running, part, gpu.ScanFill, true)
	}
	return nil, fmt.Errorf("window frame %d", frame)
}

// WindowScanType is the type a window aggregate of values of type t runs
// its scan in: sums as the sum aggregate does (DECIMAL(38) for integers and
// decimals, DOUBLE for floats), minimums and maximums in the 8- or 16-byte
// kind that holds t's values. False for other arguments.
func WindowScanType(agg gpu.AggKind, t gpu.Type) (gpu.Type, bool) {
	switch {
	case t.Kind.IsFloat():
		return gpu.Type{Kind: gpu.Float64}, true
	case t.Kind == gpu.Date32 || !t.Kind.IsInteger():
		return gpu.Type{}, false
	case agg == gpu.AggSum:
		return gpu.Type{Kind: gpu.Decimal128, Precision: 38, Scale: t.Scale}, true
	case agg != gpu.AggMin && agg != gpu.AggMax:
		return gpu.Type{}, false
	case t.Kind == gpu.Decimal64:
		// The whole storage's precision: the identity that stands for a
		// null (ScanIdentity, 18 nines) must fit.
		return gpu.Type{Kind: t.Kind, Precision: 18, Scale: t.Scale}, true
	case t.Kind == gpu.Decimal128:
		return gpu.Type{Kind: t.Kind, Precision: 38, Scale: t.Scale}, true
	}
	return gpu.Type{Kind: gpu.Int64}, true
}

// rowNumbers is each row's number in its partition (from 1), and the
// partition's rows (its last row's number, handed back to every row).
func (w *windowRun) rowNumbers(ctx context.Context, part gpu.Column) (rn, rows gpu.Column, err error) {
	if rn, err = w.runningRows(ctx, part); err != nil {
		return nil, nil, err
	}
	rows, err = w.scan(ctx, rn, part, gpu.ScanFill, true)
	return rn, rows, err
}

// distribution computes percent_rank, cume_dist and ntile from the row
// numbers, as DuckDB does (DOUBLE quotients; ntile's buckets of rows / n
// rows, the first rows % n of them one row larger).
func (w *windowRun) distribution(ctx context.Context, f WindowFunc, cols []gpu.Column, part, peers gpu.Column) (gpu.Column, error) {
	i64, f64 := gpu.Type{Kind: gpu.Int64}, gpu.Type{Kind: gpu.Float64}
	k := func(v int64) *gpu.Expr { return gpu.Const(i64, gpu.Value{I64: v}) }
	call := func(op gpu.Op, t gpu.Type, a ...*gpu.Expr) *gpu.Expr { return gpu.Call(op, t, a...) }
	toF := func(e *gpu.Expr) *gpu.Expr { return call(gpu.OpCast, f64, e) }
	rn, rows, err := w.rowNumbers(ctx, part)
	if err != nil {
		return nil, err
	}
	var res gpu.Column
	switch f.Kind {
	case WindowPercentRank:
		rank, err := w.rank(ctx, part, peers, rn)
		if err != nil {
			return nil, err
		}
		r, n := gpu.Col(0, i64), gpu.Col(1, i64)
		res, err = w.project(ctx, []gpu.Column{rank, rows}, call(gpu.OpCase, f64,
			call(gpu.OpGt, gpu.Type{Kind: gpu.Bool}, n, k(1)),
			call(gpu.OpDiv, f64, toF(call(gpu.OpSub, i64, r, k(1))), toF(call(gpu.OpSub, i64, n, k(1)))),
			gpu.Const(f64, gpu.Value{})))
		if err != nil {
			return nil, err
		}
	case WindowCumeDist:
		lastPeer, err := w.scan(ctx, rn, peers, gpu.ScanFill, true)
		if err != nil {
			return nil, err
		}
		if res, err = w.project(ctx, []gpu.Column{lastPeer, rows}, call(gpu.OpDiv, f64, toF(gpu.Col(0, i64)), toF(gpu.Col(1, i64)))); err != nil {
			return nil, err
		}
	case WindowNtile:
		arg := cols[f.Arg]
		bt := arg.Type()
		if !bt.Kind.IsInteger() || bt.Kind == gpu.Date32 || bt.Kind == gpu.Decimal64 || bt.Kind == gpu.Decimal128 {
			return nil, fmt.Errorf("ntile of %s buckets: %w", bt, gpu.ErrUnsupported)
		}
		// buckets = min(n, rows); size = rows / buckets; the first
		// large = rows - buckets * size buckets hold size + 1 rows.
		cmp := gpu.Type{Kind: gpu.Bool, Nullable: bt.Nullable}
		r0 := call(gpu.OpSub, i64, gpu.Col(0, i64), k(1))
		total := gpu.Col(1, i64)
		n := gpu.Col(2, bt)
		if bt.Kind != gpu.Int64 {
			n = call(gpu.OpCast, i64.WithNullable(bt.Nullable), n)
		}
		t := n.Type
		b := call(gpu.OpCase, t, call(gpu.OpGt, cmp, n, total), total, n)
		size := call(gpu.OpIntDiv, t, total, b)
		large := call(gpu.OpSub, t, total, call(gpu.OpMul, t, b, size))
		small := call(gpu.OpMul, t, large, call(gpu.OpAdd, t, size, k(1)))
		bucket := call(gpu.OpCase, t,
			call(gpu.OpLt, cmp, r0, small),
			call(gpu.OpAdd, t, k(1), call(gpu.OpIntDiv, t, r0, call(gpu.OpAdd, t, size, k(1)))),
			call(gpu.OpAdd, t, call(gpu.OpAdd, t, k(1), large), call(gpu.OpIntDiv, t, call(gpu.OpSub, t, r0, small), size)))
		// DuckDB: "Argument for ntile must be greater than zero".
		checked := call(gpu.OpCheck, t, call(gpu.OpLe, cmp, n, k(0)), bucket)
		if res, err = w.project(ctx, []gpu.Column{rn, rows, arg}, checked); err != nil {
			return nil, err
		}
	}
	return w.result(ctx, res, f.Type)
}

// value hands each row the value of another row of its partition, by a
// gather of the argument (any type, dictionaries kept): first_value and
// last_value the frame's first or last row's, lag and lead the row Offset
// before or after (Default, or null, where that row is outside the
// partition).
func (w *windowRun) value(ctx context.Context, f WindowFunc, cols []gpu.Column, part, peers gpu.Column) (gpu.Column, error) {
	i64 := gpu.Type{Kind: gpu.Int64}
	k := func(v int64) *gpu.Expr { return gpu.Const(i64, gpu.Value{I64: v}) }
	pos, err := w.positions(ctx, cols)
	if err != nil {
		return nil, err
	}
	var ins []gpu.Column
	var idx *gpu.Expr // the source row from 0, -1 for none
	var at gpu.Column // or the source rows themselves
	switch {
	case f.sliding() && (f.Kind == WindowFirstValue || f.Kind == WindowLastValue):
		b, err := w.frameBounds(ctx, f, cols, part, pos)
		if err != nil {
			return nil, err
		}
		at = b.from
		if f.Kind == WindowLastValue {
			at = b.to
		}
	case f.Kind == WindowFirstValue:
		first, err := w.scan(ctx, pos, part, gpu.ScanFill, false)
		if err != nil {
			return nil, err
		}
		ins, idx = []gpu.Column{first}, gpu.Call(gpu.OpSub, i64, gpu.Col(0, i64), k(1))
	case f.Kind == WindowLastValue:
		last, err := w.frameEnd(ctx, pos, f.Frame, part, peers)
		if err != nil {
			return nil, err
		}
		ins, idx = []gpu.Column{last}, gpu.Call(gpu.OpSub, i64, gpu.Col(0, i64), k(1))
	default:
		rn, rows, err := w.rowNumbers(ctx, part)
		if err != nil {
			return nil, err
		}
		step := f.Offset
		if f.Kind == WindowLag {
			step = -step
		}
		b := gpu.Type{Kind: gpu.Bool}
		target := gpu.Call(gpu.OpAdd, i64, gpu.Col(0, i64), k(step))
		inside := gpu.Call(gpu.OpAnd, b, gpu.Call(gpu.OpGe, b, target, k(1)), gpu.Call(gpu.OpLe, b, target, gpu.Col(1, i64)))
		ins = []gpu.Column{rn, rows, pos}
		idx = gpu.Call(gpu.OpCase, i64, inside, gpu.Call(gpu.OpAdd, i64, gpu.Col(2, i64), k(step-1)), k(-1))
	}
	if at == nil {
		if at, err = w.project(ctx, ins, gpu.Call(gpu.OpCast, gpu.JoinIndexType, idx)); err != nil {
			return nil, err
		}
	}
	got, err := w.gather(ctx, []gpu.Column{cols[f.Arg]}, at)
	if err != nil {
		return nil, err
	}
	v := got[0]
	if f.Default < 0 {
		return w.result(ctx, v, f.Type)
	}
	d := cols[f.Default]
	t := f.Type.WithNullable(true)
	e := gpu.Call(gpu.OpCase, t, gpu.Call(gpu.OpGe, gpu.Type{Kind: gpu.Bool}, gpu.Col(1, gpu.JoinIndexType), gpu.Const(gpu.JoinIndexType, gpu.Value{})),
		gpu.Col(0, v.Type()), gpu.Col(2, d.Type()))
	return w.output(ctx, []gpu.Column{v, at, d}, e)
}

// positions is each row's place in the sorted rows, from 1: a running
// count over one segment.
func (w *windowRun) positions(ctx context.Context, cols []gpu.Column) (gpu.Column, error) {
	whole, err := w.starts(ctx, cols, nil, nil)
	if err != nil {
		return nil, err
	}
	return w.runningRows(ctx, whole)
}

// frameRows are the rows of each row's sliding frame as places in
// the sorted rows from 0: from and to (-1 in both when the frame is
// empty), and before, the place just before from (-1 at the partition's
// start), where the running sums that end before the frame stand; and
// the row numbers they were found from (rowNumbers), for their users.
type frameRows struct{ from, to, before, rn, rows gpu.Column }

func (w *windowRun) frameBounds(ctx context.Context, f WindowFunc, cols []gpu.Column, part, pos gpu.Column) (frameRows, error) {
	if f.Frame == FrameRangeBetween {
		return w.rangeBounds(ctx, f, cols, part, pos) // window_range.go
	}
	i64, b := gpu.Type{Kind: gpu.Int64}, gpu.Type{Kind: gpu.Bool}
	k := func(v int64) *gpu.Expr { return gpu.Const(i64, gpu.Value{I64: v}) }
	rn, rows, err := w.rowNumbers(ctx, part)
	if err != nil {
		return frameRows{}, err
	}
	r, n, p := gpu.Col(0, i64), gpu.Col(1, i64), gpu.Col(2, i64)
	// lo and hi as row numbers in the partition, clamped to it; an offset
	// beyond 2^40 rows reaches past any partition (2^31 rows at most).
	end := func(v int64) *gpu.Expr {
		switch {
		case v < -(1 << 40):
			return k(1)
		case v > 1<<40:
			return n
		}
		return gpu.Call(gpu.OpAdd, i64, r, k(v))
	}
	clamp := func(e *gpu.Expr) *gpu.Expr {
		e = gpu.Call(gpu.OpCase, i64, gpu.Call(gpu.OpLt, b, e, k(1)), k(1), e)
		return gpu.Call(gpu.OpCase, i64, gpu.Call(gpu.OpGt, b, e, n), n, e)
	}
	lo, hi := clamp(end(f.From)), clamp(end(f.To))
	// A frame is empty where its ends cross, or lie wholly outside the
	// partition (clamping brings those back inside).
	empty := gpu.Call(gpu.OpOr, b, gpu.Call(gpu.OpGt, b, lo, hi),
		gpu.Call(gpu.OpGt, b, end(f.From), n), gpu.Call(gpu.OpLt, b, end(f.To), k(1)))
	place := func(rowNumber *gpu.Expr) *gpu.Expr { // pos - rn + rowNumber - 1
		return gpu.Call(gpu.OpSub, i64, gpu.Call(gpu.OpAdd, i64, gpu.Call(gpu.OpSub, i64, p, r), rowNumber), k(1))
	}
	ins := []gpu.Column{rn, rows, pos}
	var out [3]gpu.Column
	for i, e := range []*gpu.Expr{
		gpu.Call(gpu.OpCase, i64, empty, k(-1), place(lo)),
		gpu.Call(gpu.OpCase, i64, empty, k(-1), place(hi)),
		gpu.Call(gpu.OpCase, i64, gpu.Call(gpu.OpOr, b, empty, gpu.Call(gpu.OpLe, b, lo, k(1))), k(-1), place(gpu.Call(gpu.OpSub, i64, lo, k(1)))),
	} {
		if out[i], err = w.project(ctx, ins, gpu.Call(gpu.OpCast, gpu.JoinIndexType, e)); err != nil {
			return frameRows{}, err
		}
	}
	return frameRows{from: out[0], to: out[1], before: out[2], rn: rn, rows: rows}, nil
}

// slidingEnds finds f's sliding frame for every row (pos: the rows'
// places from 1) and gathers the running columns at its last row and just
// before its first (nulls where there is none: an empty frame, the
// partition's start).
func (w *windowRun) slidingEnds(ctx context.Context, f WindowFunc, cols []gpu.Column, part gpu.Column, running []gpu.Column) (pos gpu.Column, fb frameRows, atEnd, atBefore []gpu.Column, err error) {
	if pos, err = w.positions(ctx, cols); err != nil {
		return nil, fb, nil, nil, err
	}
	if fb, err = w.frameBounds(ctx, f, cols, part, pos); err != nil {
		return nil, fb, nil, nil, err
	}
	if atEnd, err = w.gather(ctx, running, fb.to); err != nil {
		return nil, fb, nil, nil, err
	}
	atBefore, err = w.gather(ctx, running, fb.before)
	return pos, fb, atEnd, atBefore, err
}

// slidingAggregate is sum, count or avg's sum over a sliding frame: the
// running sum and count of the values at the frame's last row less those
// just before its first (exact: integers and decimals; doubles are summed
// per frame in DuckDB's order, treeSummed); min and max elsewhere.
func (w *windowRun) slidingAggregate(ctx context.Context, f WindowFunc, cols []gpu.Column, part gpu.Column) (gpu.Column, error) {
	if f.Agg == gpu.AggMin || f.Agg == gpu.AggMax {
		return w.slidingMinMax(ctx, f, cols, part) // window_minmax.go
	}
	i64 := gpu.Type{Kind: gpu.Int64}
	counts, err := w.runningCounts(ctx, f, cols, part)
	if err != nil {
		return nil, err
	}
	running := []gpu.Column{counts}
	var st gpu.Type
	switch f.Agg {
	case gpu.AggCount, gpu.AggCountStar:
	case gpu.AggSum:
		if w.treeSummed(f, cols) {
			// A difference of float running sums is not the frame's sum
			// as DuckDB adds it: summed per frame, once its ends are known.
			st = gpu.Type{Kind: gpu.Float64}
			break
		}
		var vals gpu.Column
		if vals, st, err = w.runningValues(ctx, f, gpu.ScanSum, cols, part); err != nil {
			return nil, err
		}
		running = append(running, vals)
	default:
		return nil, fmt.Errorf("window %s over a sliding frame: %w", f.Agg, gpu.ErrUnsupported)
	}
	_, fb, atEnd, atBefore, err := w.slidingEnds(ctx, f, cols, part, running)
	if err != nil {
		return nil, err
	}
	// Gathered nulls (no row: an empty frame, or the partition's start)
	// stand for zero.
	orZero := func(c int, t gpu.Type) *gpu.Expr {
		x := gpu.Col(c, t.WithNullable(true))
		return gpu.Call(gpu.OpCase, t.WithNullable(false), gpu.Call(gpu.OpIsNull, gpu.Type{Kind: gpu.Bool}, x), gpu.Const(t, gpu.ScanIdentity(gpu.ScanSum, t.Kind)), x)
	}
	in := append(append([]gpu.Column{}, atEnd...), atBefore...)
	m := len(running)
	cnt := gpu.Call(gpu.OpSub, i64, orZero(0, i64), orZero(m, i64))
	e := cnt
	switch {
	case w.treeSummed(f, cols):
		sums, err := w.frameSums(ctx, f, cols, fb.from, fb.to)
		if err != nil {
			return nil, err
		}
		in = append(in, sums)
		e = nullWithoutValues(gpu.Col(len(in)-1, st), st, cnt, f.Type)
	case f.Agg == gpu.AggSum:
		e = nullWithoutValues(gpu.Call(gpu.OpSub, st, orZero(1, st), orZero(m+1, st)), st, cnt, f.Type)
	case f.Type.WithNullable(false) != i64:
		e = gpu.Call(gpu.OpCast, f.Type, cnt)
	}
	return w.output(ctx, in, e)
}
