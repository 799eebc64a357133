package cuda

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// fileName makes a sample's name a plain file name.
var fileName = strings.NewReplacer("(", "-", ")", "", ",", "-", " ", "-")

// goldenSamples are the sample pipelines (samplePipelines) with a golden
// file: one of each generator's shapes (the other samples differ from
// these in a key's type or count).
var goldenSamples = map[string]bool{
	"materialize-all-ops": true, "materialize-no-filter": true, "aggregate-hash-all": true,
	"aggregate-hash-key-int64": true, "aggregate-domain-bool": true, "aggregate-no-keys": true,
	"str-project": true, "str-group-keys": true, "tpch-q6": true, "tpch-q1": true,
}

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden/*.cu from the generators")

// goldenSources are the generated sources the golden files hold, by file
// name: the goldenSamples (materialize, hash and domain aggregates,
// strings, TPC-H Q1 and Q6), Q1 over packed inputs of
// every width, and the probe kernels (pairs, aggregate, find, left) of the
// battery's first probe pipeline. The prelude and the probe kernels'
// header are left out: they are files of their own (kernels/prelude.cuh,
// kernels/join_find.cuh); constants are hoisted, as the kernel cache sees
// the sources.
func goldenSources(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	add := func(name, src string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		src, _ = hoistConstants(src)
		if !strings.HasPrefix(src, preludeSrc) {
			t.Fatalf("%s: the source does not start with the prelude", name)
		}
		// The probe kernels' hand-written header is a file of its own too.
		out[fileName.Replace(name)+".cu"] = strings.Replace(strings.TrimPrefix(src, preludeSrc), joinFindSrc, "", 1)
	}
	for _, s := range samplePipelines() {
		if _, seen := out[fileName.Replace(s.name)+".cu"]; goldenSamples[s.name] && !seen {
			src, err := pipelineSource(s.p, s.dictLen)
			add(s.name, src, err)
		}
	}
	q1 := q1Pipeline(10471)
	src, err := packedPipelineSource(q1, []int{0, 3, 2, 0, 0, 0, 0}, packedInputs{{0, 16}, {1, 8}, {2, 8}, {3, 8}, {4, 32}, {5, 0}, {6, 12}})
	add("tpch-q1-packed", src, err)

	ps := probeSamples()[0]
	pairs, _ := probeSplit(ps.p, ps.np)
	packed := alternatePacked(1, ps.p)
	src, err = probeSource(pairs, packed, ps.np)
	add("probe-pairs-packed", src, err)
	src, err = probeLeftSource(leftPipeline(ps.p, ps.p.Filter), nil, ps.p.Filter, ps.p.Filter, false, ps.np)
	add("probe-left", src, err)
	for _, fs := range probeSamples() {
		if _, find := probeSplit(fs.p, fs.np); find != nil {
			src, err = probeFindSource(find, alternatePacked(1, fs.p), fs.np)
			add("probe-find-packed", src, err)
			break
		}
	}
	agg := *ps.p
	agg.Sink, agg.Keys, agg.Aggs = gpu.SinkAggregate, nil, []gpu.Agg{{Kind: gpu.AggCountStar, Type: gpu.Type{Kind: gpu.Int64}}}
	ap, err := planProbeAggregate(&agg, make([]int, len(agg.Inputs)), ps.np)
	if err != nil {
		t.Fatal(err)
	}
	src, err = aggregateSource(ap)
	add("probe-aggregate", src, err)
	return out
}

// The generators write exactly the kernels in testdata/golden: a change to
// them shows as a diff of the CUDA a person reads, and a refactor meant to
// change nothing proves it. After a meant change:
//
//	go test ./gpu/cuda -run TestGeneratedSourcesMatchGolden -update-golden
func TestGeneratedSourcesMatchGolden(t *testing.T) {
	dir := filepath.Join("testdata", "golden")
	got := goldenSources(t)
	if *updateGolden {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, src := range got {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.cu"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(got) {
		t.Errorf("%d golden files, the generators make %d sources (-update-golden rewrites them)", len(files), len(got))
	}
	for name, src := range got {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v (-update-golden writes it)", name, err)
			continue
		}
		if string(want) != src {
			t.Errorf("%s: the generated source differs from the golden file at line %d (-update-golden rewrites it after a meant change)", name, firstDiffLine(string(want), src))
		}
	}
}

// firstDiffLine is the first line (from 1) where a and b differ.
func firstDiffLine(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}
