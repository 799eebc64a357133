package gpu

import (
	"context"
	"fmt"
)

// ProbeCounter is implemented by devices that count, for every probe row
// of an equi-join, the build rows it matches and for which a condition
// holds, without listing the pairs: what a semi join (count > 0) and an
// anti join (count = 0) keep their rows by. HashJoin lists every pair
// first, and a condition over both sides then needs both sides gathered
// at every pair: for TPC-H Q21's lineitem self-joins, hundreds of millions
// of pairs at SF10 to keep or drop 60M rows.
//
// ProbeCounts(p, probe, build, probeKeys, buildKeys, nullsEqual) returns a
// non-nullable Int32 column of one value per probe row, in probe order:
// the number of pairs (i, b) of RunProbe's inner join (same keys, same
// nullsEqual, hash table over build) for which p.Filter, over the probe
// columns followed by the build columns, is true; every pair counts when
// p.Filter is nil. p is a SinkMaterialize pipeline without projections
// (only its Inputs and Filter mean anything). Errors are Run's over the
// pairs: ErrOverflow only where the filter itself overflows.
type ProbeCounter interface {
	ProbeCounts(ctx context.Context, p *Pipeline, probe, build []Column, probeKeys, buildKeys []int, nullsEqual []bool) (Column, error)
}

// CheckProbeCountsShape is CheckProbeShape for ProbeCounts.
func CheckProbeCountsShape(p *Pipeline, probe, build []Column, probeKeys, buildKeys []int, nullsEqual []bool) error {
	if err := CheckProbeShape(p, probe, build, probeKeys, buildKeys, nullsEqual); err != nil {
		return err
	}
	if p.Sink != SinkMaterialize || len(p.Project) > 0 {
		return fmt.Errorf("probe counts %s: the pipeline must be a filter only (no projections, no aggregate)", p)
	}
	if p.Filter != nil && p.Filter.Type.Kind != Bool {
		return fmt.Errorf("probe counts %s: the condition is %s, not bool", p, p.Filter.Type)
	}
	return nil
}
