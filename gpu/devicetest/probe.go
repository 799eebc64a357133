package devicetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// Probe checks dev's gpu.ProbeRunner against its definition: for random
// probe and build sides (duplicate keys on both, null keys, one and two
// key columns, nullsEqual off, on and mixed, empty sides) and a set of
// materializing and aggregating pipelines, dev.RunProbe must give the rows
// that ref.Run gives over the nested-loop join of the same values, gathered
// on ref. The pairs come from a Go loop over the generated values, not from
// any device's HashJoin, so the host reference is checked too.
//
//	func TestProbe(t *testing.T) { devicetest.Probe(t, host.New(), mydevice) }
func Probe(t *testing.T, ref, dev gpu.Device) {
	pr, ok := dev.(gpu.ProbeRunner)
	if !ok {
		t.Fatalf("device %s does not implement gpu.ProbeRunner", dev.Info().Name)
	}
	sizes := []struct{ np, nb, keys int }{
		{0, 5, 4}, {7, 0, 4}, {0, 0, 4}, {50, 40, 6}, {3000, 700, 40}, {9000, 1200, 1000},
	}
	if testing.Short() {
		sizes = sizes[:5]
	}
	keySets := []struct {
		probe, build []int
		nullsEqual   []bool
	}{
		{[]int{0}, []int{0}, nil},
		{[]int{0}, []int{0}, []bool{true}},
		{[]int{1}, []int{1}, []bool{true}},
		{[]int{0, 1}, []int{0, 1}, []bool{false, false}},
		{[]int{0, 1}, []int{0, 1}, []bool{true, false}},
	}
	for si, sz := range sizes {
		for ki, ks := range keySets {
			if ki == 2 && sz.np > 5000 {
				continue // the 7 string keys alone make millions of pairs
			}
			name := fmt.Sprintf("np%d_nb%d/keys%d", sz.np, sz.nb, ki)
			t.Run(name, func(t *testing.T) {
				f := newProbeFixture(t, ref, dev, rand.New(rand.NewPCG(uint64(si), uint64(ki))), sz.np, sz.nb, sz.keys, ks.probe, ks.build, ks.nullsEqual)
				pairs, devCols, joined := f.pairs, f.devCols, f.joined
				for pi, p := range ProbePipelines() {
					want := RunPipeline(t, ref, p, joined)
					out, err := pr.RunProbe(context.Background(), p, devCols[:4], devCols[4:], ks.probe, ks.build, ks.nullsEqual)
					if err != nil {
						t.Fatalf("pipeline %d (%s): run probe: %v", pi, p, err)
					}
					checkOutputTypes(t, p, out)
					got := Rows(t, dev, out)
					ReleaseCols(out)
					if err := EqualRows(got, want, false, 1e-9); err != nil {
						t.Fatalf("pipeline %d (%s), %d pairs: %v", pi, p, len(pairs), err)
					}
				}
			})
		}
	}
	probeLeft(t, ref, dev) // probe_left.go
	t.Run("bad_input", func(t *testing.T) {
		s := newProbeSides(rand.New(rand.NewPCG(9, 9)), 10, 10, 3)
		cols := s.upload(t, dev)
		defer ReleaseCols(cols)
		p := ProbePipelines()[0]
		for _, c := range []struct {
			what         string
			probe, build []int
			ne           []bool
			pipe         *gpu.Pipeline
		}{
			{"no keys", nil, nil, nil, p},
			{"unpaired keys", []int{0}, []int{0, 1}, nil, p},
			{"key out of range", []int{9}, []int{0}, nil, p},
			{"nullsEqual length", []int{0}, []int{0}, []bool{true, true}, p},
			{"key kinds differ", []int{0}, []int{2}, nil, p},
			{"inputs miscounted", []int{0}, []int{0}, nil, &gpu.Pipeline{Inputs: p.Inputs[:7], Project: p.Project[:1], Sink: gpu.SinkMaterialize}},
			{"nil pipeline", []int{0}, []int{0}, nil, nil},
		} {
			out, err := runProbeSafely(pr, c.pipe, cols[:4], cols[4:], c.probe, c.build, c.ne)
			ReleaseCols(out)
			expectError(t, err, c.what)
		}
	})
}

