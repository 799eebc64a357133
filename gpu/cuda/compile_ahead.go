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
// compile at once on several threads; the run takes a result when it gets
// there, waiting only for what is left of it.
//
// A generated kernel a run waits for compiles quick (compileLevel); once
// the run uses it, the full kernel compiles in the background and a later
// run takes it (kernelModule). A kernel whose full CUBIN is in the disk
// cache is taken from there at once.

var _ gpu.Precompiler = (*Device)(nil)

// pendingCompile is a compile running (or queued) in the background; done
// closes when cubin or err is set. full: the CUBIN is the full level's (a
// quick compile that found it in the disk cache).
type pendingCompile struct {
	done  chan struct{}
	cubin []byte
	full  bool
	err   error
}

// finished reports whether p is done, without waiting.
func (p *pendingCompile) finished() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// errDropped is a background compile's error when it was dropped before
// it started (its ctx ended): the source is then compiled when needed.
var errDropped = errors.New("background compile dropped")

// maxPending bounds the background compiles kept. Foreseen kernels that
// no run took (a guess that missed) stay until then; past it, finished
// ones are dropped (their CUBINs are in the disk kernel cache).
const maxPending = 512

// compileAhead starts compiling files at level l (through the kernel
// cache) in the background, in their order, as many at once as
// nvrtcSlots allows; those not started when ctx ends are dropped. Full
// compiles go to d.pending, quick ones to d.pendingQuick. Callers hold
// d.mu or are in Open.
func (d *Device) compileAhead(ctx context.Context, files []kernelFile, l compileLevel) {
	pending := d.pending
	if l == levelQuick {
		pending = d.pendingQuick
	}
	var jobs []kernelFile
	var ps []*pendingCompile
	for _, f := range files {
		if _, ok := d.mods[f.src]; ok {
			continue
		}
		if queued(d.pending, f.src) || queued(d.pendingQuick, f.src) {
			continue
		}
		if _, ok := d.quick[f.src]; ok && l == levelQuick {
			continue
		}
		// A compile dropped when its run ended (never started) is queued
		// again: a run on the interpreter waits for none, and would
		// otherwise never get its kernel.
		delete(d.pending, f.src)
		delete(d.pendingQuick, f.src)
		p := &pendingCompile{done: make(chan struct{})}
		pending[f.src] = p
		jobs, ps = append(jobs, f), append(ps, p)
	}
	if len(jobs) == 0 {
		return
	}
	dropFinished(d.pending, d.quick)
	dropFinished(d.pendingQuick, nil)
	var next atomic.Int64
	for range min(len(jobs), cap(nvrtcSlots)) {
		go func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) {
					return
				}
				d.compileJob(ctx, jobs[i], ps[i], l)
			}
		}()
	}
}

// queued reports whether pending holds a compile of src that runs, ran
// or waits to (not one dropped before it started).
func queued(pending map[string]*pendingCompile, src string) bool {
	p, ok := pending[src]
	return ok && !(p.finished() && p.err == errDropped)
}

// compileJob compiles f at level l into p, unless ctx ended; a quick job
// takes the full CUBIN where the disk cache holds it.
func (d *Device) compileJob(ctx context.Context, f kernelFile, p *pendingCompile, l compileLevel) {
	defer close(p.done)
	if ctx.Err() != nil {
		p.err = errDropped
		return
	}
	if l == levelQuick {
		if b, ok, err := cachedCubin(f.src, d.arch, levelFull); err == nil && ok {
			p.cubin, p.full = b, true
			return
		}
	}
	t0 := time.Now()
	var compiled bool
	p.cubin, compiled, p.err = compileCached(f.src, f.name, d.arch, l)
	p.full = l == levelFull
	if compiled && p.err == nil {
		d.countCompile(f.src, f.name, time.Since(t0), true, l)
	}
}

// dropFinished forgets finished background compiles of pending while it
// holds more than maxPending, except those of the sources in keep (a
// quick module's full compile, which kernelModule looks for). Callers
// hold d.mu.
func dropFinished(pending map[string]*pendingCompile, keep map[string]*module) {
	if len(pending) <= maxPending {
		return
	}
	for src, p := range pending {
		if _, kept := keep[src]; !kept && p.finished() {
			delete(pending, src)
		}
	}
}

// kernelModule returns the module of a generated kernel's source, and
// final: whether later runs use it too. That is the full module where it
// is loaded, its background compile has finished or the disk cache holds
// it; else the quick one, compiled ahead (Precompile) or here, whose full
// compile then starts in the background for later runs. Callers hold d.mu.
func (d *Device) kernelModule(src, name string) (mod *module, final bool, err error) {
	if m, ok := d.mods[src]; ok {
		return m, true, nil
	}
	if p, ok := d.pending[src]; ok && p.finished() {
		delete(d.pending, src)
		if p.err == nil {
			m, err := d.load(src, p.cubin)
			return m, err == nil, err
		}
		if m, ok := d.quick[src]; ok {
			// The quick kernel stays: the same source failing only at the
			// full level is NVRTC running out of something.
			d.mods[src] = m
			delete(d.quick, src)
			return m, true, nil
		}
	}
	if m, ok := d.quick[src]; ok {
		return m, false, nil
	}
	t0 := time.Now()
	defer func() { d.st.compileWait.Add(time.Since(t0).Nanoseconds()) }()
	var cubin []byte
	if p, ok := d.pendingQuick[src]; ok {
		delete(d.pendingQuick, src)
		<-p.done // counted and traced when it finished
		switch {
		case p.err == nil && p.full:
			m, err := d.load(src, p.cubin)
			return m, err == nil, err
		case p.err == nil:
			cubin = p.cubin
		case p.err != errDropped:
			return nil, false, p.err
		}
	}
	if cubin == nil {
		b, ok, err := cachedCubin(src, d.arch, levelFull)
		if err != nil {
			return nil, false, err
		}
		if ok {
			m, err := d.load(src, b)
			return m, err == nil, err
		}
		var compiled bool
		t := time.Now()
		if cubin, compiled, err = compileCached(src, name, d.arch, levelQuick); err != nil {
			return nil, false, err
		}
		if compiled {
			d.countCompile(src, name, time.Since(t), false, levelQuick)
		}
	}
	m, err := d.cx.loadModule(cubin)
	if err != nil {
		return nil, false, err
	}
	d.quick[src] = m
	d.compileAhead(context.Background(), []kernelFile{{name, src}}, levelFull)
	return m, false, nil
}

