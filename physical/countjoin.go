package physical

import (
	"context"
	"errors"
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

// CountJoin is a semi or anti equi-join run from counts: on a device that
// implements gpu.ProbeCounter, each left row's matching right rows that
// pass the join's residual are counted in one pass over the hash table
// (no pair listed, no column gathered), and a pipeline keeps the left rows
// whose count is above zero (semi) or zero (anti). Elsewhere, or when the
// device refuses, it runs as its Join, which is also its definition.
//
// The pipelines are made with the node, at planning time: every run hands
// the device the same ones, so the device's generated code is reused.
type CountJoin struct {
	Join *Join // semi or anti, with keys
	// cond: Left's then Right's columns, the residual (constant true
	// without one) as its filter.
	cond *gpu.Pipeline
	// keep: Left's columns and the counts; the rows that the join keeps.
	keep *gpu.Pipeline
}

func (c *CountJoin) OutputTypes() []gpu.Type { return c.Join.OutputTypes() }
func (c *CountJoin) Children() []Node        { return []Node{c.Join.Left, c.Join.Right} }
func (c *CountJoin) Describe() string {
	d := fmt.Sprintf("CountJoin %s [%s]", c.Join.Type, c.Join.keysText())
	if c.Join.Residual != nil {
		d += " where " + c.Join.Residual.String()
	}
	return d
}

func countable(j *Join) bool {
	return j.Type.LeftOnly() && len(j.LeftKeys) > 0
}

func newCountJoin(j *Join) *CountJoin {
	lt, rt := j.Left.OutputTypes(), j.Right.OutputTypes()
	op := gpu.OpGt // semi: at least one match
	if j.Type == JoinAnti {
		op = gpu.OpEq // anti: none
	}
	return &CountJoin{Join: j, cond: matchCondition(lt, rt, j.Residual), keep: keepByCount(lt, op)}
}

// matchCondition is the pipeline ProbeCounts counts pairs by: the probe
// side's columns then the build side's, the residual (over those) as its
// filter, constant true without one.
func matchCondition(probe, build []gpu.Type, residual *gpu.Expr) *gpu.Pipeline {
	filter := residual
	if filter == nil {
		filter = gpu.Const(gpu.Type{Kind: gpu.Bool}, gpu.Value{I64: 1})
	}
	return &gpu.Pipeline{Inputs: append(append([]gpu.Type(nil), probe...), build...), Filter: filter, Sink: gpu.SinkMaterialize}
}

// keepByCount reads columns of types then a count column (ProbeCounts'),
// keeps the rows whose count compares with zero by op, and projects the
// columns, then extra.
func keepByCount(types []gpu.Type, op gpu.Op, extra ...*gpu.Expr) *gpu.Pipeline {
	count := gpu.Col(len(types), gpu.JoinIndexType)
	return &gpu.Pipeline{
		Inputs:  append(append([]gpu.Type(nil), types...), gpu.JoinIndexType),
		Filter:  gpu.Call(op, gpu.Type{Kind: gpu.Bool}, count, gpu.Const(gpu.JoinIndexType, gpu.Value{I64: 0})),
		Project: append(identityProject(types), extra...),
		Sink:    gpu.SinkMaterialize,
	}
}

// countJoin runs x: counts then the keeping pipeline where the device can,
// the Join otherwise. The hash table must be on the right side (the counts
// are the left rows'), so a right side far larger than the left, which
// Join would build on the left instead (swapBuildRatio), takes the Join.
func (r *run) countJoin(ctx context.Context, x *CountJoin, left, right []gpu.Column) ([]gpu.Column, error) {
	j := x.Join
	if pc, ok := r.x.Dev.(gpu.ProbeCounter); ok && rowCount(right) <= swapBuildRatio*rowCount(left) {
		counts, err := pc.ProbeCounts(gpu.MayCompose(ctx), x.cond, left, right, j.LeftKeys, j.RightKeys, j.NullsEqual)
		if err == nil {
			r.keep([]gpu.Column{counts})
			out, err := r.x.Dev.Run(ctx, x.keep, append(append([]gpu.Column(nil), left...), counts))
			if err != nil {
				return nil, err
			}
			return r.keep(out), nil
		}
		if !errors.Is(err, gpu.ErrUnsupported) {
			return nil, err
		}
	}
	return r.join(ctx, j, left, right)
}
