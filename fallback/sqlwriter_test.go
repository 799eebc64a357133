package fallback_test

import (
	"context"
	"strings"
	"testing"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/fallback"
	"github.com/rigel-db/rigel/internal/arrowfmt"
	"github.com/rigel-db/rigel/substrait"
)

// Queries turned into Substrait by rigel's DuckDB producer, written back
// as SQL by the fallback writer, give DuckDB's answer to the query itself:
// the writer's relations (set operations, semi, anti and outer joins,
// distinct and filtered aggregates, fetch) and expressions (CASE, IN
// lists, casts, strings, dates, decimals, nulls) on plans that exercise
// them.
func TestWriterRoundTripsProducerPlans(t *testing.T) {
	eng := tpchEngine(t)
	ctx := context.Background()
	queries := []string{
		"SELECT n_name FROM nation WHERE n_regionkey = 1 UNION ALL SELECT r_name FROM region",
		"SELECT n_regionkey FROM nation UNION SELECT r_regionkey FROM region",
		"SELECT n_regionkey FROM nation EXCEPT SELECT r_regionkey FROM region WHERE r_regionkey > 2",
		"SELECT n_regionkey FROM nation INTERSECT SELECT r_regionkey FROM region WHERE r_regionkey < 3",
		"SELECT c_custkey FROM customer WHERE EXISTS (SELECT 1 FROM orders WHERE o_custkey = c_custkey AND o_totalprice > 300000)",
		"SELECT c_custkey FROM customer WHERE NOT EXISTS (SELECT 1 FROM orders WHERE o_custkey = c_custkey)",
		"SELECT c_custkey, o_orderkey FROM customer LEFT JOIN orders ON o_custkey = c_custkey AND o_totalprice > 400000 WHERE c_custkey < 50",
		"SELECT n_name, r_name FROM nation FULL OUTER JOIN region ON n_regionkey = r_regionkey AND r_regionkey < 2",
		"SELECT count(DISTINCT l_suppkey), sum(l_extendedprice) FROM lineitem",
		"SELECT l_linestatus, count(DISTINCT l_partkey) FROM lineitem GROUP BY 1",
		"SELECT l_returnflag, CASE WHEN l_quantity < 10 THEN 'small' WHEN l_quantity < 30 THEN 'mid' END AS size, count(*) FROM lineitem GROUP BY 1, 2",
		"SELECT n_name FROM nation WHERE n_nationkey IN (1, 5, 7) OR n_name LIKE 'B%'",
		"SELECT CAST(o_totalprice AS BIGINT), o_orderdate FROM orders WHERE o_orderdate BETWEEN DATE '1995-01-01' AND DATE '1995-01-31' ORDER BY 1 LIMIT 10 OFFSET 3",
		"SELECT substring(c_phone, 1, 2) AS cc, avg(c_acctbal) FROM customer GROUP BY cc",
		"SELECT o_orderkey, o_comment FROM orders WHERE o_comment IS NULL OR o_orderkey < 5",
		"SELECT p_brand, p_size FROM part WHERE p_size NOT IN (1, 2, 3) AND p_brand <> 'Brand#45' ORDER BY 1, 2 LIMIT 20",
		"SELECT extract(year FROM o_orderdate) AS y, sum(o_totalprice) FROM orders GROUP BY y",
	}
	conn, err := eng.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ran := 0
	for _, q := range queries {
		pb, err := duckdbbridge.ProducePlan(ctx, conn, q)
		if err != nil {
			t.Logf("the producer cannot take %q: %v", q, err)
			continue
		}
		loaded, err := substrait.Load(pb)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		sql, err := fallback.PlanSQL(loaded.Root, loaded.Names)
		if err != nil {
			t.Errorf("%s: no SQL: %v", q, err)
			continue
		}
		got, err := eng.RunOnDuckDB(ctx, sql)
		if err != nil {
			t.Errorf("%s: DuckDB refuses the written SQL: %v\n%s", q, err, sql)
			continue
		}
		want, err := eng.RunOnDuckDB(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		ordered := strings.Contains(q, "ORDER BY")
		if err := arrowfmt.Compare(got.Record, want.Record, ordered); err != nil {
			t.Errorf("%s: differs from DuckDB: %v\n%s", q, err, sql)
		}
		got.Release()
		want.Release()
		ran++
	}
	if ran < len(queries)*3/4 {
		t.Fatalf("only %d of %d queries had a plan", ran, len(queries))
	}
}
