// Package cuda is rigel's NVIDIA GPU device: the CUDA driver API and NVRTC
// reached through cgo and dlopen (no CUDA toolkit at build time), fused
// pipeline kernels generated from the kernel IR, a pool allocator for
// intermediates, and pinned, double-buffered uploads.
package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	_ "embed"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/gpu"
)

//go:embed kernels/prelude.cuh
var preludeSrc string

// stagingChunk is the size of each of the two pinned upload buffers.
const stagingChunk = 16 << 20

// Device is a gpu.Device on one NVIDIA GPU. Its methods may be called from
// any goroutine: mu serializes the work on the device's stream (and the
// restores on the copy stream beside it, copystream.go).
type Device struct {
	mu     sync.Mutex
	dev    C.CUdevice
	cx     ctx
	stream C.CUstream
	// copyStream carries restores beside the kernels, syncEvents order it
	// and stream (copystream.go).
	copyStream C.CUstream
	syncEvents []C.CUevent
	pin        [2]unsafe.Pointer
	pinEv      [2]C.CUevent
	// The small-upload ring (transfer.go): pinned slots, each with the
	// event of its last copy.
	ring     unsafe.Pointer
	ringEv   [ringSlots]C.CUevent
	ringNext int
	evA      C.CUevent
	evB      C.CUevent
	// Kernel timing events: queued pairs and a free list (timing.go).
	pendingTimers, freeTimers []eventPair
	// timeKernels turns kernel timing on (gpu.KernelTimer; d.mu).
	timeKernels bool
	info        gpu.Info
	arch        string
	sms         int
	maxShared   int // dynamic shared memory a block may have (opt-in limit)
	pool        *pool
	// mods are the loaded modules by their source text: a map lookup
	// hashes it far faster than the disk cache's SHA-256 key, which is
	// computed only on a miss (every pipeline run looks its module up).
	mods map[string]*module
	// The hand-written modules (kernelfiles.go), once loaded.
	util, join, sortRange, topk, bitonic, program, window *module
	// refusals memoizes RefuseExpr's answers (refuse.go).
	refusals sync.Map
	// pending are the background compiles (compile_ahead.go) not yet
	// taken, by source text: full ones, and the quick ones of generated
	// kernels foreseen by Precompile. quick holds the quick modules
	// (kernelModule), in use until the full one is loaded.
	pending, pendingQuick map[string]*pendingCompile
	quick                 map[string]*module
	status                uint64            // 4-byte device word kernels raise flags in
	programMode           programMode       // when pipelines run on the interpreter (program_run.go)
	readyCalls            map[readyKey]bool // fused join calls whose kernels were ready (deferFused)
	closed                bool
	// opCtx is the running operation's ctx, which launches and waits
	// check (cancel.go; d.mu).
	opCtx context.Context

	st struct {
		up, down, launches, compiled, compileNanos, ahead, compileWait, nanos, waits, waitNanos atomic.Int64
		programRuns, deferred                                                                   atomic.Int64
	}
	// direct: blocks allocated outside the pool and their sizes (d.mu).
	direct      map[uint64]int64
	directBytes int64
	// spilled are the host copies not yet released (spill.go): Close
	// frees their pinned memory with the context's.
	spilled map[*hostCopy]struct{}
	pinned  pinnedPool // their released buffers, for the next (pinned.go)
	// tables: string-function tables kept on the device (strtables_dev.go).
	tables devTableCache
	srcs   srcMemo // generated sources (srcmemo.go)
}

var (
	_ gpu.Device      = (*Device)(nil)
	_ gpu.KernelTimer = (*Device)(nil)
)

