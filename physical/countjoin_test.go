package physical

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// semiPlan: the left rows of probeSides with (semi) or without (anti) a
// right row of equal key, with or without the residual l.v < r.v + 200.
func semiPlan(nl, nr int, typ JoinType, residual, nullsEqual bool) *Join {
	l, r := probeSides(nl, nr)
	j := &Join{Left: l, Right: r, Type: typ, LeftKeys: []int{0}, RightKeys: []int{0}}
	if residual {
		j.Residual = gpu.Call(gpu.OpLt, pbool, gpu.Col(1, i64), gpu.Call(gpu.OpAdd, i64, gpu.Col(3, i64), gpu.Const(i64, gpu.Value{I64: 200})))
	}
	if nullsEqual {
		j.NullsEqual = []bool{true}
	}
	return j
}

// countingCounter counts the ProbeCounts calls that reach the host device.
type countingCounter struct {
	*host.Device
	calls int
}

func (c *countingCounter) ProbeCounts(ctx context.Context, p *gpu.Pipeline, probe, build []gpu.Column, pk, bk []int, ne []bool) (gpu.Column, error) {
	c.calls++
	return c.Device.ProbeCounts(ctx, p, probe, build, pk, bk, ne)
}

// refusingCounts refuses every ProbeCounts: the Join must run instead.
type refusingCounts struct{ *host.Device }

func (refusingCounts) ProbeCounts(context.Context, *gpu.Pipeline, []gpu.Column, []gpu.Column, []int, []int, []bool) (gpu.Column, error) {
	return nil, fmt.Errorf("test refusal: %w", gpu.ErrUnsupported)
}

// A CountJoin gives the rows of its Join, from counts where the device
// counts and the right side is not far larger than the left, and from the
// Join otherwise.
func TestCountJoinEqualsJoin(t *testing.T) {
	h := host.New()
	for _, sz := range [][2]int{{40, 30}, {300, 90}, {5, 5*swapBuildRatio + 20}, {0, 10}, {10, 0}} {
		for _, typ := range []JoinType{JoinSemi, JoinAnti} {
			for _, residual := range []bool{false, true} {
				for _, ne := range []bool{false, true} {
					name := fmt.Sprintf("%dx%d/%s/residual=%v/nullsEqual=%v", sz[0], sz[1], typ, residual, ne)
					t.Run(name, func(t *testing.T) {
						want := runRows(t, h, semiPlan(sz[0], sz[1], typ, residual, ne))
						// (With nullsEqual every left key, null included, has a match.)
						if sz[0] >= 40 && sz[1] > 0 && len(want) == 0 && (typ == JoinSemi || !ne) {
							t.Fatal("the join keeps no row: the test would prove little")
						}
						counter := &countingCounter{Device: h}
						for _, dev := range []gpu.Device{counter, noProbe{h}, refusingCounts{h}} {
							root := FuseProbes(semiPlan(sz[0], sz[1], typ, residual, ne))
							if _, ok := root.(*CountJoin); !ok {
								t.Fatalf("not a CountJoin: %s", Explain(root, "host"))
							}
							got := runRows(t, dev, root)
							if fmt.Sprint(got) != fmt.Sprint(want) {
								t.Fatalf("device %T: got %d rows %v\nwant %d rows %v", dev, len(got), got, len(want), want)
							}
						}
						wantCalls := 1
						if sz[1] > swapBuildRatio*sz[0] {
							wantCalls = 0 // the Join builds on the left instead
						}
						if counter.calls != wantCalls {
							t.Fatalf("ProbeCounts ran %d times, want %d", counter.calls, wantCalls)
						}
					})
				}
			}
		}
	}
}

func TestCountJoinDescribe(t *testing.T) {
	root := FuseProbes(semiPlan(3, 3, JoinAnti, true, true))
	d := root.Describe()
	if !strings.HasPrefix(d, "CountJoin anti [L#0 <=> R#0] where ($1 < ($3 + 200))") {
		t.Fatalf("describe: %s", d)
	}
}
