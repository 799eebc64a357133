package layering

import (
	"bufio"
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the module's folder, two up from this package's.
const root = "../.."

// notCode are folders at the top that hold no package of the module:
// build outputs, data, device bundles, scratch work.
var notCode = map[string]bool{"bin": true, "bundle": true, "bundle-cuda": true, "data": true, "scratch": true}

var backticked = regexp.MustCompile("`([^`]+)`")

// rooms reads ARCHITECTURE.md's table: each room and the rooms it may
// import.
func rooms(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) != 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		room := backticked.FindStringSubmatch(cells[1])[1]
		var may []string
		for _, m := range backticked.FindAllStringSubmatch(cells[3], -1) {
			may = append(may, m[1])
		}
		out[room] = may
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 10 {
		t.Fatalf("ARCHITECTURE.md: %d rooms read; is the table still | room | owns | imports |?", len(out))
	}
	return out
}

// modulePath is go.mod's module line.
func modulePath(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "module "); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

// packages are the module's packages (folders of non-test Go files) with
// the module's packages each imports, by folder relative to the root.
func packages(t *testing.T, module string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		name := d.Name()
		if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || notCode[rel]) {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		var none *build.NoGoError
		if errors.As(err, &none) {
			return nil
		}
		if err != nil {
			return err
		}
		var imports []string
		for _, imp := range pkg.Imports {
			if r, ok := strings.CutPrefix(imp, module+"/"); ok {
				imports = append(imports, r)
			}
		}
		out[filepath.ToSlash(rel)] = imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every package is a room of ARCHITECTURE.md's table, every room a
// package, and a package imports only the rooms its row names.
func TestImportsFollowArchitecture(t *testing.T) {
	table := rooms(t)
	pkgs := packages(t, modulePath(t))
	if len(pkgs) < len(table)/2 {
		t.Fatalf("%d packages found under %s: the walk is lost", len(pkgs), root)
	}
	for pkg, imports := range pkgs {
		may, ok := table[pkg]
		if !ok {
			t.Errorf("package %s is not in ARCHITECTURE.md's table of rooms: add its row (what it owns, what it imports)", pkg)
			continue
		}
		for _, imp := range imports {
			if !slices.Contains(may, imp) {
				t.Errorf("%s imports %s, which its row in ARCHITECTURE.md does not name: an arrow that is not in the design (fix the import, or the table if the design changed)", pkg, imp)
			}
		}
	}
	for room := range table {
		if _, ok := pkgs[room]; !ok {
			t.Errorf("ARCHITECTURE.md names room %s, which is not a package", room)
		}
	}
}
