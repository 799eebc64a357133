package duckdbbridge

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// describe returns DuckDB's own output names and types of a query.
func describe(t *testing.T, db *sql.DB, query string) (names, typs []string) {
	t.Helper()
	rows, err := db.Query("DESCRIBE " + query)
	if err != nil {
		t.Fatalf("DESCRIBE: %v", err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		names = append(names, vals[0].(string))
		typs = append(typs, vals[1].(string))
	}
	return names, typs
}

// duckName spells a Substrait type the way DuckDB's DESCRIBE does, with
// HUGEINT as DECIMAL(38,0) (the producer's mapping).
func duckName(tp types.Type) string {
	switch x := tp.(type) {
	case *types.BooleanType:
		return "BOOLEAN"
	case *types.Int8Type:
		return "TINYINT"
	case *types.Int16Type:
		return "SMALLINT"
	case *types.Int32Type:
		return "INTEGER"
	case *types.Int64Type:
		return "BIGINT"
	case *types.Float32Type:
		return "FLOAT"
	case *types.Float64Type:
		return "DOUBLE"
	case *types.StringType:
		return "VARCHAR"
	case *types.DateType:
		return "DATE"
	case *types.DecimalType:
		return fmt.Sprintf("DECIMAL(%d,%d)", x.Precision, x.Scale)
	case *types.PrecisionTimestampType:
		return "TIMESTAMP"
	case *types.IntervalCompoundType, types.IntervalCompoundType:
		return "INTERVAL"
	}
	return fmt.Sprintf("%T", tp)
}

// produceAndLoad produces the plan of query, loads it with substrait-go and
// checks the root's names and types against DuckDB's DESCRIBE.
func produceAndLoad(t *testing.T, db *sql.DB, conn *sql.Conn, query string) (*pb.Plan, *plan.Plan) {
	t.Helper()
	p, err := ProducePlan(context.Background(), conn, query)
	if err != nil {
		t.Fatalf("ProducePlan(%s): %v", query, err)
	}
	// The standard extensions and rigel's (substrait/rigel_ext.go).
	coll, err := substrait.Collection()
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := plan.FromProto(p, coll)
	if err != nil {
		t.Fatalf("plan.FromProto(%s): %v", query, err)
	}
	roots := loaded.GetRoots()
	if len(roots) != 1 {
		t.Fatalf("%d roots", len(roots))
	}
	wantNames, wantTypes := describe(t, db, query)
	if got := roots[0].Names(); strings.Join(got, "|") != strings.Join(wantNames, "|") {
		t.Errorf("%s: names %v, DuckDB says %v", query, got, wantNames)
	}
	rt := roots[0].Input().RecordType()
	if rt.FieldCount() != int32(len(wantTypes)) {
		t.Fatalf("%s: %d output columns, DuckDB says %d", query, rt.FieldCount(), len(wantTypes))
	}
	for i, want := range wantTypes {
		if want == "HUGEINT" {
			want = "DECIMAL(38,0)"
		}
		if got := duckName(rt.GetFieldRef(int32(i))); got != want {
			t.Errorf("%s: column %d (%s) has type %s, DuckDB says %s", query, i, wantNames[i], got, want)
		}
	}
	return p, loaded
}

// shape lists the rel kinds from the root down the first inputs.
func shape(r plan.Rel) string {
	var parts []string
	for r != nil {
		name := strings.TrimPrefix(fmt.Sprintf("%T", r), "*plan.")
		parts = append(parts, name)
		in := r.GetInputs()
		if len(in) == 0 {
			break
		}
		r = in[0]
	}
	return strings.Join(parts, " > ")
}

func readQuery(t *testing.T, n int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "conformance", "tpch", "queries", fmt.Sprintf("q%02d.sql", n)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTPCHQ1(t *testing.T) {
	db := openTestDB(t, false)
	_, loaded := produceAndLoad(t, db, testConn(t, db), readQuery(t, 1))
	root := loaded.GetRoots()[0]
	if got, want := shape(root.Input()), "SortRel > ProjectRel > AggregateRel > ProjectRel > NamedTableReadRel"; got != want {
		t.Errorf("Q1 shape %q, want %q", got, want)
	}
	rt := root.Input().RecordType()
	// Group keys come from NOT NULL columns; sums may be null (no rows);
	// count(*) never is.
	if rt.GetFieldRef(0).GetNullability() != types.NullabilityRequired {
		t.Errorf("l_returnflag should be required")
	}
	if rt.GetFieldRef(2).GetNullability() != types.NullabilityNullable {
		t.Errorf("sum_qty should be nullable")
	}
	if rt.GetFieldRef(9).GetNullability() != types.NullabilityRequired {
		t.Errorf("count_order should be required")
	}
	// The scan filters l_shipdate <= date '1998-09-02' over the base schema.
	var read *plan.NamedTableReadRel
	for r := root.Input(); r != nil; {
		if x, ok := r.(*plan.NamedTableReadRel); ok {
			read = x
			break
		}
		r = r.GetInputs()[0]
	}
	if read == nil || read.Filter() == nil {
		t.Fatal("Q1 scan has no filter")
	}
	if got := read.Names(); len(got) != 1 || got[0] != "lineitem" {
		t.Errorf("Q1 table %v", got)
	}
	if f := read.Filter().String(); !strings.Contains(f, "lte") || !strings.Contains(f, ".field(10)") || !strings.Contains(f, "1998-09-02") {
		t.Errorf("Q1 scan filter %s", f)
	}
}

func TestTPCHQ6(t *testing.T) {
	db := openTestDB(t, false)
	p, loaded := produceAndLoad(t, db, testConn(t, db), readQuery(t, 6))
	if got, want := shape(loaded.GetRoots()[0].Input()), "ProjectRel > AggregateRel > NamedTableReadRel"; got != want {
		t.Errorf("Q6 shape %q, want %q", got, want)
	}
	// sum(l_extendedprice * l_discount): DECIMAL(15,2)*DECIMAL(15,2) is
	// DECIMAL(18,4) in DuckDB; its sum DECIMAL(38,4).
	agg := p.Relations[0].GetRoot().Input.GetProject().Input.GetAggregate()
	m := agg.Measures[0].Measure
	if d := m.OutputType.GetDecimal(); d == nil || d.Precision != 38 || d.Scale != 4 {
		t.Errorf("Q6 sum type %v", m.OutputType)
	}
	mul := m.Arguments[0].GetValue().GetScalarFunction()
	if d := mul.GetOutputType().GetDecimal(); d == nil || d.Precision != 18 || d.Scale != 4 {
		t.Errorf("Q6 product type %v", mul.GetOutputType())
	}
}

// simpleQueries cover filters, projections, aggregates, ordering, limits,
// constants of every type, casts, CASE, BETWEEN, IN, IS NULL.
var simpleQueries = []string{
	"SELECT * FROM t",
	"SELECT a, s FROM t WHERE a > 10 AND s = 'x3'",
	"SELECT a + 1, a - 2, a * 3, -a, a // 7, a % 7, a / 2 FROM t",
	"SELECT b * 2, b + b, b - 1.5, f * 2.5, f / 3 FROM t WHERE b IS NOT NULL",
	"SELECT s FROM t WHERE s IS NULL OR a < 3",
	"SELECT a FROM t WHERE d BETWEEN DATE '1995-02-01' AND DATE '1995-03-01'",
	"SELECT a FROM t WHERE a + bi BETWEEN 10 AND 50",
	"SELECT a FROM t WHERE s IN ('x1', 'x2', 'x5')",
	"SELECT a FROM t WHERE a + 1 NOT IN (3, 5, 7)",
	"SELECT CASE WHEN a < 10 THEN 'small' WHEN a < 100 THEN 'mid' ELSE 'big' END AS size FROM t",
	"SELECT CASE WHEN b > 0 THEN b END FROM t",
	"SELECT CAST(a AS DECIMAL(12,2)), CAST(a AS DOUBLE), CAST(b AS INTEGER), TRY_CAST(s AS INTEGER) FROM t",
	"SELECT 1::TINYINT, 2::SMALLINT, 3, 4::BIGINT, 5::HUGEINT, 1.5, 123456789012345678901.5::DECIMAL(30,1), 1.5::DOUBLE, 2.5::FLOAT, 'str', DATE '2020-01-02', TIMESTAMP '2020-01-02 03:04:05', INTERVAL '1 month 2 days 3 seconds', true, NULL::INTEGER, a FROM t",
	"SELECT -123456789012345678901.5::DECIMAL(30,1) + w FROM t",
	"SELECT count(*) FROM t",
	"SELECT count(*), count(s), sum(a), sum(b), avg(b), avg(f), min(d), max(b), sum(h), min(a), max(f) FROM t",
	"SELECT s, count(*) AS n, sum(b) AS total FROM t GROUP BY s",
	"SELECT s, d, max(a) FROM t WHERE a > 5 GROUP BY s, d HAVING count(*) > 0",
	"SELECT s, sum(a) FROM t GROUP BY s ORDER BY s DESC NULLS FIRST",
	"SELECT a, b FROM t ORDER BY b, a",
	"SELECT a FROM t LIMIT 7",
	"SELECT a FROM t ORDER BY a DESC LIMIT 5 OFFSET 2",
	"SELECT a, s FROM t WHERE s = 'x1' ORDER BY a LIMIT 5",
	"SELECT a FROM t OFFSET 190",
	"SELECT a FROM t WHERE 1 = 0",
	"SELECT s LIKE 'x%', s NOT LIKE '%1', s ILIKE 'X%', s LIKE '%2%', lower(s), upper(s), length(s), s || 'y' FROM t",
	"SELECT substring(s, 1, 1), substring(s, a, 2) FROM t",
	"SELECT year(d), month(d), day(d), extract(year FROM d), date_part('quarter', d), hour(ts) FROM t",
	"SELECT coalesce(s, 'none'), coalesce(bi, a, 0) FROM t",
	"SELECT sum(a) OVER (ORDER BY a DESC RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING), count(*) OVER (ORDER BY bi DESC NULLS FIRST RANGE BETWEEN CURRENT ROW AND 3 FOLLOWING) FROM t",
	"SELECT a FROM t WHERE bo AND NOT (a > 100) AND (s <> 'x4' OR s IS NULL)",
	"SELECT a, abs(bi), abs(b) FROM t WHERE a % 3 = 1",
	"SELECT a FROM t WHERE ts > TIMESTAMP '2000-01-02' AND f < 30",
	"SELECT l_returnflag, sum(l_quantity), avg(l_discount) FROM lineitem WHERE l_shipmode IN ('AIR', 'MAIL') GROUP BY l_returnflag",
}

func TestSimpleQueries(t *testing.T) {
	db := openTestDB(t, false)
	conn := testConn(t, db)
	for _, q := range simpleQueries {
		t.Run(q, func(t *testing.T) { produceAndLoad(t, db, conn, q) })
	}
}

func TestUnsupported(t *testing.T) {
	db := openTestDB(t, false)
	conn := testConn(t, db)
	cases := []struct{ query, want string }{
		{"SELECT sum(a) OVER (ORDER BY f DESC RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t", "RANGE frame offset under a descending ORDER BY of DOUBLE"},
		{"SELECT a, first_value(s IGNORE NULLS) OVER (ORDER BY a) FROM t", "IGNORE NULLS"},
		{"SELECT sum(a) FILTER (WHERE a > 3) OVER () FROM t", "window function FILTER"},
		{"SELECT sum(a) OVER (ORDER BY a GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t", "window frame"},
		{"SELECT * FROM range(10)", "table function range"},
		{"SELECT left(s, a) FROM t", "function left(VARCHAR, BIGINT) with a count that is not a constant"},
	}
	for _, c := range cases {
		_, err := ProducePlan(context.Background(), conn, c.query)
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: error %v, want ErrUnsupported", c.query, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: message %q, want one line containing %q", c.query, err, c.want)
		}
	}
}

