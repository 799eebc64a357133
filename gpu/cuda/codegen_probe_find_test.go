package cuda

import (
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// splitProbeFilter moves to the lookup only conjuncts over the probe side
// that cannot raise, and keeps a guard's value behind all of its
// condition.
func TestSplitProbeFilter(t *testing.T) {
	b := gpu.Type{Kind: gpu.Bool, Nullable: true}
	i64 := gpu.Type{Kind: gpu.Int64}
	col := func(c int) *gpu.Expr { return gpu.Col(c, i64) }
	k := func(v int64) *gpu.Expr { return gpu.Const(i64, gpu.Value{I64: v}) }
	gt := func(c int, v int64) *gpu.Expr { return gpu.Call(gpu.OpGt, b, col(c), k(v)) }
	and := func(es ...*gpu.Expr) *gpu.Expr { return gpu.Call(gpu.OpAnd, b, es...) }
	guard := func(a, v *gpu.Expr) *gpu.Expr {
		return gpu.Call(gpu.OpCase, b, a, v, gpu.Const(gpu.Type{Kind: gpu.Bool}, gpu.Value{I64: 0}))
	}
	overflowing := gpu.Call(gpu.OpGt, b, gpu.Call(gpu.OpMul, i64, col(0), k(3)), k(1)) // probe side, but can raise
	const np = 2                                                                       // columns 0 and 1 are the probe side's
	for _, c := range []struct {
		name      string
		f         *gpu.Expr
		pre, rest string
	}{
		{"none", nil, "", ""},
		{"probe only", gt(0, 1), "($0 > 1)", ""},
		{"build only", gt(2, 1), "", "($2 > 1)"},
		{"and of both", and(gt(0, 1), gt(3, 1), gt(1, 2)), "(($0 > 1) and ($1 > 2))", "($3 > 1)"},
		{"may raise", and(overflowing, gt(2, 1)), "", "((($0 * 3) > 1) and ($2 > 1))"},
		{"guard, probe condition", guard(and(gt(0, 1), gt(1, 1)), and(gt(2, 1), gt(1, 5))), "and(($0 > 1), ($1 > 1), ($1 > 5))", "($2 > 1)"},
		{"guard, build condition", guard(and(gt(0, 1), gt(2, 1)), gt(1, 5)), "($0 > 1)", "case"},
		{"or of both sides", gpu.Call(gpu.OpOr, b, gt(0, 1), gt(2, 1)), "", "(($0 > 1) or ($2 > 1))"},
	} {
		pre, rest := splitProbeFilter(c.f, np)
		if got := exprText(pre); got != c.pre {
			t.Errorf("%s: pre %q, want %q", c.name, got, c.pre)
		}
		if got := exprText(rest); !strings.Contains(got, c.rest) || (c.rest == "") != (rest == nil) {
			t.Errorf("%s: rest %q, want %q", c.name, got, c.rest)
		}
	}
}

func exprText(e *gpu.Expr) string {
	if e == nil {
		return ""
	}
	return e.String()
}
