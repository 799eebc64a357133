package physical

import (
	"context"
	"slices"
	"sort"

	"github.com/rigel-db/rigel/gpu"
)

// Choosing chunked execution. Before a plan runs, PlanChunks estimates
// what its tables would take on the device resident (every scanned
// column, plain: rows x the type's width) and compares it with the
// device's memory budget (Executor.DeviceMemory, else the device's own
// memory). When the tables take more than residentShare of the budget,
// the largest scan that can stream is read a segment at a time (Chunked),
// then the next largest, until the rest fits. A scan can stream when the
// operators between it and the nearest aggregate (or sort with a limit)
// above it each give, for a segment of their input, the part of their
// output that segment makes:
//
//   - a filter and projection pipeline;
//   - a join on the side its type keeps whole (the left side of inner,
//     left, semi, anti and single joins, the right side of inner and
//     right joins): the other side runs once and stays on the device.
//
// The aggregate (or sort) is where the segments' results meet; strings in
// Arrow layout may reach it only from the sides that run once, not from
// the streamed scan (each segment's characters are its own). Where no
// scan can stream the plan runs resident as before, and the device's
// memory decides.

// residentShare: a plan's tables may take this part of the budget
// resident; the rest is the operators' working memory (hash tables,
// intermediates, results).
const residentShare = 2

// segmentShare: one segment of a streamed scan takes this part of the
// budget. Each segment costs the operators' launches and host waits again
// (a join's hash table is built per segment): at TPC-H SF10 under 2 GB, an
// eighth (16 segments of lineitem) left Q17 and Q21 waiting on the host
// for most of their time
// (bench/results/2026-11-28-h200-tpch-sf10-budget-2gb-v43.md).
const segmentShare = 4

// segmentRowGuess is the bytes a row of a segment is taken to hold
// (segmentRowsFor): TPC-H's lineitem scans read 20 to 60.
const segmentRowGuess = 64

// strSegmentRows bounds the segments of a scan that reads strings in
// Arrow layout: a segment's characters are one buffer with 32-bit offsets
// on the host (Arrow's) and on the device, 2 GB at most. At 2^23 rows that
// holds 256 bytes a row; TPC-H's longest strings (o_comment, l_comment)
// average under 50.
const strSegmentRows = 1 << 23

// minSegmentRows is the smallest segment: below it a segment's fixed
// costs (a launch per operator, a hash table per join) dominate.
const minSegmentRows = 1 << 12

// strRowGuess is the bytes a string in Arrow layout is guessed to take a
// row (its offset and its characters) before its column is read.
const strRowGuess = 40

// PlanChunks returns root with the scans that must stream wrapped in
// Chunked nodes (see above); root itself when everything fits or nothing
// can stream. Rewrites happen in place, as the plan's other device
// choices (ChooseStringLayouts).
func (x *Executor) PlanChunks(ctx context.Context, root Node) Node {
	budget := x.memoryBudget()
	rc, ok := x.Source.(RowCounter)
	if budget <= 0 || !ok {
		return root
	}
	rows, scans := scanRows(ctx, rc, root)
	walkPlan(root, func(n Node) {
		if slot, ok := n.(*PartitionSlot); ok && slot.side.Stream != nil {
			delete(rows, slot.side.Stream) // streamed by a partitioned join already
		}
	})
	scans = slices.DeleteFunc(scans, func(s *Scan) bool { return rows[s] == 0 })
	resident := func(s *Scan) int64 { return rows[s] * scanRowBytes(s) }
	var total int64
	for _, s := range scans {
		total += resident(s)
	}
	footprint := total
	sort.SliceStable(scans, func(i, j int) bool { return resident(scans[i]) > resident(scans[j]) })
	for _, s := range scans {
		if total <= budget/residentShare && !stringsTooLong(s, rows[s]) {
			continue
		}
		seg := segmentRowsFor(budget, s, rows[s])
		if seg >= rows[s] {
			continue // one segment is the whole table
		}
		top, parent, path := streamTop(root, s)
		if top == nil {
			continue
		}
		if _, ok := parent.(*Chunked); ok {
			// Streamed already by another scan: a second one would run its
			// segments again for every segment of the first.
			continue
		}
		c := &Chunked{Body: top, Stream: s, SegmentRows: seg, Rows: rows[s], Footprint: footprint, Budget: budget}
		if !c.plan() {
			continue
		}
		if parent == nil {
			root = c
		} else if !setChild(parent, top, c) {
			continue
		}
		unfold(path)
		total -= resident(s) - seg*scanRowBytes(s)
	}
	return root
}

