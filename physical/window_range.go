package physical

import (
	"context"
	"fmt"
	"math/big"

	"github.com/rigel-db/rigel/gpu"
)

// RANGE frames with offsets (RANGE BETWEEN n PRECEDING AND m FOLLOWING):
// a row's frame is the rows of its partition whose order key lies within
// [x - n, x + m] of its own x, so its ends are found by value, not by
// counting rows. Each end is the rank of a probe value among the sorted
// rows, found with the device's sort and scan: the rows and one probe per
// row (x - n for the start, tagged to sort before rows of equal keys; x +
// m for the end, tagged after them) are sorted together by partition,
// key and tag; a running count of the rows before each probe is then the
// place of the first row at or past the start (of the row after the last
// one within the end), in the sorted rows from 0. A second sort by tag and
// row brings the probes back into the rows' order. A null key's probes are
// null too and sort among the nulls: its frame is its null peers. CURRENT
// ROW is an offset of 0 (the row's peers), UNBOUNDED the partition's end.

// rangeKey is the order key widened for the probes' arithmetic, and the
// probe key + v for an offset of v (an integer count of the key's units:
// days for a date).
func rangeKey(t gpu.Type) (gpu.Type, func(key *gpu.Expr, v int64) *gpu.Expr, error) {
	add := func(kt gpu.Type, value func(v int64) gpu.Value) func(key *gpu.Expr, v int64) *gpu.Expr {
		return func(key *gpu.Expr, v int64) *gpu.Expr {
			return gpu.Call(gpu.OpAdd, kt, key, gpu.Const(kt.WithNullable(false), value(v)))
		}
	}
	switch {
	case t.Kind == gpu.Int8 || t.Kind == gpu.Int16 || t.Kind == gpu.Int32 || t.Kind == gpu.Int64:
		kt := gpu.Type{Kind: gpu.Int64, Nullable: t.Nullable}
		return kt, add(kt, func(v int64) gpu.Value { return gpu.Value{I64: v} }), nil
	case t.Kind == gpu.Decimal64 || t.Kind == gpu.Decimal128:
		kt := gpu.Type{Kind: gpu.Decimal128, Precision: 38, Scale: t.Scale, Nullable: t.Nullable}
		pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil)
		return kt, add(kt, func(v int64) gpu.Value { return gpu.Value{I128: new(big.Int).Mul(big.NewInt(v), pow)} }), nil
	case t.Kind.IsFloat():
		kt := gpu.Type{Kind: gpu.Float64, Nullable: t.Nullable}
		return kt, add(kt, func(v int64) gpu.Value { return gpu.Value{F64: float64(v)} }), nil
	case t.Kind == gpu.Date32:
		// A date plus v days, given in seconds (ErrOverflow past the
		// dates' range, where DuckDB fails too; 2^40 days lie past it).
		i64 := gpu.Type{Kind: gpu.Int64}
		return t, func(key *gpu.Expr, v int64) *gpu.Expr {
			v = max(-(1 << 40), min(v, 1<<40))
			return gpu.Call(gpu.OpAddDayInterval, t, key, gpu.Const(i64, gpu.Value{I64: v * 86400}), gpu.Const(i64, gpu.Value{I64: 1}))
		}, nil
	}
	return gpu.Type{}, nil, fmt.Errorf("a RANGE frame with an offset over an order key of type %s: %w", t, gpu.ErrUnsupported)
}

// rangeBounds is frameBounds for a FrameRangeBetween.
func (w *windowRun) rangeBounds(ctx context.Context, f WindowFunc, cols []gpu.Column, part, pos gpu.Column) (frameRows, error) {
	if len(f.Order) != 1 || f.Order[0].Descending {
		return frameRows{}, fmt.Errorf("a RANGE frame with an offset over %d order keys or a descending one: %w", len(f.Order), gpu.ErrUnsupported)
	}
	i64, b := gpu.Type{Kind: gpu.Int64}, gpu.Type{Kind: gpu.Bool}
	k := func(v int64) *gpu.Expr { return gpu.Const(i64, gpu.Value{I64: v}) }
	x := cols[f.Order[0].Col]
	kt, probeAt, err := rangeKey(x.Type())
	if err != nil {
		return frameRows{}, err
	}
	// The partitions numbered: the probes sort within their own.
	ones, err := w.project(ctx, []gpu.Column{part}, gpu.Call(gpu.OpCase, i64, gpu.Col(0, part.Type()), k(1), k(0)))
	if err != nil {
		return frameRows{}, err
	}
	whole, err := w.starts(ctx, cols, nil, nil)
	if err != nil {
		return frameRows{}, err
	}
	partNo, err := w.scan(ctx, ones, whole, gpu.ScanSum, false)
	if err != nil {
		return frameRows{}, err
	}
	rn, rows, err := w.rowNumbers(ctx, part)
	if err != nil {
		return frameRows{}, err
	}
	// first is the partition's first place from 0, last its last.
	first := gpu.Call(gpu.OpSub, i64, gpu.Col(2, i64), gpu.Col(0, i64))
	last := gpu.Call(gpu.OpAdd, i64, first, gpu.Call(gpu.OpSub, i64, gpu.Col(1, i64), k(1)))
	ends := []gpu.Column{rn, rows, pos}
	from, to := first, last
	if f.From != FrameUnboundedPreceding {
		c, err := w.rangeRank(ctx, x, kt, probeAt, f.From, 0, partNo, pos, f.Order[0].NullsFirst)
		if err != nil {
			return frameRows{}, err
		}
		from = gpu.Col(len(ends), i64)
		ends = append(ends, c)
	}
	if f.To != FrameUnboundedFollowing {
		c, err := w.rangeRank(ctx, x, kt, probeAt, f.To, 2, partNo, pos, f.Order[0].NullsFirst)
		if err != nil {
			return frameRows{}, err
		}
		to = gpu.Call(gpu.OpSub, i64, gpu.Col(len(ends), i64), k(1))
		ends = append(ends, c)
	}
	empty := gpu.Call(gpu.OpGt, b, from, to)
	var out [3]gpu.Column
	for i, e := range []*gpu.Expr{
		gpu.Call(gpu.OpCase, i64, empty, k(-1), from),
		gpu.Call(gpu.OpCase, i64, empty, k(-1), to),
		gpu.Call(gpu.OpCase, i64, gpu.Call(gpu.OpOr, b, empty, gpu.Call(gpu.OpLe, b, from, first)), k(-1), gpu.Call(gpu.OpSub, i64, from, k(1))),
	} {
		if out[i], err = w.project(ctx, ends, gpu.Call(gpu.OpCast, gpu.JoinIndexType, e)); err != nil {
			return frameRows{}, err
		}
	}
	return frameRows{from: out[0], to: out[1], before: out[2], rn: rn, rows: rows}, nil
}

