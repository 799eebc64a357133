package physical

import (
	"context"

	"github.com/rigel-db/rigel/gpu"
)

// Choosing partitioned joins. Before a plan runs (and before PlanChunks),
// PlanPartitions estimates each join's inputs from the tables' rows (an
// upper bound: filters are taken to keep every row) and the inputs'
// widths. A join whose build side (Right), with its hash table, would take
// more than residentShare of the device's memory budget runs partitioned
// (PartitionedJoin): both sides cut by a hash of the first key pair into
// enough partitions that one partition of both, and the hash table, take
// about a partitionShare of the budget. The join and the operators above it
// up to the nearest aggregate (or sort with a limit) run per partition, as
// a streamed scan's segments run (chunkplan.go), and the partitions'
// results meet there; where no such node is above the join, they are put
// together as they are.
//
// A side whose plan reads a scan that can stream to the side's root (the
// same operators as for a Chunked) reads its largest such scan a segment
// at a time while it is cut. Joins inside a partitioned join's sides are
// left as they are.

// hashTableShare: a join's hash table is taken to take as much as its
// build side's columns.
const hashTableShare = 2

// partitionShare: one partition of a join's inputs, with its hash table,
// is planned to take this part of the budget. The join's run takes about
// as much again (its pairs, the gathered columns), and the column cache
// may hold half of the budget beside it: on the host device, TPC-H Q13 at
// SF1 under a 64 MB budget ran out of memory with a quarter
// (rigel query --device host --device-memory 64MB, conformance/tpch/queries/q13.sql).
const partitionShare = 8

// maxPartitions bounds a partitioned join's partitions: each costs a
// filter over every segment of both sides and a run of the join.
const maxPartitions = 64

// PlanPartitions returns root with the joins whose inputs do not fit the
// device's memory budget made PartitionedJoins (see above); root itself
// when every join fits, or on a device that cannot hold columns in host
// memory (gpu.Spiller). Rewrites happen in place, as PlanChunks's.
func (x *Executor) PlanPartitions(ctx context.Context, root Node) Node {
	budget := x.memoryBudget()
	rc, ok := x.Source.(RowCounter)
	if _, spills := x.Dev.(gpu.Spiller); budget <= 0 || !ok || !spills {
		return root
	}
	rows, _ := scanRows(ctx, rc, root)
	est := &estimator{rows: rows}
	var joins []Node
	walkPlan(root, func(n Node) {
		if joinOf(n) != nil {
			joins = append(joins, n)
		}
	})
	inside := map[Node]bool{} // nodes under a partitioned join's sides
	for _, j := range joins {
		if inside[j] {
			continue
		}
		pj, parent, path := x.partitionJoin(root, j, est, budget)
		if pj == nil {
			continue
		}
		if parent == nil {
			root = pj
		} else if !setChild(parent, pj.Body, pj) {
			continue
		}
		unfold(path)
		jn := joinOf(j)
		jn.Left, jn.Right = pj.Sides[0].Slot, pj.Sides[1].Slot
		for _, side := range pj.Sides {
			walkPlan(side.Input, func(n Node) { inside[n] = true })
		}
	}
	return root
}

// memoryBudget is the device memory plans must fit: Executor.DeviceMemory,
// else the device's own.
func (x *Executor) memoryBudget() int64 {
	if x.DeviceMemory > 0 || x.Dev == nil {
		return x.DeviceMemory
	}
	return x.Dev.Info().TotalMemory
}

// joinOf is the Join that n runs (nil when n is no join).
func joinOf(n Node) *Join {
	switch x := n.(type) {
	case *Join:
		return x
	case *ProbePipeline:
		return x.Join
	case *CountJoin:
		return x.Join
	}
	return nil
}