func runProbeSafely(pr gpu.ProbeRunner, p *gpu.Pipeline, probe, build []gpu.Column, pk, bk []int, ne []bool) (out []gpu.Column, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, &panicError{r}
		}
	}()
	return pr.RunProbe(context.Background(), p, probe, build, pk, bk, ne)
}

// probeFixture is one random pair of sides uploaded to ref and to dev, its
// pairs from the nested loop (probeSides.naive), and the pairs' columns
// gathered on ref; everything is released when t ends.
type probeFixture struct {
	pairs                    [][2]int64
	refCols, devCols, joined []gpu.Column
}

func newProbeFixture(t *testing.T, ref, dev gpu.Device, rng *rand.Rand, np, nb, keys int, pk, bk []int, nullsEqual []bool) *probeFixture {
	t.Helper()
	s := newProbeSides(rng, np, nb, keys)
	f := &probeFixture{pairs: s.naive(pk, bk, nullsEqual)}
	f.refCols = s.upload(t, ref)
	t.Cleanup(func() { ReleaseCols(f.refCols) })
	f.devCols = s.upload(t, dev)
	t.Cleanup(func() { ReleaseCols(f.devCols) })
	f.joined = gatherPairs(t, ref, f.refCols, f.pairs)
	t.Cleanup(func() { ReleaseCols(f.joined) })
	return f
}

// probeSides holds the generated values. Probe columns: key int64?, key
// string? (shares its dictionary with the build key), decimal(12,2),
// float64?. Build columns: key int64?, key string?, int32?, string.
type probeSides struct {
	probe, build [4][]any
}

// probeStrKeys is the universe of the string keys; both sides' key columns
// are gathered from one upload of it so that they share a dictionary.
var probeStrKeys = []any{"a", "b", "c", "é", "", "zz", nil}

var probeTags = []string{"red", "green", "blue", "", "ünï"}

func newProbeSides(rng *rand.Rand, np, nb, keys int) *probeSides {
	s := &probeSides{}
	nullable := func(p int, v any) any {
		if rng.IntN(100) < p {
			return nil
		}
		return v
	}
	for i := 0; i < np; i++ {
		s.probe[0] = append(s.probe[0], nullable(8, int64(rng.IntN(keys))))
		s.probe[1] = append(s.probe[1], int64(rng.IntN(len(probeStrKeys))))
		s.probe[2] = append(s.probe[2], int64(rng.IntN(20000)-5000))
		s.probe[3] = append(s.probe[3], nullable(10, rng.Float64()*100-20))
	}
	for i := 0; i < nb; i++ {
		s.build[0] = append(s.build[0], nullable(8, int64(rng.IntN(keys))))
		s.build[1] = append(s.build[1], int64(rng.IntN(len(probeStrKeys))))
		s.build[2] = append(s.build[2], nullable(15, int64(rng.IntN(200)-50)))
		s.build[3] = append(s.build[3], probeTags[rng.IntN(len(probeTags))])
	}
	return s
}

// keyValue is the Go value of key column k of a side at row r (string keys
// are held as indexes into probeStrKeys).
func keyValue(side [4][]any, k, r int) any {
	v := side[k][r]
	if k == 1 {
		return probeStrKeys[v.(int64)]
	}
	return v
}