// strLimitRowGuess is the bytes of characters a row of a string column
// is taken to hold when deciding whether the column can be read whole
// (stringsTooLong): more than TPC-H's longest average (o_comment, 49).
const strLimitRowGuess = 64

// stringsTooLong reports whether s, over rows rows, reads a string column
// in Arrow layout that is likely to hold more characters than one array
// addresses (2 GB, 32-bit offsets): such a scan streams, in segments of at
// most strSegmentRows, whatever the budget (TPC-H SF100's o_comment: 7.3
// GB, bench/results/2026-11-28-h200-tpch-sf100-budget-16gb-v52.md).
func stringsTooLong(s *Scan, rows int64) bool {
	return scansStr(s) && rows*strLimitRowGuess > 1<<31-1
}

// scanRows counts the rows of root's scans' tables, and lists those
// scans in the plan's order. A table the source cannot count (a client's
// temporary table) is left out of the estimates: the plan's scans fail,
// or not, with their own errors when it runs.
func scanRows(ctx context.Context, rc RowCounter, root Node) (map[*Scan]int64, []*Scan) {
	rows := map[*Scan]int64{}
	var scans []*Scan
	walkPlan(root, func(n Node) {
		s, ok := n.(*Scan)
		if !ok || rows[s] > 0 || len(s.Columns) == 0 {
			return
		}
		if nr, err := rc.Rows(ctx, s.Table); err == nil && nr > 0 {
			rows[s] = nr
			scans = append(scans, s)
		}
	})
	return rows, scans
}

// scansStr reports whether s reads a string column in Arrow layout.
func scansStr(s *Scan) bool { return holdsStr(s.Types) }

// holdsStr reports whether a column of types holds strings in Arrow
// layout: a column whose characters are each part's own (no device copies
// it to host memory, no merge puts two parts' together).
func holdsStr(types []gpu.Type) bool {
	for _, t := range types {
		if t.Kind == gpu.Str {
			return true
		}
	}
	return false
}

// scanRowBytes is one row of s's columns on the device, plain.
func scanRowBytes(s *Scan) int64 { return typesRowBytes(s.Types) }

// typesRowBytes is one row of columns of types on the device, plain.
func typesRowBytes(types []gpu.Type) int64 {
	var n int64
	for _, t := range types {
		if t.Kind == gpu.Str {
			n += strRowGuess
		} else {
			n += int64(t.Kind.Width())
		}
		if t.Nullable {
			n++
		}
	}
	return max(n, 1)
}

// segmentRowsFor is the rows of a segment of a table under budget: the
// segment holds budget/segmentShare bytes at segmentRowGuess bytes a row,
// whatever the scan's columns, so that every plan streaming the table cuts
// it alike (the host keeps each column's segments as the device held them,
// hostcolumns.go, for any plan to restore); a scan so wide that its
// segment would take more than a quarter of the budget takes halves; a
// scan of strings in Arrow layout takes at most strSegmentRows.
func segmentRowsFor(budget int64, s *Scan, rows int64) int64 {
	seg := budget / segmentShare / segmentRowGuess
	rowBytes := scanRowBytes(s)
	for seg > minSegmentRows && seg*rowBytes > budget/4 {
		seg /= 2
	}
	if scansStr(s) {
		seg = min(seg, strSegmentRows)
	}
	seg -= seg % minSegmentRows
	return min(max(seg, minSegmentRows), max(rows, 1))
}

// streamTop finds the node whose run can take s a segment at a time (the
// nearest aggregate or sort with a limit above s, reached through
// operators that stream), that node's parent (nil for the root) and the
// nodes from s up to it; nil when there is none.
func streamTop(root Node, s *Scan) (top, parent Node, path []Node) {
	tr := tracePlan(root)
	if tr.count[s] != 1 {
		return nil, nil, nil // a scan the plan reads twice streams in neither place
	}
	top, parent, path, met := tr.climb(s, false)
	if !met {
		return nil, nil, nil
	}
	return top, parent, path
}

// unfold runs the probes on path without their folds (probefold.go): a
// fold chooses at run time, from the other side's rows, where a side's
// filter runs, and a segment's run must take the streamed side through
// the nodes the plan shows.
func unfold(path []Node) {
	for _, n := range path {
		if p, ok := n.(*ProbePipeline); ok {
			p.fold = nil
		}
	}
}

type streamStep uint8

const (
	streamStops  streamStep = iota
	streamPasses            // a segment in, the segment's part out
	streamMeets             // the segments' results meet here
)

