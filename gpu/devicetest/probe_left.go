package devicetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// probeLeft checks dev's gpu.LeftProbeRunner against its definition, as
// Probe does RunProbe's: the left join's pairs come from a Go loop (the
// nested-loop pairs that the join condition keeps, then every probe row
// left without one, paired with no build row), are gathered on ref with
// the build side padded, and ref.Run gives the rows dev must give.
func probeLeft(t *testing.T, ref, dev gpu.Device) {
	lr, ok := dev.(gpu.LeftProbeRunner)
	if !ok {
		t.Fatalf("device %s does not implement gpu.LeftProbeRunner", dev.Info().Name)
	}
	in := []gpu.Type{N(TI64), N(TDict), TDec64(12, 2), N(TF64), N(TI64), N(TDict), N(TI32), N(TDict)}
	col := func(i int) *gpu.Expr { return gpu.Col(i, in[i]) }
	nb := N(TBool)
	i32 := func(v int64) *gpu.Expr { return gpu.Const(TI32, gpu.Value{I64: v}) }
	// Join conditions over the build side, and over both; each with its Go
	// twin over the generated values (w: build column 6, f: probe column 3).
	conds := []struct {
		name string
		e    *gpu.Expr
		keep func(s *probeSides, p, b int) bool
	}{
		{"none", nil, func(*probeSides, int, int) bool { return true }},
		{"build", gpu.Call(gpu.OpGt, nb, col(6), i32(10)), func(s *probeSides, p, b int) bool {
			w, ok := s.build[2][b].(int64)
			return ok && w > 10
		}},
		{"both", gpu.Call(gpu.OpOr, nb, gpu.Call(gpu.OpLt, nb, col(3), gpu.Const(TF64, gpu.Value{F64: 40})), gpu.Call(gpu.OpGt, nb, col(6), i32(20))),
			func(s *probeSides, p, b int) bool {
				f, fok := s.probe[3][p].(float64)
				w, wok := s.build[2][b].(int64)
				return (fok && f < 40) || (wok && w > 20)
			}},
	}
	identity := make([]*gpu.Expr, len(in))
	for i := range in {
		identity[i] = col(i)
	}
	tag := &gpu.StrFunc{Kind: gpu.StrStartsWith, Pattern: "g"}
	pipes := []*gpu.Pipeline{
		{Inputs: in, Project: identity, Sink: gpu.SinkMaterialize},
		// A filter over both sides that padded rows pass too.
		{Inputs: in, Filter: gpu.Call(gpu.OpAnd, nb,
			gpu.Call(gpu.OpOr, nb, gpu.Call(gpu.OpIsNull, TBool, col(6)), gpu.Call(gpu.OpGt, nb, col(6), i32(-10))),
			gpu.Call(gpu.OpOr, nb, gpu.Call(gpu.OpLt, nb, col(3), gpu.Const(TF64, gpu.Value{F64: 50})), gpu.Call(gpu.OpIsNull, TBool, col(3)))),
			Project: []*gpu.Expr{
				col(0), col(5), gpu.Call(gpu.OpAdd, TDec64(13, 2), col(2), col(2)), gpu.Call(gpu.OpAdd, N(TI64), col(6), col(6)), col(7),
				gpu.Call(gpu.OpCase, N(TDec64(12, 2)), gpu.StrCall(tag, nb, col(7)), col(2), gpu.Const(N(TDec64(12, 2)), gpu.Value{Null: true})),
				gpu.Call(gpu.OpEq, nb, col(1), col(5)),
			}, Sink: gpu.SinkMaterialize},
		// Only the padded rows (and build rows whose column 4 is null).
		{Inputs: in, Filter: gpu.Call(gpu.OpIsNull, TBool, col(4)), Project: []*gpu.Expr{col(0), col(1), col(2), col(7)}, Sink: gpu.SinkMaterialize},
		// A filter over the probe side alone.
		{Inputs: in, Filter: gpu.Call(gpu.OpGe, TBool, col(2), gpu.Const(TDec64(12, 2), gpu.Value{I64: 0})), Project: identity, Sink: gpu.SinkMaterialize},
	}
	sizes := []struct{ np, nb, keys int }{{0, 5, 4}, {7, 0, 4}, {60, 40, 6}, {3000, 700, 40}}
	keySets := []struct {
		probe, build []int
		nullsEqual   []bool
	}{
		{[]int{0}, []int{0}, nil},
		{[]int{1}, []int{1}, []bool{true}},
		{[]int{0, 1}, []int{0, 1}, []bool{true, false}},
	}
	for si, sz := range sizes {
		for ki, ks := range keySets {
			t.Run(fmt.Sprintf("left/np%d_nb%d/keys%d", sz.np, sz.nb, ki), func(t *testing.T) {
				s := newProbeSides(rand.New(rand.NewPCG(uint64(si)+40, uint64(ki))), sz.np, sz.nb, sz.keys)
				refCols := s.upload(t, ref)
				defer ReleaseCols(refCols)
				devCols := s.upload(t, dev)
				defer ReleaseCols(devCols)
				inner := s.naive(ks.probe, ks.build, ks.nullsEqual)
				for _, c := range conds {
					pairs := leftPairs(s, inner, c.keep)
					joined := gatherLeft(t, ref, refCols, pairs)
					for pi, p := range pipes {
						want := RunPipeline(t, ref, p, joined)
						out, err := lr.RunProbeLeft(context.Background(), p, c.e, false, devCols[:4], devCols[4:], ks.probe, ks.build, ks.nullsEqual)
						if err != nil {
							t.Fatalf("condition %s, pipeline %d (%s): %v", c.name, pi, p, err)
						}
						checkOutputTypes(t, p, out)
						got := Rows(t, dev, out)
						ReleaseCols(out)
						if err := EqualRows(got, want, false, 1e-9); err != nil {
							t.Fatalf("condition %s, pipeline %d (%s), %d rows: %v", c.name, pi, p, len(pairs), err)
						}
					}
					checkSingle(t, ref, lr, dev, pipes[0], c.e, pairs, joined, devCols, ks.probe, ks.build, ks.nullsEqual)
					ReleaseCols(joined)
				}
			})
		}
	}
	t.Run("left/bad_input", func(t *testing.T) {
		s := newProbeSides(rand.New(rand.NewPCG(9, 9)), 10, 10, 3)
		cols := s.upload(t, dev)
		defer ReleaseCols(cols)
		strict := append([]gpu.Type(nil), in...)
		strict[7] = TDict
		for _, c := range []struct {
			what string
			p    *gpu.Pipeline
			cond *gpu.Expr
		}{
			{"aggregate sink", &gpu.Pipeline{Inputs: in, Project: identity[:1], Sink: gpu.SinkAggregate, Keys: []int{0}}, nil},
			{"a build column declared not nullable", &gpu.Pipeline{Inputs: strict, Project: []*gpu.Expr{col(0)}, Sink: gpu.SinkMaterialize}, nil},
			{"condition not bool", pipes[0], col(0)},
		} {
			out, err := func() (out []gpu.Column, err error) {
				defer func() {
					if r := recover(); r != nil {
						err = &panicError{r}
					}
				}()
				return lr.RunProbeLeft(context.Background(), c.p, c.cond, false, cols[:4], cols[4:], []int{0}, []int{0}, nil)
			}()
			ReleaseCols(out)
			expectError(t, err, c.what)
		}
	})
}

