package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// prototypes reads C prototypes of rigel_ functions, normalized so that
// rigel.h's and cgo's compare: no const (cgo drops it; the ABI is the
// same), rigel_engine as uintptr_t, no parameter names, single spaces.
func prototypes(text string) []string {
	re := regexp.MustCompile(`(?m)^(?:extern\s+)?([A-Za-z_][\w\s\*]*?)\s*\b(rigel_\w+)\(([^)]*)\);`)
	norm := func(s string) string {
		s = regexp.MustCompile(`\bconst\b`).ReplaceAllString(s, "")
		s = regexp.MustCompile(`\brigel_engine\b`).ReplaceAllString(s, "uintptr_t")
		s = strings.ReplaceAll(s, "*", " * ")
		return strings.Join(strings.Fields(s), " ")
	}
	var out []string
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		var params []string
		for _, p := range strings.Split(m[3], ",") {
			p = norm(p)
			if f := strings.Fields(p); len(f) > 1 && f[len(f)-1] != "*" {
				p = strings.Join(f[:len(f)-1], " ") // drop the name
			}
			params = append(params, p)
		}
		out = append(out, norm(m[1])+" "+m[2]+"("+strings.Join(params, ", ")+")")
	}
	slices.Sort(out)
	return out
}

// rigel.h is written by hand; cgo writes its own header from the Go
// signatures. Every function must be in both, with the same types.
func TestHeaderMatchesExports(t *testing.T) {
	gen, err := os.ReadFile(filepath.Join(libDir, "librigel.h"))
	if err != nil {
		t.Skipf("cgo's header is not next to the library (RIGEL_LIBRIGEL given?): %v", err)
	}
	doc, err := os.ReadFile("rigel.h")
	if err != nil {
		t.Fatal(err)
	}
	got, want := prototypes(string(doc)), prototypes(string(gen))
	if len(want) < 7 {
		t.Fatalf("found only %d exports in cgo's header:\n%s", len(want), gen)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rigel.h declares\n  %s\nbut the library exports\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
