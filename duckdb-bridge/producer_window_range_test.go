package duckdbbridge

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// firstWindow returns the first window function expression of a plan.
func firstWindow(rel *pb.Rel) *pb.Expression_WindowFunction {
	switch x := rel.RelType.(type) {
	case *pb.Rel_Project:
		for _, e := range x.Project.Expressions {
			if w := e.GetWindowFunction(); w != nil {
				return w
			}
		}
		return firstWindow(x.Project.Input)
	case *pb.Rel_Filter:
		return firstWindow(x.Filter.Input)
	case *pb.Rel_Sort:
		return firstWindow(x.Sort.Input)
	}
	return nil
}

// boundText writes a frame bound as SQL does.
func boundText(b *pb.Expression_WindowFunction_Bound) string {
	switch k := b.Kind.(type) {
	case *pb.Expression_WindowFunction_Bound_Unbounded_:
		return "UNBOUNDED"
	case *pb.Expression_WindowFunction_Bound_CurrentRow_:
		return "CURRENT ROW"
	case *pb.Expression_WindowFunction_Bound_Preceding_:
		return strconv.FormatInt(k.Preceding.Offset, 10) + " PRECEDING"
	case *pb.Expression_WindowFunction_Bound_Following_:
		return strconv.FormatInt(k.Following.Offset, 10) + " FOLLOWING"
	}
	return "?"
}

// TestRangeFrameOffsets: DuckDB's RANGE bounds (key -/+ constant, in the
// key's type) become Substrait offsets in the key's units, and what
// Substrait's int64 offsets cannot say is refused with its reason.
func TestRangeFrameOffsets(t *testing.T) {
	conn := testConn(t, openCorpusDB(t))
	for _, c := range []struct {
		over         string // the OVER clause, over table w
		lower, upper string // the bounds wanted, or
		refused      string // a substring of the refusal
	}{
		{over: "ORDER BY i RANGE BETWEEN 2 PRECEDING AND 3 FOLLOWING", lower: "2 PRECEDING", upper: "3 FOLLOWING"},
		{over: "ORDER BY bi RANGE BETWEEN 0 PRECEDING AND 0 FOLLOWING", lower: "CURRENT ROW", upper: "CURRENT ROW"},
		{over: "ORDER BY d2 RANGE BETWEEN 1 PRECEDING AND CURRENT ROW", lower: "1 PRECEDING", upper: "CURRENT ROW"},
		{over: "ORDER BY d10 RANGE BETWEEN 3 PRECEDING AND 1.000 FOLLOWING", lower: "3 PRECEDING", upper: "1 FOLLOWING"},
		{over: "ORDER BY f RANGE BETWEEN UNBOUNDED PRECEDING AND 4 FOLLOWING", lower: "UNBOUNDED", upper: "4 FOLLOWING"},
		{over: "ORDER BY d2 RANGE BETWEEN 1.5 PRECEDING AND CURRENT ROW", refused: "not a non-negative whole number"},
		{over: "ORDER BY f RANGE BETWEEN 0.5 PRECEDING AND CURRENT ROW", refused: "not a non-negative whole number"},
		{over: "ORDER BY i RANGE BETWEEN -1 PRECEDING AND CURRENT ROW", refused: "not a non-negative whole number"},
		{over: "ORDER BY ti RANGE BETWEEN 1000 PRECEDING AND CURRENT ROW", lower: "1000 PRECEDING", upper: "CURRENT ROW"},
		// The optimizer computes this upper bound as CAST(si + 2 AS DECIMAL),
		// in SMALLINT, not in the key's type DECIMAL(7,1): not key + constant.
		{over: "ORDER BY si RANGE BETWEEN 1.0 PRECEDING AND 2 FOLLOWING", refused: "not key + constant"},
		// Under DESC the window sorts on the key negated, ascending, nulls
		// where they were: the same offsets give the same frame.
		{over: "ORDER BY i DESC RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING", lower: "1 PRECEDING", upper: "2 FOLLOWING"},
		{over: "ORDER BY d2 DESC NULLS FIRST RANGE BETWEEN CURRENT ROW AND 3 FOLLOWING", lower: "CURRENT ROW", upper: "3 FOLLOWING"},
		{over: "ORDER BY f DESC RANGE BETWEEN 1 PRECEDING AND CURRENT ROW", refused: "descending ORDER BY of"},
		// DATE and TIMESTAMP keys: offsets in days and microseconds. An
		// INTERVAL over a DATE makes DuckDB sort on the DATE cast to
		// TIMESTAMP: microseconds too.
		{over: "ORDER BY dt RANGE BETWEEN 30 PRECEDING AND 2 FOLLOWING", lower: "30 PRECEDING", upper: "2 FOLLOWING"},
		{over: "ORDER BY dt RANGE BETWEEN INTERVAL 3 DAYS PRECEDING AND INTERVAL '36 hours' FOLLOWING", lower: "259200000000 PRECEDING", upper: "129600000000 FOLLOWING"},
		{over: "ORDER BY ts RANGE BETWEEN INTERVAL 1 DAY PRECEDING AND INTERVAL 90 SECONDS FOLLOWING", lower: "86400000000 PRECEDING", upper: "90000000 FOLLOWING"},
		{over: "ORDER BY ts RANGE BETWEEN INTERVAL 1 MONTH PRECEDING AND CURRENT ROW", refused: "with months"},
		{over: "ORDER BY dt DESC RANGE BETWEEN 1 PRECEDING AND CURRENT ROW", refused: "descending ORDER BY of DATE"},
		{over: "ORDER BY i ROWS BETWEEN 0 PRECEDING AND 2 FOLLOWING", lower: "CURRENT ROW", upper: "2 FOLLOWING"},
	} {
		q := "SELECT id, count(*) OVER (" + c.over + ") AS n FROM w"
		p, err := ProducePlan(context.Background(), conn, q)
		if c.refused != "" {
			if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.refused) {
				t.Errorf("%s: got %v, want a refusal naming %q", c.over, err, c.refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.over, err)
			continue
		}
		w := firstWindow(p.Relations[0].GetRoot().Input)
		if w == nil {
			t.Errorf("%s: no window function in the plan", c.over)
			continue
		}
		if lo, hi := boundText(w.LowerBound), boundText(w.UpperBound); lo != c.lower || hi != c.upper {
			t.Errorf("%s: bounds %s .. %s, want %s .. %s", c.over, lo, hi, c.lower, c.upper)
		}
		if strings.Contains(c.over, "DESC") && strings.Contains(c.over, "RANGE") {
			want := pb.SortField_SORT_DIRECTION_ASC_NULLS_LAST
			if strings.Contains(c.over, "NULLS FIRST") {
				want = pb.SortField_SORT_DIRECTION_ASC_NULLS_FIRST
			}
			if got := w.Sorts[0].GetDirection(); got != want || w.Sorts[0].Expr.GetScalarFunction() == nil {
				t.Errorf("%s: sorted %s on %v, want %s on the key negated", c.over, got, w.Sorts[0].Expr, want)
			}
		}
	}
}

