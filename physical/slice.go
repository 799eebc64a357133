package physical

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
)

// slice runs a Slice below the root of a plan (a LIMIT in a subquery, which
// DuckDB's plans for TPC-DS q28, q32, q38, q89 and q97 hold under other
// operators): the rows it keeps are gathered on the device by their
// indexes, so that the operators above run there too. At the root the
// engine slices the downloaded record instead, with no device work
// (exec.go).
func (r *run) slice(ctx context.Context, s *Slice, in []gpu.Column) ([]gpu.Column, error) {
	if len(in) == 0 {
		// No column carries the row count (translate keeps such slices at
		// the root).
		return nil, fmt.Errorf("a slice of no columns: %w", gpu.ErrUnsupported)
	}
	lo, hi := sliceRows(s, int64(in[0].Len()))
	if lo == 0 && hi == int64(in[0].Len()) {
		return in, nil
	}
	b := array.NewInt32Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(int(hi - lo))
	for i := lo; i < hi; i++ {
		b.UnsafeAppend(int32(i))
	}
	arr := b.NewArray()
	defer arr.Release()
	idx, err := r.x.Dev.Upload(ctx, arr)
	if err != nil {
		return nil, fmt.Errorf("the slice's row indexes: %w", err)
	}
	defer idx.Release()
	out, err := r.x.Dev.Gather(ctx, in, idx, false)
	if err != nil {
		return nil, err
	}
	return r.keep(out), nil
}

// sliceRows is the rows [lo, hi) of n that s keeps.
func sliceRows(s *Slice, n int64) (lo, hi int64) {
	lo = min(max(s.Offset, 0), n)
	hi = n
	if s.Count >= 0 && s.Count < n-lo {
		hi = lo + s.Count
	}
	return lo, hi
}