var _ gpu.CompileWaiter = (*Device)(nil)

// WaitCompiles waits for the background compiles started so far
// (gpu.CompileWaiter).
func (d *Device) WaitCompiles(ctx context.Context) error {
	d.mu.Lock()
	var ps []*pendingCompile
	for _, m := range []map[string]*pendingCompile{d.pending, d.pendingQuick} {
		for _, p := range m {
			ps = append(ps, p)
		}
	}
	d.mu.Unlock()
	for _, p := range ps {
		select {
		case <-p.done:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	return nil
}

// Precompile starts compiling the kernels of the calls a run foresees
// (gpu.Precompiler), in their order, in the background: those the run
// will wait for until ctx ends, the others to the end.
func (d *Device) Precompile(ctx context.Context, calls []gpu.KernelCall) {
	// The run waits for the kernels of the pipelines the interpreter does
	// not run (all of them without it): those compile first, quick. The
	// rest run on the interpreter meanwhile, so nothing waits for them:
	// they compile at the full level, which later runs keep.
	var waited, later []kernelFile
	for _, c := range calls {
		fs, err := callSources(c)
		if err != nil {
			continue // the call itself reports it, if it is made
		}
		if d.programMode != programOff && d.waitsForNone(c) {
			later = append(later, fs...)
		} else {
			waited = append(waited, fs...)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.programMode == programAlways { // no generated kernel is wanted
		return
	}
	d.compileAhead(ctx, waited, levelQuick)
	// Kept past the run (not dropped when ctx ends): they are for the
	// runs after it, which would otherwise stay on the interpreter.
	d.compileAhead(context.Background(), later, levelFull)
}

// waitsForNone reports whether call c would not wait for its kernels: a
// fused join gives way to the composed one (the engine composes every
// one it foresees, gpu.MayCompose), and a pipeline the interpreter runs
// (program_run.go) runs there. An aggregate over dictionaries of unknown
// size counts as one the interpreter runs.
func (d *Device) waitsForNone(c gpu.KernelCall) bool {
	if c.Kind != gpu.CallRun {
		return true
	}
	var ap *aggPlan
	if c.Pipe.Sink == gpu.SinkAggregate {
		var err error
		if ap, err = planAggregate(c.Pipe, c.DictLen); err != nil {
			return false
		}
	}
	pr, _, err := programOf(c.Pipe, ap)
	return err == nil && d.programFits(pr)
}

// callPacked is the packed inputs among the columns call c names
// (gpu.KernelCall.Inputs). They are a run's columns, which it keeps while
// the call is foreseen: read without the device's lock.
func callPacked(c gpu.KernelCall) packedInputs {
	cols := make([]*column, len(c.Inputs))
	for i, col := range c.Inputs {
		cols[i], _ = col.(*column)
	}
	return packedOf(cols)
}

// callSources are the generated modules (constants hoisted, as memoEntry
// hoists them) that call c loads: the same generators, from the same
// inputs, as the call's own path (run.go, agg_run.go, probe.go,
// probe_left.go, probe_counts.go), so that the sources are equal and
// kernelModule finds the compile under its source: for the packed inputs
// among the columns the call names (callPacked), plain ones elsewhere.
func callSources(c gpu.KernelCall) ([]kernelFile, error) {
	p := c.Pipe
	if p == nil {
		return nil, nil
	}
	packed := callPacked(c)
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
			src, err := materializeSource(p, packed)
			return out, add("rigel_materialize.cu", src, err)
		case gpu.SinkAggregate:
			ap, err := planAggregate(p, c.DictLen)
			if err != nil {
				return nil, err
			}
			ap.packed = packed
			src, err := aggregateSource(ap)
			return out, add("rigel_aggregate.cu", src, err)
		}
	case gpu.CallProbe:
		pairs, find := probeSplit(p, c.NProbe)
		if find != nil {
			src, err := probeFindSource(find, packed, c.NProbe)
			if err := add("rigel_probe_find.cu", src, err); err != nil {
				return nil, err
			}
		}
		switch p.Sink {
		case gpu.SinkMaterialize:
			src, err := probeSource(pairs, packed, c.NProbe)
			return out, add("rigel_probe.cu", src, err)
		case gpu.SinkAggregate:
			ap, err := planProbeAggregate(pairs, c.DictLen, c.NProbe)
			if err != nil {
				return nil, err
			}
			ap.packed = packed
			src, err := aggregateSource(ap)
			return out, add("rigel_probe_aggregate.cu", src, err)
		}
	case gpu.CallProbeLeft:
		src, err := probeLeftSource(leftPipeline(p, c.Cond), packed, c.Cond, p.Filter, c.Single, c.NProbe)
		return out, add("rigel_probe_left.cu", src, err)
	case gpu.CallProbeCounts:
		src, err := probeSource(countsPipeline(p), packed, c.NProbe)
		return out, add("rigel_probe.cu", src, err)
	}
	return out, nil
}
