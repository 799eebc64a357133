package cuda

import (
	"errors"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// wideKeyAggregate groups by k nullable int64 columns and counts.
func wideKeyAggregate(k int) *gpu.Pipeline {
	p := &gpu.Pipeline{Sink: gpu.SinkAggregate, Aggs: []gpu.Agg{{Kind: gpu.AggCountStar, Type: tI64}}}
	for c := range k {
		p.Inputs = append(p.Inputs, nul(tI64))
		p.Project = append(p.Project, gpu.Col(c, nul(tI64)))
		p.Keys = append(p.Keys, c)
	}
	return p
}

// Group keys of up to maxKeyWords words (TPC-DS q64: 15 keys and their
// null flags) run in generated kernels, which compile; the interpreter,
// whose key array holds programKeyWords, leaves them to those; wider keys
// are refused with the words they need.
func TestWideGroupKeys(t *testing.T) {
	p := wideKeyAggregate(maxKeyWords - 1)
	ap, err := planAggregate(p, make([]int, len(p.Inputs)))
	if err != nil || ap.keyWords != maxKeyWords {
		t.Fatalf("%d nullable keys: plan %v, %v; want %d key words", len(p.Keys), ap, err, maxKeyWords)
	}
	if _, err := programAggregate(ap, &program{}); !errors.Is(err, errNoProgram) {
		t.Errorf("the interpreter took %d key words: %v", ap.keyWords, err)
	}
	wide := wideKeyAggregate(maxKeyWords)
	if _, err := planAggregate(wide, make([]int, len(wide.Inputs))); !errors.Is(err, gpu.ErrUnsupported) || !strings.Contains(err.Error(), "17 words") {
		t.Errorf("%d nullable keys: %v, want ErrUnsupported naming 17 words", len(wide.Keys), err)
	}
	skipNoNVRTC(t)
	src, err := pipelineSource(p, make([]int, len(p.Inputs)))
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	compileClean(t, "agg_wide_keys", src)
}