// Open opens GPU 0. The error wraps gpu.ErrNoDevice with a one-line reason
// when the driver, NVRTC or a GPU is missing.
func Open() (*Device, error) {
	if err := loadDriver(); err != nil {
		return nil, err
	}
	var n C.int
	if r := C.rg_device_count(&n); r != 0 {
		return nil, fmt.Errorf("cuDeviceGetCount: %s: %w", C.GoString(C.rg_cu_error_name(r)), gpu.ErrNoDevice)
	}
	if n == 0 {
		return nil, fmt.Errorf("the CUDA driver sees no GPU: %w", gpu.ErrNoDevice)
	}
	if err := loadNVRTC(); err != nil {
		return nil, err
	}
	d := &Device{programMode: defaultProgramMode, readyCalls: map[readyKey]bool{}, mods: map[string]*module{}, quick: map[string]*module{}, pending: map[string]*pendingCompile{}, pendingQuick: map[string]*pendingCompile{}}
	if err := check(C.rg_device_get(&d.dev, 0), "cuDeviceGet 0"); err != nil {
		return nil, fmt.Errorf("%v: %w", err, gpu.ErrNoDevice)
	}
	var major, minor, sms, shared C.int
	if err := firstErr(
		check(C.rg_device_attr(&major, 75, d.dev), "cuDeviceGetAttribute compute capability major"),
		check(C.rg_device_attr(&minor, 76, d.dev), "cuDeviceGetAttribute compute capability minor"),
		check(C.rg_device_attr(&sms, 16, d.dev), "cuDeviceGetAttribute multiprocessor count"),
		check(C.rg_device_attr(&shared, 97, d.dev), "cuDeviceGetAttribute shared memory per block (opt-in)"),
	); err != nil {
		return nil, err
	}
	d.arch = fmt.Sprintf("sm_%d%d", major, minor)
	d.sms = int(sms)
	d.maxShared = int(shared)
	var c C.CUcontext
	if err := check(C.rg_primary_ctx_retain(&c, d.dev), "cuDevicePrimaryCtxRetain"); err != nil {
		return nil, fmt.Errorf("%v: %w", err, gpu.ErrNoDevice)
	}
	d.cx = ctx{c}
	if err := d.init(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (d *Device) init() error {
	c := d.cx.c
	if err := check(C.rg_stream_create(c, &d.stream), "cuStreamCreate"); err != nil {
		return err
	}
	for i := range d.pin {
		if err := check(C.rg_host_alloc(c, &d.pin[i], stagingChunk), "cuMemHostAlloc 16 MiB staging buffer"); err != nil {
			return err
		}
		if err := check(C.rg_event_create(c, &d.pinEv[i]), "cuEventCreate"); err != nil {
			return err
		}
	}
	if err := check(C.rg_host_alloc(c, &d.ring, ringSlots*ringSlotBytes), "cuMemHostAlloc small-upload ring"); err != nil {
		return err
	}
	for i := range d.ringEv {
		if err := check(C.rg_event_create(c, &d.ringEv[i]), "cuEventCreate"); err != nil {
			return err
		}
	}
	if err := firstErr(check(C.rg_event_create(c, &d.evA), "cuEventCreate"),
		check(C.rg_event_create(c, &d.evB), "cuEventCreate")); err != nil {
		return err
	}
	d.pool = newPool(d.cx, &d.directBytes)
	var err error
	if d.status, err = d.cx.alloc(8, "kernel status word"); err != nil {
		return err
	}
	// The hand-written modules are built in (prebuilt.go) where the GPU's
	// architecture allows: moduleFor loads them when first needed.
	// Otherwise the join and sort kernels and the interpreter compile in
	// the background while the utility module, which every query needs,
	// compiles here.
	d.compileAhead(context.Background(), withoutPrebuilt(backgroundFiles, d.arch), levelFull)
	if d.util, err = d.moduleFor(utilFile.src, utilFile.name); err != nil {
		return err
	}
	var name [256]C.char
	var drv C.int
	var total, free C.size_t
	C.rg_device_name(&name[0], 256, d.dev)
	C.rg_driver_version(&drv)
	C.rg_mem_info(c, &free, &total)
	d.info = gpu.Info{
		Name: "cuda", Model: C.GoString(&name[0]),
		Driver:      fmt.Sprintf("CUDA driver %d.%d", drv/1000, (drv%1000)/10),
		Compiler:    nvrtcVer,
		Arch:        d.arch,
		TotalMemory: int64(total), FreeMemory: int64(free),
		KernelCache: kernelCacheDir(), Multiprocs: d.sms,
	}
	return nil
}

// moduleFor returns the loaded module of src, a hand-written module
// (kernelfiles.go), loading it on first use: its built-in CUBIN
// (prebuilt.go), else compiled through the disk cache. Callers hold d.mu
// or are in Open.
func (d *Device) moduleFor(src, name string) (*module, error) {
	if m, ok := d.mods[src]; ok {
		return m, nil
	}
	if cubin, ok := prebuiltCubin(kernelFile{name, src}, d.arch); ok {
		if m, err := d.load(src, cubin); err == nil {
			return m, nil
		} // the driver refused it: compiled below
	}
	t0 := time.Now()
	if p, ok := d.pending[src]; ok {
		delete(d.pending, src)
		<-p.done // counted and traced when it finished
		if p.err != errDropped {
			d.st.compileWait.Add(time.Since(t0).Nanoseconds())
			if p.err != nil {
				return nil, p.err
			}
			return d.load(src, p.cubin)
		}
	}
	cubin, compiled, err := compileCached(src, name, d.arch, levelFull)
	took := time.Since(t0)
	d.st.compileWait.Add(took.Nanoseconds())
	if err != nil {
		return nil, err
	}
	if compiled {
		d.countCompile(src, name, took, false, levelFull)
	}
	return d.load(src, cubin)
}

// countCompile adds a compile at level l to the stats, the trace
// (RIGEL_TRACE) and the dump folder (RIGEL_KERNEL_DUMP); ahead: it ran in
// the background, not in a run's way.
func (d *Device) countCompile(src, name string, took time.Duration, ahead bool, l compileLevel) {
	d.st.compiled.Add(1)
	d.st.compileNanos.Add(took.Nanoseconds())
	how := ""
	if l == levelQuick {
		how = " quick"
	}
	if ahead {
		d.st.ahead.Add(1)
		how += " (in the background)"
	}
	if traceKernels {
		fmt.Fprintf(os.Stderr, "rigel: compiled %s (%d bytes) in %.1f ms%s\n", name, len(src), float64(took.Nanoseconds())/1e6, how)
	}
	dumpKernelSource(src, name)
}

// load loads a CUBIN as src's module. Callers hold d.mu or are in Open.
func (d *Device) load(src string, cubin []byte) (*module, error) {
	m, err := d.cx.loadModule(cubin)
	if err != nil {
		return nil, err
	}
	d.mods[src] = m
	return m, nil
}

// Info describes the GPU; FreeMemory is read now.
func (d *Device) Info() gpu.Info {
	d.mu.Lock()
	defer d.mu.Unlock()
	in := d.info
	if !d.closed {
		var total, free C.size_t
		if C.rg_mem_info(d.cx.c, &free, &total) == 0 {
			in.FreeMemory = int64(free)
		}
	}
	return in
}

func (d *Device) Stats() gpu.Stats {
	d.mu.Lock()
	var live, peak int64
	if !d.closed {
		d.settleTimers()
		live = d.pool.live + d.directBytes
		peak = max(d.pool.peak, live)
	}
	d.mu.Unlock()
	return gpu.Stats{
		BytesUploaded: d.st.up.Load(), BytesDownloaded: d.st.down.Load(),
		KernelLaunches: d.st.launches.Load(), KernelsCompiled: d.st.compiled.Load(),
		CompileNanos: d.st.compileNanos.Load(), KernelsAhead: d.st.ahead.Load(),
		CompileWaitNanos: d.st.compileWait.Load(),
		ProgramRuns:      d.st.programRuns.Load(), FusedDeferred: d.st.deferred.Load(),
		DeviceNanos: d.st.nanos.Load(), BytesLive: live, PeakBytesLive: peak,
		HostWaits: d.st.waits.Load(), HostWaitNanos: d.st.waitNanos.Load(),
	}
}

// TimeKernels turns kernel timing (Stats.DeviceNanos) on or off
// (gpu.KernelTimer). It starts off.
func (d *Device) TimeKernels(on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.timeKernels = on
}

func (d *Device) ResetStats() {
	d.mu.Lock()
	if !d.closed {
		d.settleTimers() // earlier kernels belong to the earlier count
		d.pool.peak = d.pool.live + d.directBytes
	}
	d.mu.Unlock()
	d.st.up.Store(0)
	d.st.down.Store(0)
	d.st.launches.Store(0)
	d.st.compiled.Store(0)
	d.st.compileNanos.Store(0)
	d.st.ahead.Store(0)
	d.st.compileWait.Store(0)
	d.st.programRuns.Store(0)
	d.st.deferred.Store(0)
	d.st.nanos.Store(0)
	d.st.waits.Store(0)
	d.st.waitNanos.Store(0)
}

// Close frees the pool, staging buffers, modules and the stream, and
// releases the primary context.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	c := d.cx.c
	var errs []string
	note := func(err error) {
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	if d.stream != nil {
		note(d.cx.sync(d.stream, "close"))
	}
	d.closeCopyStream(note)
	d.destroyTimers()
	d.dropStrTables()
	if d.pool != nil {
		note(d.pool.drain())
	}
	// Columns still held (the column cache's uploads) are freed here: the
	// context may outlive this device (it is the primary context), and
	// their Release after Close finds the device closed and frees nothing.
	for p := range d.direct {
		note(d.cx.free(p))
	}
	d.direct, d.directBytes = nil, 0
	for h := range d.spilled {
		h.freePinned()
	}
	d.spilled = nil
	d.pinnedDrain()
	if d.status != 0 {
		note(d.cx.free(d.status))
	}
	for _, m := range append(slices.Collect(maps.Values(d.mods)), slices.Collect(maps.Values(d.quick))...) {
		note(check(C.rg_module_unload(c, m.m), "cuModuleUnload"))
	}
	for i := range d.pin {
		if d.pin[i] != nil {
			note(check(C.rg_host_free(c, d.pin[i]), "cuMemFreeHost"))
		}
		if d.pinEv[i] != nil {
			note(check(C.rg_event_destroy(c, d.pinEv[i]), "cuEventDestroy"))
		}
	}
	if d.ring != nil {
		note(check(C.rg_host_free(c, d.ring), "cuMemFreeHost"))
	}
	for _, e := range append([]C.CUevent{d.evA, d.evB}, d.ringEv[:]...) {
		if e != nil {
			note(check(C.rg_event_destroy(c, e), "cuEventDestroy"))
		}
	}
	if d.stream != nil {
		note(check(C.rg_stream_destroy(c, d.stream), "cuStreamDestroy"))
	}
	note(check(C.rg_primary_ctx_release(d.dev), "cuDevicePrimaryCtxRelease"))
	if len(errs) > 0 {
		return fmt.Errorf("closing CUDA device: %s", strings.Join(errs, "; "))
	}
	return nil
}

// column is a device-resident column. data holds Len values of Type's
// width; valid, when non-zero, holds one byte per row (1 = not null):
// bytes rather than bits so that kernels write validity without atomics.
type column struct {
	d      *Device
	t      gpu.Type
	n      int
	data   uint64
	valid  uint64
	dict   *array.String
	pooled bool // intermediates come from the pool, uploads do not
	freed  atomic.Bool
	// str: a Str column's characters (strcol_strings.go), shared by the
	// columns made from the same upload. data holds the upload's Len()+1
	// int32 offsets, or, when views is set, one 64-bit view per row.
	str   *strChars
	views bool
	// pack: the column is held packed (packed.go); data is 0 until an
	// operation that reads values in place unpacks it.
	pack *packedColumn
	// ready: the event of the copies that restored the column on the copy
	// stream, until the device's stream waits for it (copystream.go).
	ready C.CUevent
}

func (c *column) Type() gpu.Type            { return c.t }
func (c *column) Len() int                  { return c.n }
func (c *column) Dictionary() *array.String { return c.dict }

func (c *column) Release() {
	if c.freed.Swap(true) {
		return
	}
	d := c.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed { // the device memory went with the context
		if c.dict != nil {
			c.dict.Release()
		}
		return
	}
	d.freeColumn(c)
}

// asColumns checks that cols belong to d and are live, and unpacks packed
// ones.
func (d *Device) asColumns(cols []gpu.Column) ([]*column, error) { return d.checkColumns(cols, 0) }

// accepts are the column forms an operation takes beyond plain values.
type accepts uint8

const (
	acceptStr    accepts = 1 << iota // Str columns (strcol_strings.go)
	acceptPacked                     // packed columns, read through inputArgs (packed.go)
)

// checkColumns is asColumns; takes lets Str columns through, or packed ones
// as they are (else they are unpacked: packed.go). Callers hold d.mu.
func (d *Device) checkColumns(cols []gpu.Column, takes accepts) ([]*column, error) {
	out := make([]*column, len(cols))
	for i, c := range cols {
		cc, ok := c.(*column)
		if !ok || cc.d != d {
			return nil, fmt.Errorf("column %d was not made by this CUDA device", i)
		}
		if cc.freed.Load() {
			return nil, fmt.Errorf("column %d was released", i)
		}
		if err := d.awaitCopy(cc); err != nil {
			return nil, fmt.Errorf("column %d: %w", i, err)
		}
		if cc.t.Kind == gpu.Str && takes&acceptStr == 0 { // see strcol_strings.go
			return nil, fmt.Errorf("column %d is a str column, which this operation does not take: %w", i, gpu.ErrUnsupported)
		}
		if takes&acceptPacked == 0 {
			if err := d.unpack(cc); err != nil {
				return nil, fmt.Errorf("column %d: %w", i, err)
			}
		}
		out[i] = cc
	}
	return out, nil
}

// timedLaunch launches a kernel, between two timing events (read later, see
// timing.go) when kernel timing is on. Callers hold d.mu.
func (d *Device) timedLaunch(m *module, name string, grid, block, shmem int, args []uint64) error {
	if err := d.cancelled(); err != nil {
		return err
	}
	f, err := d.cx.function(m, name)
	if err != nil {
		return err
	}
	// Every kernel here is a grid-stride loop, so any grid covers its rows
	// or tiles: launch at most one wave. gridFor's eight blocks per
	// multiprocessor fit only when a thread needs at most 32 registers; a
	// kernel that needs 48 (a hash aggregate) holds five, and its last
	// three blocks ran as a second wave after the first five, each with
	// the same share of rows (TPC-H Q15 at SF10: 1.6 waves, ncu, device
	// run 1 of session 17).
	if err := d.cx.allowShared(m, f, name, shmem); err != nil {
		return err
	}
	if res, err := d.cx.residentBlocks(m, f, name, block, shmem); err != nil {
		return err
	} else if wave := d.sms * max(res, 1); grid > wave {
		grid = wave
	}
	if !d.timeKernels && !traceKernels {
		if err := d.cx.launch(f, grid, block, shmem, d.stream, args, name); err != nil {
			return err
		}
		d.st.launches.Add(1)
		return nil
	}
	timer, err := d.timerStart()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := d.cx.launch(f, grid, block, shmem, d.stream, args, name); err != nil {
		d.freeTimers = append(d.freeTimers, timer)
		return err
	}
	d.st.launches.Add(1)
	if traceKernels {
		// Tracing serializes the stream: each kernel's own time, for
		// finding the slow one, never for benchmarks.
		err := d.cx.sync(d.stream, name)
		fmt.Fprintf(os.Stderr, "rigel trace: kernel %-24s grid %6d x %4d  %9.3f ms\n", name, grid, block, float64(time.Since(start).Microseconds())/1000)
		if err != nil {
			d.freeTimers = append(d.freeTimers, timer)
			return err
		}
	}
	return d.timerStop(timer)
}

// traceKernels (RIGEL_TRACE=1) prints every kernel launch with its time.
var traceKernels = os.Getenv("RIGEL_TRACE") == "1"

// gridFor picks a grid-stride grid: enough blocks to fill every SM a few
// times over, fewer for small inputs.
func (d *Device) gridFor(n int64, block int) int {
	g := (n + int64(block) - 1) / int64(block)
	max := int64(d.sms * 8)
	if g > max {
		g = max
	}
	if g < 1 {
		g = 1
	}
	return int(g)
}
