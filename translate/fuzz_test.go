package translate

import (
	"sync"
	"testing"
	"time"

	"github.com/rigel-db/rigel/fallback"
	"github.com/rigel-db/rigel/internal/planmutate"
	"github.com/rigel-db/rigel/substrait"
)

// fuzzDeadline is the most one fuzz input may take: every plan, however
// hostile, is to be accepted or refused within a few seconds (the budgets
// of substrait/limits.go); one that is not is a finding.
const fuzzDeadline = 10 * time.Second

// decodeLoadTranslate is everything a Substrait plan from outside meets
// before it runs (the Flight SQL server and the C ABI take plans from
// anyone): decoding (binary or JSON), loading, translation (whole and
// split), and the DuckDB SQL of the whole plan that the engine runs where
// the device runs none of it. Each must return an error or a plan, never
// panic or hang.
func decodeLoadTranslate(data []byte) {
	p, err := substrait.Decode(data)
	if err != nil {
		return
	}
	loaded, err := substrait.Load(p)
	if err != nil {
		return
	}
	_, _ = Translate(loaded)
	_, _ = TranslateWith(loaded, Options{Split: true})
	_, _, _ = fallback.PlanSQLArrow(loaded.Root, loaded.Names)
}

var repoCorpus = sync.OnceValues(func() (*planmutate.Corpus, error) { return planmutate.OpenCorpus("..") })

// FuzzDecodeLoadTranslate feeds arbitrary bytes to decodeLoadTranslate. Its
// seeds are every plan file of the repository (planmutate.Seeds: other
// producers' TPC-H plans, rigel's own, the CLI's examples) and the
// corpus under testdata/fuzz/FuzzDecodeLoadTranslate, where findings of
// every fuzz target are kept as plan bytes; `go test` runs them all as a
// regression test, and `go test -fuzz FuzzDecodeLoadTranslate ./translate`
// explores from them.
func FuzzDecodeLoadTranslate(f *testing.F) {
	seeds, err := planmutate.Seeds("..")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range seeds {
		f.Add(s.Data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := planmutate.Within(fuzzDeadline, func() { decodeLoadTranslate(data) }); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzMutatedPlanTranslate runs decodeLoadTranslate on the repository's
// plans changed by planmutate's structure-aware mutations: plan number
// seed, mutated as ops says. Byte-level mutation of a protobuf rarely
// gives a plan that loads; these keep the plan well formed while breaking
// what the stages assume (field references, anchors, types, duplicated or
// swapped inputs, dropped fields, nesting, shared subplans, IN lists,
// fetch counts). A (seed, ops) entry under testdata/fuzz replays the same
// plan only while the repository's plan files stay as they are, so each
// finding is also kept as plan bytes in FuzzDecodeLoadTranslate's corpus
// (the files named mutant-*).
func FuzzMutatedPlanTranslate(f *testing.F) {
	corpus, err := repoCorpus()
	if err != nil {
		f.Fatal(err)
	}
	corpus.Fuzz(f, fuzzDeadline, func(data []byte) error {
		decodeLoadTranslate(data)
		return nil
	})
}