// partitionJoin makes the PartitionedJoin that j would run as (its sides
// not yet replaced by slots in j), with the node it takes the place of
// among its parent's children and the nodes from j up to where the
// partitions meet; nil when j fits or cannot be partitioned.
func (x *Executor) partitionJoin(root, j Node, est *estimator, budget int64) (pj *PartitionedJoin, parent Node, path []Node) {
	jn := joinOf(j)
	if len(jn.LeftKeys) == 0 || !partitionable(jn) {
		return nil, nil, nil
	}
	left, right := est.bytes(jn.Left), est.bytes(jn.Right)
	tr := tracePlan(root)
	if left <= 0 || right <= 0 || right*hashTableShare <= budget/residentShare && !tr.mustStream(jn.Right, est) {
		return nil, nil, nil
	}
	top, parent, path := tr.meetAbove(j)
	if top == nil {
		return nil, nil, nil
	}
	if jn.Type.streamsSide(false) && left*hashTableShare <= budget/residentShare {
		s, _ := tr.largestStream(jn.Right, est)
		if _, _, meets := meetMerge(top, false, s != nil && !scansStr(s)); meets && est.rows[s]*scanRowBytes(s) >= right {
			// The build side streams through the join to where segments
			// meet, the probe side fits: a Chunked scan (PlanChunks) runs
			// the join per segment without holding either side in host
			// memory. At TPC-H SF10 under 2 GB, partitioning these joins
			// instead (Q3, Q5, Q7 to Q9) made the hot geomean 6.5x DuckDB
			// in place of 26x (bench/results/2026-11-28-h200-tpch-sf10-budget-2gb-v50-partitioned.md).
			return nil, nil, nil
		}
	}
	merge, final, ok := meetMerge(top, true, false) // partitionable: no strings in Arrow layout
	if !ok {
		return nil, nil, nil
	}
	parts := (left + right*hashTableShare + budget/partitionShare - 1) / max(budget/partitionShare, 1)
	pj = &PartitionedJoin{
		Body:  top,
		Join:  j,
		Parts: min(powerOfTwoAtLeast(max(parts, 2)), maxPartitions),
		Merge: merge, Final: final,
		Bytes: left + right, ProbeBytes: left, Budget: budget,
	}
	for i, in := range []Node{jn.Left, jn.Right} {
		side := &PartitionSide{Input: in, Key: jn.LeftKeys[0], left: i == 0}
		if i == 1 {
			side.Key = jn.RightKeys[0]
		}
		side.Slot = &PartitionSlot{side: side}
		if s, spath := tr.largestStream(in, est); s != nil {
			if seg := segmentRowsFor(budget, s, est.rows[s]); seg < est.rows[s] {
				side.Stream, side.SegmentRows, side.Rows = s, seg, est.rows[s]
				unfold(spath)
			}
		}
		pj.Sides[i] = side
	}
	return pj, parent, path
}

// partitionable reports whether j's inputs can be cut by its first key
// pair: plain integer keys (whose values, cast to int64, hash alike on
// both sides), and no strings in Arrow layout on either side (a column
// the devices do not copy into host memory).
func partitionable(j *Join) bool {
	lt, rt := j.Left.OutputTypes(), j.Right.OutputTypes()
	for _, t := range []gpu.Type{lt[j.LeftKeys[0]], rt[j.RightKeys[0]]} {
		switch t.Kind {
		case gpu.Int8, gpu.Int16, gpu.Int32, gpu.Int64:
		default:
			return false // a decimal's cast to int64 rounds, and may overflow
		}
	}
	return !holdsStr(lt) && !holdsStr(rt)
}

// planTrace is a plan's nodes' parents and how many times each is
// reached (a node two parents share is reached twice).
type planTrace struct {
	parents map[Node]Node
	count   map[Node]int
}

func tracePlan(root Node) *planTrace {
	tr := &planTrace{parents: map[Node]Node{}, count: map[Node]int{}}
	walkPlan(root, func(n Node) {
		tr.count[n]++
		for _, ch := range n.Children() {
			tr.parents[ch] = n
		}
	})
	return tr
}

// meetAbove finds where the partitions of j's output meet: j itself when
// it aggregates, else the nearest aggregate or sort with a limit above j
// reached through operators that pass a part of their input on
// (streamsThrough), else the last such operator; with its parent (nil for
// the root) and the nodes from j up to it. Nil when a node on the way is
// shared with another part of the plan, which would run the rewritten
// join too.
func (tr *planTrace) meetAbove(j Node) (top, parent Node, path []Node) {
	if p, ok := j.(*ProbePipeline); ok && p.Pipe.Sink == gpu.SinkAggregate {
		if tr.count[j] != 1 {
			return nil, nil, nil
		}
		return j, tr.parents[j], []Node{j}
	}
	top, parent, path, _ = tr.climb(j, true)
	return top, parent, path
}

