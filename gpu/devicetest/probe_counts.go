package devicetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// ProbeCounts checks dev's gpu.ProbeCounter against its definition: for
// the random sides and key sets of Probe and a set of conditions (none,
// one over both sides, one no pair passes, a string predicate), the count
// of each probe row must be the number of its nested-loop pairs (computed
// in Go) for which ref.Run finds the condition true.
//
//	func TestProbeCounts(t *testing.T) { devicetest.ProbeCounts(t, host.New(), mydevice) }
func ProbeCounts(t *testing.T, ref, dev gpu.Device) {
	pc, ok := dev.(gpu.ProbeCounter)
	if !ok {
		t.Fatalf("device %s does not implement gpu.ProbeCounter", dev.Info().Name)
	}
	in := ProbePipelines()[0].Inputs
	conds := []*gpu.Expr{nil}
	for _, p := range ProbePipelines()[1:3] {
		conds = append(conds, p.Filter) // over both sides; one no pair passes
	}
	conds = append(conds, gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrStartsWith, Pattern: "g"}, TBool, gpu.Col(7, in[7])))
	sizes := []struct{ np, nb, keys int }{{0, 5, 4}, {7, 0, 4}, {50, 40, 6}, {3000, 700, 40}}
	keySets := [][]int{{0}, {1}, {0, 1}}
	nullsEqual := [][]bool{nil, {true}, {true, false}}
	for si, sz := range sizes {
		for ki, keys := range keySets {
			t.Run(fmt.Sprintf("np%d_nb%d/keys%d", sz.np, sz.nb, ki), func(t *testing.T) {
				f := newProbeFixture(t, ref, dev, rand.New(rand.NewPCG(uint64(si)+100, uint64(ki))), sz.np, sz.nb, sz.keys, keys, keys, nullsEqual[ki])
				pairs, devCols, joined := f.pairs, f.devCols, f.joined
				pis := make([]any, len(pairs))
				for i, pr := range pairs {
					pis[i] = pr[0]
				}
				pi := Upload(t, ref, MakeArray(I32, pis...))
				defer pi.Release()
				for ci, cond := range conds {
					// Reference: the probe row of every pair that passes.
					want := make([]int64, sz.np)
					sel := &gpu.Pipeline{Inputs: append(append([]gpu.Type(nil), in...), TI32), Filter: cond,
						Project: []*gpu.Expr{gpu.Col(len(in), TI32)}, Sink: gpu.SinkMaterialize}
					for _, r := range RunPipeline(t, ref, sel, append(append([]gpu.Column(nil), joined...), pi)) {
						var p int64
						fmt.Sscan(r, &p)
						want[p]++
					}
					p := &gpu.Pipeline{Inputs: in, Filter: cond, Sink: gpu.SinkMaterialize}
					out, err := pc.ProbeCounts(context.Background(), p, devCols[:4], devCols[4:], keys, keys, nullsEqual[ki])
					if err != nil {
						t.Fatalf("condition %d (%v): %v", ci, cond, err)
					}
					if out.Type() != gpu.JoinIndexType || out.Len() != sz.np {
						t.Fatalf("condition %d: a %s column of %d rows, want %s of %d", ci, out.Type(), out.Len(), gpu.JoinIndexType, sz.np)
					}
					got := Rows(t, dev, []gpu.Column{out})
					out.Release()
					for i, w := range want {
						if got[i] != fmt.Sprint(w) {
							t.Fatalf("condition %d (%v), %d pairs: probe row %d counts %s, want %d", ci, cond, len(pairs), i, got[i], w)
						}
					}
				}
			})
		}
	}
	t.Run("bad_input", func(t *testing.T) {
		s := newProbeSides(rand.New(rand.NewPCG(7, 7)), 10, 10, 3)
		cols := s.upload(t, dev)
		defer ReleaseCols(cols)
		for _, c := range []struct {
			what string
			p    *gpu.Pipeline
		}{
			{"projections", &gpu.Pipeline{Inputs: in, Project: []*gpu.Expr{gpu.Col(0, in[0])}, Sink: gpu.SinkMaterialize}},
			{"aggregate", &gpu.Pipeline{Inputs: in, Sink: gpu.SinkAggregate}},
			{"not bool", &gpu.Pipeline{Inputs: in, Filter: gpu.Col(0, in[0]), Sink: gpu.SinkMaterialize}},
			{"nil pipeline", nil},
		} {
			out, err := func() (out gpu.Column, err error) {
				defer func() {
					if r := recover(); r != nil {
						out, err = nil, &panicError{r}
					}
				}()
				return pc.ProbeCounts(context.Background(), c.p, cols[:4], cols[4:], []int{0}, []int{0}, nil)
			}()
			if out != nil {
				out.Release()
			}
			expectError(t, err, c.what)
		}
	})
}
