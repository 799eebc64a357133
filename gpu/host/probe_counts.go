package host

import (
	"context"
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

var _ gpu.ProbeCounter = (*Device)(nil)

// ProbeCounts counts each probe row's passing pairs (see gpu.ProbeCounter)
// the composed way, which defines it: HashJoin, the condition run over
// both sides gathered at every pair, then a count per probe row.
func (d *Device) ProbeCounts(ctx context.Context, p *gpu.Pipeline, probe, build []gpu.Column, probeKeys, buildKeys []int, nullsEqual []bool) (gpu.Column, error) {
	if err := d.checkOpen("probe counts"); err != nil {
		return nil, err
	}
	if err := gpu.CheckProbeCountsShape(p, probe, build, probeKeys, buildKeys, nullsEqual); err != nil {
		return nil, err
	}
	pi, bi, err := d.probePairs(ctx, probe, build, probeKeys, buildKeys, nullsEqual)
	if err != nil {
		return nil, fmt.Errorf("probe counts: %w", err)
	}
	defer pi.Release()
	defer bi.Release()
	rows := pi
	if p.Filter != nil {
		pc, err := d.Gather(ctx, probe, pi, false)
		if err != nil {
			return nil, fmt.Errorf("probe counts: probe side: %w", err)
		}
		defer releaseAll(pc)
		bc, err := d.Gather(ctx, build, bi, false)
		if err != nil {
			return nil, fmt.Errorf("probe counts: build side: %w", err)
		}
		defer releaseAll(bc)
		// The probe row index rides along as input 0.
		shift := map[int]int{}
		for i := range p.Inputs {
			shift[i] = i + 1
		}
		cond := &gpu.Pipeline{
			Inputs:  append([]gpu.Type{gpu.JoinIndexType}, p.Inputs...),
			Filter:  gpu.Renumbered(p.Filter, shift),
			Project: []*gpu.Expr{gpu.Col(0, gpu.JoinIndexType)},
			Sink:    gpu.SinkMaterialize,
		}
		out, err := d.Run(ctx, cond, append(append([]gpu.Column{pi}, pc...), bc...))
		if err != nil {
			return nil, fmt.Errorf("probe counts: %w", err)
		}
		defer releaseAll(out)
		rows = out[0]
	}
	idx, err := d.indexOf(rows, "probe counts")
	if err != nil {
		return nil, err
	}
	g, err := d.reserve(fmt.Sprintf("probe counts of %d rows", probe[0].Len()), times(int64(probe[0].Len()), 8))
	if err != nil {
		return nil, err
	}
	defer g.done()
	counts := make([]int64, probe[0].Len())
	err = inRanges(ctx, len(idx), func(lo, hi int) error {
		for _, r := range idx[lo:hi] {
			counts[r]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d.indexColumn(counts), nil
}
