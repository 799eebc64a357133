package host

import (
	"context"
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

// The window primitives (gpu/window.go), row after row: the reference the
// CUDA device's kernels are compared with (gpu/devicetest).

var _ gpu.Windower = (*Device)(nil)

func (d *Device) SegmentStarts(ctx context.Context, n int, keys []gpu.Column, starts gpu.Column) (gpu.Column, error) {
	if err := d.checkOpen("segment starts"); err != nil {
		return nil, err
	}
	var st *column
	if starts != nil {
		var err error
		if st, err = d.own(starts, "segment starts: the starts"); err != nil {
			return nil, err
		}
		if st.typ.Kind != gpu.Bool || st.n != n {
			return nil, fmt.Errorf("segment starts: the starts are %d rows of %s, want %d of bool", st.n, st.typ, n)
		}
	}
	kc := make([]*column, len(keys))
	for i, k := range keys {
		var err error
		if kc[i], err = d.own(k, fmt.Sprintf("segment starts: key %d", i)); err != nil {
			return nil, err
		}
		if kc[i].typ.Kind == gpu.Str {
			return nil, fmt.Errorf("segment starts: key %d holds strings in Arrow layout: %w", i, gpu.ErrUnsupported)
		}
		if kc[i].n != n {
			return nil, fmt.Errorf("segment starts: key %d has %d rows, want %d", i, kc[i].n, n)
		}
	}
	g, err := d.reserve("segment starts", times(int64(n), 8))
	if err != nil {
		return nil, err
	}
	defer g.done()
	d.count(func(s *gpu.Stats) { s.KernelLaunches++ })
	out := newVec(gpu.Bool, n, false)
	for i := 0; i < n; i++ {
		if i&(checkRows-1) == 0 {
			if err := gpu.CtxErr(ctx); err != nil {
				return nil, err
			}
		}
		start := i == 0 || (st != nil && st.data.i64[i] != 0)
		for _, k := range kc {
			if start {
				break
			}
			start = differsFromPrevious(k.data, i)
		}
		if start {
			out.i64[i] = 1
		}
	}
	return d.newColumn(gpu.Type{Kind: gpu.Bool}, n, out, nil), nil
}

// differsFromPrevious reports whether row i of v differs from row i-1:
// two nulls are equal, floats equal as values with every NaN equal.
func differsFromPrevious(v *vec, i int) bool {
	a, b := v.isValid(i-1), v.isValid(i)
	if !a || !b {
		return a != b
	}
	switch {
	case v.i64 != nil:
		return v.i64[i] != v.i64[i-1]
	case v.f64 != nil:
		return gpu.FloatOrder(v.f64[i-1], v.f64[i]) != 0
	default:
		return v.i128[i] != v.i128[i-1]
	}
}

func (d *Device) SegmentedScan(ctx context.Context, vals, starts gpu.Column, op gpu.ScanOp, reverse bool) (gpu.Column, error) {
	if err := d.checkOpen("segmented scan"); err != nil {
		return nil, err
	}
	vc, err := d.own(vals, "segmented scan: the values")
	if err != nil {
		return nil, err
	}
	sc, err := d.own(starts, "segmented scan: the starts")
	if err != nil {
		return nil, err
	}
	switch {
	case !gpu.ScanKind(vc.typ.Kind) || vc.typ.Nullable:
		return nil, fmt.Errorf("segmented scan of %s values (non-null int64, decimal or float64 only): %w", vc.typ, gpu.ErrUnsupported)
	case sc.typ.Kind != gpu.Bool:
		return nil, fmt.Errorf("segmented scan: the starts are %s, not bool", sc.typ)
	case sc.n != vc.n:
		return nil, fmt.Errorf("segmented scan: %d starts for %d values", sc.n, vc.n)
	case op < gpu.ScanSum || op > gpu.ScanFill:
		return nil, fmt.Errorf("segmented scan: unknown operator %d", op)
	}
	n := vc.n
	g, err := d.reserve("segmented scan", times(int64(n), rowBytes(vc.typ)))
	if err != nil {
		return nil, err
	}
	defer g.done()
	d.count(func(s *gpu.Stats) { s.KernelLaunches++ })
	out := newVec(vc.typ.Kind, n, false)
	in, flags := vc.data, sc.data.i64
	for step := 0; step < n; step++ {
		if step&(checkRows-1) == 0 {
			if err := gpu.CtxErr(ctx); err != nil {
				return nil, err
			}
		}
		// i is the row, prev the one scanned before it; a reverse scan's
		// segment begins at a row followed by a start (or the last row).
		i, prev, first := step, step-1, step == 0 || flags[step] != 0
		if reverse {
			i, prev = n-1-step, n-step
			first = step == 0 || flags[prev] != 0
		}
		switch {
		case in.i64 != nil:
			v := in.i64[i]
			if !first {
				v = scanInt(op, out.i64[prev], v)
			}
			out.i64[i] = v
		case in.f64 != nil:
			v := in.f64[i]
			if !first {
				v = scanFloat(op, out.f64[prev], v)
			}
			out.f64[i] = v
		default:
			v := in.i128[i]
			if !first {
				var ok bool
				if v, ok = scan128(op, out.i128[prev], v); !ok {
					return nil, fmt.Errorf("a running sum does not fit a 128-bit decimal: %w", gpu.ErrOverflow)
				}
			}
			out.i128[i] = v
		}
	}
	return d.newColumn(vc.typ.WithNullable(false), n, out, nil), nil
}

// scanInt, scanFloat and scan128 fold v (the later row) into acc.
func scanInt(op gpu.ScanOp, acc, v int64) int64 {
	switch op {
	case gpu.ScanSum:
		return acc + v
	case gpu.ScanMin:
		return min(acc, v)
	case gpu.ScanMax:
		return max(acc, v)
	}
	return acc
}

func scanFloat(op gpu.ScanOp, acc, v float64) float64 {
	switch op {
	case gpu.ScanSum:
		return acc + v
	case gpu.ScanMin: // in SQL's order: NaN above every other value
		if gpu.FloatOrder(v, acc) < 0 {
			return v
		}
	case gpu.ScanMax:
		if gpu.FloatOrder(v, acc) > 0 {
			return v
		}
	}
	return acc
}

// scan128 is false when a sum overflows.
func scan128(op gpu.ScanOp, acc, v int128) (int128, bool) {
	switch op {
	case gpu.ScanSum:
		return add128(acc, v)
	case gpu.ScanMin:
		if cmp128(v, acc) < 0 {
			return v, true
		}
	case gpu.ScanMax:
		if cmp128(v, acc) > 0 {
			return v, true
		}
	}
	return acc, true
}

func (d *Device) FrameSums(ctx context.Context, vals, from, to gpu.Column) (gpu.Column, error) {
	if err := d.checkOpen("frame sums"); err != nil {
		return nil, err
	}
	cs, err := d.ownAll([]gpu.Column{vals, from, to}, "frame sums")
	if err != nil {
		return nil, err
	}
	vc, fc, tc := cs[0], cs[1], cs[2]
	switch {
	case vc.typ != gpu.Type{Kind: gpu.Float64}:
		return nil, fmt.Errorf("frame sums of %s values (non-null float64 only): %w", vc.typ, gpu.ErrUnsupported)
	case fc.typ != gpu.JoinIndexType || tc.typ != gpu.JoinIndexType:
		return nil, fmt.Errorf("frame sums: the frames' ends are %s and %s, not %s", fc.typ, tc.typ, gpu.JoinIndexType)
	case fc.n != vc.n || tc.n != vc.n:
		return nil, fmt.Errorf("frame sums: %d and %d frame ends for %d values", fc.n, tc.n, vc.n)
	}
	n := vc.n
	// The tree's upper levels hold under a fifteenth of the rows.
	g, err := d.reserve("frame sums", times(int64(n), 8+8/(gpu.TreeFanout-1)+1))
	if err != nil {
		return nil, err
	}
	defer g.done()
	d.count(func(s *gpu.Stats) { s.KernelLaunches++ })
	tree := gpu.NewSegmentTree(vc.data.f64[:n])
	out := newVec(gpu.Float64, n, false)
	for i := 0; i < n; i++ {
		if i&(checkRows-1) == 0 {
			if err := gpu.CtxErr(ctx); err != nil {
				return nil, err
			}
		}
		b, e := fc.data.i64[i], tc.data.i64[i]
		if b < 0 || e < b {
			continue // an empty frame
		}
		if e >= int64(n) {
			return nil, fmt.Errorf("frame sums: row %d's frame ends at row %d of %d", i, e, n)
		}
		out.f64[i] = tree.Sum(int(b), int(e)+1)
	}
	return d.newColumn(gpu.Type{Kind: gpu.Float64}, n, out, nil), nil
}
