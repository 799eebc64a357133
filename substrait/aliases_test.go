package substrait

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/substrait-io/substrait-go/v8/extensions"
)

// Every plan the producers emitted (committed copies) loads: extension
// URIs (ibis-substrait), bare function names without extensions and
// missing output types (DataFusion), read masks, fetch forms and date casts
// are rewritten into what substrait-go reads, and every function resolves
// to rigel's catalogue or names the one it does not have.
func TestOtherProducersPlansLoad(t *testing.T) {
	dirs, _ := filepath.Glob("../conformance/plans/*-*-tpch")
	if len(dirs) < 3 {
		t.Fatalf("found %d producer plan folders, want 3 (datafusion, ibis, isthmus)", len(dirs))
	}
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "q*.pb"))
		if len(files) == 0 {
			t.Fatalf("%s: no plans", dir)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Decode(data)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if _, err := Load(p); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
}

// A plan that declares everything the way substrait-go reads it comes back
// as it is (no copy): rigel's own producer's plans pay nothing.
func TestNormalizeLeavesStandardPlans(t *testing.T) {
	data, err := os.ReadFile("../conformance/plans/isthmus-tpch/q06.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	coll := extensions.GetDefaultCollectionWithNoError()
	got, err := normalizeExtensions(p, coll)
	if err != nil {
		t.Fatal(err)
	}
	if got != p {
		t.Fatal("normalizeExtensions copied a plan that needed nothing")
	}
}

// A function name no standard extension declares is an error naming it.
func TestPlaceUnknownFunction(t *testing.T) {
	coll := extensions.GetDefaultCollectionWithNoError()
	_, err := placeFunction(coll, "no_such_function", nil)
	if err == nil || !strings.Contains(err.Error(), "no_such_function") {
		t.Fatalf("got %v, want an error naming the function", err)
	}
}
