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
	bk := make([]gpu.Column, len(buildKeys))
	pk := make([]gpu.Column, len(probeKeys))
	for i := range buildKeys {
		bk[i], pk[i] = build[buildKeys[i]], probe[probeKeys[i]]
	}
	pi, bi, err := d.HashJoin(ctx, bk, pk, nullsEqual)
	if err != nil {
		return nil, fmt.Errorf("run probe: %w", err)
	}
	defer pi.Release()
	defer bi.Release()
	pc, err := d.Gather(ctx, probe, pi, false)
	if err != nil {
		return nil, fmt.Errorf("run probe: probe side: %w", err)
	}
	defer releaseAll(pc)
	bc, err := d.Gather(ctx, build, bi, false)
	if err != nil {
		return nil, fmt.Errorf("run probe: build side: %w", err)
	}
	defer releaseAll(bc)
	return d.Run(ctx, p, append(append([]gpu.Column(nil), pc...), bc...))
}

func releaseAll(cols []gpu.Column) {
	for _, c := range cols {
		c.Release()
	}
}
