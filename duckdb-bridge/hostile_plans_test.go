package duckdbbridge

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/planmutate"
)

// runDeadline bounds one mutated plan's run, DuckDB's fallback included;
// fuzzRunDeadline the whole input, past which the run did not stop.
const (
	runDeadline     = 5 * time.Second
	fuzzRunDeadline = 30 * time.Second
)

// fuzzEngine is an engine on the host device over a small TPC-H database
// (testData: a few hundred rows, so that a mutated plan's cross products
// stay small), with a 256 MiB device budget, DuckDB held to 1 GiB and one
// thread, and no file a plan may read.
var fuzzEngine = sync.OnceValues(func() (*Engine, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	schema, err := os.ReadFile("../conformance/tpch/schema.sql")
	if err != nil {
		return nil, err
	}
	for _, q := range append([]string{"SET memory_limit = '1GB'", "SET threads = 1", string(schema)}, testData...) {
		if _, err := db.Exec(q); err != nil {
			return nil, err
		}
	}
	dev, err := host.NewWithOptions(host.Options{MemoryLimit: 256 << 20})
	if err != nil {
		return nil, err
	}
	e := NewEngine(db, "fuzz", dev, "")
	dir, err := os.MkdirTemp("", "rigel-fuzz-files")
	if err != nil {
		return nil, err
	}
	if err := e.RestrictFiles([]string{dir}, 1<<20); err != nil {
		return nil, err
	}
	return e, nil
})

var runCorpus = sync.OnceValues(func() (*planmutate.Corpus, error) { return planmutate.OpenCorpus("..") })

// FuzzMutatedPlanRun runs the repository's plans, changed by planmutate's
// structure-aware mutations, on the host device (split with DuckDB, or
// whole on DuckDB where the device runs none of it): what translation
// lets through must run to a result or an error, never a panic (the
// engine's recovered panics are ErrInternal), a hang, or memory without
// bound. The translate and fallback targets cover the stages before.
func FuzzMutatedPlanRun(f *testing.F) {
	corpus, err := runCorpus()
	if err != nil {
		f.Fatal(err)
	}
	e, err := fuzzEngine()
	if err != nil {
		f.Fatal(err)
	}
	corpus.Fuzz(f, fuzzRunDeadline, func(data []byte) error {
		ctx, cancel := context.WithTimeout(context.Background(), runDeadline)
		defer cancel()
		res, err := e.RunPlan(ctx, data)
		if res != nil {
			res.Release()
		}
		if errors.Is(err, ErrInternal) {
			return err
		}
		return nil
	})
}
