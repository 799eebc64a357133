package conformance

import (
	"context"
	"strings"
	"testing"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// Joins on the device beyond TPC-H's shapes: string keys of two tables'
// columns (two dictionaries: the device maps one side's codes into the
// other's, gpu.DictCodeMap), left joins that the filter above them makes
// inner or anti (physical/outerjoin.go), a left join that stays one,
// fused with the projection above it (gpu.LeftProbeRunner), and full
// joins (physical/fulljoin.go). Each runs whole on the
// device, gives DuckDB's answer, and EXPLAIN shows the join it became.
func TestJoinShapes(t *testing.T) { checkJoinShapes(t, host.New(), duckdbbridge.OnHost) }

func TestJoinShapesCuda(t *testing.T) {
	dev := cudaDevice(t)
	checkJoinShapes(t, dev, duckdbbridge.OnGPU)
}

func checkJoinShapes(t *testing.T, dev gpu.Device, where duckdbbridge.Where) {
	eng := openEngine(t, dev)
	ctx := context.Background()
	cases := []struct {
		name, sql  string
		want, none string // in EXPLAIN, and not in it
	}{
		{"string key, two tables' dictionaries",
			"SELECT n_name, r_name FROM nation JOIN region ON substring(n_name, 1, 1) = substring(r_name, 1, 1) ORDER BY 1, 2",
			"ProbePipeline inner", "HashJoin"},
		{"string key against a list",
			"SELECT n_name, x FROM nation JOIN (VALUES ('FRANCE'), ('PERU'), ('ATLANTIS')) t(x) ON n_name = x ORDER BY 1",
			"ProbePipeline inner", "HashJoin"},
		{"string key and an integer key, grouped",
			"SELECT c_mktsegment, o_orderpriority, count(*) FROM customer JOIN orders ON c_custkey = o_custkey " +
				"JOIN (SELECT DISTINCT l_shipmode FROM lineitem) ON substring(c_mktsegment, 1, 1) = substring(l_shipmode, 1, 1) " +
				"GROUP BY 1, 2 ORDER BY 1, 2",
			"ProbePipeline", "HashJoin"},
		{"correlated comparison: left join made inner",
			"SELECT count(*) FROM part p WHERE p_size < (SELECT avg(ps_availqty) / 100 FROM partsupp WHERE ps_partkey = p.p_partkey)",
			"ProbePipeline+HashAggregate inner", "HashJoin left"},
		{"right side null: left join made anti",
			"SELECT s_nationkey, count(*) FROM supplier LEFT JOIN (SELECT c_nationkey, c_mktsegment FROM customer WHERE c_nationkey < 5 AND c_acctbal > 9000) " +
				"ON s_nationkey = c_nationkey WHERE c_mktsegment IS NULL GROUP BY 1 ORDER BY 1",
			"CountJoin anti", "HashJoin left"},
		{"a left join kept, fused", // count of the right side: padded rows count 0
			"SELECT c_count, count(*) FROM (SELECT n_nationkey, count(s_suppkey) AS c_count FROM nation LEFT JOIN supplier " +
				"ON n_nationkey = s_nationkey AND s_acctbal > 9950 GROUP BY 1) GROUP BY 1 ORDER BY 1",
			"ProbePipeline left", "HashJoin"},
		{"a right join, as a left one",
			"SELECT n_name, count(s_suppkey) FROM (SELECT * FROM supplier WHERE s_acctbal > 9950) s RIGHT JOIN nation " +
				"ON s_nationkey = n_nationkey GROUP BY 1 ORDER BY 1",
			"ProbePipeline left", "HashJoin"},
		{"a full join, fused", // strings padded on both sides (rows unmatched on each)
			"SELECT n_name, s_name, s_acctbal FROM (SELECT * FROM nation WHERE n_nationkey < 12) n FULL OUTER JOIN " +
				"(SELECT * FROM supplier WHERE s_acctbal > 9000) s ON n_nationkey = s_nationkey - 5 ORDER BY 1, 2",
			"ProbePipeline full", "HashJoin"},
		{"a full join with a condition, grouped",
			"SELECT n_regionkey, count(*), count(s_suppkey), sum(s_acctbal) FROM (SELECT * FROM nation WHERE n_nationkey > 3) n FULL JOIN " +
				"(SELECT * FROM supplier WHERE s_acctbal > 8000) s ON n_nationkey = s_nationkey AND s_acctbal > n_nationkey * 40 + 8500 " +
				"GROUP BY 1 ORDER BY 1",
			"ProbePipeline full", "HashJoin"},
		{"a full join that the filter makes left",
			"SELECT n_name, s_name FROM nation FULL JOIN (SELECT * FROM supplier WHERE s_acctbal > 9900) s ON n_nationkey = s_nationkey " +
				"WHERE n_regionkey = 1 ORDER BY 1, 2",
			"ProbePipeline left", "HashJoin"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan, err := eng.Explain(ctx, c.sql)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(plan, c.want) || (c.none != "" && strings.Contains(plan, c.none)) {
				t.Fatalf("EXPLAIN: want %q and no %q:\n%s", c.want, c.none, plan)
			}
			oracle, err := eng.RunOnDuckDB(ctx, c.sql)
			if err != nil {
				t.Fatalf("DuckDB: %v", err)
			}
			defer oracle.Release()
			if oracle.Record.NumRows() == 0 {
				t.Fatal("DuckDB returns no row: the case would prove little")
			}
			got, err := eng.Query(ctx, c.sql)
			if err != nil {
				t.Fatalf("rigel: %v", err)
			}
			defer got.Release()
			if got.Where != where {
				t.Fatalf("ran on %s, want %s: %s", got.Where, where, got.Reason)
			}
			if err := arrowfmt.Compare(got.Record, oracle.Record, true); err != nil {
				t.Fatalf("result differs from DuckDB: %v", err)
			}
		})
	}
}
