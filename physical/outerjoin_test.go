package physical

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// Expressions over probeSides' joined columns (int64, nullable in an
// outer join's output), for the outer join tests.
func jcol(c int) *gpu.Expr                     { return gpu.Col(c, i64.WithNullable(true)) }
func jconst(v int64) *gpu.Expr                 { return gpu.Const(i64, gpu.Value{I64: v}) }
func jcmp(op gpu.Op, a, b *gpu.Expr) *gpu.Expr { return gpu.Call(op, pbool, a, b) }
func jand(a ...*gpu.Expr) *gpu.Expr            { return gpu.Call(gpu.OpAnd, pbool, a...) }
func jor(a ...*gpu.Expr) *gpu.Expr             { return gpu.Call(gpu.OpOr, pbool, a...) }
func jisNull(c int) *gpu.Expr                  { return gpu.Call(gpu.OpIsNull, gpu.Type{Kind: gpu.Bool}, jcol(c)) }

// A filter over a left join that drops every padded row makes the join
// inner; one that keeps only padded rows (is null of a right column the
// right side never leaves null), with nothing else reading the right side,
// makes it anti. Every other filter leaves a left join, which runs fused
// (RunProbeLeft) on the host device and composed on one without it. The
// rows are always the left join's.
func TestOuterJoinSimplifies(t *testing.T) {
	ni64 := i64.WithNullable(true)
	notNotNull := func(c int) *gpu.Expr {
		b := gpu.Type{Kind: gpu.Bool}
		return gpu.Call(gpu.OpNot, b, gpu.Call(gpu.OpIsNotNull, b, jcol(c)))
	}
	// Columns: 0 l.k (nullable), 1 l.v, 2 r.k (nullable), 3 r.v (never
	// null on the right side; nullable in the join's output).
	left, all := []int{0, 1}, []int{0, 1, 2, 3}
	cases := []struct {
		name    string
		filter  *gpu.Expr
		project []int
		agg     bool
		want    string // "inner", "anti" or "left"
	}{
		{"compares with the right side", jcmp(gpu.OpGt, jcol(3), jcol(1)), all, false, "inner"},
		{"compares, aggregated", jcmp(gpu.OpLt, jcol(1), gpu.Call(gpu.OpAdd, ni64, jcol(3), jconst(50))), all, true, "inner"},
		{"right side is not null", gpu.Call(gpu.OpIsNotNull, gpu.Type{Kind: gpu.Bool}, jcol(3)), all, false, "inner"},
		{"either comparison", jor(jcmp(gpu.OpGt, jcol(3), jconst(100)), jcmp(gpu.OpEq, jcol(2), jcol(0))), all, false, "inner"},
		{"right side is null", jisNull(3), left, false, "anti"},
		{"not not null, and a left test", jand(notNotNull(3), jcmp(gpu.OpGt, jcol(1), jconst(60))), left, false, "anti"},
		{"right side is null, aggregated", jisNull(3), left, true, "anti"},
		{"two right columns null", jand(jisNull(3), notNotNull(3), jcmp(gpu.OpGt, jcol(1), jconst(60))), left, false, "anti"},
		{"a nullable right column is null", jisNull(2), left, false, "left"},
		{"is null but the right side is read", jisNull(3), all, false, "left"},
		{"null or a left test", jor(jisNull(3), jcmp(gpu.OpGt, jcol(1), jconst(60))), all, false, "left"},
		{"a left test that can raise", jand(jcmp(gpu.OpGt, gpu.Call(gpu.OpMul, i64, jcol(1), jconst(1000)), jconst(5)), jcmp(gpu.OpGt, jcol(3), jcol(1))), all, false, "left"},
		{"case keeps padded rows", gpu.Call(gpu.OpCase, pbool, jisNull(3), gpu.Const(gpu.Type{Kind: gpu.Bool}, gpu.Value{I64: 1}), jcmp(gpu.OpGt, jcol(3), jcol(1))), all, false, "left"},
		{"no filter, aggregated", nil, all, true, "left"},
		{"a left test, aggregated", jcmp(gpu.OpGt, jcol(1), jconst(60)), all, true, "left"},
	}
	plan := func(nl, nr int, f *gpu.Expr, project []int, agg, residual bool) Node {
		l, r := probeSides(nl, nr)
		j := &Join{Left: l, Right: r, Type: JoinLeft, LeftKeys: []int{0}, RightKeys: []int{0}}
		if residual {
			j.Residual = jcmp(gpu.OpLt, jcol(1), gpu.Call(gpu.OpAdd, ni64, jcol(3), jconst(200)))
		}
		p := &gpu.Pipeline{Inputs: j.OutputTypes(), Filter: f, Sink: gpu.SinkMaterialize}
		for _, c := range project {
			p.Project = append(p.Project, gpu.Col(c, p.Inputs[c]))
		}
		if agg {
			p.Sink, p.Keys = gpu.SinkAggregate, []int{0}
			p.Aggs = []gpu.Agg{{Kind: gpu.AggCountStar, Type: i64}, {Kind: gpu.AggSum, Arg: 1, Type: gpu.Type{Kind: gpu.Decimal128, Precision: 38, Nullable: true}}}
		}
		return &Pipeline{Input: j, Pipe: p}
	}
	h := host.New()
	for _, c := range cases {
		for _, residual := range []bool{false, true} {
			for _, sz := range [][2]int{{60, 40}, {12, 60}, {0, 10}, {10, 0}} { // 12x60: a left join builds on the left
				name := fmt.Sprintf("%s/residual=%v/%dx%d", c.name, residual, sz[0], sz[1])
				t.Run(name, func(t *testing.T) {
					want := runRows(t, h, plan(sz[0], sz[1], c.filter, c.project, c.agg, residual))
					if sz == [2]int{60, 40} && len(want) == 0 {
						t.Fatal("no row: the case would prove little")
					}
					root := FuseProbes(plan(sz[0], sz[1], c.filter, c.project, c.agg, residual))
					if got := joinKind(root); got != c.want {
						t.Fatalf("the join became %s, want %s:\n%s", got, c.want, Explain(root, "host"))
					}
					for _, dev := range []gpu.Device{h, noProbe{h}} {
						if got := runRows(t, dev, root); fmt.Sprint(got) != fmt.Sprint(want) {
							t.Fatalf("device %T: got %d rows %v\nwant %d rows %v", dev, len(got), got, len(want), want)
						}
					}
				})
			}
		}
	}
}

