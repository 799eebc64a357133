package cuda

import (
	"context"
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

var _ gpu.ProbeCounter = (*Device)(nil)

// ProbeCounts counts each probe row's passing pairs (see gpu.ProbeCounter)
// with the probe kernels' count pass: join.cu builds the table and finds
// each probe row's first match, then rg_probe_count walks the row's chain
// and evaluates the condition over both sides' columns in place, writing
// the count of passing pairs straight into the output column. No pair is
// listed and no column gathered. Without a condition every pair passes and
// the count is the chain length, so a constant-true filter stands in.
func (d *Device) ProbeCounts(ctx context.Context, p *gpu.Pipeline, probe, build []gpu.Column, probeKeys, buildKeys []int, nullsEqual []bool) (gpu.Column, error) {
	p = countsPipeline(p)
	var out *column
	err := d.probeCall(ctx, "probe counts", gpu.KernelCall{Kind: gpu.CallProbeCounts, Pipe: p}, probe, build, probeKeys, buildKeys, nullsEqual,
		func() error { return gpu.CheckProbeCountsShape(p, probe, build, probeKeys, buildKeys, nullsEqual) },
		func(j *probeJoin) (err error) {
			p, err := mixDictionaries(p, j.cols, scanPipeline(p).dictMixes) // dictorder.go
			if err != nil {
				return err
			}
			out, err = d.probeCounts(ctx, p, j)
			return err
		})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// countsPipeline is the pipeline ProbeCounts runs for p: without a
// condition every pair passes, so a constant-true filter stands in.
func countsPipeline(p *gpu.Pipeline) *gpu.Pipeline {
	if p == nil || p.Filter != nil {
		return p
	}
	cp := *p
	cp.Filter = gpu.Const(gpu.Type{Kind: gpu.Bool}, gpu.Value{I64: 1})
	return &cp
}

func (d *Device) probeCounts(ctx context.Context, p *gpu.Pipeline, j *probeJoin) (out *column, err error) {
	out, err = d.newOutput(gpu.JoinIndexType, j.np, nil, fmt.Sprintf("probe row match counts (%d rows)", j.np))
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			d.freeColumn(out)
			out = nil
		}
	}()
	if j.np == 0 {
		return out, nil
	}
	if j.nb == 0 {
		return out, d.cx.memset(out.data, 0, int64(j.np)*4, d.stream)
	}
	src, err := d.memoEntry(srcKey{p: p, kind: "probe", extra: fmt.Sprint(j.nprobe), packed: j.packed.key()}, func() (string, error) { return probeSource(p, j.packed, j.nprobe) })
	if err != nil {
		return nil, err
	}
	S := sinkWord(p)
	st, err := probeStrTables(p, j, S+pbOut)
	if err != nil {
		return nil, err
	}
	mod, err := d.entryModule(src, "rigel_probe.cu")
	if err != nil {
		return nil, err
	}
	args, block, err := d.probeArgs(p, j, st, uint64(j.np), S+pbOut)
	if err != nil {
		return nil, err
	}
	if block != 0 {
		defer d.pool.put(block) // stream order: later users wait for the kernels
	}
	tmp := &temps{d: d}
	defer tmp.release()
	check := src.raises
	if check {
		if err := d.resetStatus(); err != nil {
			return nil, err
		}
	}
	_, jargs, ntiles, err := d.probeTable(ctx, j, tmp, nil)
	if err != nil {
		return nil, err
	}
	// rg_probe_count's per-row counts are the output; its tile counts go
	// to rg_join_count's buffer, which nothing reads afterwards.
	args = append(args, walkArgs(jargs, jargs[jaRep], ntiles, out.data, 0)...)
	if err := d.timedLaunch(mod, "rg_probe_count", d.gridFor(ntiles, 1), joinThreads, 0, args); err != nil {
		return nil, err
	}
	if check {
		if _, err := d.checkStatus(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