// rangeRank is, per row in the rows' order, the number of rows that sort
// before the probe x + offset (probeAt) of tag 0 (before rows of an equal
// key) or 2 (after them), within the row's partition and before it.
func (w *windowRun) rangeRank(ctx context.Context, x gpu.Column, kt gpu.Type, probeAt func(*gpu.Expr, int64) *gpu.Expr, offset int64, tag int64, partNo, pos gpu.Column, nullsFirst bool) (gpu.Column, error) {
	i64 := gpu.Type{Kind: gpu.Int64}
	in := []gpu.Column{partNo, x, pos}
	key := gpu.Col(1, x.Type())
	if x.Type().WithNullable(kt.Nullable) != kt {
		key = gpu.Call(gpu.OpCast, kt, key)
	}
	probe := probeAt(key, offset)
	side := func(k *gpu.Expr, t int64) ([]gpu.Column, error) {
		out, err := w.r.x.Dev.Run(ctx, &gpu.Pipeline{Inputs: []gpu.Type{i64, x.Type(), i64}, Sink: gpu.SinkMaterialize,
			Project: []*gpu.Expr{gpu.Col(0, i64), k, gpu.Const(i64, gpu.Value{I64: t}), gpu.Col(2, i64)}}, in)
		for _, c := range out {
			w.temp(c)
		}
		return out, err
	}
	rowsSide, err := side(key, 1)
	if err != nil {
		return nil, err
	}
	probes, err := side(probe, tag)
	if err != nil {
		return nil, err
	}
	both, err := w.r.x.Dev.Concat(ctx, [][]gpu.Column{rowsSide, probes})
	if err != nil {
		return nil, err
	}
	for _, c := range both {
		w.temp(c)
	}
	sorted, err := w.r.x.Dev.Sort(ctx, both, []gpu.SortKey{{Col: 0}, {Col: 1, NullsFirst: nullsFirst}, {Col: 2}}, 0)
	if err != nil {
		return nil, err
	}
	for _, c := range sorted {
		w.temp(c)
	}
	isRow, err := w.project(ctx, sorted[2:3], gpu.Call(gpu.OpCase, i64,
		gpu.Call(gpu.OpEq, gpu.Type{Kind: gpu.Bool}, gpu.Col(0, i64), gpu.Const(i64, gpu.Value{I64: 1})), gpu.Const(i64, gpu.Value{I64: 1}), gpu.Const(i64, gpu.Value{})))
	if err != nil {
		return nil, err
	}
	whole, err := w.dev.SegmentStarts(ctx, isRow.Len(), nil, nil)
	if err != nil {
		return nil, err
	}
	w.temp(whole)
	upTo, err := w.scan(ctx, isRow, whole, gpu.ScanSum, false)
	if err != nil {
		return nil, err
	}
	before, err := w.project(ctx, []gpu.Column{upTo, isRow}, gpu.Call(gpu.OpSub, i64, gpu.Col(0, i64), gpu.Col(1, i64)))
	if err != nil {
		return nil, err
	}
	// The probes first (the rows' tag 1 last), each in its row's place.
	dir := gpu.SortKey{Col: 0, Descending: tag == 2}
	back, err := w.r.x.Dev.Sort(ctx, []gpu.Column{sorted[2], sorted[3], before}, []gpu.SortKey{dir, {Col: 1}}, w.n)
	if err != nil {
		return nil, err
	}
	for _, c := range back {
		w.temp(c)
	}
	return back[2], nil
}
