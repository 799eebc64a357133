package cuda

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCompileCost measures what NVRTC spends on the kernel sources in the
// folder RIGEL_COMPILE_COST_DIR (written by a run with RIGEL_KERNEL_DUMP,
// e.g. run.sh first-run): each source alone as rigel compiles it; the
// prelude alone; and all of them at once from several threads (whether
// NVRTC compiles programs in parallel). It prints a table; it checks
// nothing but that every variant compiles.
func TestCompileCost(t *testing.T) {
	dir := os.Getenv("RIGEL_COMPILE_COST_DIR")
	if dir == "" {
		t.Skip("set RIGEL_COMPILE_COST_DIR to a folder of dumped kernel sources (RIGEL_KERNEL_DUMP)")
	}
	// NVRTC 13 answers a program it compiled before, in this process or
	// an earlier one, from the driver's compute cache: run this test alone
	// in its process (as run.sh does), so that the cache is off from the
	// start and every time below is a compile.
	t.Setenv("CUDA_CACHE_DISABLE", "1")
	skipNoNVRTC(t)
	arch := os.Getenv("RIGEL_COMPILE_COST_ARCH")
	if arch == "" {
		arch = "sm_90"
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.cu"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no .cu files in %s (%v)", dir, err)
	}
	sort.Strings(files)
	srcs := make([]string, len(files))
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[i] = string(b)
	}
	opts := compileOptions(arch)
	timed := func(src, name string, o []string) time.Duration {
		t0 := time.Now()
		if _, _, err := nvrtcCompileWith(src, name, o); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return time.Since(t0)
	}
	var b strings.Builder
	// The utility module first, in a process that has compiled nothing yet
	// (rigel compiles it when the device opens); again below, after the
	// others.
	fmt.Fprintf(&b, "utility module, first compile of the process: %v\n", timed(utilFile.src, utilFile.name, opts))
	fmt.Fprintf(&b, "utility module, second compile: %v\n", timed(utilFile.src, utilFile.name, opts))
	// The prelude alone, with one empty kernel: the fixed cost of a source.
	empty := preludeSrc + "\nextern \"C\" __global__ void rg_empty(const Args a) {}\n"
	timed(empty, "warm-up", opts)
	fmt.Fprintf(&b, "prelude alone: %v\n", timed(empty, "prelude", opts))

	b.WriteString("\n| source | bytes | compile ms |\n|---|---|---|\n")
	var serial time.Duration
	for i, src := range srcs {
		name := filepath.Base(files[i])
		d := timed(src, name, opts)
		serial += d
		fmt.Fprintf(&b, "| %s | %d | %.1f |\n", name, len(src), float64(d.Microseconds())/1e3)
	}
	fmt.Fprintf(&b, "\n%d sources: %v one after another\n", len(srcs), serial)
	for _, threads := range []int{4, 8} {
		t0 := time.Now()
		var wg sync.WaitGroup
		next := make(chan int, len(srcs))
		for i := range srcs {
			next <- i
		}
		close(next)
		for w := 0; w < threads; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					if _, _, err := nvrtcCompileWith(srcs[i], files[i], opts); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		fmt.Fprintf(&b, "%d threads: %v for all %d (%.1fx the one-after-another time)\n", threads, time.Since(t0), len(srcs), float64(serial)/float64(time.Since(t0)))
	}
	t.Logf("NVRTC %s, %s\n%s", nvrtcVer, arch, b.String())
}
