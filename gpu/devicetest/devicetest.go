// Package devicetest is a battery of tests that every gpu.Device must pass,
// and a differential tester that runs random pipelines on two devices and
// compares their results.
//
// Expectations are computed independently of gpu/host (by hand, or with
// math/big in the test itself), so that the battery checks the reference
// implementation as much as it checks the CUDA device.
//
//	func TestBattery(t *testing.T) { devicetest.Run(t, mydevice) }
//	func TestDiff(t *testing.T)    { devicetest.Differential(t, host.New(), mydevice, 1) }
package devicetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

type testCase struct {
	name string
	fn   func(t *testing.T, dev gpu.Device)
}

// cases lists the battery, grouped by the file that defines them.
func cases() []testCase {
	var all []testCase
	all = append(all, roundTripCases()...)
	all = append(all, exprCases()...)
	all = append(all, castCases()...)
	all = append(all, numCases()...)
	all = append(all, pipelineCases()...)
	all = append(all, aggCases()...)
	all = append(all, tpchCases()...)
	all = append(all, sortCases()...)
	all = append(all, errorCases()...)
	all = append(all, stringCases()...)
	all = append(all, joinCases()...)
	all = append(all, strRowCases()...)
	all = append(all, temporalCases()...)
	all = append(all, signMakeDateCases()...) // cases_sign_makedate.go
	all = append(all, strColCases()...)       // cases_strcol.go
	all = append(all, strFlowCases()...)      // cases_strflow.go
	all = append(all, segmentCases()...)      // cases_segments.go
	all = append(all, packedCases()...)       // cases_packed.go
	all = append(all, windowCases()...)       // cases_window.go
	all = append(all, avgCases()...)          // cases_avg.go
	all = append(all, statCases()...)         // cases_stats.go
	return all
}

// Run runs every case of the battery against dev, one t.Run per case.
// Under -short the TPC-H-shaped and large cases use fewer rows.
func Run(t *testing.T, dev gpu.Device) {
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) { c.fn(t, dev) })
	}
}

// RunSome is Run of the cases whose names start with one of prefixes.
func RunSome(t *testing.T, dev gpu.Device, prefixes ...string) {
	for _, c := range cases() {
		for _, p := range prefixes {
			if strings.HasPrefix(c.name, p) {
				t.Run(c.name, func(t *testing.T) { c.fn(t, dev) })
				break
			}
		}
	}
}

// IR type shorthands for building pipelines in tests.
var (
	TBool  = gpu.Type{Kind: gpu.Bool}
	TI8    = gpu.Type{Kind: gpu.Int8}
	TI16   = gpu.Type{Kind: gpu.Int16}
	TI32   = gpu.Type{Kind: gpu.Int32}
	TI64   = gpu.Type{Kind: gpu.Int64}
	TF32   = gpu.Type{Kind: gpu.Float32}
	TF64   = gpu.Type{Kind: gpu.Float64}
	TDate  = gpu.Type{Kind: gpu.Date32}
	TDict  = gpu.Type{Kind: gpu.Dict}
	TCount = gpu.Type{Kind: gpu.Int64}
)

// TDec64 and TDec128 are decimal types.
func TDec64(p, s int32) gpu.Type  { return gpu.Type{Kind: gpu.Decimal64, Precision: p, Scale: s} }
func TDec128(p, s int32) gpu.Type { return gpu.Type{Kind: gpu.Decimal128, Precision: p, Scale: s} }

// N returns t made nullable.
func N(t gpu.Type) gpu.Type { return t.WithNullable(true) }

// RunPipeline runs p on dev and returns the output rows (inputs are not
// released; outputs are). It fails the test on error.
func RunPipeline(t testing.TB, dev gpu.Device, p *gpu.Pipeline, inputs []gpu.Column) []string {
	t.Helper()
	out, err := dev.Run(context.Background(), p, inputs)
	if err != nil {
		t.Fatalf("run %s: %v", p, err)
	}
	defer ReleaseCols(out)
	checkOutputTypes(t, p, out)
	return Rows(t, dev, out)
}

// RunPipelineErr runs p and returns its error (releasing any output).
func RunPipelineErr(dev gpu.Device, p *gpu.Pipeline, inputs []gpu.Column) error {
	out, err := runSafely(dev, p, inputs)
	ReleaseCols(out)
	return err
}

func checkOutputTypes(t testing.TB, p *gpu.Pipeline, out []gpu.Column) {
	t.Helper()
	want := p.OutputTypes()
	if len(out) != len(want) {
		t.Fatalf("run %s: %d output columns, want %d", p, len(out), len(want))
	}
	for i, c := range out {
		got := c.Type()
		w := want[i]
		// Nullability may be narrowed by a device only if no null is
		// present; kind, precision and scale must be exactly as declared.
		if got.Kind != w.Kind || got.Precision != w.Precision || got.Scale != w.Scale {
			t.Fatalf("run %s: output %d has type %s, want %s", p, i, got, w)
		}
	}
}

// runSafely turns a device panic into a test-visible error: the contract
// says bad input gives an error, never a panic.
func runSafely(dev gpu.Device, p *gpu.Pipeline, inputs []gpu.Column) (out []gpu.Column, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, &panicError{r}
		}
	}()
	return dev.Run(context.Background(), p, inputs)
}

type panicError struct{ v any }

func (e *panicError) Error() string { return fmt.Sprint("device panicked: ", e.v) }