// climb goes up from n through the operators that pass a part of their
// input on (streamsThrough) to the first where parts meet (met), or to
// the last before one that stops them or the root (not met); it returns
// that node, its parent (nil for the root) and the nodes from n up to it.
// With unshared, a node reached twice in the plan on the way stops the
// climb with nil.
func (tr *planTrace) climb(n Node, unshared bool) (top, parent Node, path []Node, met bool) {
	cur := n
	for {
		if unshared && tr.count[cur] != 1 {
			return nil, nil, nil, false
		}
		path = append(path, cur)
		p, ok := tr.parents[cur]
		if !ok {
			return cur, nil, path, false
		}
		switch streamsThrough(p, cur) {
		case streamStops:
			return cur, p, path, false
		case streamMeets:
			if unshared && tr.count[p] != 1 {
				return nil, nil, nil, false
			}
			return p, tr.parents[p], append(path, p), true
		}
		cur = p
	}
}

// mustStream reports whether side reads a scan that cannot be read whole
// (stringsTooLong) and can stream up to side: only the join's partitions
// can then take it, a segment at a time.
func (tr *planTrace) mustStream(side Node, est *estimator) bool {
	s, _ := tr.largestStream(side, est)
	return s != nil && stringsTooLong(s, est.rows[s])
}

// largestStream is the largest scan under side whose segments can pass
// up to side itself, with the nodes from it up to side; nil when none can.
func (tr *planTrace) largestStream(side Node, est *estimator) (*Scan, []Node) {
	var best *Scan
	var bestPath []Node
	walkPlan(side, func(n Node) {
		s, ok := n.(*Scan)
		if !ok || est.rows[s] == 0 || tr.count[s] != 1 {
			return
		}
		if best != nil && est.rows[s]*scanRowBytes(s) <= est.rows[best]*scanRowBytes(best) {
			return
		}
		path := []Node{s}
		for cur := Node(s); cur != side; {
			p := tr.parents[cur]
			if p == nil || tr.count[p] != 1 || streamsThrough(p, cur) != streamPasses {
				return
			}
			path = append(path, p)
			cur = p
		}
		best, bestPath = s, path
	})
	return best, bestPath
}

// estimator bounds a node's output from its tables' rows.
type estimator struct{ rows map[*Scan]int64 }

// bytes is an upper estimate of n's output on the device, 0 when unknown.
func (e *estimator) bytes(n Node) int64 {
	return e.outRows(n) * typesRowBytes(n.OutputTypes())
}

// outRows is an upper estimate of n's rows (joins on keys taken to match
// a row at most once from their larger side), 0 when unknown.
func (e *estimator) outRows(n Node) int64 {
	switch x := n.(type) {
	case *Scan:
		return e.rows[x]
	case *Values:
		return int64(len(x.Rows))
	case *Pipeline:
		if x.Pipe.Sink == gpu.SinkAggregate && len(x.Pipe.Keys) == 0 {
			return 1
		}
		return e.outRows(x.Input)
	case *Window:
		return e.outRows(x.Input)
	case *Sort:
		if rows := e.outRows(x.Input); x.Limit > 0 {
			return min(rows, int64(x.Limit))
		} else {
			return rows
		}
	case *Union:
		var sum int64
		for _, in := range x.Inputs {
			r := e.outRows(in)
			if r == 0 {
				return 0
			}
			sum += r
		}
		return sum
	}
	if j := joinOf(n); j != nil {
		l, r := e.outRows(j.Left), e.outRows(j.Right)
		if l == 0 || r == 0 {
			return 0
		}
		switch j.Type {
		case JoinInner:
			if len(j.LeftKeys) == 0 {
				return l * r
			}
			return max(l, r)
		case JoinRight:
			return r
		case JoinFull:
			return l + r
		}
		return l
	}
	return 0
}

