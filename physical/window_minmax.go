package physical

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
)

// min and max over sliding frames (ROWS or RANGE with ends of their own).
// A difference of running values does not give them, so:
//   - a frame from the partition's start is the running min or max at its
//     last row, one open to the partition's end the reverse running one at
//     its first row (a scan and a gather);
//   - otherwise a sparse table: level k holds each row's op over the 2^k
//     rows from it (level k-1 at the row and 2^(k-1) rows on, clamped to
//     the partition's last row, which op's idempotence allows), and a frame
//     of length L is op of level floor(log2 L) at its first row and at
//     2^k - 1 rows before its last. The levels go as far as the longest
//     frame needs (found from the frames' ends, one small download).
// Integers, decimals and floats (compared in SQL's order, NaN above every
// number, as the scans fold them); a string's dictionary stays on DuckDB.

// maxSparseLevels bounds the sparse table (frames of up to 2^20 rows).
const maxSparseLevels = 20

func (w *windowRun) slidingMinMax(ctx context.Context, f WindowFunc, cols []gpu.Column, part gpu.Column) (gpu.Column, error) {
	if t := cols[f.Arg].Type(); t.Kind == gpu.Dict {
		return nil, fmt.Errorf("window %s of %s over a sliding frame: %w", f.Agg, t, gpu.ErrUnsupported)
	}
	op := gpu.ScanMin
	if f.Agg == gpu.AggMax {
		op = gpu.ScanMax
	}
	i64, b := gpu.Type{Kind: gpu.Int64}, gpu.Type{Kind: gpu.Bool}
	k := func(v int64) *gpu.Expr { return gpu.Const(i64, gpu.Value{I64: v}) }
	vals, st, err := w.scanValues(ctx, f, op, cols)
	if err != nil {
		return nil, err
	}
	counts, err := w.runningCounts(ctx, f, cols, part)
	if err != nil {
		return nil, err
	}
	pos, fb, ends, befores, err := w.slidingEnds(ctx, f, cols, part, []gpu.Column{counts})
	if err != nil {
		return nil, err
	}
	var picked []gpu.Column // candidates of each row's result (null: none)
	switch {
	case f.From == FrameUnboundedPreceding || f.To == FrameUnboundedFollowing:
		// From the partition's start: the running value at the frame's
		// last row; to its end: the reverse running value at its first.
		reverse, at := false, fb.to
		if f.From != FrameUnboundedPreceding {
			reverse, at = true, fb.from
		}
		running, err := w.scan(ctx, vals, part, op, reverse)
		if err != nil {
			return nil, err
		}
		if picked, err = w.gather(ctx, []gpu.Column{running}, at); err != nil {
			return nil, err
		}
	default:
		if picked, err = w.sparseTable(ctx, vals, st, op, pos, fb); err != nil {
			return nil, err
		}
	}
	// The candidates come in pairs, one pair a level (or one column for
	// the scans), and a row's pair is the one that is not null: op of its
	// two, the first such pair's. The chain names each pair once, so that
	// the expression grows with the levels, not exponentially.
	better := gpu.OpLt
	if op == gpu.ScanMax {
		better = gpu.OpGt
	}
	ins := []gpu.Column{ends[0], befores[0]}
	var pairs []*gpu.Expr
	for i := 0; i < len(picked); i += 2 {
		x := gpu.Col(len(ins), picked[i].Type())
		ins = append(ins, picked[i])
		if i+1 == len(picked) {
			pairs = append(pairs, x)
			break
		}
		y := gpu.Col(len(ins), picked[i+1].Type())
		ins = append(ins, picked[i+1])
		pairs = append(pairs, gpu.Call(gpu.OpCase, st.WithNullable(true), gpu.Call(better, b, x, y), x, y))
	}
	best := gpu.Const(st, gpu.ScanIdentity(op, st.Kind))
	for i := len(pairs) - 1; i >= 0; i-- {
		best = gpu.Call(gpu.OpCase, st, gpu.Call(gpu.OpIsNull, b, pairs[i]), best, gpu.Call(gpu.OpCast, st, pairs[i]))
	}
	orZero := func(c int) *gpu.Expr {
		x := gpu.Col(c, i64.WithNullable(true))
		return gpu.Call(gpu.OpCase, i64, gpu.Call(gpu.OpIsNull, b, x), k(0), x)
	}
	cnt := gpu.Call(gpu.OpSub, i64, orZero(0), orZero(1))
	return w.output(ctx, ins, nullWithoutValues(best, st, cnt, f.Type))
}

