package duckdbbridge

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// The corpus functions (producer_funcs_duckdb.go) on values the corpus
// cannot hold: NaN and infinities, which DuckDB cannot write as plan
// constants (its plan JSON would hold a bare NaN), live in a table here;
// and make_date of days that do not exist, which is an error in DuckDB
// and must be one on the device, never a NULL or a wrong day.

func openFloatEdgesDB(t *testing.T) *sql.DB {
	t.Helper()
	db := memoryDB(t, `CREATE TABLE fe (id INTEGER NOT NULL, x DOUBLE, r REAL, y BIGINT, m BIGINT, d BIGINT);
INSERT INTO fe VALUES
 (1, 'nan', 'nan', 2024, 2, 29), (2, 'inf', 'inf', 2023, 2, 28), (3, '-inf', '-inf', 0, 1, 1),
 (4, -0.0, -0.0, -5877641, 6, 25), (5, 0.0, 0.0, 5881580, 7, 10), (6, -1e-300, -1e-30, 1, 12, 31),
 (7, NULL, NULL, NULL, 1, 1), (8, 2.5, 2.5, 1900, 2, 28);`)
	return db
}

// Each query runs whole on the host device and equals DuckDB's answer.
func TestCorpusFunctionsOnHost(t *testing.T) {
	e := NewEngine(openFloatEdgesDB(t), "corpus-fns", host.New(), "")
	checkWholeOnHost(t, e, []string{
		"SELECT id, sign(x) AS a, sign(r) AS b FROM fe",
		"SELECT id, sign(x) FROM fe WHERE sign(x) = 0",
		"SELECT id, make_date(y, m, d) AS a, dayofweek(make_date(y, m, d)) AS w FROM fe",
		// round of one float (TPC-DS q54): halves away from zero; NaN,
		// infinities, -0.0 and NULL as they are.
		"SELECT id, round(x) AS a, round(r) AS b, round(x * 3 - 0.5) AS c FROM fe",
	})
}

// make_date of a day that does not exist fails on the device as in DuckDB;
// the engine then hands the query to DuckDB, whose error is the answer.
func TestMakeDateInvalidIsAnError(t *testing.T) {
	db := openFloatEdgesDB(t)
	e := NewEngine(db, "corpus-fns", host.New(), "")
	for _, q := range []string{
		"SELECT make_date(y, m, d + 1) FROM fe WHERE id = 1",  // 2024-02-30
		"SELECT make_date(y, m + 11, d) FROM fe WHERE id = 2", // month 13
		"SELECT make_date(y, m, d - 1) FROM fe WHERE id = 4",  // before DuckDB's first day
		"SELECT make_date(y, m, d + 1) FROM fe WHERE id = 5",  // DuckDB's infinity
		"SELECT make_date(y, m, d + 1) FROM fe WHERE id = 8",  // 1900 is no leap year
	} {
		_, duckErr := db.Query(q)
		if duckErr == nil {
			t.Fatalf("%s: DuckDB gives no error", q)
		}
		ctx := context.Background()
		p, err := e.Prepare(ctx, q)
		if err != nil || p.Reason != "" {
			t.Fatalf("%s: prepare: %v %s", q, err, p.Reason)
		}
		_, _, devErr := e.runOnDevice(ctx, p.Root, p.Names)
		if devErr == nil || !errors.Is(devErr, gpu.ErrDomain) || !strings.Contains(devErr.Error(), "make_date") {
			t.Errorf("%s: the device gives %v, want its make_date domain error", q, devErr)
		}
		if _, err := e.Query(ctx, q); err == nil || err.Error() != duckErr.Error() {
			t.Errorf("%s: the engine gives %v, want DuckDB's error %v", q, err, duckErr)
		}
	}
}
