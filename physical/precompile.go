package physical

import (
	"context"
	"math"
	"os"
	"sync"
	"time"

	"github.com/rigel-db/rigel/gpu"
)

// Compiling ahead. On a device that compiles a kernel per pipeline
// (gpu.Precompiler), a plan's first run used to meet its pipelines one
// after another and wait for each compile in turn: 2 to 13 kernels of
// about 200 ms in a TPC-H query, nearly all of its first run
// (bench/results/2026-11-27-h100-tpch-sf10-first-run-v23-compile-ahead.md).
// Before such a run, the executor loads the plan's scans and walks the
// plan the way the run will, listing every fused-kernel call it can
// foresee; the device compiles them all at once, in parallel, in the
// background, while the run goes on.
//
// What the run will call depends on what it meets: row counts decide
// which side of a join holds the hash table and whether a filter folds
// into a probe, dictionary sizes decide an aggregate's kernel. The walk
// knows the scans' columns exactly and bounds every other node's rows
// (a filter keeps between none and all of its input; a join's output is
// unbounded). Where the bounds decide, the walk follows the run; where
// they do not, it foresees both branches, the one the upper bounds favour
// first and the other at the end of the list. A call foreseen wrongly
// costs background work; one not foreseen compiles in the run's way, as
// without the walk.

// precompileOn: RIGEL_PRECOMPILE=0 turns the walk off, to compare, or to
// step around a device's bad guess.
var precompileOn = os.Getenv("RIGEL_PRECOMPILE") != "0"

// foreseenRoots bounds the plans the executor remembers walking (and
// keeps alive). Past it the memory starts again: a plan walked twice costs
// its source generation again, a millisecond or two, and compiles nothing.
const foreseenRoots = 1024

// foreseen reports whether root was walked before (a cached plan run
// again, whose kernels are compiled) and marks it walked.
func (x *Executor) foreseen(root Node) bool {
	x.foreseenMu.Lock()
	defer x.foreseenMu.Unlock()
	if x.foreseenSet[root] {
		return true
	}
	if x.foreseenSet == nil || len(x.foreseenSet) >= foreseenRoots {
		x.foreseenSet = map[Node]bool{}
	}
	x.foreseenSet[root] = true
	return false
}

// foreseeState is the Executor's memory of walked plans.
type foreseeState struct {
	foreseenMu  sync.Mutex
	foreseenSet map[Node]bool
}

// precompile loads root's scans (r.scanned, which the run then uses) and
// hands the device the kernel calls the run will make, on the plan's
// first run on a gpu.Precompiler. The device drops the compiles it has
// not started when until ends (the run is over: what they foresaw did
// not happen).
func (r *run) precompile(ctx, until context.Context, root Node) error {
	pc, ok := r.x.Dev.(gpu.Precompiler)
	if !ok || !precompileOn || r.x.foreseen(root) {
		return nil
	}
	start := time.Now()
	if err := r.loadScans(ctx, root); err != nil {
		return err
	}
	r.st.OpNanos["scan"] += time.Since(start).Nanoseconds()
	f := &foresight{r: r}
	f.shape(root)
	if calls := append(f.calls, f.later...); len(calls) > 0 {
		pc.Precompile(until, calls)
	}
	return nil
}

// loadScans loads every scan under n that the run will read.
func (r *run) loadScans(ctx context.Context, root Node) error {
	return forEachScan(root, func(s *Scan) error {
		if _, done := r.scanned[s]; done {
			return nil
		}
		var before gpu.Stats
		if r.st.Nodes != nil {
			before = r.x.Dev.Stats()
		}
		start := time.Now()
		cols, err := r.x.Cache.get(ctx, r.x.Dev, r.x.Source, s, &r.st.Scan, &r.pins)
		if err != nil {
			return err
		}
		if r.st.Nodes != nil {
			// An analyzed run puts the load on its Scan's line.
			r.record(s, time.Since(start), cols, before)
		}
		if r.scanned == nil {
			r.scanned = map[*Scan][]gpu.Column{}
		}
		r.scanned[s] = cols
		return nil
	})
}

// forEachScan calls fn on every scan under n that a run reads, in the
// order it reads them, until fn fails.
func forEachScan(n Node, fn func(*Scan) error) error {
	if s, ok := n.(*Scan); ok {
		return fn(s)
	}
	for _, c := range execChildren(n) {
		if err := forEachScan(c, fn); err != nil {
			return err
		}
	}
	return nil
}

