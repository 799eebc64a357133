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
				c = floatOrder(v.f64[a], v.f64[b])
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
	slices.SortFunc(perm, cmpRow)
	if limit > 0 && limit < n {
		perm = perm[:limit]
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]gpu.Column, len(hc))
	for i, c := range hc {
		out[i] = d.newColumn(c.typ, len(perm), c.data.gather(perm), c.dict)
	}
	return out, nil
}
