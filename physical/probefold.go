package physical

import "github.com/rigel-db/rigel/gpu"

// probeFold: a ProbePipeline whose side is a filter pipeline can skip
// writing that side's filtered rows out: the join probes the pipeline's
// input instead and its own pipeline tests the filter.
// Three of TPC-H's lineitem sides cost 0.9-1.1 ms each at SF10 to
// materialize (Q3, Q7, Q10: filter, count, scan, write of 15-32M rows;
// H100, session 15 device run 2), most of what their probe then took.
//
// The folded side becomes the probe side: its every row is read, the
// filter tested and only the passing rows looked up (the CUDA probe kernel
// tests a probe-only filter before its lookup, which is why only filters
// that cannot raise fold), and the table is built on the other side. That
// is the better plan unless the other side is large and the filter
// selective: TPC-H Q12 keeps 0.3% of lineitem, and building on those 180K
// rows to probe orders' 15M beats building 15M. The choice is made per
// run from row counts, without knowing the selectivity: the fold applies
// when the other side is at most foldMaxBuild rows and at most 1/foldRatio
// of the unfiltered side, so that its build costs little next to the pass
// over the folded side whatever the filter keeps; otherwise the filter
// pipeline runs first, as without the fold. At TPC-H SF10 the other sides
// of Q3, Q7, Q10 and Q21's folds hold 0.4K to 1.5M rows, Q12's 15M.
type probeFold struct {
	side int       // 0: the join's Left is pre, 1: its Right
	pre  *Pipeline // the side's filter pipeline
	node *ProbePipeline
}

const (
	foldMaxBuild = 1 << 22
	foldRatio    = 4
)

// applies reports whether the fold runs, given the row counts of the
// sides as execChildren gives them (the folded side unfiltered).
func (f *probeFold) applies(nl, nr int) bool {
	folded, other := nl, nr
	if f.side == 1 {
		folded, other = nr, nl
	}
	return other <= foldMaxBuild && other*foldRatio <= folded
}

// foldFilterSide returns x's fold, or nil. A side folds when it is a
// materializing pipeline with a filter whose projections only pick
// columns of its input (renumbering them is the whole rewrite, and no
// projection can raise an error on a row the filter would have dropped)
// and whose inputs are all fixed-width (the probe kernels read no Arrow
// strings), and whose filter cannot raise (see probeFold). Left is tried
// first.
func foldFilterSide(x *ProbePipeline) *probeFold {
	j := x.Join
	nl, nr := len(j.Left.OutputTypes()), len(j.Right.OutputTypes())
	for side, n := range []Node{j.Left, j.Right} {
		pre, ok := n.(*Pipeline)
		if !ok || !foldable(pre.Pipe) {
			continue
		}
		nin := len(pre.Pipe.Inputs)
		// The folded pipeline reads Left's columns then Right's, the
		// folded side's being pre's inputs: where each side starts in
		// the join's output (old) and in the folded inputs (new).
		oldAt, newAt := [2]int{0, nl}, [2]int{0, nl}
		if side == 0 {
			newAt[1] = nin
		}
		other := 1 - side
		remap := map[int]int{}
		for k, e := range pre.Pipe.Project {
			remap[oldAt[side]+k] = newAt[side] + e.Col
		}
		for k := 0; k < []int{nl, nr}[other]; k++ {
			remap[oldAt[other]+k] = newAt[other] + k
		}
		jj := *j
		keys := make([]int, len(j.LeftKeys))
		sideKeys := [2][]int{j.LeftKeys, j.RightKeys}[side]
		for i, k := range sideKeys {
			keys[i] = pre.Pipe.Project[k].Col
		}
		inputs := [2][]gpu.Type{x.Pipe.Inputs[:nl], x.Pipe.Inputs[nl:]}
		inputs[side] = pre.Pipe.Inputs
		if side == 0 {
			jj.Left, jj.LeftKeys = pre.Input, keys
		} else {
			jj.Right, jj.RightKeys = pre.Input, keys
		}
		p := *x.Pipe
		p.Inputs = append(append([]gpu.Type(nil), inputs[0]...), inputs[1]...)
		p.Project = make([]*gpu.Expr, len(x.Pipe.Project))
		for i, e := range x.Pipe.Project {
			p.Project[i] = gpu.Renumbered(e, remap)
		}
		// pre's filter, then the pipeline's own only on the pairs it
		// keeps, as fuseJoin does with a residual: a CASE branch not
		// taken raises no error.
		p.Filter = gpu.Renumbered(pre.Pipe.Filter, shiftMap(nin, newAt[side]))
		if x.Pipe.Filter != nil {
			b := gpu.Type{Kind: gpu.Bool, Nullable: true}
			p.Filter = gpu.Call(gpu.OpCase, b, p.Filter, gpu.Renumbered(x.Pipe.Filter, remap), gpu.Const(gpu.Type{Kind: gpu.Bool}, gpu.Value{I64: 0}))
		}
		return &probeFold{side: side, pre: pre, node: newProbePipeline(&jj, &p)}
	}
	return nil
}

// foldable: a materializing filter pipeline that only picks columns of
// fixed-width inputs, with a filter that cannot raise.
func foldable(p *gpu.Pipeline) bool {
	if p.Sink != gpu.SinkMaterialize || p.Filter == nil || !gpu.CannotRaise(p.Filter) {
		return false
	}
	for _, t := range p.Inputs {
		if t.Kind == gpu.Str {
			return false
		}
	}
	for _, e := range p.Project {
		if e.Op != gpu.OpCol || e.Col < 0 || e.Col >= len(p.Inputs) {
			return false
		}
	}
	return true
}

// shiftMap maps columns 0..n-1 to by..by+n-1.
func shiftMap(n, by int) map[int]int {
	m := make(map[int]int, n)
	for i := 0; i < n; i++ {
		m[i] = by + i
	}
	return m
}