// checkSingle runs p as a single join (a scalar subquery's): an error
// wrapping gpu.ErrSubqueryRows where a probe row has two pairs, else the
// left join's rows.
func checkSingle(t *testing.T, ref gpu.Device, lr gpu.LeftProbeRunner, dev gpu.Device, p *gpu.Pipeline, cond *gpu.Expr, pairs [][2]int64, joined, devCols []gpu.Column, pk, bk []int, ne []bool) {
	t.Helper()
	seen := map[int64]bool{}
	twice := false
	for _, pr := range pairs {
		twice = twice || seen[pr[0]]
		seen[pr[0]] = true
	}
	out, err := lr.RunProbeLeft(context.Background(), p, cond, true, devCols[:4], devCols[4:], pk, bk, ne)
	if twice {
		ReleaseCols(out)
		if !errors.Is(err, gpu.ErrSubqueryRows) {
			t.Fatalf("single join with a row matched twice: got %v, want gpu.ErrSubqueryRows", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("single join: %v", err)
	}
	got := Rows(t, dev, out)
	ReleaseCols(out)
	if err := EqualRows(got, RunPipeline(t, ref, p, joined), false, 0); err != nil {
		t.Fatalf("single join: %v", err)
	}
}

// leftPairs is the left join from the inner pairs: those keep holds, then
// (r, -1) for every probe row without one.
func leftPairs(s *probeSides, inner [][2]int64, keep func(s *probeSides, p, b int) bool) [][2]int64 {
	matched := make([]bool, len(s.probe[0]))
	var out [][2]int64
	for _, pr := range inner {
		if keep(s, int(pr[0]), int(pr[1])) {
			out = append(out, pr)
			matched[pr[0]] = true
		}
	}
	for r, m := range matched {
		if !m {
			out = append(out, [2]int64{int64(r), -1})
		}
	}
	return out
}

// gatherLeft is gatherPairs with the build side padded where a pair has
// no build row.
func gatherLeft(t testing.TB, dev gpu.Device, cols []gpu.Column, pairs [][2]int64) []gpu.Column {
	t.Helper()
	pi, bi := make([]any, len(pairs)), make([]any, len(pairs))
	for i, pr := range pairs {
		pi[i], bi[i] = pr[0], pr[1]
	}
	var out []gpu.Column
	for side, idx := range [][]any{pi, bi} {
		ic := Upload(t, dev, MakeArray(I32, idx...))
		g, err := dev.Gather(context.Background(), cols[4*side:4*side+4], ic, side == 1)
		ic.Release()
		if err != nil {
			t.Fatalf("gather side %d: %v", side, err)
		}
		out = append(out, g...)
	}
	return out
}
