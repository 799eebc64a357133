package translate

import (
	"math/big"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// dateVsTimestamp against the definition d*D op t, for dates around
// timestamps on, just after and just before midnight.
func TestDateVsTimestampIsExact(t *testing.T) {
	day := int64(86400_000000)
	for _, ts := range []int64{9221 * day, 9221*day + 1, 9221*day - 1, -3*day + 5, -3 * day} {
		for _, op := range []gpu.Op{gpu.OpEq, gpu.OpNe, gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe} {
			d := gpu.Col(0, gpu.Type{Kind: gpu.Date32})
			g, err := dateVsTimestamp(op, gpu.Type{Kind: gpu.Bool}, d, big.NewInt(ts), big.NewInt(day))
			if err != nil {
				t.Fatal(err)
			}
			for date := int64(-6); date < 9225; date++ {
				if date == 0 {
					date = 9216
				}
				lhs := date * day
				want := map[gpu.Op]bool{gpu.OpEq: lhs == ts, gpu.OpNe: lhs != ts, gpu.OpLt: lhs < ts,
					gpu.OpLe: lhs <= ts, gpu.OpGt: lhs > ts, gpu.OpGe: lhs >= ts}[op]
				if got := evalDateCmp(t, g, date); got != want {
					t.Fatalf("%d*day %s %d: %s gives %v, want %v", date, op, ts, g, got, want)
				}
			}
		}
	}
}

// evalDateCmp evaluates the rewritten comparison (date op constant, or
// d = d / d <> d) for one non-null date.
func evalDateCmp(t *testing.T, g *gpu.Expr, date int64) bool {
	a, b := date, date
	if g.Args[1].Op == gpu.OpConst {
		b = g.Args[1].Const.I64
	}
	switch g.Op {
	case gpu.OpEq:
		return a == b
	case gpu.OpNe:
		return a != b
	case gpu.OpLt:
		return a < b
	case gpu.OpLe:
		return a <= b
	case gpu.OpGt:
		return a > b
	case gpu.OpGe:
		return a >= b
	}
	t.Fatalf("unexpected %s", g)
	return false
}