// naive is the nested-loop inner join: (probe row, build row) pairs.
func (s *probeSides) naive(pk, bk []int, nullsEqual []bool) [][2]int64 {
	var out [][2]int64
	np, nb := len(s.probe[0]), len(s.build[0])
	for p := 0; p < np; p++ {
		for b := 0; b < nb; b++ {
			match := true
			for i := range pk {
				pv, bv := keyValue(s.probe, pk[i], p), keyValue(s.build, bk[i], b)
				if pv == nil || bv == nil {
					match = pv == nil && bv == nil && nullsEqual != nil && nullsEqual[i]
				} else {
					match = keyEqual(pv, bv)
				}
				if !match {
					break
				}
			}
			if match {
				out = append(out, [2]int64{int64(p), int64(b)})
			}
		}
	}
	return out
}

// upload puts the probe columns then the build columns on dev.
func (s *probeSides) upload(t testing.TB, dev gpu.Device) []gpu.Column {
	t.Helper()
	keys := Upload(t, dev, MakeArray(String, probeStrKeys...))
	defer keys.Release()
	strKey := func(idx []any) gpu.Column {
		ic := Upload(t, dev, MakeArray(I32, idx...))
		defer ic.Release()
		out, err := dev.Gather(context.Background(), []gpu.Column{keys}, ic, false)
		if err != nil {
			t.Fatalf("gather string keys: %v", err)
		}
		return out[0]
	}
	return []gpu.Column{
		Upload(t, dev, MakeArray(I64, s.probe[0]...)),
		strKey(s.probe[1]),
		Upload(t, dev, MakeArray(Dec(12, 2), s.probe[2]...)),
		Upload(t, dev, MakeArray(F64, s.probe[3]...)),
		Upload(t, dev, MakeArray(I64, s.build[0]...)),
		strKey(s.build[1]),
		Upload(t, dev, MakeArray(I32, s.build[2]...)),
		Upload(t, dev, MakeArray(String, s.build[3]...)),
	}
}

// gatherPairs builds the joined columns (probe's then build's) on dev.
func gatherPairs(t testing.TB, dev gpu.Device, cols []gpu.Column, pairs [][2]int64) []gpu.Column {
	t.Helper()
	pi, bi := make([]any, len(pairs)), make([]any, len(pairs))
	for i, pr := range pairs {
		pi[i], bi[i] = pr[0], pr[1]
	}
	var out []gpu.Column
	for side, idx := range [][]any{pi, bi} {
		ic := Upload(t, dev, MakeArray(I32, idx...))
		g, err := dev.Gather(context.Background(), cols[4*side:4*side+4], ic, false)
		ic.Release()
		if err != nil {
			t.Fatalf("gather side %d: %v", side, err)
		}
		out = append(out, g...)
	}
	return out
}