func TestSQLError(t *testing.T) {
	db := openTestDB(t, false)
	conn := testConn(t, db)
	for _, q := range []string{"SELECT nope FROM t", "SELEC 1", "SELECT * FROM missing_table"} {
		_, err := ProducePlan(context.Background(), conn, q)
		var de *DuckDBError
		if !errors.As(err, &de) {
			t.Errorf("%s: error %v, want *DuckDBError", q, err)
			continue
		}
		_, want := db.Query(q)
		if want == nil || err.Error() != want.Error() {
			t.Errorf("%s: message %q, DuckDB says %q", q, err, want)
		}
	}
}

func TestOptimizerSettingRestored(t *testing.T) {
	db := openTestDB(t, false)
	conn := testConn(t, db)
	ctx := context.Background()
	for _, prev := range []string{"", "join_order"} {
		if prev == "" {
			conn.ExecContext(ctx, "RESET disabled_optimizers")
		} else if _, err := conn.ExecContext(ctx, "SET disabled_optimizers = '"+prev+"'"); err != nil {
			t.Fatal(err)
		}
		if _, err := ProducePlan(ctx, conn, "SELECT a FROM t WHERE a > 3"); err != nil {
			t.Fatal(err)
		}
		var got string
		if err := conn.QueryRowContext(ctx, "SELECT current_setting('disabled_optimizers')").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != prev {
			t.Errorf("disabled_optimizers is %q after ProducePlan, was %q", got, prev)
		}
	}
}

