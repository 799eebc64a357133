package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A module outside this repository that imports rigelsql, as a user's
// module does after `go get` (here through a replace directive), builds
// with a plain `go build`, no build tag, and runs.
func TestOutsideModuleBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the go command")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	// The repository's requirements (so that nothing needs the network),
	// then rigel itself, replaced by this checkout.
	gomod := regexp.MustCompile(`(?m)^module .*$`).ReplaceAllString(string(mod), "module example.com/dropin") +
		"\nrequire github.com/rigel-db/rigel v0.0.0\n\nreplace github.com/rigel-db/rigel => " + repo + "\n"
	dir := t.TempDir()
	for name, body := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "main.go": prog} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gocmd := func(args ...string) (string, error) {
		cmd := exec.Command(goBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	if out, err := gocmd("build", "-o", filepath.Join(dir, "dropin"), "."); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := exec.Command(filepath.Join(dir, "dropin"), filepath.Join(dir, "sales.duckdb")+"?rigel_device=host")
	got, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("the built program: %v\n%s", err, got)
	}
	if !strings.Contains(string(got), "west") {
		t.Fatalf("the built program printed:\n%s", got)
	}
}
