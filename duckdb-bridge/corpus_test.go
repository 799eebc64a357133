package duckdbbridge

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/conformance/tpch"
	"github.com/rigel-db/rigel/internal/arrowfmt"
	"google.golang.org/protobuf/proto"
)

// knownEngineFailure marks a query skipped as listed in engine-failures.txt.
const knownEngineFailure Where = "known engine failure"

// corpusRecord is what happened to one corpus query.
type corpusRecord struct {
	q         corpusQuery
	produced  bool
	refusal   string // the producer's reason, when it refused
	validated bool   // produced, and the validator found no error
	ran       bool   // the engine's answer was compared with DuckDB's
	matched   bool   // ... and equal
	where     Where
	reason    string   // why it fell back
	ops       []string // the relation kinds of its plan (operatorsOf)
}

// TestCorpus runs the producer's corpus (conformance/corpus) and the 22
// TPC-H queries (on SF0.01): every query's plan is produced, checked by the
// official Substrait validator (all plans in one validator process) and run
// through the engine on the host device (the GPU with
// RIGEL_CORPUS_DEVICE=cuda), whose answer must equal DuckDB's.
//
//   - A query the producer refuses fails unless refusals.txt lists it with
//     its reason; a listed query that is now produced fails too (remove it
//     from the list: coverage only rises).
//   - A validator error fails; a warning fails unless validator-warnings.txt
//     explains it.
//   - A query rigel's consumer cannot run falls back to DuckDB (counted).
//
// RIGEL_UPDATE_CORPUS=1 rewrites conformance/corpus/RESULTS.md (host);
// RIGEL_CORPUS_REPORT=FILE writes the same report for any device.
func TestCorpus(t *testing.T) {
	queries, err := loadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	refusals, err := loadRefusals()
	if err != nil {
		t.Fatal(err)
	}
	explained, err := loadValidatorWarnings()
	if err != nil {
		t.Fatal(err)
	}
	engineFailures, err := loadKeyedLines(filepath.Join(corpusDir, "engine-failures.txt"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, q := range queries {
		known[q.name] = true
	}
	for n := 1; n <= 22; n++ {
		queries = append(queries, corpusQuery{area: "tpch", name: fmt.Sprintf("tpch_q%02d", n), sql: readQuery(t, n)})
		known[queries[len(queries)-1].name] = true
	}
	for _, list := range []map[string]string{refusals, engineFailures} {
		for name := range list {
			if !known[name] {
				t.Errorf("%s is listed but is not a corpus query", name)
			}
		}
	}

	corpusDB := openCorpusDB(t)
	tpchDB := openTPCHSmall(t)
	dbOf := func(q corpusQuery) *sql.DB {
		if q.area == "tpch" {
			return tpchDB
		}
		return corpusDB
	}
	conns := map[*sql.DB]*sql.Conn{corpusDB: testConn(t, corpusDB), tpchDB: testConn(t, tpchDB)}

	// 1. Produce every plan.
	dir := t.TempDir()
	recs := make([]*corpusRecord, len(queries))
	fileOf := map[string]*corpusRecord{}
	var files []string
	for i, q := range queries {
		r := &corpusRecord{q: q}
		recs[i] = r
		p, err := ProducePlan(context.Background(), conns[dbOf(q)], q.sql)
		want, listed := refusals[q.name]
		switch {
		case errors.Is(err, ErrUnsupported):
			r.refusal = err.Error()
			if !listed {
				t.Errorf("%s: the producer refuses it and refusals.txt does not list it: %v\n  query: %s", q.name, err, q.sql)
			} else if !strings.Contains(r.refusal, want) {
				t.Errorf("%s: refused for another reason than refusals.txt says (%q): %v", q.name, want, err)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v\n  query: %s", q.name, err, q.sql)
			continue
		case listed:
			t.Errorf("%s: produced now, remove it from refusals.txt", q.name)
		}
		r.produced = true
		r.ops = operatorsOf(p)
		b, err := proto.Marshal(legacyURIPlan(t, p))
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, q.name+".bin")
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		fileOf[f] = r
	}

	// 2. Validate them in one validator process.
	validatorRan := validateCorpus(t, files, fileOf, explained)

	// 3. Run each query through the engine and compare with DuckDB.
	dev, devName := corpusDevice(t)
	engines := map[*sql.DB]*Engine{
		corpusDB: NewEngine(corpusDB, "corpus", dev, ""),
		tpchDB:   NewEngine(tpchDB, "corpus-tpch", dev, ""),
	}
	for _, r := range recs {
		t.Run(r.q.area+"/"+r.q.name, func(t *testing.T) {
			r.ran = true
			if engineFailures[r.q.name] != "" {
				r.where = knownEngineFailure // unless it fails the test
			}
			e := engines[dbOf(r.q)]
			r.where, r.reason = runCorpusQuery(t, e, r.q.sql, engineFailures[r.q.name])
			r.matched = true
			if r.refusal != "" {
				// What the producer cannot express falls back with its
				// reason, in the result and in EXPLAIN (issue 3, part 4).
				if r.where != OnFallback || r.reason != r.refusal {
					t.Errorf("refused by the producer, but ran on %s (reason %q)", r.where, r.reason)
				}
				plan, err := e.Explain(context.Background(), r.q.sql)
				if err != nil || !strings.Contains(plan, "FALLBACK") || !strings.Contains(plan, r.refusal) {
					t.Errorf("EXPLAIN does not give the producer's reason %q: %q %v", r.refusal, plan, err)
				}
			}
		})
	}

	s := summarize(recs)
	t.Logf("corpus on %s: %d queries, %d produced, %d validated, %d on the device, %d partly on the device, %d fell back, %d known engine failures, %d failed",
		devName, s.total.queries, s.total.produced, s.total.validated, s.total.onDevice, s.total.partly, s.total.fellBack, s.total.known,
		s.total.queries-s.total.onDevice-s.total.partly-s.total.fellBack-s.total.known)
	report := []byte(s.markdown(recs, devName, validatorRan))
	if f := os.Getenv("RIGEL_CORPUS_REPORT"); f != "" {
		// Any device, with or without the validator: the GPU machine's run.
		if err := os.WriteFile(f, report, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if os.Getenv("RIGEL_UPDATE_CORPUS") == "1" {
		if !validatorRan || devName != "host" {
			t.Fatal("RIGEL_UPDATE_CORPUS=1 needs the validator (make setup installs it) and the host device; RIGEL_CORPUS_REPORT=FILE writes a report anywhere")
		}
		if err := os.WriteFile(filepath.Join(corpusDir, "RESULTS.md"), report, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runCorpusQuery runs a query through the engine like queryLikeDuckDB. A
// query listed in engine-failures.txt (known: the substring of the failure
// the list names) must fail that way: it is skipped with the reason, and
// fails the test once it passes (remove it from the list). A panic inside
// the engine fails the query instead of the whole test binary.
func runCorpusQuery(t *testing.T, e *Engine, q, known string) (where Where, reason string) {
	if known == "" {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("the engine panicked: %v\n  query: %s", p, q)
			}
		}()
		return queryLikeDuckDB(t, e, q)
	}
	failure := func() (msg string) {
		defer func() {
			if p := recover(); p != nil {
				msg = fmt.Sprintf("panic: %v", p)
			}
		}()
		res, err := e.Query(context.Background(), q)
		if err != nil {
			return err.Error()
		}
		defer res.Release()
		want, err := e.RunOnDuckDB(context.Background(), q)
		if err != nil {
			return err.Error()
		}
		defer want.Release()
		if err := arrowfmt.Compare(res.Record, want.Record, false); err != nil {
			return "wrong answer: " + err.Error()
		}
		return ""
	}()
	switch {
	case failure == "":
		t.Fatalf("engine-failures.txt lists this query (%s), but it passes now: remove it from the list", known)
	case !strings.Contains(failure, known):
		t.Fatalf("engine-failures.txt expects %q, the query fails with: %s", known, failure)
	}
	t.Skipf("known engine failure (engine-failures.txt): %s", failure)
	return "", ""
}

// validateCorpus runs the official validator over the plan files and marks
// the records whose plans have no error. It reports whether the validator
// ran: without it the test skips this step, except under CI=true.
func validateCorpus(t *testing.T, files []string, fileOf map[string]*corpusRecord, explained []validatorWarning) bool {
	if _, err := os.Stat(filepath.Join(validatorPy, "substrait_validator")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("substrait-validator is not installed in %s (run make setup)", validatorPy)
		}
		t.Logf("substrait-validator not installed in %s (make setup installs it): plans not validated", validatorPy)
		return false
	}
	if len(files) == 0 {
		t.Fatal("no plan produced")
	}
	abs, err := filepath.Abs(validatorPy)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", append([]string{"testdata/validate.py"}, files...)...)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+abs)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("validator: %v\n%s", err, stderr.String())
	}
	bad := map[*corpusRecord]bool{}
	counts := map[*validatorWarning]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var f validatorFinding
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			t.Fatalf("validator output %q: %v", sc.Text(), err)
		}
		r := fileOf[f.File]
		if r == nil {
			t.Fatalf("validator output names an unknown file %s", f.File)
		}
		if f.Level == "error" && f.Code == validatorNotImplemented {
			f.Level = "warning" // a limit of validator 0.1.4 (see TestSubstraitValidator)
		}
		if reason := knownDisagreement(f); f.Level == "error" && reason != "" {
			f.Level = "warning"
		}
		if f.Level != "warning" {
			bad[r] = true
			t.Errorf("%s: validator %s %d at %s: %s\n  query: %s", r.q.name, f.Level, f.Code, f.Path, f.Msg, r.q.sql)
			continue
		}
		w := explainWarning(explained, f)
		if w == nil {
			bad[r] = true
			t.Errorf("%s: validator warning %d at %s: %s: not explained in validator-warnings.txt", r.q.name, f.Code, f.Path, f.Msg)
			continue
		}
		counts[w]++
	}
	for _, r := range fileOf {
		r.validated = !bad[r]
	}
	for i := range explained {
		t.Logf("validator warning %d /%s/: %d times", explained[i].code, explained[i].pattern, counts[&explained[i]])
	}
	return true
}

// openCorpusDB opens an in-memory DuckDB database loaded with
// conformance/corpus/schema.sql.
func openCorpusDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	schema, err := os.ReadFile(filepath.Join(corpusDir, "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(schema)); err != nil {
		t.Fatalf("corpus schema: %v", err)
	}
	return db
}

// openTPCHSmall opens TPC-H SF0.01 read-only: the project's copy in
// .tools/data when there is one, else one generated into a temporary folder
// (tpchgen-cli, which make setup installs; a few seconds).
func openTPCHSmall(t *testing.T) *sql.DB {
	t.Helper()
	path := filepath.Join("..", ".tools", "data", "tpch-sf0.01.duckdb")
	if _, err := os.Stat(path); err != nil {
		gen, err := tpch.FindGenerator("..")
		if err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(t.TempDir(), "tpch-sf0.01.duckdb")
		if err := tpch.Build(context.Background(), gen, 0.01, path, nil); err != nil {
			t.Fatalf("TPC-H SF0.01: %v", err)
		}
	}
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
