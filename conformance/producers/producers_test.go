package producers

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rigel-db/rigel/conformance/tpch"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/substrait"
)

const root = "../.."

// The scale factor the producers' plans run at: small, for the 2-core CI
// machine; plan coverage, not speed, is what this test measures.
const sf = 0.01

var (
	dbOnce sync.Once
	dbPath string
	dbErr  error
)

// tpchDB returns the TPC-H SF0.01 DuckDB file (RIGEL_DATA_DIR, default
// .tools/data), generating it once when it is missing.
func tpchDB(t *testing.T) string {
	dbOnce.Do(func() {
		dir := os.Getenv("RIGEL_DATA_DIR")
		if dir == "" {
			dir = filepath.Join(root, ".tools", "data")
		}
		dbPath = filepath.Join(dir, fmt.Sprintf("tpch-sf%g.duckdb", sf))
		if _, err := os.Stat(dbPath); err == nil {
			return
		}
		if dbErr = os.MkdirAll(dir, 0o755); dbErr != nil {
			return
		}
		gen, err := tpch.FindGenerator(root)
		if err != nil {
			dbErr = err
			return
		}
		dbErr = tpch.Build(context.Background(), gen, sf, dbPath, func(s string) { t.Log(s) })
	})
	if dbErr != nil {
		t.Fatalf("TPC-H SF%g database: %v", sf, dbErr)
	}
	return dbPath
}

func openEngine(t *testing.T) *duckdbbridge.Engine {
	path := tpchDB(t)
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return duckdbbridge.NewEngine(db, path, host.New(), "no device")
}

// Outcome is what became of one producer's plan for one query.
type Outcome struct {
	Producer, Query string
	Refused         string   // the producer made no plan: its message
	LoadErr         string   // substrait.Load refused the plan
	RunErr          string   // rigel could not run it
	Where, Reason   string   // where it ran; why it fell back
	Diff            string   // how the answer differs from DuckDB's
	Notes           []string // where rigel departed from the plan's declarations
	Via             string   // which of the producer's paths made the plan (Emitted.Via)
}

// Failed says why the outcome breaks the target (every plan the producer
// emits runs and matches DuckDB), or "".
func (o Outcome) Failed() string {
	switch {
	case o.Refused != "":
		return ""
	case o.LoadErr != "":
		return "load: " + o.LoadErr
	case o.RunErr != "":
		return "run: " + o.RunErr
	case o.Diff != "":
		return "wrong answer: " + o.Diff
	}
	return ""
}

func queryName(n int) string { return fmt.Sprintf("q%02d", n) }

// check loads, runs and compares one emitted plan.
func check(ctx context.Context, eng *duckdbbridge.Engine, producer string, n int, em Emitted) Outcome {
	o := Outcome{Producer: producer, Query: queryName(n), Via: em.Via}
	if em.Plan == nil {
		o.Refused = em.Refuse
		return o
	}
	p, err := substrait.Decode(em.Plan)
	if err == nil {
		_, err = substrait.Load(p)
	}
	if err != nil {
		o.LoadErr = err.Error()
		return o
	}
	q, err := tpch.Query(n)
	if err != nil {
		o.RunErr = err.Error()
		return o
	}
	want, err := eng.RunOnDuckDB(ctx, q)
	if err != nil {
		o.RunErr = "DuckDB: " + err.Error()
		return o
	}
	defer want.Release()
	got, err := eng.RunPlan(ctx, em.Plan)
	if err != nil {
		o.RunErr = err.Error()
		return o
	}
	defer got.Release()
	o.Where, o.Reason, o.Notes = string(got.Where), got.Reason, got.Notes
	if err := Compare(got.Record, want.Record); err != nil {
		o.Diff = err.Error()
	}
	return o
}