// outerPlan: the join of type t of probeSides(nl, nr) on l.k = r.k
// (IS NOT DISTINCT FROM with nullsEqual), with the residual
// l.v < r.v + 200, alone (bare) or under a pipeline with filter that
// projects r.v, l.v, r.k + l.k or (agg) counts them grouped by r.v.
func outerPlan(t JoinType, nl, nr int, filter *gpu.Expr, agg, residual, bare, nullsEqual bool) Node {
	ni64 := i64.WithNullable(true)
	l, r := probeSides(nl, nr)
	j := &Join{Left: l, Right: r, Type: t, LeftKeys: []int{0}, RightKeys: []int{0}}
	if nullsEqual {
		j.NullsEqual = []bool{true}
	}
	if residual {
		j.Residual = jcmp(gpu.OpLt, jcol(1), gpu.Call(gpu.OpAdd, ni64, jcol(3), jconst(200)))
	}
	if bare {
		return j
	}
	p := &gpu.Pipeline{Inputs: j.OutputTypes(), Filter: filter, Sink: gpu.SinkMaterialize,
		Project: []*gpu.Expr{jcol(3), jcol(1), gpu.Call(gpu.OpAdd, ni64, jcol(2), jcol(0))}}
	if agg {
		p.Sink, p.Keys = gpu.SinkAggregate, []int{0}
		p.Aggs = []gpu.Agg{{Kind: gpu.AggCountStar, Type: i64}, {Kind: gpu.AggCount, Arg: 1, Type: i64}}
	}
	return &Pipeline{Input: j, Pipe: p}
}

// joinKind names the join under a fused plan's top pipeline.
func joinKind(n Node) string {
	switch x := n.(type) {
	case *ProbePipeline:
		return x.Join.Type.String()
	case *Pipeline:
		return joinKind(x.Input)
	case *CountJoin:
		return x.Join.Type.String()
	case *Join:
		return x.Type.String()
	}
	return fmt.Sprintf("%T", n)
}

