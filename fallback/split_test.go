package fallback_test

import (
	"context"
	"strings"
	"testing"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// Queries whose plan has one relation the device cannot run (a window
// function, a LIMIT below another operator): that relation runs as
// DuckDB SQL, the rest on the device, EXPLAIN shows the split with the
// reason, and the answer is DuckDB's.
func TestOneUnsupportedNodeSplits(t *testing.T) {
	eng := tpchEngine(t)
	ctx := context.Background()
	cases := []struct{ query, reason string }{
		// a window function the device lacks over a device filter and join.
		{"SELECT n_name, r_name, max(n_comment) OVER (PARTITION BY r_name ORDER BY n_name ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING) AS s FROM nation JOIN region ON n_regionkey = r_regionkey WHERE n_nationkey < 20 ORDER BY 1", "window max of dict"},
		// a sliding frame over an aggregate's output; the sort after it.
		{"SELECT n_regionkey, count(*) AS c, min(min(n_name)) OVER (ORDER BY n_regionkey ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM nation GROUP BY n_regionkey ORDER BY 1", "window min of dict"},
		// nulls through the fallback and back; strings come back to the
		// device (sort).
		{"SELECT n_nationkey, max(CASE WHEN n_nationkey % 3 = 0 THEN NULL ELSE n_name END) OVER (ORDER BY n_nationkey ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS prev FROM nation ORDER BY prev NULLS FIRST, 1", "window max of dict"},
		// a float division (DuckDB's: NaN for 0/0, on_domain_error=NAN)
		// under a cast the device refuses; the aggregate above on the
		// device.
		{"SELECT c, count(*) AS n FROM (SELECT CAST(n_nationkey / 7.0 AS DECIMAL(9,2)) AS c FROM nation) GROUP BY c ORDER BY c", "cast from float64"},
		// the fallback's output feeds a device join and aggregate.
		{"SELECT r_name, count(*), max(rn) FROM (SELECT n_regionkey, min(n_name) OVER (ORDER BY n_nationkey ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) AS rn FROM nation) x JOIN region ON n_regionkey = r_regionkey GROUP BY r_name ORDER BY 1", "window min of dict"},
	}
	for _, c := range cases {
		t.Run(c.reason, func(t *testing.T) {
			res, err := eng.Query(ctx, c.query)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Release()
			if res.Where != duckdbbridge.OnHost {
				t.Fatalf("ran on %s (%s), want the device with a DuckDB subtree", res.Where, res.Reason)
			}
			if !strings.Contains(res.Reason, "subtree(s) on DuckDB") || !strings.Contains(res.Reason, c.reason) {
				t.Fatalf("reason %q: want the split and %q", res.Reason, c.reason)
			}
			oracle, err := eng.RunOnDuckDB(ctx, c.query)
			if err != nil {
				t.Fatal(err)
			}
			defer oracle.Release()
			if err := arrowfmt.Compare(res.Record, oracle.Record, true); err != nil {
				t.Fatalf("differs from DuckDB: %v\n%s", err, res.Plan)
			}
			explain, err := eng.Explain(ctx, c.query)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(explain, "[duckdb] Fallback DuckDB SQL") || !strings.Contains(explain, "[host]") ||
				!strings.Contains(explain, "reason: ") {
				t.Fatalf("EXPLAIN does not show the split and its reason:\n%s", explain)
			}
		})
	}
}

// Isthmus plans with subqueries (EXISTS in Q4, a scalar subquery in Q22,
// both with outer references) run with the relation that holds the
// subquery on DuckDB and the rest on the device.
func TestSubqueryPlansSplit(t *testing.T) {
	eng := tpchEngine(t)
	ctx := context.Background()
	for _, q := range []int{4, 22} {
		data := isthmusPlan(t, q)
		res, err := eng.RunPlan(ctx, data)
		if err != nil {
			t.Fatalf("Q%d: %v", q, err)
		}
		defer res.Release()
		if res.Where != duckdbbridge.OnHost || !strings.Contains(res.Reason, "Subquery") {
			t.Fatalf("Q%d ran on %s (%s), want a split for the subquery", q, res.Where, res.Reason)
		}
		if !strings.Contains(res.Plan, "[duckdb] Fallback") || !strings.Contains(res.Plan, "[host] Pipeline") {
			t.Fatalf("Q%d plan does not show the split:\n%s", q, res.Plan)
		}
		oracle, err := eng.RunOnDuckDB(ctx, tpchQuery(t, q))
		if err != nil {
			t.Fatal(err)
		}
		defer oracle.Release()
		if err := sameValues(res.Record, oracle.Record, true); err != nil {
			t.Fatalf("Q%d differs from DuckDB: %v\n%s", q, err, res.Plan)
		}
	}
}

// Without a device a Substrait plan runs whole as DuckDB SQL.
func TestPlanWithoutDeviceRunsOnDuckDB(t *testing.T) {
	dev := tpchEngine(t)
	eng := duckdbbridge.NewEngine(dev.DB(), "no-device", nil, "no device in this test")
	ctx := context.Background()
	res, err := eng.RunPlan(ctx, isthmusPlan(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	if res.Where != duckdbbridge.OnFallback {
		t.Fatalf("ran on %s, want DuckDB", res.Where)
	}
	oracle, err := eng.RunOnDuckDB(ctx, tpchQuery(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	defer oracle.Release()
	if err := sameValues(res.Record, oracle.Record, true); err != nil {
		t.Fatal(err)
	}
	if got := res.Record.Schema().Field(0).Name; !strings.EqualFold(got, "l_orderkey") {
		t.Fatalf("first column named %q, want the plan's name", got)
	}
}
