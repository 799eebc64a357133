package fallback_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/fallback"
	"github.com/rigel-db/rigel/substrait"
)

// Fetches stacked on fetches become one LIMIT ... OFFSET in the written
// SQL (DuckDB plans every nested LIMIT again: over a correlated subquery
// its prepare time doubled per level), with the rows the stack keeps.
func TestNestedFetchesFold(t *testing.T) {
	eng := tpchEngine(t)
	sorted := `{"sort":{"input":` + nation() + `,"sorts":[{"expr":` + fld(0) + `,"direction":"SORT_DIRECTION_ASC_NULLS_LAST"}]}}`
	fetch := func(in string, offset, count int64) string {
		return fmt.Sprintf(`{"fetch":{"input":%s,"offset":"%d","count":"%d"}}`, in, offset, count)
	}
	for _, c := range []struct {
		name string
		rel  string
		want string // DuckDB's equivalent
	}{
		{"inside the inner count", fetch(fetch(sorted, 2, 10), 3, 4), "SELECT * FROM nation ORDER BY n_nationkey LIMIT 4 OFFSET 5"},
		{"past the inner count", fetch(fetch(sorted, 2, 5), 3, 10), "SELECT * FROM nation ORDER BY n_nationkey LIMIT 2 OFFSET 5"},
		{"outer offset beyond the inner rows", fetch(fetch(sorted, 0, 3), 5, 2), "SELECT * FROM nation ORDER BY n_nationkey LIMIT 0"},
		{"no inner limit", fetch(fetch(sorted, 4, -1), 1, 2), "SELECT * FROM nation ORDER BY n_nationkey LIMIT 2 OFFSET 5"},
		{"twenty levels", strings.Repeat(`{"fetch":{"offset":"1","count":"20","input":`, 20) + sorted + strings.Repeat(`}}`, 20),
			"SELECT * FROM nation ORDER BY n_nationkey LIMIT 1 OFFSET 20"}, // each level drops its first row
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			pb, err := substrait.DecodeJSON([]byte(planJSON(relCase{rel: c.rel, names: nationNames})))
			if err != nil {
				t.Fatal(err)
			}
			loaded, err := substrait.Load(pb)
			if err != nil {
				t.Fatal(err)
			}
			sql, err := fallback.PlanSQL(loaded.Root, loaded.Names)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(sql, "LIMIT"); n != 1 {
				t.Fatalf("%d LIMITs in %s", n, sql)
			}
			got, err := eng.RunOnDuckDB(context.Background(), sql)
			if err != nil {
				t.Fatalf("%v\n%s", err, sql)
			}
			defer got.Release()
			want, err := eng.RunOnDuckDB(context.Background(), c.want)
			if err != nil {
				t.Fatal(err)
			}
			defer want.Release()
			if err := sameValues(got.Record, want.Record, true); err != nil {
				t.Fatalf("%v\n%s", err, sql)
			}
		})
	}
}
