package cuda

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/devicetest"
	"github.com/rigel-db/rigel/gpu/host"
)

var (
	devOnce sync.Once
	devErr  error
	theDev  *Device
)

// openOrSkip opens the GPU once for the package, or skips with one line.
func openOrSkip(t *testing.T) *Device {
	t.Helper()
	devOnce.Do(func() { theDev, devErr = Open() })
	if devErr != nil {
		if !errors.Is(devErr, gpu.ErrNoDevice) {
			t.Fatalf("open: %v (an error without a GPU must wrap gpu.ErrNoDevice)", devErr)
		}
		t.Skipf("SKIP: no GPU: %v", devErr)
	}
	return theDev
}

func TestOpenWithoutGPUSaysWhy(t *testing.T) {
	d, err := Open()
	if err != nil {
		if !errors.Is(err, gpu.ErrNoDevice) {
			t.Fatalf("Open error does not wrap ErrNoDevice: %v", err)
		}
		t.Skipf("SKIP: no GPU: %v", err)
	}
	defer d.Close()
	in := d.Info()
	t.Logf("%s %s %s %s, %d SMs, %d MiB", in.Model, in.Arch, in.Driver, in.Compiler, in.Multiprocs, in.TotalMemory>>20)
}

// TestBattery runs the battery with packing on, the default (packed.go),
// whatever RIGEL_DEVICE_PACKING says, so that its packed cases and every
// case's large columns are packed.
func TestBattery(t *testing.T) {
	d := openOrSkip(t)
	defer func(p packing) { packingPolicy = p }(packingPolicy)
	packingPolicy = packLarge
	devicetest.Run(t, d)
}

func TestDifferential(t *testing.T) {
	d := openOrSkip(t)
	for seed := int64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { devicetest.Differential(t, host.New(), d, seed) })
	}
}

// TestThreadHopping runs devices calls from goroutines locked to different
// OS threads at once: the context must be current on each.
func TestThreadHopping(t *testing.T) {
	d := openOrSkip(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for rep := 0; rep < 5; rep++ {
				b := array.NewInt64Builder(memory.DefaultAllocator)
				for i := 0; i < 5000; i++ {
					v := int64(i*(g+1) - 7*rep)
					b.Append(v)
				}
				arr := b.NewArray()
				col, err := d.Upload(ctx, arr)
				arr.Release()
				if err != nil {
					errs <- err
					return
				}
				x := gpu.Col(0, tI64)
				q := &gpu.Pipeline{Inputs: []gpu.Type{tI64}, Sink: gpu.SinkAggregate, Project: []*gpu.Expr{x},
					Aggs: []gpu.Agg{{Kind: gpu.AggSum, Arg: 0, Type: nul(dec128(38, 0))}, {Kind: gpu.AggCountStar, Type: tI64}}}
				out, err := d.Run(ctx, q, []gpu.Column{col})
				col.Release()
				if err != nil {
					errs <- err
					return
				}
				a, err := d.Download(ctx, out[1])
				for _, o := range out {
					o.Release()
				}
				if err != nil {
					errs <- err
					return
				}
				if got := a.(*array.Int64).Value(0); got != 5000 {
					errs <- fmt.Errorf("goroutine %d: count %d, want 5000", g, got)
				}
				a.Release()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
