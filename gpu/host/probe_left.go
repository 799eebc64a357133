package host

import (
	"context"
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

var _ gpu.LeftProbeRunner = (*Device)(nil)

// RunProbeLeft runs a pipeline over the left join of probe and build (see
// gpu.LeftProbeRunner), composed of the primitives that define it: the
// pairs, those that cond keeps, the probe rows left without one paired
// with -1, both sides gathered (the build side padded), then Run.
func (d *Device) RunProbeLeft(ctx context.Context, p *gpu.Pipeline, cond *gpu.Expr, single bool, probe, build []gpu.Column, probeKeys, buildKeys []int, nullsEqual []bool) ([]gpu.Column, error) {
	if err := d.checkOpen("run probe (left join)"); err != nil {
		return nil, err
	}
	if err := gpu.CheckProbeShape(p, probe, build, probeKeys, buildKeys, nullsEqual); err != nil {
		return nil, err
	}
	if err := gpu.CheckLeftProbe(p, cond, len(probe)); err != nil {
		return nil, err
	}
	pi, bi, err := d.probePairs(ctx, probe, build, probeKeys, buildKeys, nullsEqual)
	if err != nil {
		return nil, fmt.Errorf("run probe (left join): %w", err)
	}
	var held []gpu.Column
	defer func() { releaseAll(held) }()
	held = append(held, pi, bi)
	if cond != nil {
		if pi, bi, err = d.pairsWhere(ctx, p.Inputs, cond, probe, build, pi, bi); err != nil {
			return nil, fmt.Errorf("run probe (left join): condition: %w", err)
		}
		held = append(held, pi, bi)
	}
	lost, err := d.Unmatched(ctx, pi, probe[0].Len())
	if err != nil {
		return nil, err
	}
	held = append(held, lost)
	if single && pi.Len() > probe[0].Len()-lost.Len() { // a matched row with two pairs
		return nil, fmt.Errorf("run probe (single join): %w", gpu.ErrSubqueryRows)
	}
	g, err := d.reserve("run probe (left join): unmatched rows", times(int64(lost.Len()), 8))
	if err != nil {
		return nil, err
	}
	none := make([]int64, lost.Len())
	for i := range none {
		none[i] = -1
	}
	noRow := d.newColumn(gpu.JoinIndexType, len(none), &vec{i64: none}, nil)
	g.done()
	held = append(held, noRow)
	idx, err := d.Concat(ctx, [][]gpu.Column{{pi, bi}, {lost, noRow}})
	if err != nil {
		return nil, err
	}
	held = append(held, idx...)
	pc, err := d.Gather(ctx, probe, idx[0], false)
	if err != nil {
		return nil, fmt.Errorf("run probe (left join): probe side: %w", err)
	}
	held = append(held, pc...)
	bc, err := d.Gather(ctx, build, idx[1], true)
	if err != nil {
		return nil, fmt.Errorf("run probe (left join): build side: %w", err)
	}
	held = append(held, bc...)
	return d.Run(ctx, p, append(append([]gpu.Column(nil), pc...), bc...))
}

// pairsWhere keeps the pairs (pi, bi) whose joined row cond (over inputs,
// the probe then the build columns) holds for.
func (d *Device) pairsWhere(ctx context.Context, inputs []gpu.Type, cond *gpu.Expr, probe, build []gpu.Column, pi, bi gpu.Column) (gpu.Column, gpu.Column, error) {
	pc, err := d.Gather(ctx, probe, pi, false)
	if err != nil {
		return nil, nil, err
	}
	defer releaseAll(pc)
	bc, err := d.Gather(ctx, build, bi, false)
	if err != nil {
		return nil, nil, err
	}
	defer releaseAll(bc)
	n := len(inputs)
	keep := &gpu.Pipeline{
		Inputs:  append(append([]gpu.Type(nil), inputs...), gpu.JoinIndexType, gpu.JoinIndexType),
		Filter:  cond,
		Project: []*gpu.Expr{gpu.Col(n, gpu.JoinIndexType), gpu.Col(n+1, gpu.JoinIndexType)},
		Sink:    gpu.SinkMaterialize,
	}
	out, err := d.Run(ctx, keep, append(append(append([]gpu.Column(nil), pc...), bc...), pi, bi))
	if err != nil {
		return nil, nil, err
	}
	return out[0], out[1], nil
}