// A right join runs as the left join of its swapped sides (fused on a
// device with RunProbeLeft), under a pipeline or alone, and gives the
// right join's rows.
func TestRightJoinRunsAsLeft(t *testing.T) {
	plan := func(nl, nr int, filter *gpu.Expr, agg, residual, bare bool) Node {
		return outerPlan(JoinRight, nl, nr, filter, agg, residual, bare, false)
	}
	filters := map[string]*gpu.Expr{
		"none":                   nil,
		"a right test":           gpu.Call(gpu.OpGt, pbool, jcol(3), jconst(50)),
		"left side null (anti)":  gpu.Call(gpu.OpIsNull, gpu.Type{Kind: gpu.Bool}, jcol(1)),
		"compares sides (inner)": gpu.Call(gpu.OpGt, pbool, jcol(3), jcol(1)),
	}
	h := host.New()
	for fname, f := range filters {
		for _, agg := range []bool{false, true} {
			for _, residual := range []bool{false, true} {
				for _, bare := range []bool{false, true} {
					if bare && (f != nil || agg) {
						continue
					}
					for _, sz := range [][2]int{{40, 60}, {60, 12}, {0, 10}, {10, 0}} {
						name := fmt.Sprintf("%s/agg=%v/residual=%v/bare=%v/%dx%d", fname, agg, residual, bare, sz[0], sz[1])
						t.Run(name, func(t *testing.T) {
							want := runRows(t, h, plan(sz[0], sz[1], f, agg, residual, bare))
							if sz == [2]int{40, 60} && len(want) == 0 {
								t.Fatal("no row: the case would prove little")
							}
							root := FuseProbes(plan(sz[0], sz[1], f, agg, residual, bare))
							if k := joinKind(root); k == "right" {
								t.Fatalf("the right join stayed one:\n%s", Explain(root, "host"))
							}
							for _, dev := range []gpu.Device{h, noProbe{h}} {
								if got := runRows(t, dev, root); fmt.Sprint(got) != fmt.Sprint(want) {
									t.Fatalf("device %T: got %d rows %v\nwant %d rows %v\n%s", dev, len(got), got, len(want), want, Explain(root, "host"))
								}
							}
						})
					}
				}
			}
		}
	}
}

// A single join (a scalar subquery's) runs through the left join's path:
// the left join's rows where no left row matches twice, DuckDB's error
// where one does; fused on the host device, composed without RunProbeLeft.
func TestSingleJoinFused(t *testing.T) {
	h := host.New()
	for _, sz := range [][2]int{{30, 6}, {30, 20}, {0, 6}, {10, 0}} { // 6 right rows: distinct keys
		for _, agg := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dx%d/agg=%v", sz[0], sz[1], agg), func(t *testing.T) {
				plan := func() Node {
					l, r := probeSides(sz[0], sz[1])
					j := &Join{Left: l, Right: r, Type: JoinSingle, LeftKeys: []int{0}, RightKeys: []int{0}}
					p := &gpu.Pipeline{Inputs: j.OutputTypes(), Sink: gpu.SinkMaterialize,
						Project: []*gpu.Expr{gpu.Col(1, i64), gpu.Col(3, i64.WithNullable(true))}}
					if agg {
						p.Sink, p.Keys = gpu.SinkAggregate, []int{1}
						p.Aggs = []gpu.Agg{{Kind: gpu.AggCountStar, Type: i64}}
					}
					return &Pipeline{Input: j, Pipe: p}
				}
				root := FuseProbes(plan())
				if k := joinKind(root); k != "single" {
					t.Fatalf("got %s:\n%s", k, Explain(root, "host"))
				}
				x := &Executor{Dev: h, Cache: NewColumnCache()}
				names := make([]string, len(root.OutputTypes()))
				for i := range names {
					names[i] = fmt.Sprint("c", i)
				}
				rec, _, err := x.Run(context.Background(), plan(), names) // composed
				if err != nil {
					if !errors.Is(err, ErrSubqueryRows) || sz[1] <= 6 {
						t.Fatalf("composed: %v", err)
					}
					for _, dev := range []gpu.Device{h, noProbe{h}} {
						x := &Executor{Dev: dev, Cache: NewColumnCache()}
						if _, _, err := x.Run(context.Background(), root, names); !errors.Is(err, ErrSubqueryRows) {
							t.Fatalf("device %T: got %v, want the subquery error", dev, err)
						}
					}
					return
				}
				rec.Release()
				want := runRows(t, h, plan())
				for _, dev := range []gpu.Device{h, noProbe{h}} {
					if got := runRows(t, dev, root); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("device %T: got %v, want %v", dev, got, want)
					}
				}
			})
		}
	}
}
