package duckdbbridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
)

// validatorPy is where `make setup` installs the official Substrait
// validator (PyPI substrait-validator), relative to this package.
const validatorPy = "../.tools/py"

// validatorFinding is one line of testdata/validate.py's output.
type validatorFinding struct {
	File  string `json:"file"`
	Level string `json:"level"`
	Code  int    `json:"code"`
	Path  string `json:"path"`
	Msg   string `json:"msg"`
}

// TestSubstraitValidator writes every plan the producer makes for the
// TPC-H queries and the simple-query corpus as binary protobuf and runs the
// official validator over them: any error fails the test, warnings are
// listed in the log (grouped by message, with the plans they occur in).
// Without the validator the test skips, except under CI=true, where `make
// setup` has installed it and its absence is a setup failure.
func TestSubstraitValidator(t *testing.T) {
	if _, err := os.Stat(filepath.Join(validatorPy, "substrait_validator")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("substrait-validator is not installed in %s (run make setup)", validatorPy)
		}
		t.Skipf("substrait-validator not installed in %s (make setup installs it)", validatorPy)
	}
	db := openTestDB(t, false)
	conn := testConn(t, db)
	dir := t.TempDir()
	type item struct{ name, query string }
	var items []item
	for n := 1; n <= 22; n++ {
		items = append(items, item{fmt.Sprintf("tpch-q%02d", n), readQuery(t, n)})
	}
	for i, q := range simpleQueries {
		items = append(items, item{fmt.Sprintf("simple-%02d", i), q})
	}
	for i, q := range joinQueries {
		items = append(items, item{fmt.Sprintf("join-%02d", i), q})
	}
	queryOf := map[string]string{}
	var files []string
	for _, it := range items {
		p, err := ProducePlan(context.Background(), conn, it.query)
		if errors.Is(err, ErrUnsupported) {
			t.Logf("%s: not produced: %v", it.name, err)
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", it.name, err)
		}
		b, err := proto.Marshal(legacyURIPlan(t, p))
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, it.name+".bin")
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		queryOf[f] = it.query
	}
	// A control: a plan broken on purpose (its root emits a column that does
	// not exist) must draw an error, or the validator is not checking.
	if len(files) == 0 {
		t.Fatal("no plan produced")
	}
	first, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	broken := &pb.Plan{}
	if err := proto.Unmarshal(first, broken); err != nil {
		t.Fatal(err)
	}
	setEmit(broken.Relations[0].GetRoot().Input, []int32{999})
	control := filepath.Join(dir, "control-broken.bin")
	if b, err := proto.Marshal(broken); err != nil || os.WriteFile(control, b, 0o644) != nil {
		t.Fatalf("writing the control plan: %v", err)
	}
	files = append(files, control)
	controlErrors := 0

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
	warnings := map[string][]string{}
	errs := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var f validatorFinding
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			t.Fatalf("validator output %q: %v", sc.Text(), err)
		}
		name := strings.TrimSuffix(filepath.Base(f.File), ".bin")
		if f.File == control {
			if f.Level == "error" {
				controlErrors++
			}
			continue
		}
		if f.Level == "error" && f.Code == validatorNotImplemented {
			// The validator (Substrait 0.57) cannot check a construct of
			// a later spec version (precision timestamps, compound
			// intervals): a limit of the validator, not a plan error.
			f.Level = "warning"
		}
		if reason := knownDisagreement(f); f.Level == "error" && reason != "" {
			f.Level, f.Msg = "warning", f.Msg+" [accepted: "+reason+"]"
		}
		if f.Level != "warning" { // "error", or a line the script could not read
			errs++
			t.Errorf("%s: validator %s %d at %s: %s\n  query: %s", name, f.Level, f.Code, f.Path, f.Msg, queryOf[f.File])
			continue
		}
		key := fmt.Sprintf("%d: %s", f.Code, f.Msg)
		warnings[key] = append(warnings[key], name)
	}
	if controlErrors == 0 {
		t.Errorf("the validator found no error in a plan whose root emits a missing column")
	}
	keys := make([]string, 0, len(warnings))
	for k := range warnings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("validator warning %s (%d times; %s)", k, len(warnings[k]), strings.Join(uniq(warnings[k]), " "))
	}
	t.Logf("validator: %d plans, %d errors, %d distinct warnings (and %d errors in the broken control plan)", len(files)-1, errs, len(keys), controlErrors)
}

// validatorNotImplemented is the validator's diagnostic code 0001,
// "not yet implemented".
const validatorNotImplemented = 1

// knownDisagreement returns why an error of validator 0.1.4 is not a plan
// error, or "" for a real error. Each entry is a rule that changed between
// Substrait 0.57 (the validator) and 0.85 (rigel's proto).
func knownDisagreement(f validatorFinding) string {
	if f.Code == 2 && strings.HasSuffix(f.Path, "rel_type<fetch>.count") && strings.Contains(f.Msg, "count cannot be negative") {
		return "Substrait 0.85 documents FetchRel.count -1 as all rows, and substrait-go v8.1.1 reads only that field"
	}
	return ""
}

// setEmit sets the emit of a rel, whatever its kind.
func setEmit(r *pb.Rel, mapping []int32) {
	common := &pb.RelCommon{EmitKind: &pb.RelCommon_Emit_{Emit: &pb.RelCommon_Emit{OutputMapping: mapping}}}
	switch x := r.RelType.(type) {
	case *pb.Rel_Project:
		x.Project.Common = common
	case *pb.Rel_Sort:
		x.Sort.Common = common
	case *pb.Rel_Fetch:
		x.Fetch.Common = common
	case *pb.Rel_Filter:
		x.Filter.Common = common
	case *pb.Rel_Read:
		x.Read.Common = common
	case *pb.Rel_Aggregate:
		x.Aggregate.Common = common
	case *pb.Rel_Join:
		x.Join.Common = common
	}
}

func uniq(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
