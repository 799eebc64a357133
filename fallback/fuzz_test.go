package fallback

import (
	"sync"
	"testing"
	"time"

	"github.com/rigel-db/rigel/internal/planmutate"
	"github.com/rigel-db/rigel/substrait"
)

// fuzzDeadline is the most one fuzz input may take (see translate's).
const fuzzDeadline = 10 * time.Second

// decodeLoadWrite is what a plan meets when the engine hands it whole to
// DuckDB (no device, or nothing the device can run): decoding, loading and
// writing it as DuckDB SQL. Each must return an error or SQL, never panic
// or hang.
func decodeLoadWrite(data []byte) {
	p, err := substrait.Decode(data)
	if err != nil {
		return
	}
	loaded, err := substrait.Load(p)
	if err != nil {
		return
	}
	_, _, _ = PlanSQLArrow(loaded.Root, loaded.Names)
}

var repoCorpus = sync.OnceValues(func() (*planmutate.Corpus, error) { return planmutate.OpenCorpus("..") })

// FuzzMutatedPlanSQL runs decodeLoadWrite on the repository's plans
// changed by planmutate's structure-aware mutations (plan number seed,
// mutated as ops says). Findings are kept as (seed, ops) under
// testdata/fuzz/FuzzMutatedPlanSQL here and, as plan bytes that replay
// whatever the repository's plans become, in translate's raw corpus
// (testdata/fuzz/FuzzDecodeLoadTranslate there, the files named mutant-*).
func FuzzMutatedPlanSQL(f *testing.F) {
	corpus, err := repoCorpus()
	if err != nil {
		f.Fatal(err)
	}
	corpus.Fuzz(f, fuzzDeadline, func(data []byte) error {
		decodeLoadWrite(data)
		return nil
	})
}
