package physical

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

var pbool = gpu.Type{Kind: gpu.Bool, Nullable: true}

// probeSides returns Values of (k int64?, v int64) rows: nl on the left,
// nr on the right, keys 0..6 with some nulls.
func probeSides(nl, nr int) (*Values, *Values) {
	ni64 := i64.WithNullable(true)
	side := func(n, salt int) *Values {
		v := &Values{Types: []gpu.Type{ni64, i64}}
		for i := 0; i < n; i++ {
			k := gpu.Value{I64: int64((i*salt + 3) % 7)}
			if i%9 == 4 {
				k = gpu.Value{Null: true}
			}
			v.Rows = append(v.Rows, []gpu.Value{k, {I64: int64(i*10 + salt)}})
		}
		return v
	}
	return side(nl, 3), side(nr, 5)
}

// probePlan: SELECT l.v + r.v, r.k FROM l JOIN r ON l.k = r.k AND
// l.v < r.v + 200 WHERE r.v % ... (a filter over both sides), or with agg
// a grouping of it; nullsEqual makes the key IS NOT DISTINCT FROM.
func probePlan(nl, nr int, agg, nullsEqual bool) Node {
	l, r := probeSides(nl, nr)
	ni64 := i64.WithNullable(true)
	in := []gpu.Type{ni64, i64, ni64, i64}
	j := &Join{Left: l, Right: r, Type: JoinInner, LeftKeys: []int{0}, RightKeys: []int{0},
		Residual: gpu.Call(gpu.OpLt, pbool, gpu.Col(1, i64), gpu.Call(gpu.OpAdd, i64, gpu.Col(3, i64), gpu.Const(i64, gpu.Value{I64: 200})))}
	if nullsEqual {
		j.NullsEqual = []bool{true}
	}
	p := &gpu.Pipeline{
		Inputs:  in,
		Filter:  gpu.Call(gpu.OpGt, pbool, gpu.Col(3, i64), gpu.Col(1, i64)),
		Project: []*gpu.Expr{gpu.Call(gpu.OpAdd, i64, gpu.Col(1, i64), gpu.Col(3, i64)), gpu.Col(2, ni64)},
		Sink:    gpu.SinkMaterialize,
	}
	if agg {
		p.Sink, p.Keys = gpu.SinkAggregate, []int{1}
		p.Aggs = []gpu.Agg{{Kind: gpu.AggSum, Arg: 0, Type: gpu.Type{Kind: gpu.Decimal128, Precision: 38, Nullable: true}}, {Kind: gpu.AggCountStar, Type: i64}}
	}
	return &Pipeline{Input: j, Pipe: p}
}

// noProbe hides the host device's RunProbe: the engine must take the
// composed path.
type noProbe struct{ gpu.Device }

// refusingProbe refuses every RunProbe: the engine must take the composed
// path too.
type refusingProbe struct{ gpu.Device }

func (refusingProbe) RunProbe(context.Context, *gpu.Pipeline, []gpu.Column, []gpu.Column, []int, []int, []bool) ([]gpu.Column, error) {
	return nil, fmt.Errorf("test refusal: %w", gpu.ErrUnsupported)
}

// runRows runs root on dev (its scans read memSource's table) and returns
// its rows, sorted.
func runRows(t *testing.T, dev gpu.Device, root Node) []string {
	t.Helper()
	x := &Executor{Dev: dev, Source: &memSource{}, Cache: NewColumnCache()}
	names := make([]string, len(root.OutputTypes()))
	for i := range names {
		names[i] = fmt.Sprint("c", i)
	}
	rec, _, err := x.Run(context.Background(), root, names)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	var got []string
	for _, r := range arrowfmt.Rows(rec) {
		got = append(got, fmt.Sprint(r))
	}
	sort.Strings(got)
	return got
}

