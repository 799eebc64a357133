package physical

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/gpu"
)

// Chunked runs Body once per segment of Stream's rows and puts the
// segments' results together: the way a plan runs when its tables do not
// fit in the device's memory budget beside each other (chunkplan.go
// decides where). Stream's columns are held in host memory
// (hostcolumns.go) and put on the device a segment at a time (uploaded,
// restored from a spilled copy, or found in the device cache); every
// other subtree of Body (a join's other side) runs once, before the first
// segment, and stays on the device. Body reduces what it reads (an aggregate, or a sort
// that keeps its first rows), so that the segments' results are small:
//
//   - an aggregate runs per segment into partial groups, which Merge
//     aggregates again (sums of sums and of counts, minimums of minimums)
//     and Final turns back into Body's types (a count summed as a decimal
//     becomes an int64 again);
//   - a sort with a limit keeps each segment's first rows, and the same
//     sort over all of them keeps the first of those.
type Chunked struct {
	Body        Node
	Stream      *Scan
	SegmentRows int64
	// Rows is Stream's table rows when the plan was made, Footprint the
	// bytes the plan's tables would take resident and Budget the device
	// memory they had to fit (for EXPLAIN).
	Rows, Footprint, Budget int64
	Merge, Final            *gpu.Pipeline
}

func (c *Chunked) OutputTypes() []gpu.Type { return c.Body.OutputTypes() }

// Children is Body, for EXPLAIN and plan walks; the run does not run it
// as a child (execChildren): run.chunked does, a segment at a time.
func (c *Chunked) Children() []Node     { return []Node{c.Body} }
func (c *Chunked) execChildren() []Node { return nil }

func (c *Chunked) Describe() string {
	segs := (c.Rows + c.SegmentRows - 1) / max(c.SegmentRows, 1)
	return fmt.Sprintf("Chunked scan of %s in %d segment(s) of %d rows (its tables would take %s resident, the device budget is %s)",
		c.Stream.Table, max(segs, 1), c.SegmentRows, gpu.SizeText(c.Footprint), gpu.SizeText(c.Budget))
}

// chunked runs c: Body per segment, then the merge.
func (r *run) chunked(ctx context.Context, c *Chunked) ([]gpu.Column, error) {
	host, err := r.x.Cache.hostColumns(ctx, r.x.Source, c.Stream, c.SegmentRows)
	if err != nil {
		return nil, err
	}
	defer r.x.Cache.unpinHost(host)
	given := map[Node][]gpu.Column{}
	if err := r.runResident(ctx, c.Body, c.Stream, given); err != nil {
		return nil, err
	}
	if r.st.Nodes != nil { // EXPLAIN ANALYZE: where the segments came from
		before := r.st.Scan
		defer func() {
			ns := r.st.Nodes[c]
			if ns == nil {
				ns = &NodeStats{}
				r.st.Nodes[c] = ns
			}
			ns.SegmentsCached += r.st.Scan.SegmentsCached - before.SegmentsCached
			ns.SegmentsRestored += r.st.Scan.SegmentsRestored - before.SegmentsRestored
			ns.SegmentsUploaded += r.st.Scan.SegmentsUploaded - before.SegmentsUploaded
			ns.BytesStreamed += r.st.Scan.BytesStreamed - before.BytesStreamed
		}()
	}
	rows := host[0].rows // PlanChunks streams scans of at least one column
	var parts [][]gpu.Column
	defer func() {
		for _, p := range parts {
			releaseColumns(p)
		}
	}()
	for lo := int64(0); lo == 0 || lo < rows; lo += c.SegmentRows {
		hi := min(lo+c.SegmentRows, rows)
		out, err := r.segment(ctx, c, host, lo, hi, given)
		if err != nil {
			return nil, fmt.Errorf("segment of rows %d to %d of %s: %w", lo, hi, c.Stream.Table, err)
		}
		parts = append(parts, out)
	}
	return r.mergeChunks(ctx, c, parts)
}

// runResident runs, in r, every subtree of n that does not read stream,
// and records their outputs in given.
func (r *run) runResident(ctx context.Context, n Node, stream *Scan, given map[Node][]gpu.Column) error {
	for _, ch := range execChildren(n) {
		if !reads(ch, stream) {
			out, err := r.node(ctx, ch)
			if err != nil {
				return err
			}
			given[ch] = out
			continue
		}
		if err := r.runResident(ctx, ch, stream, given); err != nil {
			return err
		}
	}
	return nil
}

