package host

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/rigel-db/rigel/gpu"
)

// Sort reorders cols by keys, stably (see gpu.Device). NullsFirst places
// nulls before all values whatever the direction; Descending reverses only
// the order of values. Floats sort by floatOrder (NaN last ascending), Str
// by bytes.
func (d *Device) Sort(ctx context.Context, cols []gpu.Column, keys []gpu.SortKey, limit int) ([]gpu.Column, error) {
	if err := d.checkOpen("sort"); err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("sort: no columns")
	}
	if limit < 0 {
		return nil, fmt.Errorf("sort: negative limit %d", limit)
	}
	hc := make([]*column, len(cols))
	for i, c := range cols {
		var err error
		if hc[i], err = d.own(c, fmt.Sprintf("sort: column %d", i)); err != nil {
			return nil, err
		}
		if hc[i].n != hc[0].n {
			return nil, fmt.Errorf("sort: column %d has %d rows, column 0 has %d", i, hc[i].n, hc[0].n)
		}
	}
	for i, k := range keys {
		if k.Col < 0 || k.Col >= len(cols) {
			return nil, fmt.Errorf("sort: key %d refers to column %d of %d", i, k.Col, len(cols))
		}
	}
	d.count(func(s *gpu.Stats) { s.KernelLaunches++ })
	n := hc[0].n
	outN := n
	if limit > 0 && limit < n {
		outN = limit
	}
	var rowOut int64
	for _, c := range hc {
		rowOut += rowBytes(c.typ)
	}
	// The row order and sortPerm's merge buffer, then the output.
	g, err := d.reserve(fmt.Sprintf("sort of %d rows", n), times(int64(n), 8)+times(int64(outN), rowOut))
	if err != nil {
		return nil, err
	}
	defer g.done()
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	cmpRow := func(a, b int32) int {
		for _, k := range keys {
			v := hc[k.Col].data
			av, bv := v.isValid(int(a)), v.isValid(int(b))
			if !av || !bv {
				if av == bv {
					continue
				}
				if !av == k.NullsFirst {
					return -1
				}
				return 1
			}
			var c int
			switch {
			case v.str != nil:
				// Bytewise, a prefix first: the order of a Dict
				// column's codes (gpu/ext_strings.go).
				c = bytes.Compare(v.str.value(int(a)), v.str.value(int(b)))
			case v.i64 != nil:
				c = cmpInt(v.i64[a], v.i64[b])
			case v.f64 != nil:
				c = gpu.FloatOrder(v.f64[a], v.f64[b])
			default:
				c = cmp128(v.i128[a], v.i128[b])
			}
			if c != 0 {
				if k.Descending {
					return -c
				}
				return c
			}
		}
		return cmpInt(int64(a), int64(b)) // equal keys keep input order
	}
	if err := d.sortPerm(ctx, perm, cmpRow); err != nil {
		return nil, err
	}
	perm = perm[:outN]
	out := make([]gpu.Column, 0, len(hc))
	for _, c := range hc {
		v, err := c.data.gatherCtx(ctx, perm)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, d.newColumn(c.typ, len(perm), v, c.dict))
	}
	return out, nil
}

// sortRun is how many rows sortPerm sorts at once before merging.
const sortRun = checkRows

// sortPerm sorts perm by cmp, a total order (ties broken by row number):
// runs of sortRun rows in parallel, then merge passes that double the run
// length. It checks ctx between runs and every checkRows merged rows,
// where one slices.SortFunc over millions of rows would run for seconds
// after its caller gave up.
func (d *Device) sortPerm(ctx context.Context, perm []int32, cmp func(a, b int32) int) error {
	n := len(perm)
	runs := (n + sortRun - 1) / sortRun
	err := d.parallel(ctx, runs, func(_, r int) error {
		slices.SortFunc(perm[r*sortRun:min(n, (r+1)*sortRun)], cmp)
		return nil
	})
	if err != nil || runs <= 1 {
		return err
	}
	src, dst := perm, make([]int32, n)
	tick := newTicker(ctx)
	for width := sortRun; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(n, lo+width), min(n, lo+2*width)
			i, j, k := lo, mid, lo
			for ; i < mid && j < hi; k++ {
				if err := tick.tick(1); err != nil {
					return err
				}
				if cmp(src[j], src[i]) < 0 {
					dst[k], j = src[j], j+1
				} else {
					dst[k], i = src[i], i+1
				}
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
		}
		src, dst = dst, src
	}
	copy(perm, src) // src is perm itself after an even number of passes
	return nil
}
