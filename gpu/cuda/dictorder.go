package cuda

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
)

// Comparisons of two dictionaries' strings. A Dict code means a string only
// in its own dictionary, and two tables' string columns (TPC-DS q19:
// substr(ca_zip, 1, 5) <> substr(s_zip, 1, 5); q24: upper(c_birth_country)
// <> s_country) have different ones, known only once the columns are on
// the device. Such a comparison a CMP b is run as place(a) CMP place(b),
// both places in b's dictionary's order (gpu.StrOrderIn: 2i for its string
// i, 2i-1 between strings i-1 and i): two int32 table lookups through the
// string-table machinery (codegen_str.go), exact for every operator. The
// host device maps codes the same way (gpu.DictOrderMap).

// orderMixedCompares returns p, or, when some of compares (p's comparisons
// of Dict values: scanPipeline) compares two different dictionaries over
// cols, a copy of p with each such comparison made one of places. The
// copy is new on every call (its string tables depend on the run's
// dictionaries): its source is generated again, which costs tens of
// microseconds, only for such pipelines.
func orderMixedCompares(p *gpu.Pipeline, cols []*column, compares []*gpu.Expr) (*gpu.Pipeline, error) {
	if len(compares) == 0 {
		return p, nil
	}
	st, err := buildStrTables(p, cols)
	if err != nil {
		return nil, err
	}
	mixed := map[*gpu.Expr]bool{}
	for _, e := range compares {
		a, b := st.dictOf(e.Args[0], cols), st.dictOf(e.Args[1], cols)
		if a != nil && b != nil && !gpu.SameDictionary(a, b) {
			mixed[e] = true
		}
	}
	if len(mixed) == 0 {
		return p, nil
	}
	return rewritePipeline(p, func(orig, e *gpu.Expr) (*gpu.Expr, bool) {
		if !mixed[orig] {
			return nil, false
		}
		c := *e
		x, y := e.Args[0], e.Args[1]
		c.Args = []*gpu.Expr{placeIn(x, y), placeIn(y, y)}
		return &c, true
	}), nil
}

// orderMixedComparesLeft is orderMixedCompares of a left join's pipeline p
// and its condition cond (RunProbeLeft), rewritten together: the
// condition rides along as one more projection.
func orderMixedComparesLeft(p *gpu.Pipeline, cond *gpu.Expr, cols []*column) (*gpu.Pipeline, *gpu.Expr, error) {
	both := *p
	if cond != nil {
		both.Project = append(append([]*gpu.Expr(nil), p.Project...), cond)
	}
	q, err := orderMixedCompares(&both, cols, scanPipeline(&both).dictCompares)
	if err != nil || q == &both {
		return p, cond, err
	}
	n := len(p.Project)
	out := *q
	out.Project = q.Project[:n:n]
	if cond == nil {
		return &out, nil, nil
	}
	return &out, q.Project[n], nil
}

// placeIn is x's place in y's dictionary's order (gpu.StrOrderIn).
func placeIn(x, y *gpu.Expr) *gpu.Expr {
	t := gpu.Type{Kind: gpu.Int32, Nullable: x.Type.Nullable || y.Type.Nullable}
	return &gpu.Expr{Op: gpu.OpStrMap, Type: t, Args: []*gpu.Expr{x, y}, Str: &gpu.StrFunc{Kind: gpu.StrOrderIn}}
}

func isComparison(op gpu.Op) bool {
	switch op {
	case gpu.OpEq, gpu.OpNe, gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe:
		return true
	}
	return false
}

// isPlaceIn reports whether e is a StrOrderIn node (placeIn).
func isPlaceIn(e *gpu.Expr) bool {
	return e.Op == gpu.OpStrMap && e.Str != nil && e.Str.Kind == gpu.StrOrderIn
}

// placeTable is the int32 table of a StrOrderIn node: the places of from's
// strings in to's order.
func placeTable(from, to *array.String) ([]int32, error) {
	if from == nil || to == nil {
		return nil, fmt.Errorf("placing strings of a dictionary in another: a side has no dictionary")
	}
	if 2*int64(to.Len()) > math.MaxInt32 {
		return nil, fmt.Errorf("placing strings among a dictionary of %d strings (int32 places reach %d): %w", to.Len(), math.MaxInt32/2, gpu.ErrUnsupported)
	}
	places := gpu.DictOrderMap(from, to)
	out := make([]int32, len(places))
	for i, v := range places {
		out[i] = int32(v)
	}
	return out, nil
}
