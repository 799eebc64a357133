package physical

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/rigel-db/rigel/gpu"
)

// ProbePipeline is an inner equi-join whose matching pairs feed a pipeline
// directly: on a device that implements gpu.ProbeRunner the probe, the
// filter, the projections and the sink run as one generated pass, with no
// pair index columns and no gathered copies of the joined columns in
// between. Elsewhere (or where the device refuses the pipeline) it runs as
// the Join followed by the Pipeline, which is also its definition. A left
// equi-join runs so too (gpu.LeftProbeRunner), its pipeline materializing,
// and a full one as that left join and its unmatched right rows
// (fulljoin.go).
type ProbePipeline struct {
	// Join is inner, with keys and no residual (FuseProbes folds the
	// residual into Pipe's filter), or left, single or full, with keys and
	// its residual (no swapped, no fold: the table stays on the right
	// side).
	Join *Join
	// Pipe runs over the join's output: Left's columns then Right's.
	Pipe *gpu.Pipeline
	// swapped is Pipe reading Right's columns then Left's, for runs that
	// build on Left (runProbe). Made once with the node, so that every run
	// hands the device the same pipeline (whose generated source the
	// device then remembers) and concurrent runs share it without a race.
	swapped *gpu.Pipeline
	// fold, when set, is the same join run over a side's filter pipeline's
	// input, that filter evaluated with the join's pipeline (see
	// probeFold).
	fold *probeFold
	// full, for a full join, finds the right rows without a match.
	full *unmatchedRight
}

func (p *ProbePipeline) OutputTypes() []gpu.Type { return p.Pipe.OutputTypes() }
func (p *ProbePipeline) Children() []Node        { return []Node{p.Join.Left, p.Join.Right} }
func (p *ProbePipeline) Describe() string {
	kind := "ProbePipeline"
	if p.Pipe.Sink == gpu.SinkAggregate {
		kind = "ProbePipeline+HashAggregate"
	}
	s := fmt.Sprintf("%s %s [%s] %s", kind, p.Join.Type, p.Join.keysText(), p.Pipe)
	if p.Join.Residual != nil { // a left join's condition (an inner join's is in the filter)
		s += " where " + p.Join.Residual.String()
	}
	if fusableOuter(p.Join) {
		if p.full != nil {
			s += " (then the right rows without a match, from counts, padded)"
		}
		s += fmt.Sprintf(" (when the right side has more than %d times the left side's rows, the join runs unfused, its hash table on the left)", leftSwapRatio)
	}
	if p.fold != nil {
		s += fmt.Sprintf(" (when the other side is small, the %s side's filter runs in the probe)", []string{"left", "right"}[p.fold.side])
	}
	return s
}

// execChildren: with a fold, the folded side's filter pipeline is not run
// as a node; probePipeline runs it only when the fold does not apply.
func (p *ProbePipeline) execChildren() []Node {
	if p.fold == nil {
		return p.Children()
	}
	ch := p.Children()
	ch[p.fold.side] = p.fold.pre.Input
	return ch
}

// FuseProbes rewrites root's equi-joins into ProbePipelines: a Join under
// a Pipeline becomes one ProbePipeline running that pipeline, and a Join
// under anything else one with an identity projection (its pairs are then
// written straight into the output columns). Outer joins are first made
// simpler where the filter above them allows (outerjoin.go) and right
// joins become left ones; semi and anti equi-joins become CountJoins.
// Joins without keys keep the Join node. The rewrite is made in place on
// the tree translate built, and returns the new root.
//
// RIGEL_FUSE_PROBES=0 turns the rewrite off (plans keep their Join nodes):
// a way to compare the two paths, or to step around a fused kernel's bug.
func FuseProbes(root Node) Node {
	if os.Getenv("RIGEL_FUSE_PROBES") == "0" {
		return root
	}
	return fuse(root)
}

