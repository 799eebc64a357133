package physical

import (
	"context"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// sortCounter counts the device's sorts, to tell a shared subtree that
// ran once from two copies that ran twice.
type sortCounter struct {
	gpu.Device
	sorts int
}

func (d *sortCounter) Sort(ctx context.Context, cols []gpu.Column, keys []gpu.SortKey, limit int) ([]gpu.Column, error) {
	d.sorts++
	return d.Device.Sort(ctx, cols, keys, limit)
}

// sortedAbove is SELECT k, v FROM t WHERE v >= c ORDER BY v, built anew
// at every call.
func sortedAbove(c int64) Node {
	scan := &Scan{Table: "t", Columns: []string{"k", "v"}, Types: []gpu.Type{i64, i64}}
	filter := &Pipeline{Input: scan, Pipe: &gpu.Pipeline{
		Inputs:  []gpu.Type{i64, i64},
		Filter:  gpu.Call(gpu.OpGe, gpu.Type{Kind: gpu.Bool}, gpu.Col(1, i64), gpu.Const(i64, gpu.Value{I64: c})),
		Project: []*gpu.Expr{gpu.Col(0, i64), gpu.Col(1, i64)},
		Sink:    gpu.SinkMaterialize,
	}}
	return &Sort{Input: filter, Keys: []gpu.SortKey{{Col: 1}}}
}

func TestEqualSubtreesRunOnce(t *testing.T) {
	copies := &Union{Inputs: []Node{sortedAbove(30), sortedAbove(30)}}
	want := runRows(t, host.New(), copies)

	shared := ShareCommonSubtrees(&Union{Inputs: []Node{sortedAbove(30), sortedAbove(30)}}).(*Union)
	if shared.Inputs[0] != shared.Inputs[1] {
		t.Fatalf("equal subtrees were left apart:\n%s", Explain(shared, "host"))
	}
	if !strings.Contains(Explain(shared, "host"), "the subtree shown above, run once for both") {
		t.Fatalf("EXPLAIN does not say the subtree is shared:\n%s", Explain(shared, "host"))
	}
	dev := &sortCounter{Device: host.New()}
	got := runRows(t, dev, shared)
	if dev.sorts != 1 {
		t.Fatalf("the shared sort ran %d times, want once", dev.sorts)
	}
	if strings.Join(got, ";") != strings.Join(want, ";") || len(got) != 14 {
		t.Fatalf("shared plan gave %v, the copies %v", got, want)
	}
}

func TestDifferentSubtreesStayApart(t *testing.T) {
	u := ShareCommonSubtrees(&Union{Inputs: []Node{sortedAbove(30), sortedAbove(40)}}).(*Union)
	if u.Inputs[0] == u.Inputs[1] {
		t.Fatal("subtrees with different filters were shared")
	}
	// Their scans are equal: one node under both filters.
	if u.Inputs[0].Children()[0].Children()[0] != u.Inputs[1].Children()[0].Children()[0] {
		t.Fatal("the two equal scans were left apart")
	}
	dev := &sortCounter{Device: host.New()}
	if got := runRows(t, dev, u); len(got) != 13 || dev.sorts != 2 {
		t.Fatalf("got %d rows from %d sorts, want 13 from 2", len(got), dev.sorts)
	}
}

func TestRandomFallbacksStayApart(t *testing.T) {
	draw := func() Node {
		return &Fallback{SQL: "SELECT random() AS c0", Types: []gpu.Type{{Kind: gpu.Float64}}, Reason: "test"}
	}
	u := ShareCommonSubtrees(&Union{Inputs: []Node{draw(), draw()}}).(*Union)
	if u.Inputs[0] == u.Inputs[1] {
		t.Fatal("two draws of random() were made one")
	}
}

// joinFilteredSide is t JOIN (SELECT k FROM t WHERE v < 20) ON k, built
// anew at every call, and its filtered side.
func joinFilteredSide() (*Join, *Pipeline) {
	scan := func() Node { return &Scan{Table: "t", Columns: []string{"k", "v"}, Types: []gpu.Type{i64, i64}} }
	small := &Pipeline{Input: scan(), Pipe: &gpu.Pipeline{
		Inputs:  []gpu.Type{i64, i64},
		Filter:  gpu.Call(gpu.OpLt, gpu.Type{Kind: gpu.Bool}, gpu.Col(1, i64), gpu.Const(i64, gpu.Value{I64: 20})),
		Project: []*gpu.Expr{gpu.Col(0, i64)},
		Sink:    gpu.SinkMaterialize,
	}}
	return &Join{Left: scan(), Right: small, Type: JoinInner, LeftKeys: []int{0}, RightKeys: []int{0}}, small
}

// A join whose build side is a filter folds that filter into its probe
// (probefold.go): the folded join reads the same children, so sharing
// them must reach it too.
func TestEqualFoldedProbesShare(t *testing.T) {
	probe := func() Node {
		j, _ := joinFilteredSide()
		return &Pipeline{Input: j, Pipe: &gpu.Pipeline{
			Inputs:  []gpu.Type{i64, i64, i64},
			Project: []*gpu.Expr{gpu.Col(0, i64), gpu.Col(1, i64)},
			Sink:    gpu.SinkMaterialize,
		}}
	}
	want := runRows(t, host.New(), FuseProbes(&Union{Inputs: []Node{probe(), probe()}}))
	u := ShareCommonSubtrees(FuseProbes(&Union{Inputs: []Node{probe(), probe()}})).(*Union)
	pp, ok := u.Inputs[0].(*ProbePipeline)
	if !ok || pp.fold == nil {
		t.Fatalf("the test's join did not fold its filter:\n%s", Explain(u, "host"))
	}
	if u.Inputs[0] != u.Inputs[1] {
		t.Fatalf("equal folded probes were left apart:\n%s", Explain(u, "host"))
	}
	if got := runRows(t, host.New(), u); strings.Join(got, ";") != strings.Join(want, ";") {
		t.Fatalf("shared plan gave %v, the copies %v", got, want)
	}
}

// The folded join's children follow a replaced child of its node.
func TestReplaceChildUnderFold(t *testing.T) {
	j, small := joinFilteredSide()
	pp := FuseProbes(&Pipeline{Input: j, Pipe: &gpu.Pipeline{
		Inputs:  []gpu.Type{i64, i64, i64},
		Project: []*gpu.Expr{gpu.Col(0, i64)},
		Sink:    gpu.SinkMaterialize,
	}}).(*ProbePipeline)
	if pp.fold == nil || pp.fold.side != 1 {
		t.Fatal("the test's join did not fold its right side")
	}
	scan := func() Node { return &Scan{Table: "t", Columns: []string{"k", "v"}, Types: []gpu.Type{i64, i64}} }
	other, pre := scan(), &Pipeline{Input: scan(), Pipe: small.Pipe}
	if !replaceChild(pp, pp.Join.Left, other) || !replaceChild(pp, small, pre) {
		t.Fatal("replaceChild refused a fold's children")
	}
	if pp.Join.Left != other || pp.fold.node.Join.Left != other {
		t.Fatal("the other side was not replaced in the folded join")
	}
	if pp.Join.Right != Node(pre) || pp.fold.pre != pre || pp.fold.node.Join.Right != pre.Input {
		t.Fatal("the folded side was not replaced in the folded join")
	}
}