// reads reports whether the run of n runs s.
func reads(n Node, s *Scan) bool {
	if n == Node(s) {
		return true
	}
	for _, ch := range execChildren(n) {
		if reads(ch, s) {
			return true
		}
	}
	return false
}

// segment puts rows lo to hi of the streamed columns on the device and
// runs Body over them in a run of its own, whose intermediates are freed
// before the next segment; it returns Body's output, owned by the caller.
func (r *run) segment(ctx context.Context, c *Chunked, host []*hostEntry, lo, hi int64, given map[Node][]gpu.Column) ([]gpu.Column, error) {
	cols := make([]gpu.Column, 0, len(host))
	releases := make([]func(), 0, len(host))
	defer func() {
		for _, release := range releases {
			release()
		}
	}()
	for i, e := range host {
		col, release, err := r.x.Cache.segmentColumn(ctx, r.x.Dev, e, c.Stream.Types[i], c.SegmentRows, lo/c.SegmentRows, lo, hi, &r.st.Scan)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", c.Stream.Table, c.Stream.Columns[i], err)
		}
		cols = append(cols, col)
		releases = append(releases, release)
		r.st.Scan.BytesScanned += gpu.ScanBytes(col) + charBytes(col)
	}
	sub := &run{x: r.x, st: r.st, given: map[Node][]gpu.Column{c.Stream: cols}}
	for n, out := range given {
		sub.given[n] = out
	}
	defer func() {
		r.pins = append(r.pins, sub.pins...) // the cache's columns stay pinned until the run ends
		sub.pins = nil
		sub.releaseAll()
	}()
	out, err := sub.node(ctx, c.Body)
	if err != nil {
		return nil, err
	}
	// Body's root makes new columns (chunkplan.go: an aggregate or a
	// sort): they leave the segment's run for the caller.
	mine := map[gpu.Column]bool{}
	for _, col := range out {
		mine[col] = true
	}
	kept := sub.owned[:0]
	for _, col := range sub.owned {
		if !mine[col] {
			kept = append(kept, col)
		}
	}
	if len(sub.owned)-len(kept) != len(out) {
		sub.owned = append(kept, out...)
		return nil, fmt.Errorf("chunked %s: the body's output is not its own columns", errorText(c.Body))
	}
	sub.owned = kept
	return out, nil
}

// arraySlice is rows lo to hi of a, sharing its buffers.
func arraySlice(a arrow.Array, lo, hi int64) arrow.Array {
	if lo == 0 && hi == int64(a.Len()) {
		a.Retain()
		return a
	}
	return array.NewSlice(a, lo, hi)
}

// mergeChunks puts the segments' results together (see Chunked).
func (r *run) mergeChunks(ctx context.Context, c *Chunked, parts [][]gpu.Column) ([]gpu.Column, error) {
	all := parts[0]
	if len(parts) > 1 {
		var err error
		if all, err = r.x.Dev.Concat(ctx, parts); err != nil {
			return nil, fmt.Errorf("chunked %s: putting %d segments' results together: %w", c.Stream.Table, len(parts), err)
		}
		r.keep(all)
	} else {
		r.keep(all)
		parts[0] = nil
	}
	if s, ok := c.Body.(*Sort); ok {
		out, err := r.x.Dev.Sort(ctx, all, s.Keys, s.Limit)
		if err != nil {
			return nil, err
		}
		return r.keep(out), nil
	}
	out, err := r.x.Dev.Run(ctx, c.Merge, all)
	if err != nil {
		return nil, fmt.Errorf("chunked %s: merging the segments' groups: %w", c.Stream.Table, err)
	}
	r.keep(out)
	if c.Final == nil {
		return out, nil
	}
	final, err := r.x.Dev.Run(ctx, c.Final, out)
	if err != nil {
		return nil, err
	}
	return r.keep(final), nil
}

func releaseColumns(cols []gpu.Column) {
	for _, c := range cols {
		if c != nil {
			c.Release()
		}
	}
}