// TestDistinctOnPlan: DISTINCT ON is a row_number() over the targets in
// the distinct's order, kept where it is 1, without the number itself.
func TestDistinctOnPlan(t *testing.T) {
	conn := testConn(t, openCorpusDB(t))
	p, err := ProducePlan(context.Background(), conn, "SELECT DISTINCT ON (g, k) g, k, id FROM w ORDER BY g, k DESC, id")
	if err != nil {
		t.Fatal(err)
	}
	var f *pb.FilterRel
	var find func(*pb.Rel)
	find = func(r *pb.Rel) {
		switch x := r.RelType.(type) {
		case *pb.Rel_Filter:
			f = x.Filter
		case *pb.Rel_Sort:
			find(x.Sort.Input)
		case *pb.Rel_Project:
			find(x.Project.Input)
		}
	}
	find(p.Relations[0].GetRoot().Input)
	if f == nil {
		t.Fatal("no FilterRel in the plan")
	}
	if m := f.Common.GetEmit().GetOutputMapping(); len(m) != 3 {
		t.Errorf("the filter emits %v, want the 3 input columns", m)
	}
	w := firstWindow(f.Input)
	if w == nil || len(w.Partitions) != 2 || len(w.Sorts) != 3 {
		t.Fatalf("window %v: want 2 partitions and 3 sort keys", w)
	}
	if d := w.Sorts[1].GetDirection(); d != pb.SortField_SORT_DIRECTION_DESC_NULLS_LAST {
		t.Errorf("second sort key %v, want DESC NULLS LAST", d)
	}
}
