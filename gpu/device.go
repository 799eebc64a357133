package gpu

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Errors every Device reports the same way, so that the engine can react
// (fall back, split, tell the user) with errors.Is.
var (
	// ErrOverflow: an integer or decimal result did not fit its type.
	ErrOverflow = errors.New("numeric overflow")
	// ErrOutOfMemory: the device could not allocate what the operation needs.
	ErrOutOfMemory = errors.New("out of device memory")
	// ErrUnsupported: the device cannot run this operation (yet); the engine
	// may run it elsewhere. Wrap it with the reason.
	ErrUnsupported = errors.New("not supported on this device")
	// ErrNoDevice: no usable GPU (driver, library or card missing).
	ErrNoDevice = errors.New("no GPU available")
	// ErrSubqueryRows: a single join (RunProbeLeft) found more than one
	// matching row for a probe row. DuckDB's own error for a scalar
	// subquery that returned more than one row, word for word.
	ErrSubqueryRows = errors.New("More than one row returned by a subquery used as an expression - scalar subqueries can only return a single row")
)

// ErrBeyondDevice: a request no amount of freed memory would let through
// (more than the device's whole budget, or more rows than one column
// holds). It wraps ErrOutOfMemory, so the engine falls back as for any
// lack of memory; it tells the engine not to drop cached columns first.
var ErrBeyondDevice = fmt.Errorf("more than the whole device holds: %w", ErrOutOfMemory)

// ErrHostMemory: what an operation needs of the host's memory passes its
// budget (a column's load: physical's loadBudget). It is an ErrOutOfMemory,
// so the engine falls back; dropping cached device columns would not help,
// so the engine does not.
var ErrHostMemory error = hostMemoryError{}

type hostMemoryError struct{}

func (hostMemoryError) Error() string { return "out of host memory" }

func (hostMemoryError) Is(target error) bool { return target == ErrOutOfMemory }

// OutOfMemory is an ErrOutOfMemory that knows its numbers: what asked for
// how many bytes, and how much of the device's budget was in use. A device
// that can tell them reports this (errors.As), so that the engine can see
// whether freeing cached columns could make room at all.
type OutOfMemory struct {
	Device, What         string
	Asked, InUse, Budget int64
	Hint                 string // the way out, in words
}

func (e *OutOfMemory) Error() string {
	return fmt.Sprintf("%s device: %s needs %s more, and %s of its %s memory budget are in use (%s): %s",
		e.Device, e.What, SizeText(e.Asked), SizeText(e.InUse), SizeText(e.Budget), e.Hint, ErrOutOfMemory)
}

// Unwrap is ErrBeyondDevice for a request larger than the whole budget.
func (e *OutOfMemory) Unwrap() error {
	if e.Asked > e.Budget {
		return ErrBeyondDevice
	}
	return ErrOutOfMemory
}

// SizeText renders a byte count for messages.
func SizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// CtxErr is why ctx is done (context.Cause: the caller's reason, else
// context.Canceled or context.DeadlineExceeded), nil while it is not.
// Devices return it from the loop or launch they were at when the caller
// gave up.
func CtxErr(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return context.Cause(ctx)
}

// Spiller is a device that copies a column into host memory as it holds
// it (packed where it is packed) and back. A column that cannot stay on
// the device between runs (a segment of a table streamed through it,
// physical's Chunked) then crosses the link in the device's own layout,
// at the link's speed, with no host work: not decoded, encoded and
// packed again on every run. A device refuses a column it cannot copy so
// (strings in Arrow layout) with ErrUnsupported.
type Spiller interface {
	Spill(ctx context.Context, col Column) (HostColumn, error)
	Restore(ctx context.Context, h HostColumn) (Column, error)
}

// HostColumn is a column Spill copied into host memory. Bytes is the host
// memory it holds; Release frees it.
type HostColumn interface {
	Bytes() int64
	Release()
}

// MemoryBudget is a device that bounds the memory its columns and
// intermediates hold (the host device, whose columns live on the Go heap).
// CheckRows tells, before an operation builds rows rows of the given types,
// whether they fit in what is left of the budget now: nil, or an error
// that wraps ErrOutOfMemory and names what. The engine asks it where an
// output's size is known before anything is built (a cross join's n x m
// pairs); the device checks each allocation again itself.
type MemoryBudget interface {
	CheckRows(what string, rows int64, types []Type) error
}

