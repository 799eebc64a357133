package cuda

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/rigel-db/rigel/gpu"
)

// Compiles in the background. A run meets its pipelines one after another,
// and each new one used to wait for its kernel's compile (about 200 ms on
// the H100's host, 2 to 13 kernels a TPC-H query:
// bench/results/2026-11-27-h100-tpch-sf10-first-run-v23-compile-ahead.md).
// NVRTC compiles programs in parallel, so the kernels a run foresees
// (gpu.Precompiler), and the device's own hand-written modules at Open,
// compile at once on several threads; moduleFor takes a result when the
// run gets there, waiting only for what is left of it.

var _ gpu.Precompiler = (*Device)(nil)

// pendingCompile is a compile running (or queued) in the background; done
// closes when cubin or err is set.
type pendingCompile struct {
	done  chan struct{}
	cubin []byte
	err   error
}

// errDropped is a background compile's error when it was dropped before
// it started (its ctx ended): moduleFor then compiles the source itself.
var errDropped = errors.New("background compile dropped")

// maxPending bounds the background compiles kept for moduleFor. Foreseen
// kernels that no run took (a guess that missed) stay until then; past it,
// finished ones are dropped (their CUBINs are in the disk kernel cache).
const maxPending = 512

// compileAhead starts compiling files (through the kernel cache) in the
// background, in their order, as many at once as nvrtcSlots allows; those
// not started when ctx ends are dropped. Callers hold d.mu or are in Open.
func (d *Device) compileAhead(ctx context.Context, files []kernelFile) {
	var jobs []kernelFile
	var ps []*pendingCompile
	for _, f := range files {
		if _, ok := d.mods[f.src]; ok {
			continue
		}
		if _, ok := d.pending[f.src]; ok {
			continue
		}
		p := &pendingCompile{done: make(chan struct{})}
		d.pending[f.src] = p
		jobs, ps = append(jobs, f), append(ps, p)
	}
	if len(jobs) == 0 {
		return
	}
	d.dropFinished()
	var next atomic.Int64
	for range min(len(jobs), cap(nvrtcSlots)) {
		go func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) {
					return
				}
				f, p := jobs[i], ps[i]
				if ctx.Err() != nil {
					p.err = errDropped
					close(p.done)
					continue
				}
				t0 := time.Now()
				var compiled bool
				p.cubin, compiled, p.err = compileCached(f.src, f.name, d.arch)
				if compiled && p.err == nil {
					d.countCompile(f.src, f.name, time.Since(t0), true)
				}
				close(p.done)
			}
		}()
	}
}

// dropFinished forgets finished background compiles while there are more
// than maxPending. Callers hold d.mu.
func (d *Device) dropFinished() {
	if len(d.pending) <= maxPending {
		return
	}
	for src, p := range d.pending {
		select {
		case <-p.done:
			delete(d.pending, src)
		default:
		}
	}
}

// Precompile starts compiling the kernels of the calls a run foresees
// (gpu.Precompiler), in their order, in the background, until ctx ends.
func (d *Device) Precompile(ctx context.Context, calls []gpu.KernelCall) {
	var files []kernelFile
	for _, c := range calls {
		fs, err := callSources(c)
		if err != nil {
			continue // the call itself reports it, if it is made
		}
		files = append(files, fs...)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	d.compileAhead(ctx, files)
}

// callSources are the generated modules (constants hoisted, as memoEntry
// hoists them) that call c loads: the same generators, from the same
// inputs, as the call's own path (run.go, agg_run.go, probe.go,
// probe_left.go, probe_counts.go), so that the sources are equal and
// moduleFor finds the compile under its source.
func callSources(c gpu.KernelCall) ([]kernelFile, error) {
	p := c.Pipe
	if p == nil {
		return nil, nil
	}
	var out []kernelFile
	add := func(name string, src string, err error) error {
		if err != nil {
			return err
		}
		src, _ = hoistConstants(src)
		out = append(out, kernelFile{name, src})
		return nil
	}
	switch c.Kind {
	case gpu.CallRun:
		switch p.Sink {
		case gpu.SinkMaterialize:
			src, err := materializeSource(p)
			return out, add("rigel_materialize.cu", src, err)
		case gpu.SinkAggregate:
			ap, err := planAggregate(p, c.DictLen)
			if err != nil {
				return nil, err
			}
			src, err := aggregateSource(ap)
			return out, add("rigel_aggregate.cu", src, err)
		}
	case gpu.CallProbe:
		pairs, find := probeSplit(p, c.NProbe)
		if find != nil {
			src, err := probeFindSource(find, c.NProbe)
			if err := add("rigel_probe_find.cu", src, err); err != nil {
				return nil, err
			}
		}
		switch p.Sink {
		case gpu.SinkMaterialize:
			src, err := probeSource(pairs, c.NProbe)
			return out, add("rigel_probe.cu", src, err)
		case gpu.SinkAggregate:
			ap, err := planProbeAggregate(pairs, c.DictLen, c.NProbe)
			if err != nil {
				return nil, err
			}
			src, err := aggregateSource(ap)
			return out, add("rigel_probe_aggregate.cu", src, err)
		}
	case gpu.CallProbeLeft:
		src, err := probeLeftSource(leftPipeline(p, c.Cond), c.Cond, p.Filter, c.Single, c.NProbe)
		return out, add("rigel_probe_left.cu", src, err)
	case gpu.CallProbeCounts:
		src, err := probeSource(countsPipeline(p), c.NProbe)
		return out, add("rigel_probe.cu", src, err)
	}
	return out, nil
}