// expectations reads expected.txt: "producer qNN reason" lines, the plans
// known not to run or match, each with why.
func expectations(t *testing.T) map[string]string {
	f, err := os.Open("expected.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		fields := strings.SplitN(s, " ", 3)
		if len(fields) < 3 {
			t.Fatalf("expected.txt:%d: want \"producer qNN reason\", got %q", line, s)
		}
		out[fields[0]+" "+fields[1]] = fields[2]
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// judge fails the test for an outcome that breaks the target unless it is
// expected, and for an expected failure that no longer happens.
func judge(t *testing.T, o Outcome, expected map[string]string) {
	key := o.Producer + " " + o.Query
	reason, listed := expected[key]
	switch f := o.Failed(); {
	case f != "" && !listed:
		t.Errorf("%s: %s", key, f)
	case f == "" && listed && o.Refused == "":
		// The list only shrinks: a listed plan that now passes must go.
		t.Errorf("%s runs and matches DuckDB now: remove it from expected.txt (%s)", key, reason)
	case f != "":
		t.Logf("%s: expected failure (%s): %s", key, reason, f)
	}
}

// TestProducers runs each producer installed by `make setup` on the 22
// queries and checks every plan it emits. Without the tools the producer
// is skipped (under CI=true that fails: CI runs `make setup`).
// RIGEL_UPDATE_PRODUCERS=1 writes RESULTS.md (all three producers must
// run); RIGEL_WRITE_PLANS=1 (`make plans`) replaces the committed copies.
func TestProducers(t *testing.T) {
	eng := openEngine(t)
	expected := expectations(t)
	var queries []string
	for n := 1; n <= 22; n++ {
		queries = append(queries, filepath.Join(root, "conformance", "tpch", "queries", queryName(n)+".sql"))
	}
	var all []Outcome
	ran := 0
	for _, p := range All() {
		t.Run(p.Name, func(t *testing.T) {
			if err := p.Available(root); err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("producer not set up under CI: %v", err)
				}
				t.Skipf("SKIP: %v", err)
			}
			out := t.TempDir()
			if err := p.Generate(context.Background(), root, out, queries); err != nil {
				t.Fatal(err)
			}
			if os.Getenv("RIGEL_WRITE_PLANS") == "1" {
				if err := writeCommitted(p, out); err != nil {
					t.Fatal(err)
				}
			}
			for n := 1; n <= 22; n++ {
				em, err := ReadEmitted(out, queryName(n))
				if err != nil {
					t.Fatal(err)
				}
				o := check(context.Background(), eng, p.Name, n, em)
				judge(t, o, expected)
				all = append(all, o)
			}
			ran++
		})
	}
	// The 22 Isthmus 0.81 plans taken as data from the substrait-compliance
	// repository (conformance/plans/isthmus-tpch: JSON with comment lines,
	// extension URIs beside URNs): an older Isthmus, the same checks.
	t.Run("isthmus-0.81", func(t *testing.T) {
		dir := filepath.Join(root, "conformance", "plans", "isthmus-tpch")
		for n := 1; n <= 22; n++ {
			em, err := ReadEmitted(dir, queryName(n))
			if err != nil {
				t.Fatal(err)
			}
			o := check(context.Background(), eng, "isthmus-0.81", n, em)
			judge(t, o, expected)
			all = append(all, o)
		}
	})
	if os.Getenv("RIGEL_UPDATE_PRODUCERS") == "1" {
		if ran != len(All()) {
			t.Fatalf("RESULTS.md needs every producer; %d of %d ran", ran, len(All()))
		}
		if err := os.WriteFile("RESULTS.md", []byte(resultsMarkdown(all)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCommittedPlans checks the committed copies of the producers' plans
// (conformance/plans/<producer>-<version>-tpch), so that a clean clone
// without the producers still runs them.
func TestCommittedPlans(t *testing.T) {
	eng := openEngine(t)
	expected := expectations(t)
	for _, p := range All() {
		t.Run(p.Name, func(t *testing.T) {
			dir := p.PlanDir(root)
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("no committed plans of %s (run `make plans`): %v", p.Name, err)
			}
			for n := 1; n <= 22; n++ {
				em, err := ReadEmitted(dir, queryName(n))
				if err != nil {
					t.Fatal(err)
				}
				judge(t, check(context.Background(), eng, p.Name, n, em), expected)
			}
		})
	}
}

// writeCommitted replaces the producer's committed copies with what it
// just wrote, byte for byte: plans as binary protobuf (JSON would drop the
// fields of older spec versions that ibis-substrait writes and rigel
// reads), refusals as text.
func writeCommitted(p Producer, out string) error {
	dir := p.PlanDir(root)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for n := 1; n <= 22; n++ {
		name := queryName(n)
		em, err := ReadEmitted(out, name)
		if err != nil {
			return err
		}
		file, data := name+".pb", em.Plan
		if em.Plan == nil {
			file, data = name+".err", []byte(em.Refuse+"\n")
		}
		if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
			return err
		}
		if em.Via != "" {
			if err := os.WriteFile(filepath.Join(dir, name+".via"), []byte(em.Via+"\n"), 0o644); err != nil {
				return err
			}
		}
	}
	readme := fmt.Sprintf("# %s %s: the 22 TPC-H queries as Substrait\n\n"+
		"Written by `make plans` (conformance/producers, RIGEL_WRITE_PLANS=1) from\n"+
		"conformance/tpch/queries with the schema conformance/tpch/schema.sql.\n"+
		"`qNN.pb`: the plan as the producer wrote it (binary protobuf);\n"+
		"`qNN.err`: the producer's refusal. Do not edit: regenerate.\n", p.Name, p.Version)
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644)
}

// resultsMarkdown renders the per-producer table.
func resultsMarkdown(all []Outcome) string {
	var b strings.Builder
	b.WriteString("# Substrait plans from real producers on rigel\n\n")
	b.WriteString("Written by `RIGEL_UPDATE_PRODUCERS=1 go test -run TestProducers ./conformance/producers`.\n")
	b.WriteString("Each producer turns the 22 TPC-H queries (conformance/tpch/queries, schema\n")
	b.WriteString("conformance/tpch/schema.sql) into Substrait; rigel loads each plan\n")
	b.WriteString(fmt.Sprintf("(`substrait.Load`), runs it (`Engine.RunPlan`, host device, TPC-H SF%g) and\n", sf))
	b.WriteString("compares the answer with DuckDB's answer to the same SQL.\n\n")
	b.WriteString(fmt.Sprintf("Producers: DataFusion %s (PyPI datafusion), ibis-substrait %s (ibis-framework 9.5.0,\n", DataFusionVersion, IbisVersion))
	b.WriteString(fmt.Sprintf("SQL through `ibis.parse_sql`, and where that fails the same query written with ibis's dataframe API,\n"+
		"python/ibis_tpch_api.py: the note says so), Isthmus %s (Maven io.substrait:isthmus); isthmus-0.81: the\n", IsthmusVersion))
	b.WriteString("committed Isthmus 0.81 plans of conformance/plans/isthmus-tpch (taken as data).\n\n")
	byProducer := map[string][]Outcome{}
	var names []string
	for _, o := range all {
		if _, ok := byProducer[o.Producer]; !ok {
			names = append(names, o.Producer)
		}
		byProducer[o.Producer] = append(byProducer[o.Producer], o)
	}
	b.WriteString("| producer | emitted | loaded | ran | equal to DuckDB |\n|---|---:|---:|---:|---:|\n")
	for _, n := range names {
		var em, ld, rn, eq int
		for _, o := range byProducer[n] {
			if o.Refused != "" {
				continue
			}
			em++
			if o.LoadErr != "" {
				continue
			}
			ld++
			if o.RunErr != "" {
				continue
			}
			rn++
			if o.Diff == "" {
				eq++
			}
		}
		b.WriteString(fmt.Sprintf("| %s | %d/22 | %d | %d | %d |\n", n, em, ld, rn, eq))
	}
	for _, n := range names {
		b.WriteString(fmt.Sprintf("\n## %s\n\n| query | emitted | loaded | ran | equal | note |\n|---|---|---|---|---|---|\n", n))
		os := byProducer[n]
		sort.Slice(os, func(i, j int) bool { return os[i].Query < os[j].Query })
		for _, o := range os {
			cell := func(ok bool, skip bool) string {
				switch {
				case skip:
					return "-"
				case ok:
					return "yes"
				}
				return "**no**"
			}
			emitted := o.Refused == ""
			loaded := emitted && o.LoadErr == ""
			ran := loaded && o.RunErr == ""
			where := cell(ran, !loaded)
			if ran {
				where = o.Where
				if o.Reason != "" {
					where += " (fell back: " + o.Reason + ")"
				}
			}
			note := ""
			switch {
			case !emitted:
				note = "producer: " + o.Refused
			case !loaded:
				note = o.LoadErr
			case !ran:
				note = o.RunErr
			case o.Diff != "":
				note = o.Diff
			}
			if strings.HasPrefix(o.Via, "api") {
				// Made through the producer's own API where its SQL path failed.
				note = strings.TrimPrefix(note+"; via the "+o.Via, "; ")
			}
			if len(o.Notes) > 0 {
				// The decimal types rigel derived where the plan declared others.
				note = strings.TrimPrefix(note+"; rigel: "+strings.Join(o.Notes, "; "), "; ")
			}
			b.WriteString(fmt.Sprintf("| %s | %s | %s | %s | %s | %s |\n", o.Query, cell(emitted, false),
				cell(loaded, !emitted), where, cell(ran && o.Diff == "", !ran), mdEscape(note)))
		}
	}
	return b.String()
}

// subqueryNote shortens the translator's message for a subquery (which
// prints the whole subquery relation) to the expression's kind.
var subqueryNote = regexp.MustCompile(`expression \*plan\.(\w+) \(.*\): (not supported by rigel yet)$`)

func mdEscape(s string) string {
	s = subqueryNote.ReplaceAllString(s, "expression $1: $2")
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 240 {
		s = s[:240] + "..."
	}
	return s
}
