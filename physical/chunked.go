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
	if err := r.runResident(ctx, c.Body, func(n Node) bool { return n == Node(c.Stream) }, given); err != nil {
		return nil, err
	}
	if r.st.Nodes != nil { // EXPLAIN ANALYZE: where the segments came from
		before := r.st.Scan
		defer func() {
			ns := r.nodeStats(c)
			ns.SegmentsCached += r.st.Scan.SegmentsCached - before.SegmentsCached
			ns.SegmentsRestored += r.st.Scan.SegmentsRestored - before.SegmentsRestored
			ns.SegmentsUploaded += r.st.Scan.SegmentsUploaded - before.SegmentsUploaded
			ns.BytesStreamed += r.st.Scan.BytesStreamed - before.BytesStreamed
		}()
	}
	var parts [][]gpu.Column
	defer func() { releaseParts(parts) }()
	err = r.eachSegment(ctx, c.Stream, c.SegmentRows, host, c.Body, given, func(sub *run, out []gpu.Column) error {
		// Body's root makes new columns (chunkplan.go: an aggregate or a
		// sort): they leave the segment's run for the caller.
		if err := sub.disown(out); err != nil {
			return fmt.Errorf("chunked %s: %w", errorText(c.Body), err)
		}
		parts = append(parts, out)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r.mergeParts(ctx, c.Body, c.Merge, c.Final, parts, "chunked "+c.Stream.Table)
}

// eachSegment runs body once per segment of stream's rows (held on the
// host in host, segRows rows a segment), each in a run of its own whose
// intermediates are freed before the next, with the outputs in given for
// the subtrees that do not read stream. use gets each segment's output
// before its run ends (sub.disown keeps columns past it).
//
// The next segment's columns are put on the device before a segment's
// run: a device that restores spilled columns beside its kernels (CUDA's
// copy stream) copies the one while it runs the other, and two segments
// are on the device at once.
func (r *run) eachSegment(ctx context.Context, stream *Scan, segRows int64, host []*hostEntry, body Node, given map[Node][]gpu.Column, use func(sub *run, out []gpu.Column) error) error {
	rows := host[0].rows // plans stream scans of at least one column
	fail := func(lo, hi int64, err error) error {
		return fmt.Errorf("segment of rows %d to %d of %s: %w", lo, hi, stream.Table, err)
	}
	next, err := r.segmentColumns(ctx, stream, segRows, host, 0, min(segRows, rows))
	if err != nil {
		return fail(0, min(segRows, rows), err)
	}
	defer func() { next.release() }()
	for lo := int64(0); lo == 0 || lo < rows; lo += segRows {
		hi := min(lo+segRows, rows)
		cur := next
		next = segmentCols{}
		if hi < rows {
			if next, err = r.segmentColumns(ctx, stream, segRows, host, hi, min(hi+segRows, rows)); err != nil {
				cur.release()
				return fail(hi, min(hi+segRows, rows), err)
			}
		}
		err := r.segment(ctx, stream, body, cur.cols, given, use)
		cur.release()
		if err != nil {
			return fail(lo, hi, err)
		}
	}
	return nil
}

// segmentCols are a segment's streamed columns on the device, with what
// ends their use.
type segmentCols struct {
	cols     []gpu.Column
	releases []func()
}

func (s segmentCols) release() {
	for _, release := range s.releases {
		release()
	}
}

// segmentColumns puts rows lo to hi of the streamed columns on the device
// (segmentColumn).
func (r *run) segmentColumns(ctx context.Context, stream *Scan, segRows int64, host []*hostEntry, lo, hi int64) (segmentCols, error) {
	var s segmentCols
	for i, e := range host {
		col, release, err := r.x.Cache.segmentColumn(ctx, r.x.Dev, e, stream.Types[i], segRows, lo/segRows, lo, hi, &r.st.Scan)
		if err != nil {
			s.release()
			return segmentCols{}, fmt.Errorf("%s.%s: %w", stream.Table, stream.Columns[i], err)
		}
		s.cols = append(s.cols, col)
		s.releases = append(s.releases, release)
		r.st.Scan.BytesScanned += gpu.ScanBytes(col) + charBytes(col)
	}
	return s, nil
}

// runResident runs, in r, every subtree of n that does not read leaf (a
// streamed scan, a partition's input), and records their outputs in given.
func (r *run) runResident(ctx context.Context, n Node, leaf func(Node) bool, given map[Node][]gpu.Column) error {
	for _, ch := range execChildren(n) {
		if _, ok := given[ch]; ok || leaf(ch) {
			continue // given to each part's run (a partitioned join's build side, run before)
		}
		if !reads(ch, leaf) {
			out, err := r.node(ctx, ch)
			if err != nil {
				return err
			}
			given[ch] = out
			continue
		}
		if err := r.runResident(ctx, ch, leaf, given); err != nil {
			return err
		}
	}
	return nil
}

// reads reports whether the run of n runs a node for which leaf is true.
func reads(n Node, leaf func(Node) bool) bool {
	if leaf(n) {
		return true
	}
	for _, ch := range execChildren(n) {
		if reads(ch, leaf) {
			return true
		}
	}
	return false
}

// segment runs body over a segment's streamed columns, cols, in a run of
// its own, and hands its output to use before the run's intermediates are
// freed.
func (r *run) segment(ctx context.Context, stream *Scan, body Node, cols []gpu.Column, given map[Node][]gpu.Column, use func(sub *run, out []gpu.Column) error) error {
	sub := r.subRun(given)
	sub.given[stream] = cols
	defer r.endSubRun(sub)
	out, err := sub.node(ctx, body)
	if err != nil {
		return err
	}
	return use(sub, out)
}

// arraySlice is rows lo to hi of a, sharing its buffers.
func arraySlice(a arrow.Array, lo, hi int64) arrow.Array {
	if lo == 0 && hi == int64(a.Len()) {
		a.Retain()
		return a
	}
	return array.NewSlice(a, lo, hi)
}

// mergeParts puts together the results of body's runs over parts of its
// input (segments, partitions): concatenated, then sorted again when body
// is a sort, or aggregated again by merge and made body's types by final
// (see Chunked); what names the work in errors.
func (r *run) mergeParts(ctx context.Context, body Node, merge, final *gpu.Pipeline, parts [][]gpu.Column, what string) ([]gpu.Column, error) {
	all := parts[0]
	if len(parts) > 1 {
		var err error
		if all, err = r.x.Dev.Concat(ctx, parts); err != nil {
			return nil, fmt.Errorf("%s: putting %d parts' results together: %w", what, len(parts), err)
		}
		r.keep(all)
	} else {
		r.keep(all)
		parts[0] = nil
	}
	if s, ok := body.(*Sort); ok {
		out, err := r.x.Dev.Sort(ctx, all, s.Keys, s.Limit)
		if err != nil {
			return nil, err
		}
		return r.keep(out), nil
	}
	if merge == nil {
		return all, nil
	}
	out, err := r.x.Dev.Run(ctx, merge, all)
	if err != nil {
		return nil, fmt.Errorf("%s: merging the parts' groups: %w", what, err)
	}
	r.keep(out)
	if final == nil {
		return out, nil
	}
	out, err = r.x.Dev.Run(ctx, final, out)
	if err != nil {
		return nil, err
	}
	return r.keep(out), nil
}

func releaseColumns(cols []gpu.Column) {
	for _, c := range cols {
		if c != nil {
			c.Release()
		}
	}
}

// releaseParts releases the column sets of parts' runs.
func releaseParts(parts [][]gpu.Column) {
	for _, cols := range parts {
		releaseColumns(cols)
	}
}

// releaseHeld releases host copies.
func releaseHeld(held []gpu.HostColumn) {
	for _, h := range held {
		if h != nil {
			h.Release()
		}
	}
}
