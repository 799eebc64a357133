package duckdbbridge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"

	"github.com/substrait-io/substrait-go/v8/plan"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// joinQueries cover the operators beyond a single table: every join type
// DuckDB plans without a mark join, delim joins of correlated subqueries,
// cross products, joins on arbitrary conditions, DISTINCT, set operations
// and CTEs referenced twice.
var joinQueries = []string{
	"SELECT o_orderkey, l_linenumber FROM orders, lineitem WHERE o_orderkey = l_orderkey AND o_totalprice > l_extendedprice",
	"SELECT c_name, o_orderkey FROM customer LEFT JOIN orders ON c_custkey = o_custkey AND o_orderstatus = 'F'",
	"SELECT c_name, o_orderkey FROM orders RIGHT JOIN customer ON c_custkey = o_custkey AND o_orderstatus = 'O'",
	"SELECT c_name, o_orderkey FROM customer FULL JOIN orders ON c_custkey = o_custkey + 3",
	"SELECT c_name FROM customer WHERE EXISTS (SELECT 1 FROM orders WHERE o_custkey = c_custkey)",
	"SELECT c_name FROM customer WHERE NOT EXISTS (SELECT 1 FROM orders WHERE o_custkey = c_custkey AND o_orderstatus = 'F')",
	"SELECT c_name FROM customer WHERE c_acctbal > (SELECT avg(o_totalprice) / 1000 FROM orders WHERE o_custkey = c_custkey)",
	"SELECT r_name, n_name FROM region, nation",
	"SELECT o_orderkey, c_name FROM orders LEFT JOIN customer ON o_custkey < c_custkey OR o_comment = c_comment",
	"SELECT DISTINCT o_orderstatus, o_orderpriority FROM orders",
	"SELECT o_custkey FROM orders UNION SELECT c_custkey FROM customer",
	"SELECT o_custkey FROM orders UNION ALL SELECT c_custkey FROM customer",
	"SELECT o_custkey FROM orders EXCEPT SELECT c_custkey FROM customer WHERE c_acctbal > 0",
	"SELECT o_custkey FROM orders EXCEPT ALL SELECT c_custkey FROM customer",
	"SELECT o_custkey FROM orders INTERSECT SELECT c_custkey FROM customer",
	"SELECT o_custkey FROM orders INTERSECT ALL SELECT c_custkey FROM customer",
	"SELECT s FROM t UNION SELECT 'none'",
	"WITH x AS (SELECT o_orderkey AS k, o_totalprice AS p FROM orders WHERE o_totalprice > 100) SELECT a.k, b.p FROM x a, x b WHERE a.k = b.k + 1",
	"SELECT a.a, b.s FROM t a JOIN t b ON a.s = b.s AND a.a < b.a WHERE a.b IS NOT NULL",
	"SELECT a.a FROM t a JOIN t b ON a.s IS NOT DISTINCT FROM b.s",
}

func TestJoinQueries(t *testing.T) {
	db := openTestDB(t, false)
	conn := testConn(t, db)
	for _, q := range joinQueries {
		t.Run(q, func(t *testing.T) { produceAndLoad(t, db, conn, q) })
	}
}

// relKinds lists the kinds of every rel of a loaded plan, depth first.
func relKinds(r plan.Rel, out *[]string) {
	name := strings.TrimPrefix(fmt.Sprintf("%T", r), "*plan.")
	if j, ok := r.(*plan.JoinRel); ok {
		name += "(" + strings.TrimPrefix(j.Type().String(), "JOIN_TYPE_") + ")"
	}
	*out = append(*out, name)
	for _, in := range r.GetInputs() {
		relKinds(in, out)
	}
}

func TestJoinShapes(t *testing.T) {
	db := openTestDB(t, false)
	conn := testConn(t, db)
	cases := []struct {
		query string
		want  []string // rel kinds that must appear
		json  []string // fragments the plan's JSON must contain
	}{
		{joinQueries[0], []string{"JoinRel(INNER)"}, []string{`"type":"JOIN_TYPE_INNER"`, "equal:any_any", "gt:any_any"}},
		{joinQueries[1], []string{"JoinRel(LEFT)"}, nil},
		{joinQueries[2], []string{"JoinRel"}, nil},
		{joinQueries[3], []string{"JoinRel(OUTER)"}, nil},
		{joinQueries[4], []string{"JoinRel(LEFT_SEMI)"}, nil},
		{joinQueries[5], []string{"JoinRel(LEFT_ANTI)"}, nil},
		{joinQueries[7], []string{"CrossRel"}, nil},
		{joinQueries[9], []string{"AggregateRel"}, nil},
		{joinQueries[10], []string{"SetRel"}, []string{"SET_OP_UNION_DISTINCT"}},
		{joinQueries[11], []string{"SetRel"}, []string{"SET_OP_UNION_ALL"}},
		{joinQueries[12], []string{"SetRel"}, []string{"SET_OP_MINUS_PRIMARY\""}},
		{joinQueries[13], []string{"SetRel"}, []string{"SET_OP_MINUS_PRIMARY_ALL"}},
		{joinQueries[14], []string{"SetRel"}, []string{"SET_OP_INTERSECTION_MULTISET\""}},
		{joinQueries[15], []string{"SetRel"}, []string{"SET_OP_INTERSECTION_MULTISET_ALL"}},
		{joinQueries[19], []string{"JoinRel(INNER)"}, []string{"is_not_distinct_from:any_any"}},
	}
	opts := protojson.MarshalOptions{}
	for _, c := range cases {
		p, loaded := produceAndLoad(t, db, conn, c.query)
		var kinds []string
		relKinds(loaded.GetRoots()[0].Input(), &kinds)
		all := strings.Join(kinds, " ")
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: rels %s, want %s", c.query, all, w)
			}
		}
		js := strings.ReplaceAll(opts.Format(p), " ", "")
		for _, w := range c.json {
			if !strings.Contains(js, w) {
				t.Errorf("%s: plan JSON lacks %s", c.query, w)
			}
		}
	}
}

