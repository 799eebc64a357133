package fallback_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/fallback"
	"github.com/rigel-db/rigel/internal/arrowfmt"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// DuckDB functions with no standard Substrait counterpart are produced as
// functions of rigel's extension (substrait/extensions/functions_rigel.yaml);
// the plans load, rigel's catalogue does not resolve those functions (so
// translate refuses them and falls back) but for add (date + integer runs
// on the devices; translate refuses add's interval forms itself) and min
// and max (of strings, over dictionary codes), and the
// fallback writer turns them back into DuckDB SQL that gives the query's
// own answer.
func TestRigelExtensionRoundTrips(t *testing.T) {
	eng := tpchEngine(t)
	ctx := context.Background()
	queries := map[string]string{ // compound name it must use -> query
		"regexp_matches:str_str":  "SELECT c_custkey, regexp_matches(c_phone, '^1[0-5]') FROM customer",
		"date_trunc:str_date":     "SELECT o_orderkey, date_trunc('month', o_orderdate) FROM orders WHERE o_orderkey < 200",
		"date_diff:str_date_date": "SELECT o_orderkey, date_diff('week', o_orderdate, DATE '1998-01-01') FROM orders WHERE o_orderkey < 200",
		"strftime:date_str":       "SELECT o_orderkey, strftime(o_orderdate, '%d/%m/%Y %a') FROM orders WHERE o_orderkey < 200",
		"add:date_any":            "SELECT o_orderkey, o_orderdate + INTERVAL 1 MONTH FROM orders WHERE o_orderkey < 200",
		"subtract:date_any":       "SELECT o_orderkey, o_orderdate - INTERVAL '36 hours' FROM orders WHERE o_orderkey < 200",
		"add:date_i32":            "SELECT o_orderkey, o_orderdate + 40 FROM orders WHERE o_orderkey < 200",
		"subtract:date_date":      "SELECT o_orderkey, o_orderdate - DATE '1995-03-15' FROM orders WHERE o_orderkey < 200",
		"ceil:dec":                "SELECT o_orderkey, ceil(o_totalprice), floor(-o_totalprice), ceiling(-o_totalprice) FROM orders WHERE o_orderkey < 200",
		"round:dec":               "SELECT o_orderkey, round(o_totalprice), round(-o_totalprice) FROM orders WHERE o_orderkey < 2000",
		"min:str":                 "SELECT n_regionkey, min(n_name), max(n_comment) FROM nation GROUP BY n_regionkey",
		"max:str":                 "SELECT max(c_name) FROM customer WHERE c_custkey < 0",
		"date_trunc:str_pts":      "SELECT o_orderkey, date_trunc('hour', CAST(o_orderdate AS TIMESTAMP) + INTERVAL 90 MINUTE) FROM orders WHERE o_orderkey < 100",
		"strftime:pts_str":        "SELECT o_orderkey, strftime(CAST(o_orderdate AS TIMESTAMP), '%Y-%m-%d %H:%M') FROM orders WHERE o_orderkey < 100",
		"date_diff:str_pts_pts":   "SELECT o_orderkey, date_diff('hour', CAST(o_orderdate AS TIMESTAMP), TIMESTAMP '1996-01-01 12:00:00') FROM orders WHERE o_orderkey < 100",
	}
	conn, err := eng.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for name, q := range queries {
		p, err := duckdbbridge.ProducePlan(ctx, conn, q)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		loaded, err := substrait.Load(p)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		found := false
		for _, f := range rigelCalls(loaded.Root) {
			if f.Name == name {
				found = true
			}
			if strings.HasPrefix(f.Name, "add:") {
				continue
			}
			if _, err := substrait.Resolve(f); err != nil && (!errors.Is(err, substrait.ErrNotImplemented) || !strings.Contains(err.Error(), f.Name)) {
				t.Errorf("%s: Resolve(%s) = %v, want rigel's function or ErrNotImplemented naming it", q, f.Name, err)
			}
		}
		if !found {
			t.Errorf("%s: plan has no %s of %s", q, name, substrait.RigelURN)
			continue
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
		if err := arrowfmt.Compare(got.Record, want.Record, false); err != nil {
			t.Errorf("%s: differs from DuckDB: %v\n%s", q, err, sql)
		}
		got.Release()
		want.Release()
	}
}

// rigelCalls lists the IDs of the scalar and aggregate functions of rigel's
// extension in a relation tree (projections, filters and aggregates).
func rigelCalls(r plan.Rel) []extensions.ID {
	var out []extensions.ID
	var walk func(e expr.Expression)
	walk = func(e expr.Expression) {
		if e == nil {
			return
		}
		if f, ok := e.(*expr.ScalarFunction); ok && f.ID().URN == substrait.RigelURN {
			out = append(out, f.ID())
		}
		e.Visit(func(c expr.Expression) expr.Expression { walk(c); return c })
	}
	switch rel := r.(type) {
	case *plan.ProjectRel:
		for _, e := range rel.Expressions() {
			walk(e)
		}
	case *plan.FilterRel:
		walk(rel.Condition())
	case *plan.AggregateRel:
		for _, m := range rel.Measures() {
			if a := m.Measure(); a.ID().URN == substrait.RigelURN {
				out = append(out, a.ID())
			}
		}
	}
	for _, in := range r.GetInputs() {
		out = append(out, rigelCalls(in)...)
	}
	return out
}

// A plan with a function of rigel's extension runs on the device with that
// part on DuckDB (per-subtree fallback), naming the function, and gives
// DuckDB's answer.
func TestRigelFunctionSplits(t *testing.T) {
	eng := tpchEngine(t)
	ctx := context.Background()
	for _, c := range []struct{ query, reason string }{
		{"SELECT c_mktsegment, count(*) FROM customer WHERE regexp_matches(c_phone, '^1[0-5]') GROUP BY 1 ORDER BY 1", "regexp_matches"},
		{"SELECT o_orderpriority, count(*) AS n FROM orders WHERE strftime(o_orderdate, '%Y') = '1995' GROUP BY 1 ORDER BY 1", "strftime"},
	} {
		res, err := eng.Query(ctx, c.query)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if res.Where != duckdbbridge.OnHost || !strings.Contains(res.Reason, "subtree(s) on DuckDB") || !strings.Contains(res.Reason, c.reason) {
			t.Errorf("%s: ran on %s (%s), want the device with a DuckDB subtree for %s", c.query, res.Where, res.Reason, c.reason)
		}
		oracle, err := eng.RunOnDuckDB(ctx, c.query)
		if err != nil {
			t.Fatal(err)
		}
		if err := arrowfmt.Compare(res.Record, oracle.Record, true); err != nil {
			t.Errorf("%s: differs from DuckDB: %v", c.query, err)
		}
		res.Release()
		oracle.Release()
	}
}
