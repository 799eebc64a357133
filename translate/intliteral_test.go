package translate

import (
	"testing"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
)

// A cast of an integer literal to an integer type that holds it is a
// constant (ibis-substrait's substring positions); one that would fail is
// not.
func TestIntLiteralThroughCasts(t *testing.T) {
	lit := func(v int16) expr.Expression { return expr.NewPrimitiveLiteral(v, false) }
	cast := func(e expr.Expression, to types.Type) expr.Expression {
		return &expr.Cast{Type: to, Input: e, FailureBehavior: types.BehaviorThrowException}
	}
	for _, c := range []struct {
		e      expr.Expression
		v      int64
		ok     bool
		reason string
	}{
		{lit(7), 7, true, "a literal"},
		{cast(lit(0), &types.Int32Type{}), 0, true, "i16 0 as i32"},
		{cast(cast(lit(-2), &types.Int64Type{}), &types.Int8Type{}), -2, true, "nested casts"},
		{cast(lit(300), &types.Int8Type{}), 0, false, "300 does not fit i8"},
		{cast(lit(1), &types.Float64Type{}), 0, false, "not an integer type"},
	} {
		v, null, ok := intLiteral(c.e)
		if ok != c.ok || null || (ok && v != c.v) {
			t.Errorf("%s: got %d null=%v ok=%v, want %d ok=%v", c.reason, v, null, ok, c.v, c.ok)
		}
	}
}