func fuse(n Node) Node {
	switch x := n.(type) {
	case *Pipeline:
		x = simplifyOuterJoin(rightAsLeft(simplifyFullJoin(x))) // outerjoin.go
		n = x
		if j, ok := x.Input.(*Join); ok && fusable(j) && inputsMatch(x.Pipe.Inputs, j.OutputTypes()) {
			j.Left, j.Right = fuse(j.Left), fuse(j.Right)
			return fuseJoin(j, x.Pipe)
		}
		if j, ok := x.Input.(*Join); ok && fusableOuter(j) && inputsMatch(x.Pipe.Inputs, j.OutputTypes()) {
			j.Left, j.Right = fuse(j.Left), fuse(j.Right)
			return fuseLeft(j, x.Pipe)
		}
		x.Input = fuse(x.Input)
	case *Join:
		if x.Type == JoinRight && len(x.LeftKeys) > 0 {
			return fuse(&Pipeline{Input: x, Pipe: identityPipeline(x.OutputTypes())})
		}
		x.Left, x.Right = fuse(x.Left), fuse(x.Right)
		if countable(x) {
			return newCountJoin(x)
		}
		if fusableOuter(x) {
			return newOuterProbe(x, identityPipeline(x.OutputTypes()))
		}
		if fusable(x) {
			return fuseJoin(x, identityPipeline(x.OutputTypes()))
		}
	case *Sort:
		x.Input = fuse(x.Input)
	case *Window:
		x.Input = fuse(x.Input)
	case *Slice:
		x.Input = fuse(x.Input)
	case *Retype:
		x.Input = fuse(x.Input)
	case *Union:
		for i := range x.Inputs {
			x.Inputs[i] = fuse(x.Inputs[i])
		}
	case *Fallback:
		for i := range x.Inputs {
			x.Inputs[i] = fuse(x.Inputs[i])
		}
	}
	return n
}

func fusable(j *Join) bool { return j.Type == JoinInner && len(j.LeftKeys) > 0 }

// identityPipeline materializes columns of types as they are.
func identityPipeline(types []gpu.Type) *gpu.Pipeline {
	return &gpu.Pipeline{Inputs: types, Project: identityProject(types), Sink: gpu.SinkMaterialize}
}

// identityProject reads columns of types in order.
func identityProject(types []gpu.Type) []*gpu.Expr {
	out := make([]*gpu.Expr, len(types))
	for i, t := range types {
		out[i] = gpu.Col(i, t)
	}
	return out
}

// rightAsLeft returns x with a right equi-join below it turned into the
// left join of the swapped sides, x's column references renumbered
// (swapSides) so that it reads the same columns: right joins then take
// the left joins' way (simplified by the filter, fused).
func rightAsLeft(x *Pipeline) *Pipeline {
	j, ok := x.Input.(*Join)
	if !ok || j.Type != JoinRight || len(j.LeftKeys) == 0 || !inputsMatch(x.Pipe.Inputs, j.OutputTypes()) {
		return x
	}
	nl, nr := len(j.Left.OutputTypes()), len(j.Right.OutputTypes())
	left := &Join{Left: j.Right, Right: j.Left, Type: JoinLeft, LeftKeys: j.RightKeys, RightKeys: j.LeftKeys, NullsEqual: j.NullsEqual}
	if j.Residual != nil {
		left.Residual = gpu.Renumbered(j.Residual, swapRemap(nl, nr))
	}
	return &Pipeline{Input: left, Pipe: swapSides(x.Pipe, nl, nr)}
}

// leftSwapRatio: a left join whose right side has more than this many
// times the left side's rows builds its hash table on the left side, as a
// composed Join (the pairs, the left rows without one, gathered columns):
// the fused kernels build on the right side, and each left row then walks
// a long chain of right rows. TPC-H Q13 at SF10 (1.5M customers, 14.8M
// orders) on the H100: fused, the build took 1.8 ms and the walks 2.4 ms
// (the join 4.5 ms; session 19 device run 7); built on the left, the join
// takes 1.8 ms with its gathers (run 8), and Q13 went from 8.2 to 5.9 ms.
const leftSwapRatio = 4

