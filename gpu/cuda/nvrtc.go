package cuda

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/rigel-db/rigel/gpu"
)

// nvrtcCandidates lists where NVRTC is looked for, in order: RIGEL_NVRTC,
// the loader's search path, then the usual toolkit folders.
func nvrtcCandidates() []string {
	var c []string
	if p := os.Getenv("RIGEL_NVRTC"); p != "" {
		c = append(c, p)
	}
	names := []string{"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"}
	c = append(c, names...)
	for _, dir := range []string{"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"} {
		for _, n := range names {
			c = append(c, filepath.Join(dir, n))
		}
	}
	return c
}

var (
	nvrtcOnce sync.Once
	nvrtcErr  error
	nvrtcVer  string
	// nvrtcSlots bounds the compiles that run at once (each holds a few
	// hundred MB while it runs): one a CPU, at most 8. NVRTC compiles
	// programs in parallel when its cache does not answer: 136 TPC-H
	// kernels took 25.2 s one after another, 8.4 s on 4 threads, 5.0 s on
	// 8 (H100 machine, 16 CPUs,
	// bench/results/2026-11-27-h100-tpch-sf10-all22-v21-flush-calls.md).
	nvrtcSlots = make(chan struct{}, min(max(runtime.NumCPU(), 1), 8))
)

// loadNVRTC finds and loads NVRTC once. It needs no GPU and no driver.
func loadNVRTC() error {
	nvrtcOnce.Do(func() {
		var tried []string
		for _, p := range nvrtcCandidates() {
			preloadBuiltins(p)
			cp := C.CString(p)
			msg := C.rg_load_nvrtc(cp)
			C.free(unsafe.Pointer(cp))
			if msg == nil {
				var maj, min C.int
				if r := C.rg_nvrtc_version(&maj, &min); r != 0 {
					nvrtcErr = fmt.Errorf("nvrtcVersion: %s", C.GoString(C.rg_nvrtc_error_string(r)))
					return
				}
				nvrtcVer = fmt.Sprintf("NVRTC %d.%d (%s)", maj, min, p)
				return
			}
			tried = append(tried, C.GoString(msg))
		}
		nvrtcErr = fmt.Errorf("NVRTC not found (set RIGEL_NVRTC to libnvrtc.so's path): %s: %w",
			strings.Join(tried, "; "), gpu.ErrNoDevice)
	})
	return nvrtcErr
}

// preloadBuiltins loads libnvrtc-builtins from the folder of an NVRTC given
// by path, where there is one.
func preloadBuiltins(lib string) {
	if !strings.Contains(lib, "/") {
		return
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(lib), "libnvrtc-builtins.so.*"))
	for _, m := range matches {
		cm := C.CString(m)
		ok := C.rg_preload(cm)
		C.free(unsafe.Pointer(cm))
		if ok != 0 {
			return
		}
	}
}

// extraOpts are appended to every compile (tests ask ptxas for its
// resource report through it).
var extraOpts []string

// compileOptions are the NVRTC options for arch (e.g. "sm_90").
//
// -fmad=false: every float multiply and add rounds on its own, as DuckDB's
// (x86-64 code without FMA) and the host device's do. NVCC's default
// contracts a multiply and an add or subtract into one FMA, also across
// the statements generated code writes for each operation: a window's
// x = p / q - t * 1e4 then came out a last bit away from DuckDB's once its
// kernel had compiled (the interpreter, which stores each result, agreed),
// and conformance's TestWindowSumsCuda failed (device call 2 of
// 2026-11-29's 04:28 session). Rigel's kernels compute in integers and
// decimals where they are hot; floats are rare enough that the FMA's speed
// does not show.
func compileOptions(arch string) []string {
	return append([]string{"-arch=" + arch, "-std=c++17", "-default-device", "--device-int128", "-fmad=false"}, extraOpts...)
}

// compileLevel: a generated kernel compiles quick first where a run would
// wait for it, then full in the background (kernelModule). Quick is
// NVRTC's --Ofast-compile=mid: a third less compile time for kernels up
// to 14% slower (H100, bench/results/2026-11-27-h100-tpch-sf10-first-run-nvrtc-cache.md;
// about the same on the build machine), a good trade for one run and a
// bad one for every later run.
type compileLevel uint8

