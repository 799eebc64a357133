package physical

import (
	"context"
	"fmt"
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
	WindowAggregate // Agg over the frame
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
)

// WindowFunc is one window function: its partition and order keys are
// columns of the Window's input.
type WindowFunc struct {
	Kind      WindowKind
	Agg       gpu.AggKind // WindowAggregate: AggSum, AggMin, AggMax, AggCount or AggCountStar
	Arg       int         // the aggregate's input column (not AggCountStar)
	Partition []int
	Order     []gpu.SortKey
	Frame     WindowFrame // WindowAggregate
	Type      gpu.Type    // the result
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
	if f.Kind == WindowAggregate {
		over = append(over, map[WindowFrame]string{FrameRows: "rows to current", FramePeers: "range to current", FramePartition: "whole partition"}[f.Frame])
	}
	return name + " over (" + strings.Join(over, " ") + ")"
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
	one := gpu.Const(i64, gpu.Value{I64: 1})
	var res gpu.Column
	switch f.Kind {
	case WindowRowNumber, WindowRank:
		ones, err := w.project(ctx, []gpu.Column{part}, one)
		if err != nil {
			return nil, err
		}
		if res, err = w.scan(ctx, ones, part, gpu.ScanSum, false); err != nil {
			return nil, err
		}
		if f.Kind == WindowRank {
			// A row's rank is the row number of its peer group's first row.
			atPeers, err := w.project(ctx, []gpu.Column{peers, res},
				gpu.Call(gpu.OpCase, i64, gpu.Col(0, peers.Type()), gpu.Col(1, i64), gpu.Const(i64, gpu.Value{})))
			if err != nil {
				return nil, err
			}
			if res, err = w.scan(ctx, atPeers, part, gpu.ScanMax, false); err != nil {
				return nil, err
			}
		}
	case WindowDenseRank:
		counts, err := w.project(ctx, []gpu.Column{peers},
			gpu.Call(gpu.OpCase, i64, gpu.Col(0, peers.Type()), one, gpu.Const(i64, gpu.Value{})))
		if err != nil {
			return nil, err
		}
		if res, err = w.scan(ctx, counts, part, gpu.ScanSum, false); err != nil {
			return nil, err
		}
	case WindowAggregate:
		return w.aggregate(ctx, f, cols, part, peers)
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

// project runs a pipeline computing e over ins.
func (w *windowRun) project(ctx context.Context, ins []gpu.Column, e ...*gpu.Expr) (gpu.Column, error) {
	types := make([]gpu.Type, len(ins))
	for i, c := range ins {
		types[i] = c.Type()
	}
	out, err := w.r.x.Dev.Run(ctx, &gpu.Pipeline{Inputs: types, Project: e, Sink: gpu.SinkMaterialize}, ins)
	if err != nil {
		return nil, err
	}
	return w.temp(out[0]), nil
}

// result is c cast to t, a column of its own (the caller keeps it).
func (w *windowRun) result(ctx context.Context, c gpu.Column, t gpu.Type) (gpu.Column, error) {
	e := gpu.Col(0, c.Type())
	if c.Type() != t {
		e = gpu.Call(gpu.OpCast, t, e)
	}
	out, err := w.r.x.Dev.Run(ctx, &gpu.Pipeline{Inputs: []gpu.Type{c.Type()}, Project: []*gpu.Expr{e}, Sink: gpu.SinkMaterialize}, []gpu.Column{c})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// aggregate computes an aggregate over f's frame: a running value and a
// running count of the values seen (nulls are skipped, and a frame of no
// values gives null), handed back from the frame's last row for peers and
// whole partitions.
func (w *windowRun) aggregate(ctx context.Context, f WindowFunc, cols []gpu.Column, part, peers gpu.Column) (gpu.Column, error) {
	i64 := gpu.Type{Kind: gpu.Int64}
	one, zero := gpu.Const(i64, gpu.Value{I64: 1}), gpu.Const(i64, gpu.Value{})
	var arg *gpu.Expr
	ins := []gpu.Column{part}
	if f.Agg != gpu.AggCountStar {
		ins = []gpu.Column{cols[f.Arg]}
		arg = gpu.Col(0, cols[f.Arg].Type())
	}
	present := one
	if arg != nil && arg.Type.Nullable {
		present = gpu.Call(gpu.OpCase, i64, gpu.Call(gpu.OpIsNull, gpu.Type{Kind: gpu.Bool}, arg), zero, one)
	}
	counts, err := w.project(ctx, ins, present)
	if err != nil {
		return nil, err
	}
	if counts, err = w.scan(ctx, counts, part, gpu.ScanSum, false); err != nil {
		return nil, err
	}
	if counts, err = w.frameEnd(ctx, counts, f.Frame, part, peers); err != nil {
		return nil, err
	}
	if f.Agg == gpu.AggCount || f.Agg == gpu.AggCountStar {
		return w.result(ctx, counts, f.Type)
	}
	op, ok := map[gpu.AggKind]gpu.ScanOp{gpu.AggSum: gpu.ScanSum, gpu.AggMin: gpu.ScanMin, gpu.AggMax: gpu.ScanMax}[f.Agg]
	if !ok {
		return nil, fmt.Errorf("window aggregate %s: %w", f.Agg, gpu.ErrUnsupported)
	}
	st, ok := WindowScanType(f.Agg, arg.Type)
	if !ok {
		return nil, fmt.Errorf("window %s of %s: %w", f.Agg, arg.Type, gpu.ErrUnsupported)
	}
	// Nulls stand as the operator's identity, which changes nothing.
	v := arg
	if arg.Type.WithNullable(false) != st {
		v = gpu.Call(gpu.OpCast, st.WithNullable(arg.Type.Nullable), arg)
	}
	if arg.Type.Nullable {
		v = gpu.Call(gpu.OpCase, st, gpu.Call(gpu.OpIsNull, gpu.Type{Kind: gpu.Bool}, arg), gpu.Const(st, gpu.ScanIdentity(op, st.Kind)), v)
	}
	vals, err := w.project(ctx, ins, v)
	if err != nil {
		return nil, err
	}
	if vals, err = w.scan(ctx, vals, part, op, false); err != nil {
		return nil, err
	}
	if vals, err = w.frameEnd(ctx, vals, f.Frame, part, peers); err != nil {
		return nil, err
	}
	out := gpu.Col(0, st)
	if st != f.Type.WithNullable(false) {
		out = gpu.Call(gpu.OpCast, f.Type.WithNullable(false), out)
	}
	t := f.Type.WithNullable(true)
	e := gpu.Call(gpu.OpCase, t,
		gpu.Call(gpu.OpEq, gpu.Type{Kind: gpu.Bool}, gpu.Col(1, i64), zero), gpu.Const(t, gpu.Value{Null: true}),
		out)
	res, err := w.r.x.Dev.Run(ctx, &gpu.Pipeline{Inputs: []gpu.Type{st, i64}, Project: []*gpu.Expr{e}, Sink: gpu.SinkMaterialize}, []gpu.Column{vals, counts})
	if err != nil {
		return nil, err
	}
	return res[0], nil
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
	case t.Kind == gpu.Decimal64 || t.Kind == gpu.Decimal128:
		return gpu.Type{Kind: t.Kind, Precision: t.Precision, Scale: t.Scale}, true
	}
	return gpu.Type{Kind: gpu.Int64}, true
}
