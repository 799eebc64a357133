package physical

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// foldPlan is probePlan with one side (0 left, 1 right) read through a
// filter pipeline over a wider input: (w, k, v) rows, filter v > 40,
// project [k, v], so that folding must renumber the side's columns, keys
// and the filter.
func foldPlan(nl, nr, side int, agg bool) Node {
	root := probePlan(nl, nr, agg, false).(*Pipeline)
	j := root.Input.(*Join)
	sides := [2]*Values{j.Left.(*Values), j.Right.(*Values)}
	src := sides[side]
	wide := &Values{Types: append([]gpu.Type{i64}, src.Types...)}
	for i, r := range src.Rows {
		wide.Rows = append(wide.Rows, append([]gpu.Value{{I64: int64(1000 - i)}}, r...))
	}
	pre := &Pipeline{Input: wide, Pipe: &gpu.Pipeline{
		Inputs:  wide.Types,
		Filter:  gpu.Call(gpu.OpGt, pbool, gpu.Col(2, i64), gpu.Const(i64, gpu.Value{I64: 40})),
		Project: []*gpu.Expr{gpu.Col(1, wide.Types[1]), gpu.Col(2, i64)},
		Sink:    gpu.SinkMaterialize,
	}}
	if side == 0 {
		j.Left = pre
	} else {
		j.Right = pre
	}
	return root
}

// A ProbePipeline with a side's filter folded in gives the rows of the
// plan run node by node, whether the fold applies (the folded side is the
// larger) or not, on a device with RunProbe, one without, and one that
// refuses it.
func TestProbeFoldEqualsUnfused(t *testing.T) {
	h := host.New()
	for _, sz := range [][2]int{{40, 30}, {30, 40}, {120, 8}, {8, 120}, {0, 10}, {10, 0}} {
		for side := 0; side < 2; side++ {
			for _, agg := range []bool{false, true} {
				t.Run(fmt.Sprintf("%dx%d/side=%d/agg=%v", sz[0], sz[1], side, agg), func(t *testing.T) {
					want := runRows(t, h, foldPlan(sz[0], sz[1], side, agg))
					if sz[0] > 0 && sz[1] > 0 && len(want) == 0 {
						t.Fatal("the plan gives no rows: the test would prove little")
					}
					fused := FuseProbes(foldPlan(sz[0], sz[1], side, agg))
					pp, ok := fused.(*ProbePipeline)
					if !ok || pp.fold == nil || pp.fold.side != side {
						t.Fatalf("no fold of side %d: %s", side, Explain(fused, "host"))
					}
					if !strings.Contains(Explain(fused, "host"), "filter runs in the probe") {
						t.Errorf("EXPLAIN does not show the fold:\n%s", Explain(fused, "host"))
					}
					for _, dev := range []gpu.Device{h, noProbe{h}, refusingProbe{h}} {
						got := runRows(t, dev, fused)
						if fmt.Sprint(got) != fmt.Sprint(want) {
							t.Fatalf("device %T: got %d rows %v\nwant %d rows %v", dev, len(got), got, len(want), want)
						}
					}
				})
			}
		}
	}
}

// Only column-picking filter pipelines over fixed-width inputs fold.
func TestProbeFoldRefusals(t *testing.T) {
	for name, change := range map[string]func(p *gpu.Pipeline){
		"no filter":          func(p *gpu.Pipeline) { p.Filter = nil },
		"computed column":    func(p *gpu.Pipeline) { p.Project[1] = gpu.Call(gpu.OpAdd, i64, gpu.Col(2, i64), gpu.Col(0, i64)) },
		"arrow string input": func(p *gpu.Pipeline) { p.Inputs = append(p.Inputs, gpu.Type{Kind: gpu.Str}) },
		"filter may raise": func(p *gpu.Pipeline) {
			p.Filter = gpu.Call(gpu.OpGt, pbool, gpu.Call(gpu.OpMul, i64, gpu.Col(2, i64), gpu.Col(0, i64)), gpu.Const(i64, gpu.Value{I64: 40}))
		},
	} {
		plan := foldPlan(20, 10, 0, false)
		change(plan.(*Pipeline).Input.(*Join).Left.(*Pipeline).Pipe)
		if pp, ok := FuseProbes(plan).(*ProbePipeline); !ok || pp.fold != nil {
			t.Errorf("%s: folded (or not fused at all)", name)
		}
	}
}

// The fold applies where the other side is small in itself and next to
// the folded side unfiltered: TPC-H SF10's folds (Q7's 8K-row side, Q3's
// 1.5M, against lineitem's 60M) but not Q12's, whose other side is orders'
// 15M rows.
func TestProbeFoldApplies(t *testing.T) {
	for _, c := range []struct {
		folded, other int
		want          bool
	}{
		{60_000_000, 8_010, true},
		{60_000_000, 1_460_000, true},
		{60_000_000, 15_000_000, false},
		{1000, 250, true},
		{1000, 251, false},
		{1000, 1000, false},
		{0, 0, true},
	} {
		for side := 0; side < 2; side++ {
			f := &probeFold{side: side}
			nl, nr := c.folded, c.other
			if side == 1 {
				nl, nr = c.other, c.folded
			}
			if got := f.applies(nl, nr); got != c.want {
				t.Errorf("side %d, folded %d rows, other %d: applies %v, want %v", side, c.folded, c.other, got, c.want)
			}
		}
	}
}
