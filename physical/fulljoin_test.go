package physical

import (
	"fmt"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// A full join runs fused on the host device (the left join, then the
// unmatched right rows from counts) and composed on one without
// RunProbeLeft, alone or under a pipeline that filters, projects or
// aggregates; a filter that rejects one side's padded rows makes it a
// left, right (run as left) or inner join. The rows are always the full
// join's, unrewritten and composed.
func TestFullJoin(t *testing.T) {
	ni64 := i64.WithNullable(true)
	raising := jcmp(gpu.OpGt, gpu.Call(gpu.OpMul, ni64, jcol(1), jconst(1000)), jconst(5)) // can overflow
	// Columns: 0 l.k, 1 l.v, 2 r.k, 3 r.v, all nullable in the output.
	cases := []struct {
		name   string
		filter *gpu.Expr
		agg    bool
		want   string // the join it runs as
	}{
		{"no filter", nil, false, "full"},
		{"no filter, aggregated", nil, true, "full"},
		{"a left side null", jisNull(1), false, "full"},
		{"a left test", jcmp(gpu.OpGt, jcol(1), jconst(50)), false, "left"},
		{"a right test", jcmp(gpu.OpGt, jcol(3), jconst(50)), false, "left"}, // right, swapped
		{"a right test, aggregated", jcmp(gpu.OpGt, jcol(3), jconst(50)), true, "left"},
		{"compares sides", jcmp(gpu.OpGt, jcol(3), jcol(1)), false, "inner"},
		{"tests each side", jand(jcmp(gpu.OpGt, jcol(3), jconst(5)), jcmp(gpu.OpLt, jcol(1), jconst(500))), true, "inner"},
		// The raising test reads the left side only: the padded-right
		// rows (left rows without a match) must stay for it; it drops the
		// padded-left ones, on which it reads a null and cannot raise.
		{"a raising left test", jand(raising, jcmp(gpu.OpGt, jcol(3), jconst(5))), false, "left"},
	}
	plan := func(nl, nr int, f *gpu.Expr, agg, residual, bare bool, ne bool) Node {
		return outerPlan(JoinFull, nl, nr, f, agg, residual, bare, ne)
	}
	h := host.New()
	for _, c := range cases {
		for _, residual := range []bool{false, true} {
			for _, bare := range []bool{false, true} {
				if bare && (c.filter != nil || c.agg) {
					continue
				}
				for _, ne := range []bool{false, true} {
					for _, sz := range [][2]int{{60, 40}, {40, 60}, {12, 60}, {0, 10}, {10, 0}} { // 12x60: composed, the table on the left
						name := fmt.Sprintf("%s/residual=%v/bare=%v/nullsEqual=%v/%dx%d", c.name, residual, bare, ne, sz[0], sz[1])
						t.Run(name, func(t *testing.T) {
							want := runRows(t, h, plan(sz[0], sz[1], c.filter, c.agg, residual, bare, ne))
							if sz == [2]int{60, 40} && !ne && len(want) == 0 { // nulls equal, every right row of the case may match
								t.Fatal("no row: the case would prove little")
							}
							root := FuseProbes(plan(sz[0], sz[1], c.filter, c.agg, residual, bare, ne))
							if got := joinKind(root); got != c.want {
								t.Fatalf("the join became %s, want %s:\n%s", got, c.want, Explain(root, "host"))
							}
							for _, dev := range []gpu.Device{h, noProbe{h}, noCounts{h}} {
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

// noCounts runs left joins fused but counts no matches: a full join
// takes the composed path.
type noCounts struct{ *host.Device }

func (noCounts) ProbeCounts() {} // hides host.Device's: not a gpu.ProbeCounter
