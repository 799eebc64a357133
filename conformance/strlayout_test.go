package conformance

import (
	"context"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/conformance/tpch"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// TPC-H's high-cardinality string columns go to the device in Arrow layout
// wherever their uses allow it (physical/strlayout.go): under predicates,
// through joins, as group keys and sort keys, up to the result. EXPLAIN
// says so on their Scan lines, and the answers stay DuckDB's. Low-
// cardinality columns stay dictionary-encoded, and so does a column that
// a use only dictionaries serve reads (Q22's substring of c_phone).
func TestTPCHArrowStrings(t *testing.T) { checkArrowStrings(t, host.New(), duckdbbridge.OnHost) }

func TestTPCHArrowStringsCuda(t *testing.T) {
	dev := cudaDevice(t)
	checkArrowStrings(t, dev, duckdbbridge.OnGPU)
}

func checkArrowStrings(t *testing.T, dev gpu.Device, where duckdbbridge.Where) {
	eng := openEngine(t, dev)
	ctx := context.Background()
	cases := []struct {
		q    int
		sql  string   // instead of TPC-H query q
		want []string // layouts EXPLAIN must show
	}{
		{q: 13, want: []string{"o_comment: arrow strings"}},
		{q: 16, want: []string{"s_comment: arrow strings"}},
		{q: 9, want: []string{"p_name: arrow strings"}},
		{q: 20, want: []string{"p_name: arrow strings", "s_name: arrow strings", "s_address: arrow strings"}},
		{q: 10, want: []string{"c_name: arrow strings", "c_address: arrow strings", "c_phone: arrow strings", "c_comment: arrow strings", "l_returnflag: dictionary"}},
		{q: 18, want: []string{"c_name: arrow strings"}},
		{q: 21, want: []string{"s_name: arrow strings", "o_orderstatus: dictionary"}},
		{q: 2, want: []string{"s_name: arrow strings", "s_comment: arrow strings", "p_mfgr: dictionary"}},
		{q: 15, want: []string{"s_name: arrow strings", "s_phone: arrow strings"}},
		// Read only through one substring: DuckDB computes it, the scan
		// loads its 25 values (physical/derive.go).
		{q: 22, want: []string{"c_phone: dictionary of substring(c_phone, 1, 2), computed by the source"}},
		// Read whole too (the result), or through two substrings: the
		// column itself is loaded, a dictionary for the substring.
		{sql: "SELECT c_phone FROM customer WHERE substring(c_phone, 1, 2) = '13' AND c_acctbal > 9990 ORDER BY c_phone",
			want: []string{"c_phone: dictionary (read by substring)"}},
		{sql: "SELECT count(*) FROM customer WHERE substring(c_phone, 1, 2) = '13' AND substring(c_phone, 4, 3) < '200'",
			want: []string{"c_phone: dictionary (read by substring)"}},
		// Negative and open-ended bounds, derived by DuckDB alike.
		{sql: "SELECT substring(c_phone, -4) AS tail, count(*) FROM customer WHERE substring(c_phone, -4) < '0100' GROUP BY 1 ORDER BY 1",
			want: []string{"c_phone: dictionary of substring(c_phone, -4), computed by the source"}},
		// Low cardinality: the predicate runs once per dictionary entry.
		{sql: "SELECT count(*) FROM lineitem WHERE l_shipmode IN ('MAIL', 'SHIP') AND l_comment LIKE '%fur%'",
			want: []string{"l_shipmode: dictionary", "l_comment: arrow strings"}},
		{sql: "SELECT count(*) FROM part WHERE p_type LIKE '%BRASS' OR p_name LIKE '%green%'",
			want: []string{"p_type: dictionary", "p_name: arrow strings"}},
	}
	for _, c := range cases {
		q := c.sql
		if q == "" {
			var err error
			if q, err = tpch.Query(c.q); err != nil {
				t.Fatal(err)
			}
		}
		plan, err := eng.Explain(ctx, q)
		if err != nil {
			t.Fatalf("Q%d: explain: %v", c.q, err)
		}
		for _, want := range c.want {
			if !strings.Contains(plan, want) {
				t.Errorf("Q%d: EXPLAIN lacks %q:\n%s", c.q, want, plan)
			}
		}
		oracle, err := eng.RunOnDuckDB(ctx, q)
		if err != nil {
			t.Fatalf("Q%d: DuckDB: %v", c.q, err)
		}
		got, err := eng.Query(ctx, q)
		if err != nil {
			oracle.Release()
			t.Fatalf("Q%d: rigel: %v", c.q, err)
		}
		if got.Where != where || got.Reason != "" {
			t.Errorf("Q%d: ran on %s (want %s): %s", c.q, got.Where, where, got.Reason)
		}
		if err := arrowfmt.Compare(got.Record, oracle.Record, true); err != nil {
			t.Errorf("Q%d: result differs from DuckDB: %v", c.q, err)
		}
		got.Release()
		oracle.Release()
	}
}

// A column cached in Arrow layout is not what a later query that needs it
// dictionary-encoded (here: a substring) gets: the cache keys entries by
// layout.
func TestArrowStringsThenDictionary(t *testing.T) {
	eng := openEngine(t, host.New())
	ctx := context.Background()
	queries := []string{
		"SELECT count(*) FROM orders WHERE o_comment LIKE '%special%requests%'",
		"SELECT substring(o_comment, 1, 10) AS c, count(*) AS n FROM orders WHERE o_orderkey < 1000 GROUP BY c ORDER BY c, n",
		"SELECT count(*) FROM orders WHERE o_comment NOT LIKE '%pending%' AND o_comment >= 'b'",
	}
	for i, q := range queries {
		plan, err := eng.Explain(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if arrow := strings.Contains(plan, "o_comment: arrow strings"); arrow != (i != 1) {
			t.Errorf("query %d: arrow layout %v in\n%s", i, arrow, plan)
		}
		oracle, err := eng.RunOnDuckDB(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := eng.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if got.Where != "host" || got.Reason != "" {
			t.Errorf("query %d ran on %s: %s", i, got.Where, got.Reason)
		}
		if err := arrowfmt.Compare(got.Record, oracle.Record, i != 1); err != nil {
			t.Errorf("query %d: %v", i, err)
		}
		got.Release()
		oracle.Release()
	}
}
