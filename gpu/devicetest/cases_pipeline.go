package devicetest

import (
	"math/rand/v2"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

func pipelineCases() []testCase {
	return []testCase{
		{"pipeline/materialize_keeps_order", testMaterializeOrder},
		{"pipeline/null_predicate_drops_row", testNullPredicate},
		{"pipeline/filtered_rows_do_not_overflow", testFilteredNoOverflow},
		{"pipeline/empty_input", testEmptyMaterialize},
	}
}

func testMaterializeOrder(t *testing.T, dev gpu.Device) {
	const n = 200_000
	rng := rand.New(rand.NewPCG(1, 2))
	ids := make([]any, n)
	keep := make([]any, n)
	names := make([]any, n)
	var want []string
	for i := range ids {
		ids[i] = int64(i)
		k := rng.IntN(3) != 0
		keep[i] = k
		names[i] = []string{"x", "y", "z"}[i%3]
		if k {
			want = append(want, Row(I(int64(i)), S(names[i].(string))))
		}
	}
	cols, types := table(t, dev, MakeArray(I64, ids...), MakeArray(Bool, keep...), MakeArray(String, names...))
	defer ReleaseCols(cols)
	p := &gpu.Pipeline{Inputs: types, Filter: gpu.Col(1, TBool), Project: []*gpu.Expr{gpu.Col(0, TI64), gpu.Col(2, types[2])}, Sink: gpu.SinkMaterialize}
	expectRows(t, RunPipeline(t, dev, p, cols), want, true)
}

func testNullPredicate(t *testing.T, dev gpu.Device) {
	cols, types := table(t, dev, MakeArray(Bool, true, nil, false, true), MakeArray(I32, int64(1), int64(2), int64(3), int64(4)))
	defer ReleaseCols(cols)
	p := &gpu.Pipeline{Inputs: types, Filter: gpu.Col(0, types[0]), Project: []*gpu.Expr{gpu.Col(1, TI32)}, Sink: gpu.SinkMaterialize}
	expectRows(t, RunPipeline(t, dev, p, cols), []string{"1", "4"}, true)
	// NOT null is null: still dropped.
	p.Filter = gpu.Call(gpu.OpNot, N(TBool), gpu.Col(0, types[0]))
	expectRows(t, RunPipeline(t, dev, p, cols), []string{"3"}, true)
}

func testFilteredNoOverflow(t *testing.T, dev gpu.Device) {
	cols, types := table(t, dev, MakeArray(I8, int64(127), int64(1), int64(-128)))
	defer ReleaseCols(cols)
	p := &gpu.Pipeline{
		Inputs:  types,
		Filter:  gpu.Call(gpu.OpLt, TBool, gpu.Col(0, TI8), gpu.Const(TI8, gpu.Value{I64: 100})),
		Project: []*gpu.Expr{gpu.Call(gpu.OpAdd, TI8, gpu.Col(0, TI8), gpu.Const(TI8, gpu.Value{I64: 1}))},
		Sink:    gpu.SinkMaterialize,
	}
	expectRows(t, RunPipeline(t, dev, p, cols), []string{"2", "-127"}, true)
}

func testEmptyMaterialize(t *testing.T, dev gpu.Device) {
	cols, types := table(t, dev, MakeArray(I64), MakeArray(String), MakeArray(Dec(38, 2)))
	defer ReleaseCols(cols)
	p := &gpu.Pipeline{Inputs: types, Project: []*gpu.Expr{
		gpu.Call(gpu.OpAdd, TI64, gpu.Col(0, TI64), gpu.Col(0, TI64)), gpu.Col(1, types[1]), gpu.Col(2, types[2]),
	}, Sink: gpu.SinkMaterialize}
	expectRows(t, RunPipeline(t, dev, p, cols), nil, true)
}