// fuseLeft builds the node of a left, single or full join under pipeline
// p. An aggregating p is split: its filter and projections run in the
// probe, which materializes what the aggregate then groups (TPC-H Q13's
// count of each customer's orders reads two of the join's columns).
func fuseLeft(j *Join, p *gpu.Pipeline) Node {
	if p.Sink == gpu.SinkMaterialize {
		return newOuterProbe(j, p)
	}
	mat := &gpu.Pipeline{Inputs: p.Inputs, Filter: p.Filter, Project: p.Project, Sink: gpu.SinkMaterialize}
	types := mat.OutputTypes()
	agg := *p
	agg.Inputs, agg.Filter, agg.Project = types, nil, identityProject(types)
	return &Pipeline{Input: newOuterProbe(j, mat), Pipe: &agg}
}

// fusableOuter: a left equi-join (or a single join: a left join whose
// rows match at most once, a scalar subquery's) runs as a ProbePipeline
// too, on a device that implements gpu.LeftProbeRunner: its residual
// stays the join's condition (it decides which pairs match, not which rows
// are kept), the pipeline materializes, and the hash table stays on the
// right side. So does a full equi-join, on a device that is also a
// gpu.ProbeCounter (fulljoin.go).
func fusableOuter(j *Join) bool {
	return j.Type.PadsRight() && len(j.LeftKeys) > 0
}

// inputsMatch: the pipeline reads the join's columns as they are (a
// non-nullable column may feed an input declared nullable).
func inputsMatch(in, out []gpu.Type) bool {
	if len(in) != len(out) {
		return false
	}
	for i := range in {
		a, b := in[i], out[i]
		if a.Kind != b.Kind || a.Precision != b.Precision || a.Scale != b.Scale || (b.Nullable && !a.Nullable) {
			return false
		}
	}
	return true
}

// fuseJoin builds the node. A residual condition is a filter over the
// same columns, evaluated before the pipeline's own: it becomes
// CASE WHEN residual THEN filter ELSE false, so that the pipeline's filter
// is evaluated only on the pairs the residual keeps, as before (a CASE
// branch not taken never raises an error; an AND might).
func fuseJoin(j *Join, p *gpu.Pipeline) *ProbePipeline {
	if j.Residual != nil {
		cp := *p
		if p.Filter == nil {
			cp.Filter = j.Residual
		} else {
			b := gpu.Type{Kind: gpu.Bool, Nullable: true}
			cp.Filter = gpu.Call(gpu.OpCase, b, j.Residual, p.Filter, gpu.Const(gpu.Type{Kind: gpu.Bool}, gpu.Value{I64: 0}))
		}
		p = &cp
		jj := *j
		jj.Residual = nil
		j = &jj
	}
	x := newProbePipeline(j, p)
	x.fold = foldFilterSide(x)
	return x
}

func newProbePipeline(j *Join, p *gpu.Pipeline) *ProbePipeline {
	nl, nr := len(j.Left.OutputTypes()), len(j.Right.OutputTypes())
	return &ProbePipeline{Join: j, Pipe: p, swapped: swapSides(p, nl, nr)}
}

