package devicetest

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rigel-db/rigel/gpu"
)

// table uploads arrays and returns the columns and their declared types.
func table(t testing.TB, dev gpu.Device, arrs ...arrow.Array) ([]gpu.Column, []gpu.Type) {
	t.Helper()
	cols := make([]gpu.Column, len(arrs))
	types := make([]gpu.Type, len(arrs))
	for i, a := range arrs {
		types[i] = inputType(a)
		cols[i] = Upload(t, dev, a)
	}
	return cols, types
}

// project materializes exprs over arrs (no filter) and returns the rows.
func project(t testing.TB, dev gpu.Device, arrs []arrow.Array, exprs ...*gpu.Expr) []string {
	t.Helper()
	cols, types := table(t, dev, arrs...)
	defer ReleaseCols(cols)
	p := &gpu.Pipeline{Inputs: types, Project: exprs, Sink: gpu.SinkMaterialize}
	return RunPipeline(t, dev, p, cols)
}

// projectErr materializes exprs over arrs and returns the error.
func projectErr(t testing.TB, dev gpu.Device, arrs []arrow.Array, exprs ...*gpu.Expr) error {
	t.Helper()
	cols, types := table(t, dev, arrs...)
	defer ReleaseCols(cols)
	p := &gpu.Pipeline{Inputs: types, Project: exprs, Sink: gpu.SinkMaterialize}
	return RunPipelineErr(dev, p, cols)
}

func expectRows(t testing.TB, got, want []string, ordered bool) {
	t.Helper()
	if err := EqualRows(got, want, ordered, 1e-12); err != nil {
		t.Fatal(err)
	}
}

func expectOverflow(t testing.TB, err error, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want ErrOverflow", what)
	}
	if !errors.Is(err, gpu.ErrOverflow) {
		t.Fatalf("%s: error %v does not wrap ErrOverflow", what, err)
	}
	var pe *panicError
	if errors.As(err, &pe) {
		t.Fatalf("%s: %v", what, err)
	}
}

func expectError(t testing.TB, err error, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	var pe *panicError
	if errors.As(err, &pe) {
		t.Fatalf("%s: %v", what, err)
	}
}

// arrs is shorthand for a list of arrays.
func arrs(a ...arrow.Array) []arrow.Array { return a }
