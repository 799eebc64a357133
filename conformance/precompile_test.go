package conformance

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// foreseeingDevice is the host device as a gpu.Precompiler: it keeps the
// calls the executor foresees and the calls the run then makes.
type foreseeingDevice struct {
	*host.Device
	mu             sync.Mutex
	foreseen, made []gpu.KernelCall
}

func (d *foreseeingDevice) Precompile(_ context.Context, calls []gpu.KernelCall) {
	d.mu.Lock()
	d.foreseen = append(d.foreseen, calls...)
	d.mu.Unlock()
}

func (d *foreseeingDevice) record(c gpu.KernelCall, cols ...[]gpu.Column) {
	for _, cs := range cols {
		for _, col := range cs {
			n := 0
			if dict := col.Dictionary(); dict != nil {
				n = dict.Len()
			}
			c.DictLen = append(c.DictLen, n)
		}
	}
	d.mu.Lock()
	d.made = append(d.made, c)
	d.mu.Unlock()
}

func (d *foreseeingDevice) Run(ctx context.Context, p *gpu.Pipeline, inputs []gpu.Column) ([]gpu.Column, error) {
	d.record(gpu.KernelCall{Kind: gpu.CallRun, Pipe: p}, inputs)
	return d.Device.Run(ctx, p, inputs)
}

func (d *foreseeingDevice) RunProbe(ctx context.Context, p *gpu.Pipeline, probe, build []gpu.Column, probeKeys, buildKeys []int, nullsEqual []bool) ([]gpu.Column, error) {
	d.record(gpu.KernelCall{Kind: gpu.CallProbe, Pipe: p, NProbe: len(probe)}, probe, build)
	return d.Device.RunProbe(ctx, p, probe, build, probeKeys, buildKeys, nullsEqual)
}

func (d *foreseeingDevice) RunProbeLeft(ctx context.Context, p *gpu.Pipeline, cond *gpu.Expr, single bool, probe, build []gpu.Column, probeKeys, buildKeys []int, nullsEqual []bool) ([]gpu.Column, error) {
	d.record(gpu.KernelCall{Kind: gpu.CallProbeLeft, Pipe: p, Cond: cond, Single: single, NProbe: len(probe)}, probe, build)
	return d.Device.RunProbeLeft(ctx, p, cond, single, probe, build, probeKeys, buildKeys, nullsEqual)
}

func (d *foreseeingDevice) ProbeCounts(ctx context.Context, p *gpu.Pipeline, probe, build []gpu.Column, probeKeys, buildKeys []int, nullsEqual []bool) (gpu.Column, error) {
	d.record(gpu.KernelCall{Kind: gpu.CallProbeCounts, Pipe: p, NProbe: len(probe)}, probe, build)
	return d.Device.ProbeCounts(ctx, p, probe, build, probeKeys, buildKeys, nullsEqual)
}

// sameKernels reports whether a device generates the same kernels for
// calls a and b: the same operation over equal pipelines, and for an
// aggregate the same dictionary sizes (the only input besides the
// pipeline that its kernel depends on).
func sameKernels(a, b gpu.KernelCall) bool {
	if a.Kind != b.Kind || a.NProbe != b.NProbe || a.Single != b.Single || !reflect.DeepEqual(a.Cond, b.Cond) {
		return false
	}
	if a.Pipe != b.Pipe && !reflect.DeepEqual(a.Pipe, b.Pipe) {
		return false
	}
	return a.Pipe.Sink != gpu.SinkAggregate || reflect.DeepEqual(a.DictLen, b.DictLen)
}

func describeCall(c gpu.KernelCall) string {
	return fmt.Sprintf("kind %d, %d probe columns, dictionaries %v: %s", c.Kind, c.NProbe, c.DictLen, c.Pipe)
}

// Every fused-kernel call a TPC-H query makes on its first run was handed
// to the device before the run (physical/precompile.go): on the CUDA
// device, that is what lets all of a query's kernels compile at once
// instead of one after another in its way. A second run of the same plan
// foresees nothing (its kernels are compiled).
func TestForesightCoversTPCH(t *testing.T) {
	dev := &foreseeingDevice{Device: host.New()}
	eng := openEngine(t, dev)
	ctx := context.Background()
	eachTPCHQuery(t, func(t *testing.T, n int, q string) {
		dev.foreseen, dev.made = nil, nil
		res, err := eng.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		res.Release()
		if len(dev.made) == 0 {
			t.Fatal("the run made no fused-kernel call")
		}
		unforeseen := 0
		for _, m := range dev.made {
			found := false
			for _, f := range dev.foreseen {
				if sameKernels(f, m) {
					found = true
					break
				}
			}
			if !found {
				unforeseen++
				t.Errorf("not foreseen: %s", describeCall(m))
			}
		}
		t.Logf("%d calls made, %d foreseen", len(dev.made), len(dev.foreseen))

		dev.foreseen = nil
		res, err = eng.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		res.Release()
		if len(dev.foreseen) != 0 {
			t.Fatalf("the second run of the plan foresaw %d calls again", len(dev.foreseen))
		}
	})
}
