package cuda

import (
	"context"
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

var _ gpu.LeftProbeRunner = (*Device)(nil)

// RunProbeLeft runs a pipeline over the left join of probe and build (see
// gpu.LeftProbeRunner) as RunProbe runs one over the inner join: the hash
// table over build, then the generated kernels of codegen_probe_left.go
// walk every probe row's matches, write the pairs that the condition and
// the filter keep, and a padded row for each probe row that none matches.
func (d *Device) RunProbeLeft(ctx context.Context, p *gpu.Pipeline, cond *gpu.Expr, single bool, probe, build []gpu.Column, probeKeys, buildKeys []int, nullsEqual []bool) ([]gpu.Column, error) {
	if hasStrRow(cond) {
		return nil, fmt.Errorf("run probe (left join) %s: a row function in the join's condition: %w", p, gpu.ErrUnsupported)
	}
	if scanPipeline(p).rowFuncs { // rowstrings.go
		return splitRowStrings(ctx, d, p, func(pairs *gpu.Pipeline) ([]gpu.Column, error) {
			return d.RunProbeLeft(ctx, pairs, cond, single, probe, build, probeKeys, buildKeys, nullsEqual)
		})
	}
	var out []*column
	err := d.probeCall(ctx, "run probe (left join)", gpu.KernelCall{Kind: gpu.CallProbeLeft, Pipe: p, Cond: cond, Single: single}, probe, build, probeKeys, buildKeys, nullsEqual,
		func() error {
			if err := gpu.CheckProbeShape(p, probe, build, probeKeys, buildKeys, nullsEqual); err != nil {
				return err
			}
			return gpu.CheckLeftProbe(p, cond, len(probe))
		},
		func(j *probeJoin) (err error) {
			p, cond, err := mixDictionariesLeft(p, cond, j.cols) // dictorder.go
			if err != nil {
				return err
			}
			out, err = d.probeLeft(ctx, p, cond, single, j)
			return err
		})
	if err != nil {
		return nil, err
	}
	return asColumns(out), nil
}

// leftPipeline is p with cond and p's filter as one conjunction: the
// pipeline whose Args and string tables a left probe lays out.
func leftPipeline(p *gpu.Pipeline, cond *gpu.Expr) *gpu.Pipeline {
	pt := *p
	pt.Filter = conjunction(nonNil(cond, p.Filter))
	return &pt
}

// probeLeft runs the kernels. pt, p with cond and p's filter as one
// conjunction, lays out the Args and the string tables of both.
func (d *Device) probeLeft(ctx context.Context, p *gpu.Pipeline, cond *gpu.Expr, single bool, j *probeJoin) (out []*column, err error) {
	pt := leftPipeline(p, cond)
	src, err := d.memoEntry(srcKey{p: p, cond: cond, kind: "probe left", extra: fmt.Sprint(j.nprobe, single), packed: j.packed.key()},
		func() (string, error) { return probeLeftSource(pt, j.packed, cond, p.Filter, single, j.nprobe) })
	if err != nil {
		return nil, err
	}
	S := sinkWord(pt)
	st, mod, err := d.probeModule(pt, j, src, "rigel_probe_left.cu")
	if err != nil {
		return nil, err
	}
	defer d.freeOnError(&out, &err)
	newOut := func(total int) (err error) {
		out, err = d.projectOutputs(p, j.cols, st, total, "left join")
		return err
	}
	if j.np == 0 {
		err = newOut(0)
		return out, err
	}
	args, block, err := d.probeArgs(pt, j, st, uint64(j.np), S+pbOut+2*len(p.Project))
	if err != nil {
		return nil, err
	}
	if block != 0 {
		defer d.pool.put(block) // stream order: later users wait for the kernels
	}
	tmp := &temps{d: d}
	defer tmp.release()
	if err := d.resetStatus(); err != nil {
		return nil, err
	}
	jmod, jargs, ntiles, err := d.probeTable(ctx, j, tmp, nil)
	if err != nil {
		return nil, err
	}
	pcnt, err := tmp.get(int64(j.np)*4, "probe row output counts")
	if err != nil {
		return nil, err
	}
	args = append(args, walkArgs(jargs, jargs[jaRep], ntiles, pcnt, 0)...)
	grid := d.gridFor(ntiles, 1)
	if err := d.timedLaunch(mod, "rg_probe_count", grid, joinThreads, 0, args); err != nil {
		return nil, err
	}
	err = d.probeWrite(ctx, mod, jmod, jargs, args, ntiles, S, src.raises, newOut, &out)
	return out, err
}
