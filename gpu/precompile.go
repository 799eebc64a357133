package gpu

import "context"

// Precompiler is implemented by devices that compile a kernel per pipeline
// the first time they meet it (the CUDA device: NVRTC, about 200 ms a
// kernel on the H100's host; bench/results/
// 2026-11-27-h100-tpch-sf10-first-run-v23-compile-ahead.md). A run otherwise meets its pipelines one after another and waits for each
// compile in turn. Precompile hands the device, before a plan runs, the
// calls the run expects to make: their compiles start at once, in the
// background, several at a time, in the order given (the order the run
// needs them), while the run loads its columns and runs what is ready.
//
// It is a hint. Precompile returns at once and reports nothing: a call
// that cannot compile fails when it is made, as without the hint; a call
// the run makes that was not foreseen compiles in its way, as before; a
// foreseen call that is never made costs only background work. A device
// may drop, once ctx ends (the run is over), the compiles not started by
// then; the CUDA device drops those the run would have waited for, and
// keeps those of the calls it runs without their kernels (its
// interpreter, a composed join), which are for the runs after it.
type Precompiler interface {
	Precompile(ctx context.Context, calls []KernelCall)
}

// CallKind names the device operation a KernelCall foresees.
type CallKind uint8

const (
	CallRun         CallKind = iota // Device.Run(Pipe, inputs)
	CallProbe                       // ProbeRunner.RunProbe(Pipe, probe, build, ...)
	CallProbeLeft                   // LeftProbeRunner.RunProbeLeft(Pipe, Cond, Single, probe, build, ...)
	CallProbeCounts                 // ProbeCounter.ProbeCounts(Pipe, probe, build, ...)
)

// KernelCall is one foreseen call: what a device needs to generate the
// kernels the call will run, without its columns.
type KernelCall struct {
	Kind CallKind
	Pipe *Pipeline
	// NProbe is the number of probe columns (Pipe's first inputs) of the
	// probe calls.
	NProbe int
	// Cond and Single are RunProbeLeft's.
	Cond   *Expr
	Single bool
	// DictLen is the dictionary size of each Dict input column of Pipe
	// (probe columns then build columns for the probe calls), 0 where it
	// is not known: an aggregate over small dictionaries takes another
	// kernel than one over large or unknown ones.
	DictLen []int
	// Inputs are Pipe's input columns where the caller knows them (a
	// table's columns as loaded, in the same order as DictLen; nil where
	// not known, or all of it): a device whose kernels depend on how a
	// column is held (gpu/cuda's packed columns) compiles for those.
	Inputs []Column
}

// CompileWaiter is a device that compiles in the background (kernels a run
// foresaw, and the full kernels that replace quickly compiled ones):
// WaitCompiles returns once the compiles started so far are done, so that
// a benchmark times hot runs on the kernels every later run uses.
type CompileWaiter interface {
	WaitCompiles(ctx context.Context) error
}

type composeKey struct{}

// MayCompose marks ctx for a fused join call (RunProbe, RunProbeLeft,
// ProbeCounts) whose caller runs the composed join itself when the call
// returns ErrUnsupported. A device whose fused kernel for the call is
// not compiled yet may then decline it at once, and compile it in the
// background for later runs, rather than keep the query waiting for the
// compiler: the composed join's primitives are precompiled.
func MayCompose(ctx context.Context) context.Context {
	return context.WithValue(ctx, composeKey{}, true)
}

// Composable reports whether ctx was marked by MayCompose.
func Composable(ctx context.Context) bool {
	v, _ := ctx.Value(composeKey{}).(bool)
	return v
}
