package cuda

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/devicetest"
	"github.com/rigel-db/rigel/gpu/host"
)

// probeSamples are pipelines with the number of probe-side inputs: the
// battery's probe pipelines (4 of 8 inputs on each side) and every
// sample pipeline of two inputs or more, split after its first input.
func probeSamples() []struct {
	name string
	p    *gpu.Pipeline
	np   int
} {
	var out []struct {
		name string
		p    *gpu.Pipeline
		np   int
	}
	for i, p := range devicetest.ProbePipelines() {
		out = append(out, struct {
			name string
			p    *gpu.Pipeline
			np   int
		}{fmt.Sprint("battery", i), p, 4})
	}
	for _, s := range samplePipelines() {
		if len(s.p.Inputs) < 2 {
			continue
		}
		out = append(out, struct {
			name string
			p    *gpu.Pipeline
			np   int
		}{s.name, s.p, 1})
	}
	return out
}

// alternatePacked is every input of p a column may be packed in
// (packedKinds), in widths 0, 8, 16 and 32 by turns, for odd k, none for
// even: the compile tests generate half their kernels for packed inputs,
// on both sides of a join.
func alternatePacked(k int, p *gpu.Pipeline) packedInputs {
	var s packedInputs
	for i, t := range p.Inputs {
		if k%2 == 1 && packedKinds[t.Kind] {
			s = append(s, packedInput{i, []uint8{0, 8, 16, 32}[len(s)%4]})
		}
	}
	return s
}

// TestNVRTCCompilesProbeKernels compiles the generated probe kernels
// (materializing, and aggregating with the pair loop inside the aggregate
// kernel) for sm_90 without a GPU, warnings included.
func TestNVRTCCompilesProbeKernels(t *testing.T) {
	skipNoNVRTC(t)
	n, finds := 0, 0
	for k, s := range probeSamples() {
		p := s.p
		packed := alternatePacked(k, p)
		// As RunProbe runs it: the filter's probe-only part in
		// rg_probe_find, the rest per pair.
		if pre, rest := splitProbeFilter(p.Filter, s.np); pre != nil {
			src, err := probeFindSource(probeFindPipeline(p, pre), packed, s.np)
			if err != nil {
				t.Fatalf("%s: probe find: %v", s.name, err)
			}
			compileClean(t, s.name+"_probe_find.cu", src)
			finds++
			r := *p
			r.Filter = rest
			p = &r
		}
		if p.Sink == gpu.SinkAggregate {
			dictLen := make([]int, len(p.Inputs))
			for i, in := range p.Inputs {
				if in.Kind == gpu.Dict {
					dictLen[i] = 5
				}
			}
			ap, err := planAggregate(p, dictLen)
			if err != nil {
				t.Fatalf("%s: plan: %v", s.name, err)
			}
			ap.probe, ap.packed = s.np, packed
			src, err := aggregateSource(ap)
			if err != nil {
				t.Fatalf("%s: aggregate: %v", s.name, err)
			}
			compileClean(t, s.name+"_probe_agg.cu", src)
			n++
			continue
		}
		src, err := probeSource(p, packed, s.np)
		if err != nil {
			t.Fatalf("%s: generate: %v", s.name, err)
		}
		compileClean(t, s.name+"_probe.cu", src)
		n++
	}
	if n < 10 || finds < 4 {
		t.Fatalf("only %d probe pipelines and %d probe finds compiled", n, finds)
	}
}

// The generated kernels read probe columns at the probe row and build
// columns at the build row of the chain walk, never the other way round.
func TestProbeSourceRowIndexes(t *testing.T) {
	p := devicetest.ProbePipelines()[1] // a filter and projections over both sides
	src, err := probeSource(p, nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	used := map[int]bool{}
	columnsOf(p.Filter, used)
	for _, e := range p.Project {
		columnsOf(e, used)
	}
	if len(used) < 6 {
		t.Fatalf("the pipeline reads %d columns: too few to tell the sides apart", len(used))
	}
	for c := range used {
		load := fmt.Sprintf("const %s c%d = ", ctype(p.Inputs[c].Kind), c)
		row := "[i]" // the plain load, last (columnValue)
		if c >= 4 {
			row = "[bj]"
		}
		found := false
		for _, l := range strings.Split(src, "\n") {
			if strings.Contains(l, load) {
				found = true
				if !strings.HasSuffix(strings.TrimRight(strings.TrimSpace(l), ");"), row) {
					t.Errorf("column %d loaded as %q, want a load at %s", c, strings.TrimSpace(l), row)
				}
			}
		}
		if !found {
			t.Errorf("column %d is never loaded", c)
		}
	}
	if !strings.Contains(src, "rg_probe_count") || !strings.Contains(src, "rg_probe_write") {
		t.Fatal("a filtered probe needs its count and write kernels")
	}
	// Without a filter every pair passes; the count kernel is still made,
	// for a walk over a selection (whose tiles are not the lookup's).
	noFilter := *p
	noFilter.Filter = nil
	if src, err = probeSource(&noFilter, nil, 4); err != nil || !strings.Contains(src, "rg_probe_count") {
		t.Fatalf("unfiltered probe: err %v, count kernel generated: %v", err, strings.Contains(src, "rg_probe_count"))
	}
}

// TestProbeGPU compares the CUDA RunProbe with the host reference (run
// over a nested-loop join) on the battery's random sides and pipelines.
func TestProbeGPU(t *testing.T) { devicetest.Probe(t, host.New(), openOrSkip(t)) }

// TestNVRTCCompilesProbeCountKernels compiles the count pass as
// ProbeCounts generates it: a filter and no projections.
func TestNVRTCCompilesProbeCountKernels(t *testing.T) {
	skipNoNVRTC(t)
	for i, p := range devicetest.ProbePipelines()[1:3] {
		src, err := probeSource(&gpu.Pipeline{Inputs: p.Inputs, Filter: p.Filter, Sink: gpu.SinkMaterialize}, nil, 4)
		if err != nil {
			t.Fatalf("condition %d: %v", i, err)
		}
		compileClean(t, fmt.Sprint("probe_counts", i), src)
	}
}

// TestProbeCountsGPU checks the CUDA ProbeCounts against counts over a
// nested-loop join (devicetest.ProbeCounts); it skips without a GPU.
func TestProbeCountsGPU(t *testing.T) { devicetest.ProbeCounts(t, host.New(), openOrSkip(t)) }

// TestNVRTCCompilesLeftProbeKernels compiles the left join probe kernels
// (codegen_probe_left.go) of every materializing probe sample, its build
// columns declared nullable, without a condition and with the sample's
// filter as the condition, as a left and as a single join.
func TestNVRTCCompilesLeftProbeKernels(t *testing.T) {
	skipNoNVRTC(t)
	n := 0
	for _, s := range probeSamples() {
		if s.p.Sink != gpu.SinkMaterialize {
			continue
		}
		p := *s.p
		p.Inputs = append([]gpu.Type(nil), p.Inputs...)
		for i := s.np; i < len(p.Inputs); i++ {
			p.Inputs[i].Nullable = true
		}
		for _, cond := range []*gpu.Expr{nil, p.Filter} {
			pt := p
			pt.Filter = conjunction(nonNil(cond, p.Filter))
			for _, single := range []bool{false, true} {
				src, err := probeLeftSource(&pt, alternatePacked(n, &pt), cond, p.Filter, single, s.np)
				if err != nil {
					t.Fatalf("%s: generate: %v", s.name, err)
				}
				compileClean(t, fmt.Sprintf("%s_left%d.cu", s.name, n), src)
				n++
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d left join probe kernels compiled", n)
	}
}
