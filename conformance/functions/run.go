package functions

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/physical"
	"github.com/rigel-db/rigel/substrait"
	"github.com/rigel-db/rigel/translate"
)

// Outcome is what became of one case.
type Outcome int

const (
	Pass Outcome = iota
	// Fail: a wrong answer (or a crash): a bug to fix.
	Fail
	// Unsupported: rigel refused the case (ErrUnsupported from the
	// translator or the device, or a function not in its catalogue).
	Unsupported
	// Skipped: the pinned parser cannot read the case's file.
	Skipped
)

var outcomeNames = [...]string{"pass", "fail", "unsupported", "skipped"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome(%d)", int(o))
}

// Result is the outcome of one case with its reason: Reason groups alike
// outcomes in the report, Detail says what this case did.
type Result struct {
	Case    *Case
	Outcome Outcome
	Reason  string
	Detail  string
}

// noTables is the Executor's table source: the case plans read only
// VirtualTables, so any scan is a harness bug worth an error.
type noTables struct{}

func (noTables) TableSchema(context.Context, string) (*arrow.Schema, error) {
	return nil, errors.New("function test cases read no tables")
}
func (noTables) ScanColumns(context.Context, string, []string) (array.RecordReader, error) {
	return nil, errors.New("function test cases read no tables")
}
func (noTables) ID() string { return "conformance/functions" }

// Runner runs cases on one device.
type Runner struct {
	exec *physical.Executor
}

// NewRunner runs cases on dev (gpu/host for the reference results).
func NewRunner(dev gpu.Device) *Runner {
	return &Runner{exec: &physical.Executor{Dev: dev, Source: noTables{}, Cache: physical.NewColumnCache()}}
}

// RunAll runs every parsed case, in suite order.
func (r *Runner) RunAll(ctx context.Context, s *Suite) []Result {
	out := make([]Result, 0, len(s.Cases))
	for _, c := range s.Cases {
		out = append(out, r.Run(ctx, c))
	}
	return out
}

// Run runs one case. It never panics: a panic anywhere (plan building,
// the engine) is a failed case with the panic as its reason.
func (r *Runner) Run(ctx context.Context, c *Case) (res Result) {
	defer func() {
		if p := recover(); p != nil {
			res = Result{Case: c, Outcome: Fail, Reason: "panic",
				Detail: fmt.Sprintf("%v at %s", p, panicSite(debug.Stack()))}
		}
	}()
	res = r.run(ctx, c)
	res.Case = c
	return res
}

func (r *Runner) run(ctx context.Context, c *Case) Result {
	want, err := c.expected()
	if err != nil {
		return Result{Outcome: Fail, Reason: "harness: expected result", Detail: err.Error()}
	}
	b, err := buildPlan(c.TC)
	if err != nil {
		// The case could not even be expressed as a plan with substrait-go:
		// not rigel's answer, but not a pass either, so it shows as a fail
		// with a reason that says where it stopped.
		return Result{Outcome: Fail, Reason: "harness: build plan: " + generalize(err.Error()), Detail: err.Error()}
	}
	res := judge(want, r.execute(ctx, b))
	if res.Outcome == Unsupported {
		// Name the missing function rather than whatever part of the plan
		// the translator happened to refuse first.
		if _, err := substrait.Resolve(b.fn); errors.Is(err, substrait.ErrNotImplemented) {
			name := b.fn.Name
			if i := strings.IndexByte(name, ':'); i >= 0 {
				name = name[:i]
			}
			res.Reason = "function not in rigel's catalogue: " + extensionGroup(c.File) + "/" + name
		}
	}
	return res
}

// expected is the case's expectation, corrected where an override applies.
func (c *Case) expected() (expectation, error) {
	if c.want != nil {
		return *c.want, nil
	}
	return expectedOf(c.TC)
}

// executed is what the engine did with a plan.
type executed struct {
	stage string // "load", "translate" or "run": where err came from
	err   error
	field arrow.Field
	arr   arrow.Array
}

// execute runs a plan as rigel's consumer receives it: protobuf in, the
// Load -> Translate -> Executor path, an Arrow record out.
func (r *Runner) execute(ctx context.Context, b *built) executed {
	p, err := substrait.Load(b.plan)
	if err != nil {
		return executed{stage: "load", err: err}
	}
	root, err := translate.Translate(p)
	if err != nil {
		return executed{stage: "translate", err: err}
	}
	rec, _, err := r.exec.Run(ctx, root, []string{"result"})
	if err != nil {
		return executed{stage: "run", err: err}
	}
	defer rec.Release()
	if rec.NumCols() != 1 {
		return executed{stage: "run", err: fmt.Errorf("result has %d columns, want 1", rec.NumCols())}
	}
	arr := rec.Column(0)
	arr.Retain() // outlives the record
	return executed{stage: "run", field: rec.Schema().Field(0), arr: arr}
}

func isUnsupported(err error) bool {
	return errors.Is(err, translate.ErrUnsupported) || errors.Is(err, gpu.ErrUnsupported) ||
		errors.Is(err, substrait.ErrNotImplemented)
}

// judge compares what the engine did with what the case wants.
func judge(want expectation, x executed) Result {
	if x.arr != nil {
		defer x.arr.Release()
	}
	if x.err != nil {
		switch {
		case isUnsupported(x.err):
			return Result{Outcome: Unsupported, Reason: generalize(x.err.Error()), Detail: x.err.Error()}
		case x.stage == "load":
			// The plan came from substrait-go's own builder: a load failure
			// is a consumer bug, never the "clean error" a case may want.
			return Result{Outcome: Fail, Reason: "plan did not load: " + generalize(x.err.Error()), Detail: x.err.Error()}
		case want.kind == expectError || want.kind == expectUndefined:
			return Result{Outcome: Pass, Reason: "error as expected", Detail: x.err.Error()}
		}
		return Result{Outcome: Fail, Reason: "error where a value was expected: " + generalize(x.err.Error()), Detail: x.err.Error()}
	}
	switch want.kind {
	case expectError:
		return Result{Outcome: Fail, Reason: "value where an error was expected", Detail: "got " + cellString(x.arr)}
	case expectUndefined:
		return Result{Outcome: Pass, Reason: "undefined result", Detail: "got " + cellString(x.arr)}
	}
	if reason, detail := check(want, x.field, x.arr); reason != "" {
		return Result{Outcome: Fail, Reason: reason, Detail: detail}
	}
	return Result{Outcome: Pass}
}

// generalize trims an error message to its part that is the same for alike
// cases: the innermost clause (after the last "expression N: "-style
// prefix) with pipeline texts, which quote per-case constants, left out.
func generalize(msg string) string {
	msg = firstLine(msg)
	for _, p := range []string{"ProjectRel expression ", "AggregateRel measure "} {
		if i := strings.Index(msg, p); i >= 0 {
			if j := strings.Index(msg[i:], ": "); j >= 0 {
				msg = msg[:i] + msg[i+j+2:]
			}
		}
	}
	if strings.HasPrefix(msg, "Pipeline") {
		if i := strings.Index(msg, "]: "); i >= 0 {
			msg = "pipeline: " + msg[i+3:]
		}
	}
	return msg
}

// panicSite is the first frame of a panic's stack outside the runtime and
// this file's recover, for the report.
func panicSite(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "panic(") && i+2 < len(lines) {
			return strings.TrimSpace(lines[i+2])
		}
	}
	return "unknown site"
}
