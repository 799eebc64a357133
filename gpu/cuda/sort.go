package cuda

import (
	"context"
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

// maxSortRows bounds the sort (its row lists are uint32 and padded to a
// power of two); larger sorts are left to the engine's host device.
const maxSortRows = gpu.MaxSortRows

// sortKind codes match the SK_* constants of kernels/sort_keys.cuh.
func sortKind(k gpu.Kind) uint64 {
	switch k {
	case gpu.Bool:
		return 8
	case gpu.Int8:
		return 1
	case gpu.Int16:
		return 2
	case gpu.Int32, gpu.Date32, gpu.Dict:
		return 3
	case gpu.Int64, gpu.Decimal64:
		return 4
	case gpu.Decimal128:
		return 5
	case gpu.Float32:
		return 6
	case gpu.Float64:
		return 7
	case gpu.Str:
		return 9
	}
	return 0
}

// Top-k (ORDER BY ... LIMIT k with k <= maxTopK) over more than
// topKThreshold rows: each tile of topKTile rows keeps its best k
// (rg_topk_block), tile after tile until few rows are left, and the full
// sort orders those survivors.
const (
	topKTile      = 2048 // RG_TOPK_TILE
	maxTopK       = 256
	topKThreshold = 16384
)

// maxSortKeys is the keys one pass of the sort kernels compares
// (kernels/sort_keys.cuh); more sort in passes (sortInPasses).
const maxSortKeys = 8

// Sort orders the columns by keys (stable) with a bitonic sort and gathers
// every column into new ones; limit > 0 keeps the first limit rows.
func (d *Device) Sort(ctx context.Context, in []gpu.Column, keys []gpu.SortKey, limit int) ([]gpu.Column, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	if len(keys) > maxSortKeys {
		return d.sortInPasses(ctx, in, keys, limit)
	}
	if limit > 0 && limit <= maxTopK && len(in) > 0 && in[0].Len() > topKThreshold {
		return d.topK(ctx, in, keys, limit)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.watch(ctx)()
	if d.closed {
		return nil, fmt.Errorf("sort: CUDA device is closed")
	}
	cols, err := d.asInputs(in)
	if err != nil {
		return nil, fmt.Errorf("sort: %w", err)
	}
	if len(cols) == 0 {
		return nil, nil
	}
	cols, views, err := d.strViewsOf(cols)
	if err != nil {
		return nil, fmt.Errorf("sort: %w", err)
	}
	defer views()
	n := cols[0].n
	for i, c := range cols {
		if c.n != n {
			return nil, fmt.Errorf("sort: column %d has %d rows, column 0 has %d", i, c.n, n)
		}
	}
	if n > maxSortRows {
		return nil, fmt.Errorf("sort of %d rows (the CUDA sort handles at most %d): %w", n, maxSortRows, gpu.ErrUnsupported)
	}
	if len(keys) > maxSortKeys {
		return nil, fmt.Errorf("sort on %d keys (at most %d a pass): %w", len(keys), maxSortKeys, gpu.ErrUnsupported)
	}
	if limit < 0 {
		return nil, fmt.Errorf("sort: negative limit %d", limit)
	}
	kargs, err := keyArgs(cols, keys)
	if err != nil {
		return nil, err
	}
	outN := n
	if limit > 0 && limit < n {
		outN = limit
	}
	tmp := &temps{d: d}
	defer tmp.release()
	var out []gpu.Column
	fail := func(err error) ([]gpu.Column, error) {
		for _, c := range out {
			d.freeColumn(c.(*column))
		}
		return nil, fmt.Errorf("sort: %w", err)
	}
	if n > 0 {
		rank, err := d.sortRanks(n, len(keys), kargs, tmp)
		if err != nil {
			return fail(err)
		}
		grid := d.gridFor(int64(n), blockThreads)
		// The gather moves every output buffer in as few launches as the
		// argument block allows (a launch each cost more than the work for
		// the small results sorts see); a wide sort (TPC-DS q66 sorts 44
		// columns) takes several.
		var bufs []uint64 // src, dst, width per buffer
		for _, c := range cols {
			o, err := d.newOutput(c.t, outN, c.dict, "sorted column")
			if err != nil {
				return fail(err)
			}
			o.shareStr(c)
			out = append(out, o)
			bufs = append(bufs, c.data, o.data, uint64(devWidth(c.t)))
			if o.valid != 0 {
				if c.valid == 0 {
					if err := d.cx.memset(o.valid, 1, int64(outN), d.stream); err != nil {
						return fail(err)
					}
				} else {
					bufs = append(bufs, c.valid, o.valid, 1)
				}
			}
		}
		const perLaunch = (maxArgs - 4) / 3
		for len(bufs) > 0 {
			k := min(len(bufs)/3, perLaunch)
			g := append([]uint64{uint64(n), uint64(outN), rank, uint64(k)}, bufs[:3*k]...)
			bufs = bufs[3*k:]
			if err := d.timedLaunch(d.util, "rg_gather_multi", grid, blockThreads, 0, g); err != nil {
				return fail(err)
			}
		}
		return out, nil
	}
	for _, c := range cols {
		o, err := d.newOutput(c.t, 0, c.dict, "sorted column")
		if err != nil {
			return fail(err)
		}
		o.shareStr(c)
		out = append(out, o)
	}
	return out, nil
}

// sortRanges returns the sort keys' ranges over rows 0..n-1 (a temp of 4
// words per key, sort_range.cu: rg_sort_skip for string keys, then
// rg_sort_range), from which the sort kernels build each row's normalized
// key (rg_sort_prefix).
func (d *Device) sortRanges(n, nkeys int, kargs []uint64, tmp *temps) (uint64, error) {
	if nkeys == 0 {
		return 0, nil // no key: every prefix is 0 and rg_sort_prefix reads no range
	}
	size := int64(nkeys) * 4 * 8
	ranges, err := tmp.get(size, "sort key ranges")
	if err != nil {
		return 0, err
	}
	if err := d.cx.memset(ranges, 0, size, d.stream); err != nil {
		return 0, err
	}
	mod, err := d.loaded(&d.sortRange, sortRangeFile)
	if err != nil {
		return 0, err
	}
	args := append([]uint64{uint64(n), uint64(nkeys), ranges}, kargs...)
	grid := d.gridFor(int64(n), blockThreads)
	for k := 0; k < nkeys; k++ {
		if kargs[keyWords*k+2] == sortKind(gpu.Str) {
			if err := d.timedLaunch(mod, "rg_sort_skip", grid, blockThreads, 0, args); err != nil {
				return 0, err
			}
			break
		}
	}
	return ranges, d.timedLaunch(mod, "rg_sort_range", grid, blockThreads, 0, args)
}

// keyWords is the Args words of one sort key (keyArgs).
const keyWords = 5

// sortRanks returns each row's place in the sorted order (a temp of n
// uint32): a bitonic sort of the row list (bitonic.cu: rg_bitonic_tiles,
// then per size rg_bitonic_step and rg_bitonic_merge), then util.cu's
// rg_order_rank.
func (d *Device) sortRanks(n, nkeys int, kargs []uint64, tmp *temps) (uint64, error) {
	N := max(topKTile, nextPow2(n))
	var ranges uint64 // one tile: rg_bitonic_tiles takes the ranges itself
	if N > topKTile {
		var err error
		if ranges, err = d.sortRanges(n, nkeys, kargs, tmp); err != nil {
			return 0, err
		}
	}
	order, err := tmp.get(int64(N)*4, "sort order")
	if err != nil {
		return 0, err
	}
	pref, err := tmp.get(int64(N)*8, "sort prefixes")
	if err != nil {
		return 0, err
	}
	rank, err := tmp.get(int64(n)*4, "sort ranks")
	if err != nil {
		return 0, err
	}
	mod, err := d.loaded(&d.bitonic, bitonicFile)
	if err != nil {
		return 0, err
	}
	args := append([]uint64{uint64(n), uint64(N), order, 0, 0, uint64(nkeys), pref, ranges}, kargs...)
	tiles := min(N/topKTile, d.sms*8)
	if err := d.timedLaunch(mod, "rg_bitonic_tiles", tiles, blockThreads, 0, args); err != nil {
		return 0, err
	}
	for k := 2 * topKTile; k <= N; k <<= 1 {
		args[3] = uint64(k)
		for j := k / 2; j >= topKTile; j >>= 1 {
			args[4] = uint64(j)
			if err := d.timedLaunch(mod, "rg_bitonic_step", d.gridFor(int64(N/2), blockThreads), blockThreads, 0, args); err != nil {
				return 0, err
			}
		}
		if err := d.timedLaunch(mod, "rg_bitonic_merge", tiles, blockThreads, 0, args); err != nil {
			return 0, err
		}
	}
	err = d.timedLaunch(d.util, "rg_order_rank", d.gridFor(int64(n), blockThreads), blockThreads, 0, []uint64{uint64(n), order, rank})
	return rank, err
}

// keyArgs are the sort kernels' five words per key (rg_load_sort_keys); a
// Str key's column must hold views (strViewsOf).
func keyArgs(cols []*column, keys []gpu.SortKey) ([]uint64, error) {
	var args []uint64
	for _, k := range keys {
		if k.Col < 0 || k.Col >= len(cols) {
			return nil, fmt.Errorf("sort key column %d out of range (%d columns)", k.Col, len(cols))
		}
		c := cols[k.Col]
		var flags uint64
		if k.Descending {
			flags |= 1
		}
		if k.NullsFirst {
			flags |= 2
		}
		var chars uint64
		if c.t.Kind == gpu.Str {
			if !c.views || c.str == nil {
				return nil, fmt.Errorf("sort key column %d: str column without views", k.Col)
			}
			chars = c.str.ptr
		}
		args = append(args, c.data, c.valid, sortKind(c.t.Kind), flags, chars)
	}
	return args, nil
}

// sortInPasses sorts by more keys than a pass compares. The sort and the
// top-k are stable (rows that tie keep their order: the row index breaks
// ties), so sorting by the last keys first and by the first keys last
// orders the rows by all of them, as a least significant digit sort does
// by digits. Only the last pass keeps limit rows. TPC-DS sorts by up to
// 16 keys (q81).
func (d *Device) sortInPasses(ctx context.Context, in []gpu.Column, keys []gpu.SortKey, limit int) ([]gpu.Column, error) {
	cur := in
	var made []gpu.Column // the previous pass's output
	for hi := len(keys); hi > 0; hi -= maxSortKeys {
		lo := max(hi-maxSortKeys, 0)
		l := 0
		if lo == 0 {
			l = limit
		}
		out, err := d.Sort(ctx, cur, keys[lo:hi], l)
		releaseAll(made)
		if err != nil {
			return nil, err
		}
		cur, made = out, out
	}
	return cur, nil
}

// topK sorts the few rows that can be among the first limit: the survivors
// of topKCandidates, gathered, then rank-sorted.
func (d *Device) topK(ctx context.Context, in []gpu.Column, keys []gpu.SortKey, limit int) ([]gpu.Column, error) {
	cand, err := d.topKCandidates(ctx, in, keys, limit)
	if err != nil {
		return nil, fmt.Errorf("sort (top %d): %w", limit, err)
	}
	defer cand.Release()
	rows, err := d.Gather(ctx, in, cand, false)
	if err != nil {
		return nil, fmt.Errorf("sort (top %d): %w", limit, err)
	}
	defer func() {
		for _, c := range rows {
			c.Release()
		}
	}()
	return d.Sort(ctx, rows, keys, limit)
}

// topKCandidates returns, as an index column, at most topKThreshold rows
// (in their original order among equals) that include the first limit.
func (d *Device) topKCandidates(ctx context.Context, in []gpu.Column, keys []gpu.SortKey, limit int) (*column, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.watch(ctx)()
	if d.closed {
		return nil, fmt.Errorf("CUDA device is closed")
	}
	cols, err := d.asInputs(in)
	if err != nil {
		return nil, err
	}
	isKey := map[int]bool{} // only the keys are read here
	for _, k := range keys {
		isKey[k.Col] = true
	}
	cols, views, err := d.strViewsWhere(cols, func(i int) bool { return isKey[i] })
	if err != nil {
		return nil, err
	}
	defer views()
	if len(keys) > maxSortKeys {
		return nil, fmt.Errorf("sort on %d keys (at most %d a pass): %w", len(keys), maxSortKeys, gpu.ErrUnsupported)
	}
	kargs, err := keyArgs(cols, keys)
	if err != nil {
		return nil, err
	}
	tmp := &temps{d: d}
	defer tmp.release()
	m := cols[0].n
	ranges, err := d.sortRanges(m, len(keys), kargs, tmp)
	if err != nil {
		return nil, err
	}
	var list uint64 // 0: rows 0..m-1
	var topk *module
	if m > topKThreshold {
		if topk, err = d.loaded(&d.topk, topkFile); err != nil {
			return nil, err
		}
	}
	for m > topKThreshold {
		tiles := (m + topKTile - 1) / topKTile
		next := (tiles-1)*limit + min(limit, m-(tiles-1)*topKTile)
		buf, err := tmp.get(int64(next)*4, "top-k survivors")
		if err != nil {
			return nil, err
		}
		args := append([]uint64{uint64(m), uint64(len(keys)), uint64(limit), list, buf, ranges}, kargs...)
		if err := d.timedLaunch(topk, "rg_topk_block", min(tiles, d.sms*8), blockThreads, 0, args); err != nil {
			return nil, err
		}
		list, m = buf, next
	}
	out, err := d.newOutput(gpu.JoinIndexType, m, nil, "top-k survivors")
	if err != nil {
		return nil, err
	}
	if err := d.copyDtoD(out.data, list, int64(m)*4); err != nil {
		d.freeColumn(out)
		return nil, err
	}
	return out, nil
}