// Column is a device-resident column produced by one Device and usable only
// with that Device. Release frees its memory; a released column must not be
// used again.
type Column interface {
	Type() Type
	Len() int
	// Dictionary returns the sorted dictionary of a Dict column (nil otherwise).
	Dictionary() *array.String
	Release()
}

// PackedColumn is a column a device may hold packed (gpu/cuda packs
// integer table columns with gpu/forpack), whose values then take other
// than Len() x the kind's width bytes.
type PackedColumn interface {
	// PackedBytes is the bytes of the packed values, what a kernel that
	// reads the column reads; 0 when the column is not packed.
	PackedBytes() int64
	// ValueBytes is the device memory the values hold: packed, plus the
	// plain copy an operation that reads values in place made.
	ValueBytes() int64
}

// ScanBytes is the bytes a kernel reads of col's values (packed or plain;
// a Str column's characters not included).
func ScanBytes(col Column) int64 {
	if p, ok := col.(PackedColumn); ok {
		if n := p.PackedBytes(); n > 0 {
			return n
		}
	}
	return PlainBytes(col)
}

// ValueBytes is the device memory col's values hold (a Str column's
// characters not included).
func ValueBytes(col Column) int64 {
	if p, ok := col.(PackedColumn); ok {
		return p.ValueBytes()
	}
	return PlainBytes(col)
}

// PlainBytes is the bytes col's values take plain, Len() x the kind's
// width, whether the device holds them so or packed (a Str column's
// characters not included).
func PlainBytes(col Column) int64 { return int64(col.Len()) * int64(col.Type().Kind.Width()) }

// Info describes a device for `rigel doctor` and EXPLAIN.
type Info struct {
	Name        string // "cuda" or "host"
	Model       string // e.g. "NVIDIA H100 80GB HBM3"
	Driver      string // driver version, where there is one
	Compiler    string // NVRTC version and library path, where there is one
	Arch        string // e.g. "sm_90"
	TotalMemory int64  // bytes
	FreeMemory  int64  // bytes
	KernelCache string // folder of the on-disk kernel cache
	Multiprocs  int
}

// Stats counts what a device did, for benchmarks and tests. Devices add to
// it; callers read and reset it.
type Stats struct {
	BytesUploaded   int64 // host -> device
	BytesDownloaded int64 // device -> host
	KernelLaunches  int64
	KernelsCompiled int64 // cache misses that ran the compiler
	CompileNanos    int64 // the time those compiles took
	// KernelsAhead counts those of KernelsCompiled that compiled in the
	// background (foreseen by Precompiler, or the device's own kernels
	// from its start-up); CompileWaitNanos is the time runs stood waiting
	// for the compiler: a compile in their way, or the rest of one
	// started ahead.
	KernelsAhead     int64
	CompileWaitNanos int64
	// ProgramRuns counts the pipelines that ran on precompiled kernels
	// (an interpreter of the pipeline's program) because their own
	// kernel was not compiled yet; FusedDeferred the fused joins that
	// gave way to the composed join for the same reason.
	ProgramRuns   int64
	FusedDeferred int64
	DeviceNanos   int64 // time spent in kernels, from device events (see KernelTimer)
	// HostWaits counts the times the host stopped to wait for the device
	// (to read back a row count, a status word or a result), and
	// HostWaitNanos the wall time it spent waiting: the round trips that
	// keep the device idle while the host decides what to launch next.
	HostWaits     int64
	HostWaitNanos int64
	// BytesLive is the device memory held right now by columns and
	// intermediates (not the allocator's cached free blocks): a leak shows
	// as growth across queries. A gauge, not reset by ResetStats. The host
	// device counts the Go memory its columns and running operations hold
	// against its budget (gpu/host's Options.MemoryLimit).
	BytesLive int64
	// PeakBytesLive is the most BytesLive reached since the last
	// ResetStats (a run's peak: the engine resets before each run).
	PeakBytesLive int64
}

