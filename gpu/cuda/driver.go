package cuda

/*
#cgo LDFLAGS: -ldl -lpthread
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/rigel-db/rigel/gpu"
)

// cuError is a failed driver call: what was being done and the CUDA name.
type cuError struct {
	what string
	code C.CUresult
	name string
}

func (e *cuError) Error() string { return e.what + ": " + e.name }

// Unwrap lets errors.Is(err, gpu.ErrOutOfMemory) see an allocation failure.
func (e *cuError) Unwrap() error {
	if e.name == "CUDA_ERROR_OUT_OF_MEMORY" {
		return gpu.ErrOutOfMemory
	}
	return nil
}

func check(r C.CUresult, format string, args ...any) error {
	if r == 0 {
		return nil
	}
	return &cuError{what: fmt.Sprintf(format, args...), code: r, name: C.GoString(C.rg_cu_error_name(r))}
}

var (
	loadCudaOnce sync.Once
	loadCudaErr  error
)

// loadDriver dlopens libcuda.so.1 and runs cuInit once per process.
func loadDriver() error {
	loadCudaOnce.Do(func() {
		if msg := C.rg_load_cuda(); msg != nil {
			loadCudaErr = fmt.Errorf("%s: %w", C.GoString(msg), gpu.ErrNoDevice)
			return
		}
		if r := C.rg_init(); r != 0 {
			loadCudaErr = fmt.Errorf("cuInit: %s: %w", C.GoString(C.rg_cu_error_name(r)), gpu.ErrNoDevice)
		}
	})
	return loadCudaErr
}

// ctx wraps a CUDA context; every call through it makes it current on the
// calling thread inside the same C call (see shim.h).
type ctx struct{ c C.CUcontext }

func (x ctx) alloc(n int64, what string) (uint64, error) {
	var p C.CUdeviceptr
	if n <= 0 {
		n = 1
	}
	if err := check(C.rg_mem_alloc(x.c, &p, C.size_t(n)), "cuMemAlloc %s for %s", humanBytes(n), what); err != nil {
		return 0, err
	}
	return uint64(p), nil
}

func (x ctx) free(p uint64) error {
	return check(C.rg_mem_free(x.c, C.CUdeviceptr(p)), "cuMemFree")
}

func (x ctx) memset(p uint64, v byte, n int64, s C.CUstream) error {
	if n == 0 {
		return nil
	}
	return check(C.rg_memset8(x.c, C.CUdeviceptr(p), C.uchar(v), C.size_t(n), s), "cuMemsetD8Async %s", humanBytes(n))
}

func (x ctx) sync(s C.CUstream, what string) error {
	return check(C.rg_stream_sync(x.c, s), "cuStreamSynchronize after %s", what)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// module is a loaded CUBIN.
type module struct {
	m     C.CUmodule
	funcs map[string]C.CUfunction
	// resident memoizes residentBlocks per function and launch shape.
	resident map[residentKey]int
	// shared is the dynamic shared memory each function's launches were
	// allowed (allowShared).
	shared map[string]int
	// constPtr is the device address of the module's constant array (0
	// until first written), constWords what it holds (constants.go).
	constPtr   uint64
	constWords []uint64
}

type residentKey struct {
	name         string
	block, shmem int
}

func (x ctx) loadModule(cubin []byte) (*module, error) {
	var m C.CUmodule
	p := C.CBytes(cubin)
	defer C.free(p)
	if err := check(C.rg_module_load(x.c, &m, p), "cuModuleLoadData (%d-byte CUBIN)", len(cubin)); err != nil {
		return nil, err
	}
	return &module{m: m, funcs: map[string]C.CUfunction{}, resident: map[residentKey]int{}}, nil
}

func (x ctx) function(m *module, name string) (C.CUfunction, error) {
	if f, ok := m.funcs[name]; ok {
		return f, nil
	}
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var f C.CUfunction
	if err := check(C.rg_module_function(x.c, &f, m.m, cn), "cuModuleGetFunction %s", name); err != nil {
		return nil, err
	}
	m.funcs[name] = f
	return f, nil
}

// residentBlocks is how many blocks of m's function name, launched with
// block threads and shmem bytes of dynamic shared memory, one
// multiprocessor holds at once (its registers and shared memory decide).
func (x ctx) residentBlocks(m *module, f C.CUfunction, name string, block, shmem int) (int, error) {
	k := residentKey{name, block, shmem}
	if n, ok := m.resident[k]; ok {
		return n, nil
	}
	var n C.int
	if err := check(C.rg_resident_blocks(x.c, &n, f, C.int(block), C.size_t(shmem)),
		"cuOccupancyMaxActiveBlocksPerMultiprocessor %s (block %d)", name, block); err != nil {
		return 0, err
	}
	m.resident[k] = int(n)
	return int(n), nil
}

// staticSharedSlack is what the hand-written kernels' static shared
// memory may take beside the dynamic (their __shared__ arrays: at most
// 128 bytes today).
const staticSharedSlack = 1 << 10

// allowShared lets f's launches ask for bytes of dynamic shared memory
// (the device's opt-in limit bounds it: Device.maxShared). Without it a
// launch gets 48 KiB less the function's static shared memory: a
// pg_agg_hash of 12 registers, 48 KiB dynamic and 16 bytes static, failed
// with CUDA_ERROR_INVALID_VALUE (bench/results/2026-11-28-h100-tpch-sf10-first-run-v28-shared-registers.md).
func (x ctx) allowShared(m *module, f C.CUfunction, name string, bytes int) error {
	if bytes == 0 || m.shared[name] >= bytes {
		return nil
	}
	if err := check(C.rg_func_max_shared(x.c, f, C.int(bytes)), "cuFuncSetAttribute %s (%d bytes of shared memory)", name, bytes); err != nil {
		return err
	}
	if m.shared == nil {
		m.shared = map[string]int{}
	}
	m.shared[name] = bytes
	return nil
}

// launch starts f with one kernel parameter: a block of 64-bit words that
// the kernel reads as `const Args` (see kernels/prelude.cuh).
func (x ctx) launch(f C.CUfunction, grid, block int, shmem int, s C.CUstream, args []uint64, what string) error {
	if len(args) > maxArgs {
		return fmt.Errorf("launch %s: %d argument words, at most %d: %w", what, len(args), maxArgs, gpu.ErrUnsupported)
	}
	blk := (*[maxArgs]uint64)(C.calloc(maxArgs, 8))
	defer C.free(unsafe.Pointer(blk))
	copy(blk[:], args)
	return check(C.rg_launch(x.c, f, C.uint(grid), C.uint(block), C.uint(shmem), s, unsafe.Pointer(blk)),
		"cuLaunchKernel %s (grid %d, block %d)", what, grid, block)
}

// maxArgs is the size of the Args struct every kernel takes (prelude.cuh).
const maxArgs = 256