// execChildren are the nodes the run runs before n (node).
func execChildren(n Node) []Node {
	if e, ok := n.(interface{ execChildren() []Node }); ok {
		return e.execChildren()
	}
	return n.Children()
}

// shape is what the walk knows of a node's output: each column's
// dictionary size (0: none, or not known), bounds on its rows, and the
// columns themselves where they are a scan's, passed on as loaded (nil
// for a node that makes new ones).
type shape struct {
	dicts []int
	rows  rowBounds
	cols  []gpu.Column
}

// inputsOf is the columns of shapes side by side, as a call over them
// takes its inputs (gpu.KernelCall.Inputs): nil where a shape's are not
// known, and nil when none is.
func inputsOf(shapes ...shape) []gpu.Column {
	var out []gpu.Column
	known := false
	for _, s := range shapes {
		if s.cols != nil {
			known = true
			out = append(out, s.cols...)
		} else {
			out = append(out, make([]gpu.Column, len(s.dicts))...)
		}
	}
	if !known {
		return nil
	}
	return out
}

// rowBounds: lo <= rows <= hi.
type rowBounds struct{ lo, hi int }

// unbounded stands for a row count nothing bounds (a join's output).
const unbounded = math.MaxInt32

func exactly(n int) rowBounds { return rowBounds{n, n} }

// foresight walks a plan as the run will (run.node and run.self),
// collecting the calls.
type foresight struct {
	r *run
	// calls are the calls on the run's likely way, in the order it makes
	// them; later those of branches the bounds leave open and favour less.
	calls, later []gpu.KernelCall
	unlikely     int // > 0 while walking such a branch
}

func (f *foresight) call(c gpu.KernelCall) {
	if f.unlikely > 0 {
		f.later = append(f.later, c)
	} else {
		f.calls = append(f.calls, c)
	}
}

// branch walks the likely branch, then the other one when the bounds
// leave it open (possible), and returns the likely one's shape.
func (f *foresight) branch(likely, other func() shape, possible bool) shape {
	s := likely()
	if possible {
		f.unlikely++
		other()
		f.unlikely--
	}
	return s
}

// unknown is the shape of a node the walk does not look into.
func unknown(n Node) shape {
	return shape{dicts: make([]int, len(n.OutputTypes())), rows: rowBounds{0, unbounded}}
}

func (f *foresight) shape(n Node) shape {
	switch x := n.(type) {
	case *Scan:
		cols := f.r.scanned[x]
		s := shape{dicts: make([]int, len(cols)), rows: exactly(rowCount(cols)), cols: cols}
		for i, c := range cols {
			if d := c.Dictionary(); d != nil {
				s.dicts[i] = d.Len()
			}
		}
		return s
	case *Values:
		s := unknown(x)
		s.rows = exactly(len(x.Rows))
		return s
	case *Pipeline:
		return f.pipeline(x.Pipe, f.shape(x.Input))
	case *Sort:
		s := f.shape(x.Input)
		s.cols = nil // sorted: new columns
		if x.Limit > 0 {
			s.rows = rowBounds{min(s.rows.lo, x.Limit), min(s.rows.hi, x.Limit)}
		}
		return s
	case *ProbePipeline:
		ch := x.execChildren()
		return f.probe(x, f.shape(ch[0]), f.shape(ch[1]))
	case *CountJoin:
		return f.countJoin(x, f.shape(x.Join.Left), f.shape(x.Join.Right))
	case *Join:
		return f.join(x, f.shape(x.Left), f.shape(x.Right))
	}
	for _, c := range execChildren(n) {
		f.shape(c)
	}
	return unknown(n)
}

// pipeline foresees Run(p) over in (none when it only passes columns on)
// and returns its output's shape.
func (f *foresight) pipeline(p *gpu.Pipeline, in shape) shape {
	if !passesThrough(p) {
		f.call(gpu.KernelCall{Kind: gpu.CallRun, Pipe: p, DictLen: in.dicts, Inputs: inputsOf(in)})
	}
	return pipelineOutput(p, in)
}

// passesThrough is passThrough decided on the pipeline's declared input
// types rather than on columns.
func passesThrough(p *gpu.Pipeline) bool {
	if p.Sink != gpu.SinkMaterialize || p.Filter != nil || len(p.Project) == 0 {
		return false
	}
	for _, e := range p.Project {
		if e.Op != gpu.OpCol || e.Col < 0 || e.Col >= len(p.Inputs) {
			return false
		}
		ct := p.Inputs[e.Col]
		if ct.Kind != e.Type.Kind || ct.Precision != e.Type.Precision || ct.Scale != e.Type.Scale || (ct.Nullable && !e.Type.Nullable) {
			return false
		}
	}
	return true
}

