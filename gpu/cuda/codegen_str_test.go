package cuda

import (
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// stringSamples are pipelines with string tables and date parts, in both
// sinks: a predicate over a substring's new dictionary, a group key from a
// substring, a NOT LIKE and an IN list in one filter.
func stringSamples() []samplePipeline {
	nd := nul(tDict)
	nb := nul(tBool)
	sub := gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrSubstring, From: 1, Length: 2, HasLength: true}, nd, gpu.Col(0, nd))
	in := gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrIn, List: []string{"13", "31"}}, nb, sub)
	like := gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrLike, Pattern: "%fur%"}, nb, gpu.Col(0, nd))
	year := call(gpu.OpYear, nul(tI64), gpu.Col(1, nul(tDate)))
	month := call(gpu.OpMonth, nul(tI64), gpu.Col(1, nul(tDate)))
	day := call(gpu.OpDay, nul(tI64), gpu.Col(1, nul(tDate)))
	inputs := []gpu.Type{nd, nul(tDate)}
	return []samplePipeline{
		{"strings_materialize", &gpu.Pipeline{
			Inputs:  inputs,
			Filter:  call(gpu.OpAnd, nb, in, call(gpu.OpNot, nb, like)),
			Project: []*gpu.Expr{sub, year, month, day, like},
			Sink:    gpu.SinkMaterialize,
		}, []int{100, 0}},
		{"strings_aggregate", &gpu.Pipeline{
			Inputs:  inputs,
			Filter:  in,
			Project: []*gpu.Expr{sub, year},
			Sink:    gpu.SinkAggregate,
			Keys:    []int{0, 1},
			Aggs:    []gpu.Agg{{Kind: gpu.AggCountStar, Type: tI64}},
		}, []int{100, 0}},
	}
}

func TestNVRTCCompilesStringKernels(t *testing.T) {
	skipNoNVRTC(t)
	for _, s := range stringSamples() {
		src, err := pipelineSource(s.p, s.dictLen)
		if err != nil {
			t.Errorf("%s: generate: %v", s.name, err)
			continue
		}
		compileClean(t, s.name, src)
	}
}

// The table words follow the inputs, children before parents, and the sink
// words follow the tables.
func TestStringTableWords(t *testing.T) {
	p := stringSamples()[0].p
	nodes := strNodes(p)
	if len(nodes) != 3 {
		t.Fatalf("%d string nodes, want 3 (substring, in, like)", len(nodes))
	}
	if nodes[0].Op != gpu.OpStrMap || nodes[1].Op != gpu.OpStrPred {
		t.Fatalf("order %s, %s: the substring must come before the IN that reads it", nodes[0].Op, nodes[1].Op)
	}
	if got, want := sinkWord(p), inputWord(2)+3; got != want {
		t.Fatalf("sink word %d, want %d", got, want)
	}
}
