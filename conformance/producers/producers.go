// Package producers runs other engines' Substrait producers (DataFusion,
// ibis with ibis-substrait, Isthmus) on the 22 TPC-H queries, for the test
// that loads each plan in rigel, runs it and compares it with DuckDB's
// answer to the same SQL. The producers are installed by `make setup` under
// .tools/producers; each writes qNN.pb (the plan) or qNN.err (why it could
// not produce one) per query.
package producers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Producer is one Substrait producer as `make setup` installs it.
type Producer struct {
	// Name names the producer in results and, with Version, its folder of
	// committed plans, conformance/plans/<Name>-<Version>-tpch (with the
	// version: isthmus-tpch holds Isthmus 0.81's plans taken as data, which
	// the decoder tests keep using).
	Name string
	// Version is the version `make setup` pins (the Makefile says the same).
	Version string
	// installed is the file whose presence under the repository root says
	// that `make setup` installed this version.
	installed string
	// command is the program and its leading arguments; the schema file,
	// the output folder and the query files follow.
	command func(root string) (*exec.Cmd, error)
}

// The versions here and in the Makefile's setup lines must agree: the test
// checks the installed files.
const (
	DataFusionVersion = "55.0.0"
	IbisVersion       = "4.0.1" // ibis-substrait; with ibis-framework 9.5.0, substrait 0.21.0
	IsthmusVersion    = "0.89.1"
)

// ToolsDir is where `make setup` installs the producers, under the
// repository root.
const ToolsDir = ".tools/producers"

// All lists the producers.
func All() []Producer {
	return []Producer{
		{
			Name: "datafusion", Version: DataFusionVersion,
			installed: filepath.Join(ToolsDir, "datafusion", "datafusion-"+DataFusionVersion+".dist-info"),
			command: func(root string) (*exec.Cmd, error) {
				// pyarrow comes from .tools/py (installed for the Flight SQL
				// client tests): DataFusion's wheel is installed without it.
				return python(root, "datafusion_tpch.py",
					filepath.Join(root, ToolsDir, "datafusion"), filepath.Join(root, ".tools", "py"))
			},
		},
		{
			Name: "ibis", Version: IbisVersion,
			installed: filepath.Join(ToolsDir, "ibis", "ibis_substrait-"+IbisVersion+".dist-info"),
			command: func(root string) (*exec.Cmd, error) {
				return python(root, "ibis_tpch.py", filepath.Join(root, ToolsDir, "ibis"))
			},
		},
		{
			Name: "isthmus", Version: IsthmusVersion,
			installed: filepath.Join(ToolsDir, "isthmus", "lib", "isthmus-"+IsthmusVersion+".jar"),
			command: func(root string) (*exec.Cmd, error) {
				java, err := exec.LookPath("java")
				if err != nil {
					return nil, errors.New("java not found on PATH")
				}
				dir := filepath.Join(root, ToolsDir, "isthmus")
				if _, err := os.Stat(filepath.Join(dir, "classes", "IsthmusTPCH.class")); err != nil {
					return nil, fmt.Errorf("IsthmusTPCH not compiled: %w", err)
				}
				cp := filepath.Join(dir, "classes") + string(os.PathListSeparator) + filepath.Join(dir, "lib", "*")
				return exec.Command(java, "-cp", cp, "IsthmusTPCH"), nil
			},
		},
	}
}

func python(root, script string, path ...string) (*exec.Cmd, error) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return nil, errors.New("python3 not found on PATH")
	}
	cmd := exec.Command(py, filepath.Join(root, "conformance", "producers", "python", script))
	// Only the producer's own folder (and the named ones): the user's
	// PYTHONPATH could hold other versions of the same packages.
	cmd.Env = append(os.Environ(), "PYTHONPATH="+strings.Join(path, string(os.PathListSeparator)), "PYTHONNOUSERSITE=1")
	return cmd, nil
}

// Available reports why the producer cannot run (nil when it can): not
// installed by `make setup`, or installed in another version.
func (p Producer) Available(root string) error {
	if _, err := os.Stat(filepath.Join(root, p.installed)); err != nil {
		return fmt.Errorf("%s %s not installed (%s missing): run `make setup`", p.Name, p.Version, p.installed)
	}
	_, err := p.command(root)
	return err
}

// PlanDir is the folder of the producer's committed plans.
func (p Producer) PlanDir(root string) string {
	return filepath.Join(root, "conformance", "plans", p.Name+"-"+p.Version+"-tpch")
}

// Generate runs the producer on the query files, writing qNN.pb or qNN.err
// per query into out.
func (p Producer) Generate(ctx context.Context, root, out string, queries []string) error {
	cmd, err := p.command(root)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	args := []string{filepath.Join(root, "conformance", "tpch", "schema.sql"), out}
	args = append(args, queries...)
	run := exec.CommandContext(ctx, cmd.Path, append(cmd.Args[1:], args...)...)
	run.Env = cmd.Env
	if b, err := run.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", p.Name, err, lastLines(string(b), 5))
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Emitted is what a producer made of one query: a plan, or the reason it
// made none.
type Emitted struct {
	Plan   []byte // binary protobuf or JSON
	Refuse string // the producer's message when it made no plan
	// Via says which of the producer's paths made the plan, when it has
	// several (ibis: "sql" through ibis.parse_sql, or "api ..." through
	// its dataframe API where parse_sql failed), from qNN.via.
	Via string
}

// ReadEmitted reads query name's result (qNN) from a folder the producer
// wrote (qNN.pb, qNN.err, qNN.via) or from a committed copy (qNN.json,
// qNN.err).
func ReadEmitted(dir, name string) (Emitted, error) {
	for _, ext := range []string{".pb", ".json"} {
		if b, err := os.ReadFile(filepath.Join(dir, name+ext)); err == nil {
			via, _ := os.ReadFile(filepath.Join(dir, name+".via"))
			return Emitted{Plan: b, Via: strings.TrimSpace(string(via))}, nil
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, name+".err"))
	if err != nil {
		return Emitted{}, fmt.Errorf("%s: neither a plan nor an error file for %s", dir, name)
	}
	msg := strings.TrimSpace(string(b))
	if msg == "" {
		msg = "(the producer gave no message)"
	}
	return Emitted{Refuse: msg}, nil
}