// A fused plan gives the rows of the unfused one, on a device with
// RunProbe, one without, and one that refuses it; with the build side
// chosen as the plan says and swapped (RunProbe builds on the smaller side,
// the composed Join on a right side 32 times larger).
func TestProbePipelineEqualsJoinThenPipeline(t *testing.T) {
	h := host.New()
	for _, sz := range [][2]int{{40, 30}, {30, 40}, {5, 5*swapBuildRatio + 20}, {5*swapBuildRatio + 20, 5}, {0, 10}, {10, 0}} {
		for _, agg := range []bool{false, true} {
			for _, ne := range []bool{false, true} {
				name := fmt.Sprintf("%dx%d/agg=%v/nullsEqual=%v", sz[0], sz[1], agg, ne)
				t.Run(name, func(t *testing.T) {
					want := runRows(t, h, probePlan(sz[0], sz[1], agg, ne))
					if sz[0] > 0 && sz[1] > 0 && len(want) == 0 {
						t.Fatal("the plan gives no rows: the test would prove little")
					}
					for _, dev := range []gpu.Device{h, noProbe{h}, refusingProbe{h}} {
						fused := FuseProbes(probePlan(sz[0], sz[1], agg, ne))
						if _, ok := fused.(*ProbePipeline); !ok {
							t.Fatalf("not fused: %s", Explain(fused, "host"))
						}
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

func TestFuseProbesShapes(t *testing.T) {
	l, r := probeSides(3, 3)
	// An inner join under a pipeline: one node, residual folded.
	root := FuseProbes(probePlan(3, 3, true, false))
	pp, ok := root.(*ProbePipeline)
	if !ok {
		t.Fatalf("got %T, want *ProbePipeline", root)
	}
	if pp.Join.Residual != nil || pp.Pipe.Filter == nil || pp.Pipe.Filter.Op != gpu.OpCase {
		t.Fatalf("residual not folded into the filter: %s", pp.Describe())
	}
	d := pp.Describe()
	if !strings.HasPrefix(d, "ProbePipeline+HashAggregate inner [L#0 = R#0] filter case(") {
		t.Fatalf("describe: %s", d)
	}
	// An inner join under a sort: an identity projection.
	root = FuseProbes(&Sort{Input: &Join{Left: l, Right: r, Type: JoinInner, LeftKeys: []int{0}, RightKeys: []int{0}}})
	pp, ok = root.(*Sort).Input.(*ProbePipeline)
	if !ok || len(pp.Pipe.Project) != 4 || pp.Pipe.Filter != nil {
		t.Fatalf("join under a sort: %s", Explain(root, "host"))
	}
	// A left join under a materializing pipeline: one node, the residual
	// kept as the join's condition, the left side fused too.
	inner := &Join{Left: l, Right: r, Type: JoinInner, LeftKeys: []int{0}, RightKeys: []int{0}}
	cond := gpu.Call(gpu.OpLt, pbool, gpu.Col(1, i64), gpu.Col(5, i64))
	left := &Join{Left: inner, Right: r, Type: JoinLeft, LeftKeys: []int{0}, RightKeys: []int{0}, Residual: cond}
	root = FuseProbes(&Pipeline{Input: left, Pipe: &gpu.Pipeline{Inputs: left.OutputTypes(), Project: []*gpu.Expr{gpu.Col(0, left.OutputTypes()[0])}, Sink: gpu.SinkMaterialize}})
	if pp, ok = root.(*ProbePipeline); !ok || pp.Join.Type != JoinLeft || pp.Join.Residual != cond || pp.Pipe.Filter != nil {
		t.Fatalf("left join: %s", Explain(root, "host"))
	}
	if _, ok := pp.Join.Left.(*ProbePipeline); !ok {
		t.Fatalf("the inner join below the left join was not fused: %s", Explain(root, "host"))
	}
	// A full join under a pipeline: one node that also finds the
	// unmatched right rows (TestFullJoin), its inputs fused.
	inner = &Join{Left: l, Right: r, Type: JoinInner, LeftKeys: []int{0}, RightKeys: []int{0}}
	full := &Join{Left: inner, Right: r, Type: JoinFull, LeftKeys: []int{0}, RightKeys: []int{0}}
	root = FuseProbes(&Pipeline{Input: full, Pipe: &gpu.Pipeline{Inputs: full.OutputTypes(), Project: []*gpu.Expr{gpu.Col(0, full.OutputTypes()[0])}, Sink: gpu.SinkMaterialize}})
	if pp, ok = root.(*ProbePipeline); !ok || pp.Join != full || pp.full == nil {
		t.Fatalf("full join: %s", Explain(root, "host"))
	}
	if _, ok := full.Left.(*ProbePipeline); !ok {
		t.Fatalf("the inner join below the full join was not fused: %s", Explain(root, "host"))
	}
	// A join without keys stays a join, its inputs fused.
	inner = &Join{Left: l, Right: r, Type: JoinInner, LeftKeys: []int{0}, RightKeys: []int{0}}
	cross := &Join{Left: inner, Right: r, Type: JoinInner}
	root = FuseProbes(&Pipeline{Input: cross, Pipe: &gpu.Pipeline{Inputs: cross.OutputTypes(), Project: []*gpu.Expr{gpu.Col(0, cross.OutputTypes()[0])}, Sink: gpu.SinkMaterialize}})
	if got := root.(*Pipeline).Input; got != Node(cross) {
		t.Fatalf("%s was rewritten: %s", cross.Describe(), Explain(root, "host"))
	}
	if _, ok := cross.Left.(*ProbePipeline); !ok {
		t.Fatalf("the inner join below %s was not fused: %s", cross.Describe(), Explain(root, "host"))
	}
}