// streamsThrough says what p does with a segment of its child ch.
func streamsThrough(p, ch Node) streamStep {
	switch x := p.(type) {
	case *Pipeline:
		if x.Pipe.Sink == gpu.SinkAggregate {
			return streamMeets
		}
		return streamPasses
	case *Sort:
		if x.Limit > 0 {
			return streamMeets
		}
	case *Join:
		if x.Type.streamsSide(ch == x.Left) {
			return streamPasses
		}
	case *ProbePipeline:
		if !x.Join.Type.streamsSide(ch == x.Join.Left) {
			return streamStops
		}
		if x.Pipe.Sink == gpu.SinkAggregate {
			return streamMeets
		}
		return streamPasses
	case *CountJoin:
		if ch == x.Join.Left {
			return streamPasses // semi or anti: per left row
		}
	}
	return streamStops
}

// streamsSide reports whether a join of type t gives, for a segment of
// one side's rows (left when left is set) and all of the other's, the
// segment's part of its output.
func (t JoinType) streamsSide(left bool) bool {
	switch t {
	case JoinInner:
		return true
	case JoinLeft, JoinSemi, JoinAnti, JoinSingle:
		return left
	case JoinRight:
		return !left
	}
	return false // a full join's unmatched rows need both sides whole
}

// plan fills in how c's segments' results meet; false when they cannot
// (meetMerge).
func (c *Chunked) plan() bool {
	merge, final, ok := meetMerge(c.Body, false, !scansStr(c.Stream))
	c.Merge, c.Final = merge, final
	return ok
}

// mergeAggregates is the aggregate over partial results of p (its output
// columns, concatenated) that gives p's groups, and the projection that
// gives them p's types (nil when they have them already).
func mergeAggregates(p *gpu.Pipeline) (merge, final *gpu.Pipeline) {
	in := p.OutputTypes()
	nk := len(p.Keys)
	merge = &gpu.Pipeline{Inputs: in, Sink: gpu.SinkAggregate, GroupHint: p.GroupHint}
	for i, t := range in {
		merge.Project = append(merge.Project, gpu.Col(i, t))
	}
	for i := range nk {
		merge.Keys = append(merge.Keys, i)
	}
	casts := false
	for j, a := range p.Aggs {
		arg := nk + j
		switch a.Kind {
		case gpu.AggCountStar, gpu.AggCount:
			// Counts add up as decimals (AggSum of an integer), cast back.
			merge.Aggs = append(merge.Aggs, gpu.Agg{Kind: gpu.AggSum, Arg: arg,
				Type: gpu.Type{Kind: gpu.Decimal128, Precision: 38, Nullable: true}})
			casts = true
		case gpu.AggSum, gpu.AggMin, gpu.AggMax:
			merge.Aggs = append(merge.Aggs, gpu.Agg{Kind: a.Kind, Arg: arg, Type: a.Type})
		default:
			return nil, nil
		}
	}
	if !casts {
		return merge, nil
	}
	mt := merge.OutputTypes()
	final = &gpu.Pipeline{Inputs: mt, Sink: gpu.SinkMaterialize}
	for i, t := range mt {
		e := gpu.Col(i, t)
		if i >= nk {
			if a := p.Aggs[i-nk]; a.Kind == gpu.AggCountStar || a.Kind == gpu.AggCount {
				e = gpu.Call(gpu.OpCast, a.Type, e)
			}
		}
		final.Project = append(final.Project, e)
	}
	return merge, final
}

// walkPlan calls fn on every node of the tree under root (Children),
// parents first.
func walkPlan(root Node, fn func(Node)) {
	fn(root)
	for _, ch := range root.Children() {
		walkPlan(ch, fn)
	}
}

// setChild puts new where old is among parent's children; false when
// parent is a node this rewrite does not change.
func setChild(parent, old, new Node) bool {
	swap := func(at *Node) bool {
		if *at == old {
			*at = new
			return true
		}
		return false
	}
	switch p := parent.(type) {
	case *Pipeline:
		return swap(&p.Input)
	case *Sort:
		return swap(&p.Input)
	case *Window:
		return swap(&p.Input)
	case *Slice:
		return swap(&p.Input)
	case *Retype:
		return swap(&p.Input)
	case *Join:
		return swap(&p.Left) || swap(&p.Right)
	case *ProbePipeline:
		if p.fold != nil {
			return false // its folded side's filter is run from the fold
		}
		return swap(&p.Join.Left) || swap(&p.Join.Right)
	case *CountJoin:
		return swap(&p.Join.Left) || swap(&p.Join.Right)
	case *Union:
		for i := range p.Inputs {
			if swap(&p.Inputs[i]) {
				return true
			}
		}
	case *Fallback:
		for i := range p.Inputs {
			if swap(&p.Inputs[i]) {
				return true
			}
		}
	case *Chunked:
		return swap(&p.Body)
	}
	return false // PartitionedJoin: its body runs a partition at a time
}