// TestDelimJoin: a correlated subquery that DuckDB keeps as a delim join
// becomes a JoinRel whose subquery side reads the outer side's distinct
// correlation columns through an AggregateRel over a copy of the outer side.
func TestDelimJoin(t *testing.T) {
	db := openTestDB(t, false)
	conn := testConn(t, db)
	p, loaded := produceAndLoad(t, db, conn, readQuery(t, 17))
	var kinds []string
	relKinds(loaded.GetRoots()[0].Input(), &kinds)
	if !strings.Contains(strings.Join(kinds, " "), "JoinRel(LEFT)") {
		t.Errorf("Q17 rels %v: want the delim join as a LEFT JoinRel", kinds)
	}
	// Two scans of part: the outer side, and its copy under the DELIM_GET's
	// AggregateRel.
	if parts := countReads(p, "part"); parts != 2 {
		t.Errorf("Q17 reads part %d times, want 2", parts)
	}
}

// comparisonTypesAgree checks every comparison in e: DuckDB casts both
// sides of a comparison to one type, so arguments of different types mean
// a field reference points at the wrong column (a join condition whose
// right side was not moved past the left columns, say).
func comparisonTypesAgree(t *testing.T, query string, e expr.Expression) {
	t.Helper()
	var visit expr.VisitFunc
	visit = func(x expr.Expression) expr.Expression {
		if f, ok := x.(*expr.ScalarFunction); ok && f.NArgs() == 2 {
			switch f.Name() {
			case "equal", "not_equal", "lt", "gt", "lte", "gte", "is_distinct_from", "is_not_distinct_from":
				a, aok := f.Arg(0).(expr.Expression)
				b, bok := f.Arg(1).(expr.Expression)
				if aok && bok {
					ta := a.GetType().WithNullability(types.NullabilityRequired)
					tb := b.GetType().WithNullability(types.NullabilityRequired)
					if !ta.Equals(tb) {
						t.Errorf("%s: %s compares %s with %s", query, f.Name(), ta, tb)
					}
				}
			}
		}
		return x.Visit(visit)
	}
	visit(e)
}

// TestJoinConditionTypes: in every produced plan of the join corpus and
// TPC-H, the comparisons of join conditions, filters and projections
// compare values of one type.
func TestJoinConditionTypes(t *testing.T) {
	db := openTestDB(t, false)
	conn := testConn(t, db)
	queries := append([]string{}, joinQueries...)
	for n := 1; n <= 22; n++ {
		queries = append(queries, readQuery(t, n))
	}
	joins := 0
	for _, q := range queries {
		if _, err := ProducePlan(context.Background(), conn, q); errors.Is(err, ErrUnsupported) {
			continue
		}
		_, loaded := produceAndLoad(t, db, conn, q)
		var walk func(r plan.Rel)
		walk = func(r plan.Rel) {
			switch x := r.(type) {
			case *plan.JoinRel:
				joins++
				comparisonTypesAgree(t, q, x.Expr())
			case *plan.FilterRel:
				comparisonTypesAgree(t, q, x.Condition())
			case *plan.ProjectRel:
				for _, e := range x.Expressions() {
					comparisonTypesAgree(t, q, e)
				}
			}
			for _, in := range r.GetInputs() {
				walk(in)
			}
		}
		walk(loaded.GetRoots()[0].Input())
	}
	if joins < 40 {
		t.Errorf("only %d joins checked", joins)
	}
	t.Logf("%d joins checked", joins)
}

// countReads counts the scans of table in a plan.
func countReads(p *pb.Plan, table string) int {
	n := 0
	walkMessages(p.ProtoReflect(), func(m protoreflect.Message) {
		if r, ok := m.Interface().(*pb.ReadRel); ok {
			if names := r.GetNamedTable().GetNames(); len(names) == 1 && names[0] == table {
				n++
			}
		}
	})
	return n
}

// TestCTEInlined: DuckDB keeps a CTE referenced twice as
// LOGICAL_MATERIALIZED_CTE with two LOGICAL_CTE_REFs; each reference
// becomes a copy of the definition.
func TestCTEInlined(t *testing.T) {
	db := openTestDB(t, false)
	conn := testConn(t, db)
	p, _ := produceAndLoad(t, db, conn, joinQueries[17])
	if n := countReads(p, "orders"); n != 2 {
		t.Errorf("the CTE's table is read %d times, want 2 (one per reference)", n)
	}
}

// TestScalarSubqueryOverAggregate: DuckDB's check that a scalar subquery
// returns at most one row (an error() call) is dropped when the subquery
// is an ungrouped aggregate, which always returns exactly one row.
func TestScalarSubqueryOverAggregate(t *testing.T) {
	db := openTestDB(t, false)
	conn := testConn(t, db)
	q := "SELECT s_suppkey FROM supplier WHERE s_acctbal > (SELECT avg(s_acctbal) FROM supplier)"
	p, _ := produceAndLoad(t, db, conn, q)
	js := protojson.Format(p)
	if strings.Contains(js, "ifThen") {
		t.Errorf("the plan still has the subquery's row check: %s", js)
	}
	if !strings.Contains(js, "any_value") {
		t.Errorf("the plan lacks the subquery's any_value (DuckDB's first)")
	}
}