// probePipeline runs x over its sides' columns: one RunProbe where the
// device offers it and takes the pipeline, else the join then the pipeline.
// With a fold, the folded side's columns are its filter pipeline's input.
func (r *run) probePipeline(ctx context.Context, x *ProbePipeline, left, right []gpu.Column) ([]gpu.Column, error) {
	if f := x.fold; f != nil {
		sides := [2][]gpu.Column{left, right}
		if f.applies(rowCount(left), rowCount(right)) {
			return r.probePipeline(ctx, f.node, left, right)
		}
		filtered, err := r.pipeline(ctx, f.pre, sides[f.side])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", errorText(f.pre), err)
		}
		sides[f.side] = filtered
		left, right = sides[0], sides[1]
	}
	outer := fusableOuter(x.Join)
	leftSwap := outer && rowCount(right) > leftSwapRatio*rowCount(left)
	// The fused calls may decline (gpu.MayCompose) while their kernels
	// compile: the composed join below runs on precompiled kernels.
	if lr, ok := r.x.Dev.(gpu.LeftProbeRunner); ok && outer && !leftSwap {
		out, err := r.runProbeOuter(gpu.MayCompose(ctx), lr, x, left, right)
		if err == nil {
			return out, nil
		}
		if !errors.Is(err, gpu.ErrUnsupported) {
			return nil, err
		}
	} else if pr, ok := r.x.Dev.(gpu.ProbeRunner); ok && x.Join.Type == JoinInner {
		out, err := r.runProbe(gpu.MayCompose(ctx), pr, x, left, right)
		if err == nil {
			return r.keep(out), nil
		}
		if !errors.Is(err, gpu.ErrUnsupported) {
			return nil, err
		}
		// The device cannot fuse this pipeline (a function it runs only
		// over materialized columns): the composed path below may still run.
	}
	ratio := swapBuildRatio
	if leftSwap {
		ratio = leftSwapRatio
	}
	cols, err := r.joinSwapping(ctx, x.Join, left, right, ratio)
	if err != nil {
		return nil, err
	}
	out, err := r.x.Dev.Run(ctx, x.Pipe, cols)
	if err != nil {
		return nil, err
	}
	return r.keep(out), nil
}

// runProbe calls RunProbe with the hash table on the smaller side. A build
// row costs several times a probe row (an atomic insert into a table that
// grows past the L2 cache against a lookup into one that may fit it):
// TPC-H Q3 at SF10 built its 32M filtered lineitem rows in 3.4 ms to probe
// them with 1.5M orders (H100, session 15 device run 1). Join keeps the
// plan's side unless it is far larger (candidates), for operators that
// gain from its pairs' probe order; a fused pipeline's pairs go straight
// into its sink. The pipeline reads the probe side's columns first, so
// with the sides swapped its column references are renumbered.
func (r *run) runProbe(ctx context.Context, pr gpu.ProbeRunner, x *ProbePipeline, left, right []gpu.Column) ([]gpu.Column, error) {
	j := x.Join
	nl, nr := rowCount(left), rowCount(right)
	if nr <= nl {
		return pr.RunProbe(ctx, x.Pipe, left, right, j.LeftKeys, j.RightKeys, j.NullsEqual)
	}
	swapped := x.swapped
	if swapped == nil { // a node built without fuseJoin
		swapped = swapSides(x.Pipe, len(left), len(right))
	}
	return pr.RunProbe(ctx, swapped, right, left, j.RightKeys, j.LeftKeys, j.NullsEqual)
}

// swapRemap maps column references over Left's nl columns then Right's nr
// to the same columns with Right's first.
func swapRemap(nl, nr int) map[int]int {
	remap := make(map[int]int, nl+nr)
	for i := 0; i < nl; i++ {
		remap[i] = nr + i
	}
	for i := 0; i < nr; i++ {
		remap[nl+i] = i
	}
	return remap
}

// swapSides returns p reading Right's nr columns then Left's nl columns
// where it read Left's then Right's.
func swapSides(p *gpu.Pipeline, nl, nr int) *gpu.Pipeline {
	remap := swapRemap(nl, nr)
	cp := *p
	cp.Inputs = append(append([]gpu.Type(nil), p.Inputs[nl:]...), p.Inputs[:nl]...)
	if p.Filter != nil {
		cp.Filter = gpu.Renumbered(p.Filter, remap)
	}
	cp.Project = make([]*gpu.Expr, len(p.Project))
	for i, e := range p.Project {
		cp.Project[i] = gpu.Renumbered(e, remap)
	}
	return &cp
}
