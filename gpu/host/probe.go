package host

import (
	"context"
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

var _ gpu.ProbeRunner = (*Device)(nil)

// RunProbe runs a pipeline over the inner join of probe and build (see
// gpu.ProbeRunner). The host device is the reference: it composes the
// primitives whose semantics define the operation, HashJoin then a Gather
// of each side then Run, so that the fused kernels of other devices have
// one executable definition to be compared with.
func (d *Device) RunProbe(ctx context.Context, p *gpu.Pipeline, probe, build []gpu.Column, probeKeys, buildKeys []int, nullsEqual []bool) ([]gpu.Column, error) {
	if err := d.checkOpen("run probe"); err != nil {
		return nil, err
	}
	if err := gpu.CheckProbeShape(p, probe, build, probeKeys, buildKeys, nullsEqual); err != nil {
		return nil, err
	}
	pi, bi, err := d.probePairs(ctx, probe, build, probeKeys, buildKeys, nullsEqual)
	if err != nil {
		return nil, fmt.Errorf("run probe: %w", err)
	}
	defer pi.Release()
	defer bi.Release()
	pc, err := d.Gather(ctx, probe, pi, false)
	if err != nil {
		return nil, fmt.Errorf("run probe: probe side: %w", err)
	}
	defer func() { releaseAll(pc) }()
	bc, err := d.Gather(ctx, build, bi, false)
	if err != nil {
		return nil, fmt.Errorf("run probe: build side: %w", err)
	}
	joined := append(append([]gpu.Column(nil), pc...), bc...)
	if isIdentity(p, joined) {
		// A join with nothing above it (physical.FuseProbes): the gathered
		// columns are the answer, a copy of them would only cost time.
		pc = nil // handed over with bc
		return joined, nil
	}
	defer releaseAll(bc)
	return d.Run(ctx, p, joined)
}

// probePairs is HashJoin over the key columns of the two sides.
func (d *Device) probePairs(ctx context.Context, probe, build []gpu.Column, probeKeys, buildKeys []int, nullsEqual []bool) (pi, bi gpu.Column, err error) {
	bk := make([]gpu.Column, len(buildKeys))
	pk := make([]gpu.Column, len(probeKeys))
	for i := range buildKeys {
		bk[i], pk[i] = build[buildKeys[i]], probe[probeKeys[i]]
	}
	return d.HashJoin(ctx, bk, pk, nullsEqual)
}

// isIdentity reports whether p materializes its inputs unchanged: no
// filter, column i projected as output i with the input's own type.
func isIdentity(p *gpu.Pipeline, in []gpu.Column) bool {
	if p.Sink != gpu.SinkMaterialize || p.Filter != nil || len(p.Project) != len(in) {
		return false
	}
	for i, e := range p.Project {
		if e.Op != gpu.OpCol || e.Col != i || e.Type != in[i].Type() || p.Inputs[i] != e.Type {
			return false
		}
	}
	return true
}

func releaseAll(cols []gpu.Column) {
	for _, c := range cols {
		c.Release()
	}
}
