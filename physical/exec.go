package physical

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/internal/ipcfiles"
)

// Executor runs physical plans on one device, reading tables through a
// source and keeping their columns in a cache.
type Executor struct {
	Dev    gpu.Device
	Source TableSource
	Cache  *ColumnCache
	// SQL runs Fallback nodes on the host database; nil: a plan with one
	// fails as unsupported.
	SQL SQLRunner
	// Files says which files ArrowFiles nodes may read; the zero value
	// allows none.
	Files ipcfiles.Access
	// DeviceMemory is the device memory a plan may use (bytes; 0: the
	// device's own, gpu.Info.TotalMemory): PlanPartitions partitions the
	// joins and PlanChunks streams the tables of a plan that would not
	// fit in it (partitionplan.go, chunkplan.go).
	DeviceMemory int64

	foreseeState // the plans whose kernels were foreseen (precompile.go)
}

// RunStats says what one run did.
type RunStats struct {
	Scan      ScanStats
	Device    gpu.Stats
	ExecNanos int64 // wall time of the run, download included
	// OpNanos is the wall time per operator kind (OpKinds), each node's
	// own work only.
	OpNanos map[string]int64
	// Nodes is what each node of the plan did itself, in a run under
	// WithAnalysis (EXPLAIN ANALYZE); nil otherwise.
	Nodes map[Node]*NodeStats
}

// NodeStats is one node's own work in a run, its inputs' not counted: its
// time and rows, and from the device's counters read around it, its
// kernel launches, the pipelines that ran on the precompiled interpreter,
// the fused joins that gave way to the composed join, and the time it
// stood waiting for the compiler.
type NodeStats struct {
	Nanos                                               int64
	Rows                                                int64 // its output's
	Launches, ProgramRuns, FusedDeferred, CompileWaitNs int64
	// A Chunked node's column segments by where they came from (the
	// device cache, a spilled copy, the rows as read) and the bytes that
	// crossed the link for them.
	SegmentsCached, SegmentsRestored, SegmentsUploaded, BytesStreamed int64
	// A PartitionedJoin's partitions (1: its build side fit whole) and
	// the bytes of its inputs it held in host memory.
	Partitions     int
	PartitionBytes int64
}

// String is the node's line in EXPLAIN ANALYZE.
func (ns *NodeStats) String() string {
	s := fmt.Sprintf("%.3f ms, %d rows", float64(ns.Nanos)/1e6, ns.Rows)
	if ns.Launches > 0 {
		s += ", " + count(ns.Launches, "launch", "launches")
	}
	if ns.ProgramRuns > 0 {
		s += ", " + count(ns.ProgramRuns, "pipeline", "pipelines") + " on the precompiled interpreter"
	}
	if ns.FusedDeferred > 0 {
		s += ", " + count(ns.FusedDeferred, "fused join", "fused joins") + " as the composed join"
	}
	if ns.CompileWaitNs > 0 {
		s += fmt.Sprintf(", waited %.3f ms for the compiler", float64(ns.CompileWaitNs)/1e6)
	}
	if n := ns.SegmentsCached + ns.SegmentsRestored + ns.SegmentsUploaded; n > 0 {
		s += fmt.Sprintf(", %s: %d in the device cache, %d restored from host memory, %d uploaded (%.1f MB over the link)",
			count(n, "column segment", "column segments"), ns.SegmentsCached, ns.SegmentsRestored, ns.SegmentsUploaded, float64(ns.BytesStreamed)/1e6)
	}
	switch {
	case ns.Partitions == 1:
		s += fmt.Sprintf(", its build side fit whole (%.1f MB)", float64(ns.PartitionBytes)/1e6)
	case ns.Partitions > 1:
		s += fmt.Sprintf(", ran in %d partitions (%.1f MB of its inputs held in host memory)", ns.Partitions, float64(ns.PartitionBytes)/1e6)
	}
	return s
}