// pipelineOutput: a column that a projection passes on keeps its
// dictionary; a filter may keep no row, an aggregate without keys gives
// one.
func pipelineOutput(p *gpu.Pipeline, in shape) shape {
	dictOf := func(e *gpu.Expr) int {
		if e.Op == gpu.OpCol && e.Type.Kind == gpu.Dict && e.Col >= 0 && e.Col < len(in.dicts) {
			return in.dicts[e.Col]
		}
		return 0
	}
	rows := in.rows
	if p.Filter != nil {
		rows.lo = 0
	}
	if p.Sink == gpu.SinkMaterialize {
		s := shape{dicts: make([]int, len(p.Project)), rows: rows}
		for i, e := range p.Project {
			s.dicts[i] = dictOf(e)
		}
		if in.cols != nil && passesThrough(p) { // the same columns, passed on
			s.cols = make([]gpu.Column, len(p.Project))
			for i, e := range p.Project {
				s.cols[i] = in.cols[e.Col]
			}
		}
		return s
	}
	s := shape{rows: rowBounds{min(rows.lo, 1), rows.hi}}
	if len(p.Keys) == 0 {
		s.rows = exactly(1)
	}
	for _, k := range p.Keys {
		d := 0
		if k >= 0 && k < len(p.Project) { // else Run reports the bad key
			d = dictOf(p.Project[k])
		}
		s.dicts = append(s.dicts, d)
	}
	for _, a := range p.Aggs {
		d := 0
		if (a.Kind == gpu.AggMin || a.Kind == gpu.AggMax) && a.Arg >= 0 && a.Arg < len(p.Project) {
			d = dictOf(p.Project[a.Arg])
		}
		s.dicts = append(s.dicts, d)
	}
	return s
}

// join foresees joinSwapping(j)'s pipelines over sides of shapes l and r:
// the zeros of a cross product with a one-row side, the residual's filter,
// the "no row" indexes of an outer join.
func (f *foresight) join(j *Join, l, r shape) shape {
	if len(j.LeftKeys) == 0 && (l.rows.lo <= 1 && l.rows.hi >= 1 || r.rows.lo <= 1 && r.rows.hi >= 1) {
		f.call(gpu.KernelCall{Kind: gpu.CallRun, Pipe: zerosPipeline, DictLen: []int{0}})
	}
	if j.Residual != nil {
		types := append(append([]gpu.Type(nil), j.Left.OutputTypes()...), j.Right.OutputTypes()...)
		pipe, _ := residualPipeline(j, types)
		f.call(gpu.KernelCall{Kind: gpu.CallRun, Pipe: pipe, DictLen: make([]int, len(pipe.Inputs))})
	}
	switch j.Type {
	case JoinLeft, JoinSingle, JoinFull, JoinRight:
		f.call(gpu.KernelCall{Kind: gpu.CallRun, Pipe: noRowPipeline, DictLen: []int{0}})
	}
	return joined(j, l, r)
}

// joined is a Join's output shape over its sides'.
func joined(j *Join, l, r shape) shape {
	if j.Type.LeftOnly() {
		return shape{dicts: l.dicts, rows: rowBounds{0, l.rows.hi}}
	}
	return shape{dicts: concatDicts(l, r), rows: rowBounds{0, unbounded}}
}

// countsShape is the shape of ProbeCounts' column, which the keeping
// pipelines of count and full joins read after a side's columns.
var countsShape = shape{dicts: []int{0}}

func concatDicts(a, b shape) []int {
	return append(append([]int(nil), a.dicts...), b.dicts...)
}

// probe foresees probePipeline(x) over sides of shapes l and r (as
// execChildren gives them).
func (f *foresight) probe(x *ProbePipeline, l, r shape) shape {
	if fo := x.fold; fo != nil {
		// applies grows with the folded side's rows and falls with the
		// other side's.
		applies := func(folded, other int) bool {
			if fo.side == 1 {
				return fo.applies(other, folded)
			}
			return fo.applies(folded, other)
		}
		folded, other := l.rows, r.rows
		if fo.side == 1 {
			folded, other = r.rows, l.rows
		}
		yes := func() shape { return f.probe(fo.node, l, r) }
		no := func() shape {
			sides := [2]shape{l, r}
			sides[fo.side] = f.pipeline(fo.pre.Pipe, sides[fo.side])
			return f.probeSides(x, sides[0], sides[1])
		}
		switch {
		case applies(folded.lo, other.hi):
			return yes()
		case !applies(folded.hi, other.lo):
			return no()
		case applies(folded.hi, other.hi):
			return f.branch(yes, no, true)
		default:
			return f.branch(no, yes, true)
		}
	}
	return f.probeSides(x, l, r)
}