// TestTPCHPlans: every TPC-H query either produces a loadable plan or is
// refused with ErrUnsupported — never another error.
func TestTPCHPlans(t *testing.T) {
	db := openTestDB(t, false)
	conn := testConn(t, db)
	produced := 0
	for n := 1; n <= 22; n++ {
		q := readQuery(t, n)
		_, err := ProducePlan(context.Background(), conn, q)
		switch {
		case err == nil:
			produced++
			produceAndLoad(t, db, conn, q)
		case errors.Is(err, ErrUnsupported):
			t.Logf("Q%d: %v", n, err)
		default:
			t.Errorf("Q%d: %v", n, err)
		}
	}
	// All but Q16 (a mark join, see producer_joins.go).
	if produced < 21 {
		t.Errorf("only %d TPC-H plans produced", produced)
	}
}

// TestTPCHQueriesBind: the query files parse and bind on an empty schema.
func TestTPCHQueriesBind(t *testing.T) {
	db := openTestDB(t, true)
	for n := 1; n <= 22; n++ {
		rows, err := db.Query("DESCRIBE " + strings.TrimSuffix(strings.TrimSpace(readQuery(t, n)), ";"))
		if err != nil {
			t.Errorf("Q%d: %v", n, err)
			continue
		}
		rows.Close()
	}
}

func TestDecimalBytes(t *testing.T) {
	for _, s := range []string{"0", "1", "-1", "1234567890123456789012", "-99999999999999999999999999999999999999"} {
		v, _ := new(big.Int).SetString(s, 10)
		b := decimalBytes(v)
		// Decode: little-endian two's complement over 16 bytes.
		be := make([]byte, 16)
		for i := range b {
			be[15-i] = b[i]
		}
		got := new(big.Int).SetBytes(be)
		if be[0]&0x80 != 0 {
			got.Sub(got, new(big.Int).Lsh(big.NewInt(1), 128))
		}
		if got.Cmp(v) != 0 {
			t.Errorf("decimalBytes(%s) decodes to %s", s, got)
		}
	}
}
