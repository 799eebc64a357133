package cuda

import (
	_ "embed"
)

// The hand-written kernels, one module per subject (kernels/*.cu, each
// after prelude.cuh). Every one compiles once per device and is kept in the
// kernel cache; on a machine that never compiled them that costs seconds,
// so Open compiles the utility module (every query needs it) while the
// others compile in the background, each in parallel with the rest, and
// the first query that needs one waits only for what is left of it. The
// sort kernels were one module with the utility kernels; apart they
// compile in parallel (about 0.25 s for the utility module, 0.8 s for the
// bitonic sort on the build machine, against 1.4 s for the whole).

//go:embed kernels/util.cu
var utilSrc string

//go:embed kernels/sort_keys.cuh
var sortKeysSrc string

//go:embed kernels/sort_range.cu
var sortRangeSrc string

//go:embed kernels/topk.cu
var topkSrc string

//go:embed kernels/bitonic.cu
var bitonicSrc string

//go:embed kernels/window.cu
var windowSrc string

// kernelFile is one hand-written module: its file name (for the trace and
// NVRTC's messages) and its whole source.
type kernelFile struct{ name, src string }

var (
	utilFile      = kernelFile{"rigel_util.cu", preludeSrc + utilSrc}
	joinFile      = kernelFile{"rigel_join.cu", preludeSrc + joinFindSrc + joinSrc}
	sortRangeFile = kernelFile{"rigel_sort_range.cu", preludeSrc + sortKeysSrc + sortRangeSrc}
	topkFile      = kernelFile{"rigel_topk.cu", preludeSrc + sortKeysSrc + topkSrc}
	bitonicFile   = kernelFile{"rigel_bitonic.cu", preludeSrc + sortKeysSrc + bitonicSrc}
	// windowFile compiles on first use (or comes prebuilt): few queries
	// have window functions.
	windowFile = kernelFile{"rigel_window.cu", preludeSrc + windowSrc}
	// backgroundFiles compile from Open on, in the background: the
	// interpreter first (program.go), which a first run needs at once.
	backgroundFiles = []kernelFile{programFile, joinFile, bitonicFile, topkFile, sortRangeFile}
)

// loaded returns the module of a hand-written kernel file, loading it on
// first use (after its background compile, if it is still running), and
// keeps it in *m. Callers hold d.mu.
func (d *Device) loaded(m **module, f kernelFile) (*module, error) {
	if *m == nil {
		mod, err := d.moduleFor(f.src, f.name)
		if err != nil {
			return nil, err
		}
		*m = mod
	}
	return *m, nil
}