// Since returns what the device did between before and s (two readings of
// one device's counters, no reset between): the counters' differences,
// BytesLive and PeakBytesLive as s has them.
func (s Stats) Since(before Stats) Stats {
	return Stats{
		BytesUploaded:    s.BytesUploaded - before.BytesUploaded,
		BytesDownloaded:  s.BytesDownloaded - before.BytesDownloaded,
		KernelLaunches:   s.KernelLaunches - before.KernelLaunches,
		KernelsCompiled:  s.KernelsCompiled - before.KernelsCompiled,
		CompileNanos:     s.CompileNanos - before.CompileNanos,
		KernelsAhead:     s.KernelsAhead - before.KernelsAhead,
		CompileWaitNanos: s.CompileWaitNanos - before.CompileWaitNanos,
		ProgramRuns:      s.ProgramRuns - before.ProgramRuns,
		FusedDeferred:    s.FusedDeferred - before.FusedDeferred,
		DeviceNanos:      s.DeviceNanos - before.DeviceNanos,
		HostWaits:        s.HostWaits - before.HostWaits,
		HostWaitNanos:    s.HostWaitNanos - before.HostWaitNanos,
		BytesLive:        s.BytesLive,
		PeakBytesLive:    s.PeakBytesLive,
	}
}

// KernelTimer is a device whose kernel timing (Stats.DeviceNanos) costs
// host time on every launch, and is therefore off until asked for. The
// CUDA device records two events around each kernel and reads them back:
// about 8 µs of host time a launch, a third of rigel's host time over a
// TPC-H query mix on the H100 (session 19 device run 2, a CPU profile).
// Benchmarks time their runs with it off, then turn it on for one more.
type KernelTimer interface {
	TimeKernels(on bool)
}

// Device runs the kernel IR over its own columns. Methods may be called from
// any goroutine; a Device serializes what must be serialized.
type Device interface {
	Info() Info

	// Upload copies an Arrow array into device memory. Strings (utf8, large
	// utf8) are dictionary-encoded (see EncodeDictionary); booleans widen to
	// one byte a value; decimal128 arrays with precision <= 18 become
	// Decimal64. Arrays of other types give ErrUnsupported.
	Upload(ctx context.Context, arr arrow.Array) (Column, error)

	// Run executes a pipeline over equally long input columns whose types
	// match p.Inputs, and returns its output columns (p.OutputTypes()).
	Run(ctx context.Context, p *Pipeline, inputs []Column) ([]Column, error)

	// Sort returns the columns reordered by keys (stable). With limit > 0
	// only the first limit rows are returned.
	Sort(ctx context.Context, cols []Column, keys []SortKey, limit int) ([]Column, error)

	// HashJoin, Gather, Unmatched and Concat: the join and union
	// primitives, specified in join.go.
	HashJoin(ctx context.Context, build, probe []Column, nullsEqual []bool) (probeIdx, buildIdx Column, err error)
	Gather(ctx context.Context, cols []Column, idx Column, padNulls bool) ([]Column, error)
	Unmatched(ctx context.Context, idx Column, n int) (Column, error)
	Concat(ctx context.Context, parts [][]Column) ([]Column, error)

	// Download copies a column back into an Arrow array of the type that
	// ArrowType gives: Dict becomes utf8, Bool becomes boolean, decimals
	// become decimal128(precision, scale).
	Download(ctx context.Context, col Column) (arrow.Array, error)

	// Stats returns the counters since the last ResetStats.
	Stats() Stats
	ResetStats()

	// Close frees every resource of the device; its columns become invalid.
	Close() error
}

// SegmentUploader is implemented by devices that fill a table column a
// segment at a time: the host then holds one segment of a column instead
// of all of it (TPC-H SF100's lineitem columns are 4.8 GB each). segments
// runs the reading: it calls put with each segment's array in row order
// (put owns it) and returns put's first error. The column is the one
// Upload makes of the segments one after the other: rows rows, nullable
// when any segment has nulls, Dict with the segments' one dictionary.
type SegmentUploader interface {
	UploadSegments(ctx context.Context, rows int, segments func(put func(arrow.Array) error) error) (Column, error)
}

// BatchDownloader is implemented by devices that copy several columns back
// faster together than one by one (one synchronization instead of one per
// column). The engine uses it where a device offers it.
type BatchDownloader interface {
	DownloadAll(ctx context.Context, cols []Column) ([]arrow.Array, error)
}