// sparseTable gives, per level k the frames need, the level's value at
// each row's frame's first row and at 2^k - 1 rows before its last, null
// where the row's frame is not of that level (or empty).
func (w *windowRun) sparseTable(ctx context.Context, vals gpu.Column, st gpu.Type, op gpu.ScanOp, pos gpu.Column, fb frameRows) ([]gpu.Column, error) {
	i64, b, it := gpu.Type{Kind: gpu.Int64}, gpu.Type{Kind: gpu.Bool}, gpu.JoinIndexType
	k := func(v int64) *gpu.Expr { return gpu.Const(i64, gpu.Value{I64: v}) }
	from := gpu.Call(gpu.OpCast, i64, gpu.Col(0, it))
	to := gpu.Call(gpu.OpCast, i64, gpu.Col(1, it))
	length := gpu.Call(gpu.OpCase, i64, gpu.Call(gpu.OpLt, b, from, k(0)), k(0), gpu.Call(gpu.OpAdd, i64, gpu.Call(gpu.OpSub, i64, to, from), k(1)))
	longest, err := w.longest(ctx, []gpu.Column{fb.from, fb.to}, length)
	if err != nil {
		return nil, err
	}
	levels := 0
	if longest > 1 {
		levels = bits.Len64(uint64(longest)) - 1
	}
	if levels > maxSparseLevels {
		return nil, fmt.Errorf("a sliding min or max over frames of up to %d rows (at most 2^%d): %w", longest, maxSparseLevels, gpu.ErrUnsupported)
	}
	// The levels: each row's op over the 2^k rows from it, within its
	// partition.
	better := gpu.OpLt
	if op == gpu.ScanMax {
		better = gpu.OpGt
	}
	table := []gpu.Column{vals}
	for lv := 1; lv <= levels; lv++ {
		// min(place + 2^(lv-1), the partition's last place), places from 0.
		here := gpu.Call(gpu.OpSub, i64, gpu.Col(2, i64), k(1))
		last := gpu.Call(gpu.OpAdd, i64, gpu.Call(gpu.OpSub, i64, here, gpu.Col(0, i64)), gpu.Col(1, i64))
		on := gpu.Call(gpu.OpAdd, i64, here, k(1<<(lv-1)))
		at, err := w.project(ctx, []gpu.Column{fb.rn, fb.rows, pos},
			gpu.Call(gpu.OpCast, it, gpu.Call(gpu.OpCase, i64, gpu.Call(gpu.OpGt, b, on, last), last, on)))
		if err != nil {
			return nil, err
		}
		next, err := w.gather(ctx, []gpu.Column{table[lv-1]}, at)
		if err != nil {
			return nil, err
		}
		prev := table[lv-1]
		x, y := gpu.Col(0, prev.Type()), gpu.Col(1, next[0].Type())
		lvl, err := w.project(ctx, []gpu.Column{prev, next[0]},
			gpu.Call(gpu.OpCase, st, gpu.Call(better, b, y, x), gpu.Call(gpu.OpCast, st, y), gpu.Call(gpu.OpCast, st, x)))
		if err != nil {
			return nil, err
		}
		table = append(table, lvl)
	}
	// Each row's level: floor(log2 of its frame's length).
	level := k(0)
	for lv := 1; lv <= levels; lv++ {
		level = gpu.Call(gpu.OpAdd, i64, level, gpu.Call(gpu.OpCase, i64, gpu.Call(gpu.OpGe, b, length, k(1<<lv)), k(1), k(0)))
	}
	var picked []gpu.Column
	for lv := 0; lv <= levels; lv++ {
		mine := gpu.Call(gpu.OpAnd, b, gpu.Call(gpu.OpGe, b, from, k(0)), gpu.Call(gpu.OpEq, b, level, k(int64(lv))))
		for _, at := range []*gpu.Expr{from, gpu.Call(gpu.OpSub, i64, to, k(1<<lv-1))} {
			idx, err := w.project(ctx, []gpu.Column{fb.from, fb.to}, gpu.Call(gpu.OpCast, it, gpu.Call(gpu.OpCase, i64, mine, at, k(-1))))
			if err != nil {
				return nil, err
			}
			got, err := w.gather(ctx, []gpu.Column{table[lv]}, idx)
			if err != nil {
				return nil, err
			}
			picked = append(picked, got[0])
		}
	}
	return picked, nil
}

// longest is the largest value of e over ins (0 for no rows): an aggregate
// on the device, its one value downloaded.
func (w *windowRun) longest(ctx context.Context, ins []gpu.Column, e *gpu.Expr) (int64, error) {
	types := make([]gpu.Type, len(ins))
	for i, c := range ins {
		types[i] = c.Type()
	}
	out, err := w.r.x.Dev.Run(ctx, &gpu.Pipeline{Inputs: types, Project: []*gpu.Expr{e}, Sink: gpu.SinkAggregate,
		Aggs: []gpu.Agg{{Kind: gpu.AggMax, Arg: 0, Type: gpu.Type{Kind: gpu.Int64, Nullable: true}}}}, ins)
	if err != nil {
		return 0, err
	}
	for _, c := range out {
		w.temp(c)
	}
	a, err := w.r.x.Dev.Download(ctx, out[0])
	if err != nil {
		return 0, err
	}
	defer a.Release()
	v, ok := a.(*array.Int64)
	if !ok || v.Len() != 1 || v.IsNull(0) {
		return 0, nil
	}
	return v.Value(0), nil
}
