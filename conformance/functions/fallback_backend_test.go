package functions

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"testing"

	"github.com/rigel-db/rigel/fallback"
	"github.com/rigel-db/rigel/internal/arrowrec"
	"github.com/rigel-db/rigel/substrait"
	"github.com/rigel-db/rigel/translate"
	"github.com/substrait-io/substrait-go/v8/types"
)

// The fallback backend: every case's plan written as DuckDB SQL by the
// fallback writer (what runs a subtree the device cannot) and run on an
// embedded DuckDB. The writer may refuse a case, and DuckDB may fail one
// (ROUND with a non-constant precision, say: the engine then runs the
// query's whole SQL), but a value must never be wrong: a wrong SQL text is
// a wrong answer. The result's nullability is the plan's, not DuckDB's
// (DuckDB's Arrow columns are all nullable), so only values and types
// are judged.
func TestFallbackBackend(t *testing.T) {
	suite, err := LoadSuite()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	counts := map[Outcome]int{}
	fails := map[string][]string{}
	for _, c := range suite.Cases {
		want, err := c.expected()
		if err != nil {
			continue
		}
		b, err := buildPlan(c.TC)
		if err != nil {
			continue // the harness cannot build it; TestBaseline reports those
		}
		p, err := substrait.Load(b.plan)
		if err != nil {
			continue
		}
		q, err := fallback.PlanSQL(p.Root, []string{"result"})
		x := executed{stage: "translate", err: fmt.Errorf("%v: %w", err, translate.ErrUnsupported)}
		if err == nil {
			x = runSQL(ctx, db, q, want)
		}
		res := judge(want, x)
		counts[res.Outcome]++
		if res.Outcome == Fail {
			fails[res.Reason] = append(fails[res.Reason], c.ID+" "+c.Text+": "+res.Detail)
		}
	}
	t.Logf("fallback backend: %d pass, %d fail, %d refused by the writer", counts[Pass], counts[Fail], counts[Unsupported])
	reasons := make([]string, 0, len(fails))
	for r := range fails {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		t.Logf("%d fail: %s (first: %.300s)", len(fails[r]), r, fails[r][0])
		if r == "wrong value" {
			for _, f := range fails[r] {
				t.Errorf("wrong value from the fallback SQL: %s", f)
			}
		}
	}
}

// runSQL runs a case's SQL and returns its one column as the engine would.
func runSQL(ctx context.Context, db *sql.DB, q string, want expectation) executed {
	rr, err := fallback.RunSQL(ctx, db, q)
	if err != nil {
		return executed{stage: "run", err: err}
	}
	defer rr.Release()
	rec, err := arrowrec.ReadAll(rr)
	if err != nil {
		return executed{stage: "run", err: err}
	}
	defer rec.Release()
	f := rec.Schema().Field(0)
	if want.typ != nil {
		f.Nullable = want.typ.GetNullability() == types.NullabilityNullable
	}
	arr := rec.Column(0)
	arr.Retain()
	return executed{stage: "run", field: f, arr: arr}
}
