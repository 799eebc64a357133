package substrait

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pb "google.golang.org/protobuf/proto"
)

const isthmusDir = "../conformance/plans/isthmus-tpch"

func isthmusPlans(t *testing.T) []string {
	files, _ := filepath.Glob(filepath.Join(isthmusDir, "q*.json"))
	if len(files) != 22 {
		t.Fatalf("found %d Isthmus plans under %s, want 22", len(files), isthmusDir)
	}
	return files
}

// Plans from Isthmus (a producer nobody here wrote) decode from JSON with
// their comment lines and deprecated fields, load, and survive a binary
// round trip.
func TestIsthmusPlansLoad(t *testing.T) {
	for _, f := range isthmusPlans(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		loaded, err := Load(p)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(loaded.Names) == 0 || loaded.Root == nil {
			t.Fatalf("%s: no names or root", f)
		}
		bin, err := pb.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := Decode(bin)
		if err != nil {
			t.Fatalf("%s binary: %v", f, err)
		}
		if _, err := Load(p2); err != nil {
			t.Fatalf("%s binary: %v", f, err)
		}
	}
}

func TestMalformedInputs(t *testing.T) {
	cases := map[string]string{
		"empty":         "",
		"not json":      "{relations: oops",
		"wrong type":    `{"relations": [{"root": {"input": {"read": 42}}}]}`,
		"no root":       `{"relations": []}`,
		"root no input": `{"relations": [{"root": {"names": ["a"]}}]}`,
		"binary junk":   "\xff\xff\xff\x01\x02",
	}
	for name, in := range cases {
		p, err := Decode([]byte(in))
		if err == nil {
			_, err = Load(p)
		}
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: got %v, want ErrMalformed", name, err)
		}
	}
}

func TestUndeclaredFunction(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(isthmusDir, "q06.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Misspell a function the plan declares.
	bad := strings.Replace(string(data), `"multiply:`, `"multiplyy:`, 1)
	if bad == string(data) {
		t.Fatal("q06.json does not declare multiply")
	}
	p, err := Decode([]byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Load(p)
	if !errors.Is(err, ErrUnknownFunction) && !errors.Is(err, ErrMalformed) {
		t.Fatalf("got %v, want ErrUnknownFunction or ErrMalformed", err)
	}
}

// An undeclared function with a well-formed signature is reported by name.
func TestUndeclaredFunctionNamed(t *testing.T) {
	data, err := os.ReadFile("../cmd/rigel/testdata/unknown-function.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Load(p)
	if !errors.Is(err, ErrUnknownFunction) || !strings.Contains(err.Error(), "frobnicate") {
		t.Fatalf("got %v, want ErrUnknownFunction naming frobnicate", err)
	}
}