// partitionCut is how a side's output (columns of types) is cut into
// parts partitions by the hash of its column key: hash computes each
// row's partition, once, and keep[k], over the columns and that
// partition, keeps the columns' rows of partition k (and, in the first,
// those whose key is null).
type partitionCut struct {
	hash *gpu.Pipeline
	keep []*gpu.Pipeline
}

func newPartitionCut(types []gpu.Type, key, parts int) *partitionCut {
	kt := types[key]
	var x *gpu.Expr = gpu.Col(key, kt)
	i64 := gpu.Type{Kind: gpu.Int64, Nullable: kt.Nullable}
	if kt.Kind != gpu.Int64 {
		x = gpu.Call(gpu.OpCast, i64, x)
	}
	c := &partitionCut{hash: &gpu.Pipeline{Inputs: types, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{
		gpu.Call(gpu.OpBitAnd, i64, partitionHash(x), gpu.Const(i64, gpu.Value{I64: int64(parts - 1)})),
	}}}
	withHash := append(append([]gpu.Type{}, types...), i64)
	h := gpu.Col(len(types), i64)
	for k := range parts {
		p := &gpu.Pipeline{Inputs: withHash, Sink: gpu.SinkMaterialize}
		for i, t := range types {
			p.Project = append(p.Project, gpu.Col(i, t))
		}
		b := gpu.Type{Kind: gpu.Bool, Nullable: kt.Nullable}
		p.Filter = gpu.Call(gpu.OpEq, b, h, gpu.Const(i64, gpu.Value{I64: int64(k)}))
		if k == 0 && kt.Nullable {
			p.Filter = gpu.Call(gpu.OpOr, b, p.Filter, gpu.Call(gpu.OpIsNull, gpu.Type{Kind: gpu.Bool}, gpu.Col(key, kt)))
		}
		c.keep = append(c.keep, p)
	}
	return c
}

// partitionHash mixes the bits of x (an int64) so that its low bits
// spread keys of any pattern evenly (sequential, strided, TPC-H's sparse
// order keys): xor-shifts, in the IR's wrapping shifts, because its
// multiply checks overflow. Tested for balance in TestPartitionHashSpreads.
func partitionHash(x *gpu.Expr) *gpu.Expr {
	t := x.Type
	shift := func(op gpu.Op, h *gpu.Expr, n int32) *gpu.Expr {
		return gpu.Call(gpu.OpBitXor, t, h, gpu.Call(op, t, h, gpu.Const(gpu.Type{Kind: gpu.Int32}, gpu.Value{I64: int64(n)})))
	}
	h := shift(gpu.OpShrU, x, 33)
	h = shift(gpu.OpShl, h, 21)
	h = shift(gpu.OpShrU, h, 35)
	h = shift(gpu.OpShl, h, 4)
	return shift(gpu.OpShrU, h, 29)
}

// meetMerge is how the results of body's runs over parts of its input
// meet (mergeParts): for an aggregate the aggregate that merges its
// partial groups (and the projection back to its types); for a sort with a
// limit nothing (sorted again); for any other body, when concat allows,
// nothing (put together as they are). false when they cannot meet: an
// aggregate that does not merge so, or strings in Arrow layout unless
// sharedStr says every part's come from one upload. A device's strings in
// Arrow layout are never computed, only passed on (gpu.CheckStrUses), as
// views of the characters they were uploaded with, and the devices put
// together only views of one upload (CUDA's Concat); so where the parts
// stream a scan that reads none, the strings they hold are the other
// sides', which run once for all the parts.
func meetMerge(body Node, concat, sharedStr bool) (merge, final *gpu.Pipeline, ok bool) {
	if !sharedStr && holdsStr(body.OutputTypes()) {
		return nil, nil, false
	}
	var p *gpu.Pipeline
	switch x := body.(type) {
	case *Sort:
		return nil, nil, x.Limit > 0 || concat
	case *Pipeline:
		p = x.Pipe
	case *ProbePipeline:
		p = x.Pipe
	}
	if p == nil || p.Sink != gpu.SinkAggregate {
		return nil, nil, concat
	}
	merge, final = mergeAggregates(p)
	return merge, final, merge != nil
}
