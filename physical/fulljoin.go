package physical

import (
	"context"
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

// A full equi-join's ProbePipeline runs in two parts, on a device with
// RunProbeLeft and ProbeCounts: the left join, fused as a left join's is
// (every left row, its matches or the right side null), then the right
// rows that no left row matched, padded with nulls on the left, through
// the same pipeline. Those are found from counts (ProbeCounts over the
// swapped sides: for each right row, its left matches that pass the
// residual), so no pair is listed twice; the rows counted zero are
// gathered with null left columns and run through the pipeline, and the
// two parts are appended. An aggregate above the join groups both parts
// (fuseLeft splits it off as for a left join).

// unmatchedRight holds the pipelines of the second part, made with the
// node so that every run hands the device the same ones.
type unmatchedRight struct {
	// counts reads Right's columns then Left's; its filter is the join's
	// residual renumbered so (constant true without one).
	counts *gpu.Pipeline
	// keep reads Right's columns and the counts and keeps the rows
	// counted zero: Right's columns, then a JoinIndexType column of -1
	// (no left row), which Gather pads into null left columns.
	keep *gpu.Pipeline
}

func newUnmatchedRight(j *Join) *unmatchedRight {
	lt, rt := j.Left.OutputTypes(), j.Right.OutputTypes()
	var residual *gpu.Expr
	if j.Residual != nil {
		residual = gpu.Renumbered(j.Residual, swapRemap(len(lt), len(rt)))
	}
	return &unmatchedRight{
		counts: matchCondition(rt, lt, residual),
		keep:   keepByCount(rt, gpu.OpEq, gpu.Const(gpu.JoinIndexType, gpu.Value{I64: -1})),
	}
}

// newOuterProbe is the ProbePipeline of a left, single or full join.
func newOuterProbe(j *Join, p *gpu.Pipeline) *ProbePipeline {
	x := &ProbePipeline{Join: j, Pipe: p}
	if j.Type == JoinFull {
		x.full = newUnmatchedRight(j)
	}
	return x
}

// runProbeOuter runs x, a left, single or full join's ProbePipeline, with
// lr's fused left join; a full join's unmatched right rows follow. A
// device that counts no matches cannot run a full join so (ErrUnsupported:
// the caller composes it).
func (r *run) runProbeOuter(ctx context.Context, lr gpu.LeftProbeRunner, x *ProbePipeline, left, right []gpu.Column) ([]gpu.Column, error) {
	j := x.Join
	var rest []gpu.Column
	if x.full != nil {
		pc, ok := r.x.Dev.(gpu.ProbeCounter)
		if !ok {
			return nil, fmt.Errorf("full join: the device does not count matches: %w", gpu.ErrUnsupported)
		}
		var err error
		if rest, err = r.unmatchedRight(ctx, pc, x, left, right); err != nil {
			return nil, err
		}
	}
	out, err := lr.RunProbeLeft(ctx, x.Pipe, j.Residual, j.Type == JoinSingle, left, right, j.LeftKeys, j.RightKeys, j.NullsEqual)
	if err != nil {
		return nil, err
	}
	r.keep(out)
	if rest == nil {
		return out, nil
	}
	return r.union(ctx, [][]gpu.Column{out, rest})
}

// unmatchedRight returns x's pipeline run over the right rows that match
// no left row, the left columns null; nil when every right row matched.
func (r *run) unmatchedRight(ctx context.Context, pc gpu.ProbeCounter, x *ProbePipeline, left, right []gpu.Column) ([]gpu.Column, error) {
	j, f := x.Join, x.full
	counts, err := pc.ProbeCounts(ctx, f.counts, right, left, j.RightKeys, j.LeftKeys, j.NullsEqual)
	if err != nil {
		return nil, err
	}
	r.keep([]gpu.Column{counts})
	kept, err := r.x.Dev.Run(ctx, f.keep, append(append([]gpu.Column(nil), right...), counts))
	if err != nil {
		return nil, err
	}
	r.keep(kept)
	nr := len(right)
	if kept[nr].Len() == 0 {
		return nil, nil
	}
	nulls, err := r.x.Dev.Gather(ctx, left, kept[nr], true)
	if err != nil {
		return nil, err
	}
	r.keep(nulls)
	out, err := r.x.Dev.Run(ctx, x.Pipe, append(nulls, kept[:nr]...))
	if err != nil {
		return nil, err
	}
	return r.keep(out), nil
}
