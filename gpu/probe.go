package gpu

import (
	"context"
	"fmt"
)

// ProbeRunner is implemented by devices that run an inner equi-join and
// the pipeline above it as one operation: the probe side is streamed
// through the build side's hash table and every matching pair is fed to
// the pipeline's filter, projections and sink directly, without the pair
// index columns and gathered columns that HashJoin + Gather + Run write
// and read back. The engine uses it where a device offers it and falls
// back to the composed primitives when RunProbe returns ErrUnsupported.
//
// RunProbe(p, probe, build, probeKeys, buildKeys, nullsEqual) returns
// exactly
//
//	Run(p, Gather(probe, pi) ++ Gather(build, bi))
//	where (pi, bi) = HashJoin(build[buildKeys...], probe[probeKeys...], nullsEqual)
//
// that is: p.Inputs are the probe columns' types followed by the build
// columns' types, and p runs over the rows of the INNER join of the two
// sides on probe[probeKeys[i]] = build[buildKeys[i]] for every i (a null
// key matches nothing unless nullsEqual[i]; floats compare as everywhere
// in the IR; Dict keys compare their strings, as HashJoin's). The hash
// table is built over build.
//
// For SinkMaterialize the output rows come in no particular order (like
// HashJoin's pairs); SinkAggregate gives Run's groups. Errors are Run's:
// ErrOverflow is raised only for pairs that pass the filter, as Run would
// over the gathered columns. probeKeys and buildKeys are equally long (at
// least one key) and index into probe and build; nullsEqual may be nil
// (all false). Inputs are not consumed; the caller releases the outputs.
type ProbeRunner interface {
	RunProbe(ctx context.Context, p *Pipeline, probe, build []Column, probeKeys, buildKeys []int, nullsEqual []bool) ([]Column, error)
}

// CheckProbeShape checks what every RunProbe implementation checks before
// it looks at the data: the pipeline declares one input per probe and
// build column, and the keys are in range and paired. Devices call it
// first so that they report a bad call the same way.
func CheckProbeShape(p *Pipeline, probe, build []Column, probeKeys, buildKeys []int, nullsEqual []bool) error {
	if p == nil {
		return fmt.Errorf("run probe: nil pipeline")
	}
	if len(probe) == 0 || len(build) == 0 {
		return fmt.Errorf("run probe %s: %d probe and %d build columns (each side needs at least one)", p, len(probe), len(build))
	}
	if len(p.Inputs) != len(probe)+len(build) {
		return fmt.Errorf("run probe %s: the pipeline declares %d inputs for %d probe and %d build columns", p, len(p.Inputs), len(probe), len(build))
	}
	if len(probeKeys) == 0 || len(probeKeys) != len(buildKeys) {
		return fmt.Errorf("run probe %s: %d probe keys and %d build keys (want the same number, at least one)", p, len(probeKeys), len(buildKeys))
	}
	if nullsEqual != nil && len(nullsEqual) != len(probeKeys) {
		return fmt.Errorf("run probe %s: %d nullsEqual flags for %d keys", p, len(nullsEqual), len(probeKeys))
	}
	for i := range probeKeys {
		if probeKeys[i] < 0 || probeKeys[i] >= len(probe) {
			return fmt.Errorf("run probe %s: probe key %d is column %d of %d", p, i, probeKeys[i], len(probe))
		}
		if buildKeys[i] < 0 || buildKeys[i] >= len(build) {
			return fmt.Errorf("run probe %s: build key %d is column %d of %d", p, i, buildKeys[i], len(build))
		}
	}
	return nil
}

// LeftProbeRunner is a ProbeRunner that also runs a pipeline over a LEFT
// join, probe side preserved:
//
//	RunProbeLeft(p, cond, single, probe, build, probeKeys, buildKeys, nullsEqual)
//
// returns exactly
//
//	Run(p, Gather(probe, pi) ++ Gather(build, bi, padNulls))
//
// where (pi, bi) are the pairs of HashJoin(build[buildKeys...],
// probe[probeKeys...], nullsEqual) for which cond (over the probe columns
// then the build columns; nil is true) is true, and (r, -1) for every
// probe row r that no such pair holds. p.Sink is SinkMaterialize (else
// ErrUnsupported), and p.Inputs declares every build column nullable:
// padded rows hold nulls there. cond, a join's residual, only decides
// which pairs match; p.Filter runs over the output rows, padded ones too.
// With single (a scalar subquery's join), a probe row with more than one
// such pair is an error: ErrSubqueryRows.
type LeftProbeRunner interface {
	RunProbeLeft(ctx context.Context, p *Pipeline, cond *Expr, single bool, probe, build []Column, probeKeys, buildKeys []int, nullsEqual []bool) ([]Column, error)
}

// CheckLeftProbe checks what RunProbeLeft adds to CheckProbeShape.
func CheckLeftProbe(p *Pipeline, cond *Expr, nprobe int) error {
	if p.Sink != SinkMaterialize {
		return fmt.Errorf("run probe (left join) %s: sink %d: %w", p, p.Sink, ErrUnsupported)
	}
	for i := nprobe; i < len(p.Inputs); i++ {
		if !p.Inputs[i].Nullable {
			return fmt.Errorf("run probe (left join) %s: build column %d is declared %s, not nullable (padded rows hold nulls)", p, i-nprobe, p.Inputs[i])
		}
	}
	if cond != nil && cond.Type.Kind != Bool {
		return fmt.Errorf("run probe (left join) %s: the join condition is %s, not bool", p, cond.Type)
	}
	return nil
}
