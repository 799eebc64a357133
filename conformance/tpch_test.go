package conformance

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/rigel-db/rigel/conformance/tpch"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/cuda"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// The scale factor of the test database: RIGEL_TPCH_SF, default 0.1 (SF1
// takes minutes on the 2-core CI machine with the host device; the GPU run
// uses SF1 and SF10 through the bundle).
func scaleFactor(t testing.TB) float64 {
	sf := 0.1
	if s := os.Getenv("RIGEL_TPCH_SF"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("RIGEL_TPCH_SF=%q: %v", s, err)
		}
		sf = v
	}
	return sf
}

var buildOnce sync.Once
var buildErr error

// tpchDB returns a TPC-H database file, generating it once per data folder
// (RIGEL_DATA_DIR, default .tools/data in the repository).
func tpchDB(t testing.TB) string {
	sf := scaleFactor(t)
	dir := os.Getenv("RIGEL_DATA_DIR")
	if dir == "" {
		dir = filepath.Join("..", ".tools", "data")
	}
	path := filepath.Join(dir, fmt.Sprintf("tpch-sf%g.duckdb", sf))
	buildOnce.Do(func() {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			buildErr = err
			return
		}
		gen, err := tpch.FindGenerator("..")
		if err != nil {
			buildErr = err
			return
		}
		buildErr = tpch.Build(context.Background(), gen, sf, path, func(s string) { t.Log(s) })
	})
	if buildErr != nil {
		t.Fatalf("TPC-H SF%g database: %v", sf, buildErr)
	}
	return path
}

func openEngine(t *testing.T, dev gpu.Device) *duckdbbridge.Engine {
	path := tpchDB(t)
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return duckdbbridge.NewEngine(db, path, dev, "no device")
}

// checkTPCH runs every TPC-H query through the engine and compares it with
// DuckDB: each must run whole on the device (no fallback) and give DuckDB's
// answer.
func checkTPCH(t *testing.T, eng *duckdbbridge.Engine, want duckdbbridge.Where) {
	ctx := context.Background()
	for n := 1; n <= 22; n++ {
		t.Run(fmt.Sprintf("Q%02d", n), func(t *testing.T) {
			q, err := tpch.Query(n)
			if err != nil {
				t.Fatal(err)
			}
			oracle, err := eng.RunOnDuckDB(ctx, q)
			if err != nil {
				t.Fatalf("DuckDB: %v", err)
			}
			defer oracle.Release()
			got, err := eng.Query(ctx, q)
			if err != nil {
				t.Fatalf("rigel: %v", err)
			}
			defer got.Release()
			if got.Where != want {
				t.Fatalf("ran on %s, want %s: %s", got.Where, want, got.Reason)
			}
			if err := arrowfmt.Compare(got.Record, oracle.Record, true); err != nil {
				t.Fatalf("result differs from DuckDB (ran on %s): %v", got.Where, err)
			}
			t.Logf("ran on %s %s", got.Where, got.Reason)
		})
	}
}

func TestTPCHHost(t *testing.T) {
	checkTPCH(t, openEngine(t, host.New()), duckdbbridge.OnHost)
}

// TestTPCHHostInSegments loads every table of more than 100,000 rows a
// segment of 100,000 rows at a time (lineitem: 6 at SF0.1; physical's
// loadsegments.go), from DuckDB's scan (the column store off), and checks
// the 22 answers.
func TestTPCHHostInSegments(t *testing.T) {
	t.Setenv("RIGEL_LOAD_SEGMENT_ROWS", "100000")
	t.Setenv("RIGEL_COLUMN_STORE", "off")
	checkTPCH(t, openEngine(t, host.New()), duckdbbridge.OnHost)
}

func TestTPCHCudaInSegments(t *testing.T) {
	dev, err := cuda.Open()
	if err != nil {
		t.Skipf("SKIP: no GPU: %v", err)
	}
	defer dev.Close()
	t.Setenv("RIGEL_LOAD_SEGMENT_ROWS", "100000")
	t.Setenv("RIGEL_COLUMN_STORE", "off")
	checkTPCH(t, openEngine(t, dev), duckdbbridge.OnGPU)
}

// TestTPCHProgram runs the 22 queries with every pipeline the CUDA
// device's interpreter would run evaluated from its program in Go
// (cuda.ProgramChecker, joins composed so that theirs are too): what a
// first run on the GPU computes before its kernels are compiled, checked
// against DuckDB without a GPU.
func TestTPCHProgram(t *testing.T) {
	pc := cuda.NewProgramChecker(host.New())
	checkTPCH(t, openEngine(t, pc), duckdbbridge.OnHost)
	if pc.Runs() == 0 {
		t.Fatal("no pipeline ran on its program")
	}
	t.Logf("%d pipelines ran on their programs; the others: %v", pc.Runs(), pc.Missed())
}

func TestTPCHCuda(t *testing.T) {
	dev, err := cuda.Open()
	if err != nil {
		t.Skipf("SKIP: no GPU: %v", err)
	}
	defer dev.Close()
	checkTPCH(t, openEngine(t, dev), duckdbbridge.OnGPU)
}

// The second run of a query reads no table data from the host: its columns
// come from the device cache.
func TestColumnCacheServesSecondRun(t *testing.T) {
	eng := openEngine(t, host.New())
	q, _ := tpch.Query(6)
	ctx := context.Background()
	first, err := eng.Query(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	first.Release()
	if first.Stats.Scan.BytesFromHost == 0 {
		t.Fatalf("first run read nothing from the host: %+v", first.Stats.Scan)
	}
	second, err := eng.Query(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Release()
	if second.Stats.Scan.BytesFromHost != 0 || second.Stats.Scan.CacheMisses != 0 {
		t.Fatalf("second run read %d bytes from the host (%+v), want 0", second.Stats.Scan.BytesFromHost, second.Stats.Scan)
	}
}