func count(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// analysisKey marks a context whose runs record the device's counters per
// node (WithAnalysis).
type analysisKey struct{}

// WithAnalysis returns a context under which Executor.Run records, for
// every node, what the device did for it (NodeStats): reading the
// device's counters twice a node costs host time (a lock, and settling
// kernel timers), which only EXPLAIN ANALYZE pays.
func WithAnalysis(ctx context.Context) context.Context {
	return context.WithValue(ctx, analysisKey{}, true)
}

// OpKinds lists RunStats.OpNanos keys in plan order, for reports.
var OpKinds = []string{"scan", "filter/project", "join", "aggregate", "sort", "window", "fallback", "other", "download"}

func opKind(n Node) string {
	switch x := n.(type) {
	case *Scan, *ArrowFiles:
		return "scan"
	case *Pipeline:
		if x.Pipe.Sink == gpu.SinkAggregate {
			return "aggregate"
		}
		return "filter/project"
	case *Sort:
		return "sort"
	case *Window:
		return "window"
	case *Join, *ProbePipeline, *CountJoin:
		return "join"
	case *Fallback:
		return "fallback"
	}
	return "other"
}

// Run executes the plan and returns its result as one Arrow record whose
// columns carry names (which must match the root's width).
func (x *Executor) Run(ctx context.Context, root Node, names []string) (arrow.RecordBatch, *RunStats, error) {
	start := time.Now()
	st := &RunStats{OpNanos: map[string]int64{}}
	if ctx.Value(analysisKey{}) != nil {
		st.Nodes = map[Node]*NodeStats{}
	}
	x.Dev.ResetStats()
	r := &run{x: x, st: st}
	defer r.releaseAll()

	var retype *Retype
	if rt, ok := root.(*Retype); ok {
		retype, root = rt, rt.Input
	}
	var slice *Slice
	if s, ok := root.(*Slice); ok {
		slice, root = s, s.Input
	}
	ran, done := context.WithCancel(ctx)
	defer done()
	if err := r.precompile(ctx, ran, root); err != nil {
		return nil, nil, err
	}
	r.shared = sharedNodes(root)
	cols, err := r.node(ctx, root)
	if err != nil {
		return nil, nil, err
	}
	types := root.OutputTypes()
	if len(names) != len(cols) {
		return nil, nil, fmt.Errorf("result has %d columns but %d names", len(cols), len(names))
	}
	fields := make([]arrow.Field, len(cols))
	arrays := make([]arrow.Array, len(cols))
	defer func() {
		for _, a := range arrays {
			if a != nil {
				a.Release()
			}
		}
	}()
	downloadStart := time.Now()
	if bd, ok := x.Dev.(gpu.BatchDownloader); ok {
		all, err := bd.DownloadAll(ctx, cols)
		if err != nil {
			return nil, nil, fmt.Errorf("download result: %w", err)
		}
		copy(arrays, all)
	} else {
		for i, c := range cols {
			a, err := x.Dev.Download(ctx, c)
			if err != nil {
				return nil, nil, fmt.Errorf("download result column %s: %w", names[i], err)
			}
			arrays[i] = a
		}
	}
	if retype != nil {
		if err := retypeArrays(ctx, retype, arrays); err != nil {
			return nil, nil, err
		}
	}
	for i, a := range arrays {
		fields[i] = arrow.Field{Name: names[i], Type: a.DataType(), Nullable: types[i].Nullable}
	}
	st.OpNanos["download"] += time.Since(downloadStart).Nanoseconds()
	rows := int64(0)
	if len(arrays) > 0 {
		rows = int64(arrays[0].Len())
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrays, rows)
	if slice != nil {
		sliced := rec.NewSlice(sliceRows(slice, rows))
		rec.Release()
		rec = sliced
	}
	st.Device = x.Dev.Stats()
	st.ExecNanos = time.Since(start).Nanoseconds()
	return rec, st, nil
}

// run holds the intermediates of one execution, freed at its end.
type run struct {
	x     *Executor
	st    *RunStats
	owned []gpu.Column
	// pins are the cached table columns the run's scans use: pinned so
	// that eviction cannot free them before the run ends.
	pins []*cacheEntry
	// scanned are the scans loaded before the run (precompile.go).
	scanned map[*Scan][]gpu.Column
	// given are nodes whose output the run of a part of a node's work is
	// given (subRun): a streamed scan's segment, a partition of a join's
	// side, and the subtrees run once for every part.
	given map[Node][]gpu.Column
	// shared are the nodes with more than one parent (ShareCommonSubtrees);
	// done holds their outputs once run, for the other parents.
	shared map[Node]bool
	done   map[Node][]gpu.Column
}

// sharedNodes is the nodes under root that more than one parent runs.
func sharedNodes(root Node) map[Node]bool {
	parents := map[Node]int{}
	var walk func(n Node)
	walk = func(n Node) {
		for _, ch := range execChildren(n) {
			parents[ch]++
			if parents[ch] == 1 {
				walk(ch)
			}
		}
	}
	walk(root)
	shared := map[Node]bool{}
	for n, k := range parents {
		if k > 1 {
			shared[n] = true
		}
	}
	return shared
}

func (r *run) releaseAll() {
	for _, c := range r.owned {
		c.Release()
	}
	r.owned = nil
	r.x.Cache.unpin(r.pins)
	r.pins = nil
}

func (r *run) keep(cols []gpu.Column) []gpu.Column {
	r.owned = append(r.owned, cols...)
	return cols
}

// subRun is a run of its own within r, for one part of a node's work,
// that sees given's outputs; endSubRun frees its intermediates.
func (r *run) subRun(given map[Node][]gpu.Column) *run {
	sub := &run{x: r.x, st: r.st, given: map[Node][]gpu.Column{}}
	for n, out := range r.given {
		sub.given[n] = out
	}
	for n, out := range given {
		sub.given[n] = out
	}
	return sub
}

func (r *run) endSubRun(sub *run) {
	r.pins = append(r.pins, sub.pins...) // the cache's columns stay pinned until the run ends
	sub.pins = nil
	sub.releaseAll()
}

// handOver gives the caller out, the output of a body run in r, to own:
// the columns themselves where r made them all, else copies (a body whose
// root passes a partition's columns on as they are).
func (r *run) handOver(ctx context.Context, out []gpu.Column) ([]gpu.Column, error) {
	if err := r.disown(out); err == nil {
		return out, nil
	}
	return r.x.Dev.Concat(ctx, [][]gpu.Column{out})
}

// disown takes out, columns r made, from the columns r frees at its end:
// the caller owns them.
func (r *run) disown(out []gpu.Column) error {
	mine := map[gpu.Column]bool{}
	for _, col := range out {
		mine[col] = true
	}
	var kept []gpu.Column
	for _, col := range r.owned {
		if !mine[col] {
			kept = append(kept, col)
		}
	}
	if len(r.owned)-len(kept) != len(out) {
		return errors.New("the body's output is not its own columns")
	}
	r.owned = kept
	return nil
}

// node runs n's inputs, then n itself, timing n's own work. A cancelled
// ctx stops the run before the next operator (the device's loops check it
// inside one).
func (r *run) node(ctx context.Context, n Node) ([]gpu.Column, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	if out, ok := r.given[n]; ok {
		return out, nil
	}
	if out, ok := r.done[n]; ok {
		return out, nil
	}
	ch := execChildren(n)
	ins := make([][]gpu.Column, len(ch))
	for i, c := range ch {
		var err error
		if ins[i], err = r.node(ctx, c); err != nil {
			return nil, err
		}
	}
	var before gpu.Stats
	if r.st.Nodes != nil {
		before = r.x.Dev.Stats()
	}
	start := time.Now()
	out, err := r.self(ctx, n, ins)
	own := time.Since(start)
	switch n.(type) {
	case *Chunked, *PartitionedJoin: // their segments' and partitions' nodes count their own
	default:
		r.st.OpNanos[opKind(n)] += own.Nanoseconds()
	}
	if err != nil {
		return out, err
	}
	if r.shared[n] {
		if r.done == nil {
			r.done = map[Node][]gpu.Column{}
		}
		r.done[n] = out
	}
	if r.st.Nodes != nil {
		r.record(n, own, out, before)
	}
	if traceNodes {
		fmt.Fprintf(os.Stderr, "rigel trace: %9.3f ms %9d rows  %s\n", float64(own.Microseconds())/1000, rowCount(out), n.Describe())
	}
	return out, nil
}

// nodeStats is n's NodeStats in the run's analysis, made on first use; one
// that nothing reads when the run is not analysed (EXPLAIN ANALYZE).
func (r *run) nodeStats(n Node) *NodeStats {
	if r.st.Nodes == nil {
		return &NodeStats{}
	}
	ns := r.st.Nodes[n]
	if ns == nil {
		ns = &NodeStats{}
		r.st.Nodes[n] = ns
	}
	return ns
}

// record adds n's own work to the run's NodeStats (a node shared by two
// parents runs twice: its times add up).
func (r *run) record(n Node, own time.Duration, out []gpu.Column, before gpu.Stats) {
	ns := r.nodeStats(n)
	ns.Nanos += own.Nanoseconds()
	ns.Rows = int64(rowCount(out))
	d := r.x.Dev.Stats().Since(before)
	ns.Launches += d.KernelLaunches
	ns.ProgramRuns += d.ProgramRuns
	ns.FusedDeferred += d.FusedDeferred
	ns.CompileWaitNs += d.CompileWaitNanos
}

// traceNodes (RIGEL_TRACE=1) prints every node's own time and output rows
// as it finishes, children first.
var traceNodes = os.Getenv("RIGEL_TRACE") == "1"

// pipeline runs x over its input's columns (none of its own work when it
// only reorders them).
func (r *run) pipeline(ctx context.Context, x *Pipeline, in []gpu.Column) ([]gpu.Column, error) {
	if out, ok := passThrough(x.Pipe, in); ok {
		return out, nil
	}
	out, err := r.x.Dev.Run(ctx, x.Pipe, in)
	if err != nil {
		return nil, err
	}
	return r.keep(out), nil
}

// self runs one node over its inputs' columns.
func (r *run) self(ctx context.Context, n Node, ins [][]gpu.Column) ([]gpu.Column, error) {
	var in []gpu.Column
	if len(ins) == 1 {
		in = ins[0]
	}
	switch x := n.(type) {
	case *Join:
		out, err := r.join(ctx, x, ins[0], ins[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", errorText(x), err)
		}
		return out, nil
	case *CountJoin:
		out, err := r.countJoin(ctx, x, ins[0], ins[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", errorText(x), err)
		}
		return out, nil
	case *ProbePipeline:
		out, err := r.probePipeline(ctx, x, ins[0], ins[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", errorText(x), err)
		}
		return out, nil
	case *Chunked:
		return r.chunked(ctx, x)
	case *PartitionedJoin:
		return r.partitionedJoin(ctx, x)
	case *PartitionSlot:
		return in, nil // the probe side of a join whose build side fit (buildFits)
	case *Scan:
		if cols, ok := r.scanned[x]; ok {
			return cols, nil
		}
		return r.x.Cache.get(ctx, r.x.Dev, r.x.Source, x, &r.st.Scan, &r.pins)
	case *Pipeline:
		out, err := r.pipeline(ctx, x, in)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", errorText(x), err)
		}
		return out, nil
	case *Sort:
		out, err := r.x.Dev.Sort(ctx, in, x.Keys, x.Limit)
		if err != nil {
			return nil, refused(RefusedSort, fmt.Errorf("%s: %w", errorText(x), err))
		}
		return r.keep(out), nil
	case *Window:
		out, err := r.window(ctx, x, in)
		if err != nil {
			return nil, refused(RefusedWindow, fmt.Errorf("%s: %w", errorText(x), err))
		}
		return out, nil
	case *Union:
		out, err := r.union(ctx, ins)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", errorText(x), err)
		}
		return out, nil
	case *Values:
		return r.values(ctx, x)
	case *ArrowFiles:
		return r.arrowFiles(ctx, x)
	case *Fallback:
		out, err := r.fallback(ctx, x, ins)
		if err != nil {
			// Marked unsupported: an engine that has the query's SQL runs
			// it whole on DuckDB instead, which gives the same error when
			// the data is at fault and the answer when the subtree was.
			return nil, fmt.Errorf("fallback subtree: %w (%w)", err, gpu.ErrUnsupported)
		}
		return out, nil
	case *Retype:
		return nil, fmt.Errorf("%s: a retype below the root of a plan: %w", errorText(x), gpu.ErrUnsupported)
	case *Slice:
		out, err := r.slice(ctx, x, in)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", errorText(x), err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("physical node %T: %w", n, gpu.ErrUnsupported)
}

// values uploads a constant table.
func (r *run) values(ctx context.Context, v *Values) ([]gpu.Column, error) {
	out := make([]gpu.Column, len(v.Types))
	for j, t := range v.Types {
		if err := gpu.CtxErr(ctx); err != nil {
			return nil, err
		}
		b := array.NewBuilder(memory.DefaultAllocator, gpu.ArrowType(t))
		for i, row := range v.Rows {
			if sb, ok := b.(*array.StringBuilder); ok && !row[j].Null {
				if i >= len(v.Text) || j >= len(v.Text[i]) {
					b.Release()
					return nil, fmt.Errorf("values row %d column %d: a string without its text", i, j)
				}
				sb.Append(v.Text[i][j])
				continue
			}
			appendValue(b, t, row[j])
		}
		arr := b.NewArray()
		b.Release()
		col, err := r.x.Dev.Upload(ctx, arr)
		arr.Release()
		if err != nil {
			return nil, fmt.Errorf("values column %d: %w", j, err)
		}
		out[j] = col
		r.keep([]gpu.Column{col})
	}
	return out, nil
}

func appendValue(b array.Builder, t gpu.Type, v gpu.Value) {
	if v.Null {
		b.AppendNull()
		return
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(v.I64 != 0)
	case *array.Int8Builder:
		bb.Append(int8(v.I64))
	case *array.Int16Builder:
		bb.Append(int16(v.I64))
	case *array.Int32Builder:
		bb.Append(int32(v.I64))
	case *array.Int64Builder:
		bb.Append(v.I64)
	case *array.Float32Builder:
		bb.Append(float32(v.F64))
	case *array.Float64Builder:
		bb.Append(v.F64)
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v.I64))
	case *array.Decimal128Builder:
		n := v.I128
		if t.Kind == gpu.Decimal64 || n == nil {
			n = big.NewInt(v.I64)
		}
		bb.Append(decimal128.FromBigInt(n))
	default:
		b.AppendNull()
	}
}
