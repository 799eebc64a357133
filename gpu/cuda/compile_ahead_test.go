package cuda

import (
	"context"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// probeSample is a probe call's pipeline: one probe column (a date) and one
// build column; its filter has a probe-only part (rg_probe_find's) and a
// part over both sides.
func probeSample(sink gpu.SinkKind) *gpu.Pipeline {
	d, b := gpu.Col(0, tDate), gpu.Col(1, tI64)
	p := &gpu.Pipeline{
		Inputs: []gpu.Type{tDate, tI64},
		Filter: call(gpu.OpAnd, tBool,
			call(gpu.OpGe, tBool, d, ci(tDate, 9000)),
			call(gpu.OpLt, tBool, call(gpu.OpCast, tI64, d), b)),
		Project: []*gpu.Expr{b},
		Sink:    sink,
	}
	if sink == gpu.SinkAggregate {
		p.Aggs = []gpu.Agg{{Kind: gpu.AggCountStar, Type: tI64}}
	}
	return p
}

// callSources gives each call kind the modules its own path loads, with
// their constants hoisted, and they compile.
func TestCallSourcesEveryKind(t *testing.T) {
	q1 := q1Pipeline(10471)
	cases := []struct {
		call  gpu.KernelCall
		files []string
	}{
		{gpu.KernelCall{Kind: gpu.CallRun, Pipe: q1, DictLen: []int{0, 3, 2, 0, 0, 0, 0}}, []string{"rigel_aggregate.cu"}},
		{gpu.KernelCall{Kind: gpu.CallRun, Pipe: probeSample(gpu.SinkMaterialize)}, []string{"rigel_materialize.cu"}},
		{gpu.KernelCall{Kind: gpu.CallProbe, Pipe: probeSample(gpu.SinkMaterialize), NProbe: 1}, []string{"rigel_probe_find.cu", "rigel_probe.cu"}},
		{gpu.KernelCall{Kind: gpu.CallProbe, Pipe: probeSample(gpu.SinkAggregate), NProbe: 1, DictLen: []int{0, 0}}, []string{"rigel_probe_find.cu", "rigel_probe_aggregate.cu"}},
		{gpu.KernelCall{Kind: gpu.CallProbeLeft, Pipe: probeSample(gpu.SinkMaterialize), NProbe: 1, Single: true}, []string{"rigel_probe_left.cu"}},
		{gpu.KernelCall{Kind: gpu.CallProbeCounts, Pipe: &gpu.Pipeline{Inputs: []gpu.Type{tDate, tI64}, Sink: gpu.SinkMaterialize}, NProbe: 1}, []string{"rigel_probe.cu"}},
	}
	for _, c := range cases {
		fs, err := callSources(c.call)
		if err != nil {
			t.Fatalf("%v: %v", c.files, err)
		}
		var names []string
		for _, f := range fs {
			names = append(names, f.name)
			if constMarker.MatchString(f.src) {
				t.Errorf("%s: a constant marker left in the source (not hoisted)", f.name)
			}
		}
		if strings.Join(names, " ") != strings.Join(c.files, " ") {
			t.Errorf("kind %d: modules %v, want %v", c.call.Kind, names, c.files)
		}
	}
	// The domain strategy follows the dictionary sizes, as Run's does.
	hash, _ := callSources(gpu.KernelCall{Kind: gpu.CallRun, Pipe: q1, DictLen: make([]int, 7)})
	domain, _ := callSources(cases[0].call)
	if hash[0].src == domain[0].src {
		t.Error("Q1 over unknown dictionaries made the same kernel as over 3 and 2 values")
	}
	skipNoNVRTC(t)
	for _, c := range cases {
		fs, _ := callSources(c.call)
		for _, f := range fs {
			compileClean(t, f.name, f.src)
		}
	}
}

func newCompileTestDevice() *Device {
	return &Device{mods: map[string]*module{}, quick: map[string]*module{},
		pending: map[string]*pendingCompile{}, pendingQuick: map[string]*pendingCompile{}, arch: "sm_90"}
}

// compileAhead compiles in the background, and drops what has not started
// when its ctx ends (the source then compiles when needed). A quick
// compile takes the full CUBIN when the disk cache holds it.
func TestCompileAheadDropsWhenDone(t *testing.T) {
	skipNoNVRTC(t)
	t.Setenv("RIGEL_KERNEL_CACHE", t.TempDir())
	fs, err := callSources(gpu.KernelCall{Kind: gpu.CallRun, Pipe: probeSample(gpu.SinkMaterialize)})
	if err != nil {
		t.Fatal(err)
	}
	src := fs[0].src
	d := newCompileTestDevice()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d.compileAhead(ctx, fs, levelQuick)
	p := d.pendingQuick[src]
	if p == nil {
		t.Fatal("nothing pending")
	}
	<-p.done
	if p.err != errDropped || p.cubin != nil {
		t.Fatalf("after its ctx ended: err %v, %d bytes of CUBIN; want dropped", p.err, len(p.cubin))
	}

	d = newCompileTestDevice()
	d.compileAhead(context.Background(), append(fs, fs...), levelQuick) // the same source twice compiles once
	if len(d.pendingQuick) != 1 || len(d.pending) != 0 {
		t.Fatalf("%d quick and %d full compiles pending, want 1 and 0", len(d.pendingQuick), len(d.pending))
	}
	p = d.pendingQuick[src]
	<-p.done
	if p.err != nil || len(p.cubin) == 0 || p.full {
		t.Fatalf("quick: err %v, %d bytes of CUBIN, full %v", p.err, len(p.cubin), p.full)
	}
	if c, a := d.st.compiled.Load(), d.st.ahead.Load(); c != 1 || a != 1 {
		t.Fatalf("stats: %d compiled, %d ahead; want 1 and 1", c, a)
	}

	// The full level compiles apart (its own cache key), and a quick
	// compile ahead then takes it from the disk cache.
	if cacheKey(src, "sm_90", levelQuick) == cacheKey(src, "sm_90", levelFull) {
		t.Fatal("quick and full CUBINs share a cache key")
	}
	delete(d.pendingQuick, src) // taken, as kernelModule takes it
	d.compileAhead(context.Background(), fs, levelFull)
	<-d.pending[src].done
	if p := d.pending[src]; p.err != nil || !p.full {
		t.Fatalf("full: err %v, full %v", p.err, p.full)
	}
	d = newCompileTestDevice()
	d.compileAhead(context.Background(), fs, levelQuick)
	p = d.pendingQuick[src]
	<-p.done
	if p.err != nil || !p.full || d.st.compiled.Load() != 0 {
		t.Fatalf("a quick compile with the full CUBIN on disk: err %v, full %v, %d compiled", p.err, p.full, d.st.compiled.Load())
	}
}
