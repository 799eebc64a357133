package planmutate

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/substrait"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// Seed is a plan file of the repository.
type Seed struct {
	Name string // its path under the repository root
	Data []byte
}

// seedGlobs are where the repository keeps Substrait plans: other
// producers' TPC-H plans (binary and JSON), the command line's examples,
// and the fuzz corpus of raw plans (rigel's own producer's TPC-H plans
// among them, in Go's corpus format).
var seedGlobs = []string{
	"conformance/plans/*/*.pb",
	"conformance/plans/*/*.json",
	"cmd/rigel/testdata/*.json",
	"translate/testdata/fuzz/FuzzDecodeLoadTranslate/*",
}

// RepoPlan decodes conformance/plans/file of the repository at root (a
// test's starting plan), failing t when it cannot.
func RepoPlan(t testing.TB, root, file string) *proto.Plan {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "conformance", "plans", file))
	if err != nil {
		t.Fatal(err)
	}
	p, err := substrait.Decode(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return p
}

// Seeds reads every plan file of the repository at root, sorted by path,
// so that a fuzz corpus that names seeds by position follows the files.
func Seeds(root string) ([]Seed, error) {
	var out []Seed
	for _, g := range seedGlobs {
		files, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			name, _ := filepath.Rel(root, f)
			if strings.Contains(g, "testdata/fuzz/") {
				vals, err := corpusBytes(data)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				for i, v := range vals {
					out = append(out, Seed{Name: fmt.Sprintf("%s#%d", name, i), Data: v})
				}
				continue
			}
			out = append(out, Seed{Name: name, Data: data})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no plan files under %s (%s)", root, strings.Join(seedGlobs, ", "))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// corpusBytes reads the []byte values of a file in Go's fuzz corpus
// format ("go test fuzz v1", then one Go literal per line).
func corpusBytes(data []byte) ([][]byte, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<20), len(data)+1)
	if !sc.Scan() || sc.Text() != "go test fuzz v1" {
		return nil, fmt.Errorf("not a Go fuzz corpus file")
	}
	var out [][]byte
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		lit, ok := strings.CutPrefix(line, "[]byte(")
		if !ok || !strings.HasSuffix(lit, ")") {
			continue // a value of another type
		}
		s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
		if err != nil {
			return nil, err
		}
		out = append(out, []byte(s))
	}
	return out, sc.Err()
}