// ProbePipelines are the pipelines Probe runs over the joined columns: $0..$3
// are the probe side's, $4..$7 the build side's (see probeSides). Their
// input types are declared nullable where a side may hold nulls. gpu/cuda
// compiles their probe kernels with NVRTC.
func ProbePipelines() []*gpu.Pipeline {
	in := []gpu.Type{N(TI64), N(TDict), TDec64(12, 2), N(TF64), N(TI64), N(TDict), N(TI32), TDict}
	col := func(i int) *gpu.Expr { return gpu.Col(i, in[i]) }
	nb := N(TBool)
	dec := func(v int64) *gpu.Expr { return gpu.Const(TDec64(12, 2), gpu.Value{I64: v}) }
	identity := make([]*gpu.Expr, len(in))
	for i := range in {
		identity[i] = col(i)
	}
	tag := &gpu.StrFunc{Kind: gpu.StrStartsWith, Pattern: "g"}
	// Filter over both sides: (f < 50 or f is null) and w > -10.
	both := gpu.Call(gpu.OpAnd, nb,
		gpu.Call(gpu.OpOr, nb, gpu.Call(gpu.OpLt, nb, col(3), gpu.Const(TF64, gpu.Value{F64: 50})), gpu.Call(gpu.OpIsNull, TBool, col(3))),
		gpu.Call(gpu.OpGt, nb, col(6), gpu.Const(TI32, gpu.Value{I64: -10})))
	computed := []*gpu.Expr{
		col(0),
		col(5),
		gpu.Call(gpu.OpAdd, TDec64(13, 2), col(2), col(2)),
		gpu.Call(gpu.OpAdd, N(TI64), col(6), col(6)),
		col(7),
		gpu.Call(gpu.OpEq, nb, col(1), col(5)),
		gpu.Call(gpu.OpCase, N(TDec64(12, 2)), gpu.StrCall(tag, TBool, col(7)), col(2), gpu.Const(N(TDec64(12, 2)), gpu.Value{Null: true})),
		gpu.Call(gpu.OpMul, N(TF64), col(3), gpu.Const(TF64, gpu.Value{F64: 0.5})),
	}
	return []*gpu.Pipeline{
		{Inputs: in, Project: identity, Sink: gpu.SinkMaterialize},
		{Inputs: in, Filter: both, Project: computed, Sink: gpu.SinkMaterialize},
		// A filter no pair passes.
		{Inputs: in, Filter: gpu.Call(gpu.OpGt, nb, col(6), gpu.Const(TI32, gpu.Value{I64: 1000})), Project: computed[:3], Sink: gpu.SinkMaterialize},
		// Group by a build-side string (a small domain).
		{Inputs: in, Filter: gpu.Call(gpu.OpGe, TBool, col(2), dec(0)), Project: []*gpu.Expr{col(7), col(2), col(6), col(3), col(0)},
			Sink: gpu.SinkAggregate, Keys: []int{0}, Aggs: []gpu.Agg{
				{Kind: gpu.AggSum, Arg: 1, Type: N(TDec128(38, 2))},
				{Kind: gpu.AggCount, Arg: 2, Type: TCount},
				{Kind: gpu.AggMin, Arg: 3, Type: N(TF64)},
				{Kind: gpu.AggMax, Arg: 4, Type: N(TI64)},
				{Kind: gpu.AggCountStar, Type: TCount},
			}},
		// No keys: one row, also when no pair passes.
		{Inputs: in, Project: []*gpu.Expr{col(6), col(2)}, Sink: gpu.SinkAggregate, Aggs: []gpu.Agg{
			{Kind: gpu.AggCountStar, Type: TCount},
			{Kind: gpu.AggSum, Arg: 0, Type: N(TDec128(38, 0))},
			{Kind: gpu.AggMax, Arg: 1, Type: N(TDec64(12, 2))},
		}},
		// Hash grouping by a probe key and a build column (nullable both).
		{Inputs: in, Filter: both, Project: []*gpu.Expr{col(0), col(6), computed[2], col(3)}, Sink: gpu.SinkAggregate, Keys: []int{0, 1}, Aggs: []gpu.Agg{
			{Kind: gpu.AggSum, Arg: 2, Type: N(TDec128(38, 2))},
			{Kind: gpu.AggSum, Arg: 3, Type: N(TF64)},
			{Kind: gpu.AggCountStar, Type: TCount},
		}},
		// A filter over the probe side alone (a CUDA probe tests it before
		// the lookup) ...
		{Inputs: in, Filter: gpu.Call(gpu.OpGe, TBool, col(2), dec(0)), Project: identity, Sink: gpu.SinkMaterialize},
		// ... and a guard, CASE WHEN <probe side> THEN <build side> ELSE
		// false, as physical's probe fold writes a folded side's filter.
		{Inputs: in, Filter: gpu.Call(gpu.OpCase, nb,
			gpu.Call(gpu.OpAnd, nb, gpu.StrCall(tag, nb, col(1)), gpu.Call(gpu.OpGt, nb, col(0), gpu.Const(TI64, gpu.Value{I64: 5}))),
			gpu.Call(gpu.OpGt, nb, col(6), gpu.Const(TI32, gpu.Value{I64: -10})),
			gpu.Const(TBool, gpu.Value{I64: 0})), Project: computed[:4], Sink: gpu.SinkMaterialize},
	}
}