// probeSides is probePipeline once any fold is decided.
func (f *foresight) probeSides(x *ProbePipeline, l, r shape) shape {
	j := x.Join
	out := pipelineOutput(x.Pipe, shape{dicts: concatDicts(l, r), rows: rowBounds{0, unbounded}})
	composed := func() shape {
		f.join(j, l, r)
		f.call(gpu.KernelCall{Kind: gpu.CallRun, Pipe: x.Pipe, DictLen: concatDicts(l, r)})
		return out
	}
	if fusableOuter(j) {
		// leftSwap: the right side has more than leftSwapRatio times the
		// left side's rows.
		swapPossible, swapCertain := r.rows.hi > leftSwapRatio*l.rows.lo, r.rows.lo > leftSwapRatio*l.rows.hi
		if _, ok := f.r.x.Dev.(gpu.LeftProbeRunner); !ok || swapCertain {
			return composed()
		}
		left := func() shape {
			if x.full != nil {
				f.call(gpu.KernelCall{Kind: gpu.CallProbeCounts, Pipe: x.full.counts, NProbe: len(r.dicts), DictLen: concatDicts(r, l), Inputs: inputsOf(r, l)})
				f.call(gpu.KernelCall{Kind: gpu.CallRun, Pipe: x.full.keep, DictLen: append(append([]int(nil), r.dicts...), 0), Inputs: inputsOf(r, countsShape)})
				f.call(gpu.KernelCall{Kind: gpu.CallRun, Pipe: x.Pipe, DictLen: concatDicts(l, r)})
			}
			f.call(gpu.KernelCall{Kind: gpu.CallProbeLeft, Pipe: x.Pipe, Cond: j.Residual, Single: j.Type == JoinSingle,
				NProbe: len(l.dicts), DictLen: concatDicts(l, r), Inputs: inputsOf(l, r)})
			return out
		}
		if r.rows.hi > leftSwapRatio*l.rows.hi {
			return f.branch(composed, left, swapPossible)
		}
		return f.branch(left, composed, swapPossible)
	}
	if _, ok := f.r.x.Dev.(gpu.ProbeRunner); !ok || j.Type != JoinInner {
		return composed()
	}
	// runProbe: the hash table on the side with fewer rows.
	plain := func() shape {
		f.call(gpu.KernelCall{Kind: gpu.CallProbe, Pipe: x.Pipe, NProbe: len(l.dicts), DictLen: concatDicts(l, r), Inputs: inputsOf(l, r)})
		return out
	}
	swapped := func() shape {
		p := x.swapped
		if p == nil {
			p = swapSides(x.Pipe, len(l.dicts), len(r.dicts))
		}
		f.call(gpu.KernelCall{Kind: gpu.CallProbe, Pipe: p, NProbe: len(r.dicts), DictLen: concatDicts(r, l), Inputs: inputsOf(r, l)})
		return out
	}
	plainPossible, plainCertain := r.rows.lo <= l.rows.hi, r.rows.hi <= l.rows.lo
	switch {
	case plainCertain:
		return plain()
	case !plainPossible:
		return swapped()
	case r.rows.hi <= l.rows.hi:
		return f.branch(plain, swapped, true)
	default:
		return f.branch(swapped, plain, true)
	}
}

// countJoin foresees countJoin(x): the counts and the keeping pipeline,
// or the Join where the right side is certainly far larger.
func (f *foresight) countJoin(x *CountJoin, l, r shape) shape {
	out := joined(x.Join, l, r)
	if _, ok := f.r.x.Dev.(gpu.ProbeCounter); !ok || r.rows.lo > swapBuildRatio*l.rows.hi {
		return f.join(x.Join, l, r)
	}
	f.call(gpu.KernelCall{Kind: gpu.CallProbeCounts, Pipe: x.cond, NProbe: len(l.dicts), DictLen: concatDicts(l, r), Inputs: inputsOf(l, r)})
	f.call(gpu.KernelCall{Kind: gpu.CallRun, Pipe: x.keep, DictLen: append(append([]int(nil), l.dicts...), 0), Inputs: inputsOf(l, countsShape)})
	return out
}