const (
	levelFull compileLevel = iota
	levelQuick
)

func (l compileLevel) options(arch string) []string {
	if l == levelQuick {
		return append(compileOptions(arch), "--Ofast-compile=mid")
	}
	return compileOptions(arch)
}

// nvrtcCompile compiles src for arch at level l and returns the CUBIN and
// the log (warnings; empty when clean).
func nvrtcCompile(src, name, arch string, l compileLevel) (cubin []byte, log string, err error) {
	if err := loadNVRTC(); err != nil {
		return nil, "", err
	}
	nvrtcSlots <- struct{}{}
	defer func() { <-nvrtcSlots }()
	return nvrtcCompileWith(src, name, l.options(arch))
}

// nvrtcCompileWith compiles src with opts without taking a slot: the
// caller decides what compiles at once (TestCompileCost times threads).
func nvrtcCompileWith(src, name string, opts []string) (cubin []byte, log string, err error) {
	copts := make([]*C.char, len(opts))
	for i, o := range opts {
		copts[i] = C.CString(o)
		defer C.free(unsafe.Pointer(copts[i]))
	}
	csrc := C.CString(src)
	defer C.free(unsafe.Pointer(csrc))
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var clog, ccubin *C.char
	var loglen, cubinlen C.size_t
	var stage *C.char
	r := C.rg_nvrtc_compile(csrc, cname, (**C.char)(unsafe.Pointer(&copts[0])), C.int(len(opts)),
		&clog, &loglen, &ccubin, &cubinlen, &stage)
	if clog != nil {
		log = C.GoStringN(clog, C.int(loglen))
		C.rg_free(unsafe.Pointer(clog))
	}
	if ccubin != nil {
		defer C.rg_free(unsafe.Pointer(ccubin))
	}
	if r != 0 {
		return nil, log, fmt.Errorf("%s of %s (%s): %s\n%s", C.GoString(stage), name, strings.Join(opts, " "),
			C.GoString(C.rg_nvrtc_error_string(r)), strings.TrimSpace(log))
	}
	return C.GoBytes(unsafe.Pointer(ccubin), C.int(cubinlen)), log, nil
}

// kernelCacheDir is the on-disk CUBIN cache folder.
func kernelCacheDir() string {
	if d := os.Getenv("RIGEL_KERNEL_CACHE"); d != "" {
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "rigel", "kernels")
}

// cacheKey hashes everything that changes the CUBIN.
func cacheKey(src, arch string, l compileLevel) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", nvrtcVer, arch, strings.Join(l.options(arch), " "))
	h.Write([]byte(src))
	return hex.EncodeToString(h.Sum(nil))
}

// compileCached returns the CUBIN of src for arch at level l from the
// disk cache (kernelcache.go), or compiles and stores it. compiled reports
// a cache miss.
func compileCached(src, name, arch string, l compileLevel) (cubin []byte, compiled bool, err error) {
	if b, ok, err := cachedCubin(src, arch, l); err != nil || ok {
		return b, false, err
	}
	cache, err := openKernelCache()
	if err != nil {
		return nil, false, err
	}
	cubin, _, err = nvrtcCompile(src, name, arch, l)
	if err != nil {
		return nil, true, err
	}
	cache.put(cacheKey(src, arch, l), cubin)
	return cubin, true, nil
}

// cachedCubin returns the CUBIN of src for arch at level l when the disk
// cache holds it.
func cachedCubin(src, arch string, l compileLevel) ([]byte, bool, error) {
	if err := loadNVRTC(); err != nil {
		return nil, false, err
	}
	cache, err := openKernelCache()
	if err != nil {
		return nil, false, err
	}
	b, ok := cache.get(cacheKey(src, arch, l))
	return b, ok, nil
}

// dumpKernelSource writes a compiled source to the folder RIGEL_KERNEL_DUMP
// names, when set, as NAME-HASH.cu: the generated kernels to read, or to
// compile again outside a query (TestCompileCost).
func dumpKernelSource(src, name string) {
	dir := os.Getenv("RIGEL_KERNEL_DUMP")
	if dir == "" {
		return
	}
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	h := sha256.Sum256([]byte(src))
	base := strings.TrimSuffix(name, ".cu")
	os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%x.cu", base, h[:6])), []byte(src), 0o644)
}
