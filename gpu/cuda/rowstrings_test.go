package cuda

import (
	"context"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/devicetest"
	"github.com/rigel-db/rigel/gpu/host"
)

// rowStringsHost is the host device with the CUDA device's handling of
// row functions around its Run, RunProbe and RunProbeLeft (rowstrings.go):
// the host then runs only what the CUDA device's kernels would (the
// pipelines with the row functions replaced by uploaded columns), so the
// composition is checked without a GPU.
type rowStringsHost struct{ *host.Device }

func (h rowStringsHost) Run(ctx context.Context, p *gpu.Pipeline, inputs []gpu.Column) ([]gpu.Column, error) {
	if scanPipeline(p).rowFuncs {
		return runRowStrings(ctx, h, p, inputs)
	}
	return h.Device.Run(ctx, p, inputs)
}

func (h rowStringsHost) RunProbe(ctx context.Context, p *gpu.Pipeline, probe, build []gpu.Column, probeKeys, buildKeys []int, nullsEqual []bool) ([]gpu.Column, error) {
	if scanPipeline(p).rowFuncs {
		return splitRowStrings(ctx, h, p, func(pairs *gpu.Pipeline) ([]gpu.Column, error) {
			return h.RunProbe(ctx, pairs, probe, build, probeKeys, buildKeys, nullsEqual)
		})
	}
	return h.Device.RunProbe(ctx, p, probe, build, probeKeys, buildKeys, nullsEqual)
}

// The battery's row-function cases through the CUDA device's path, the
// host standing in for the kernels.
func TestRowStringsOnHost(t *testing.T) {
	devicetest.RunSome(t, rowStringsHost{host.New()}, "strrow/")
}

// A pipeline's filter without row functions runs first (its dropped rows
// never evaluated); the rows pipeline reads only the columns used.
func TestSplitRowPipeline(t *testing.T) {
	nd, i64 := nul(tDict), gpu.Type{Kind: gpu.Int64}
	rep := gpu.RowCall(&gpu.StrFunc{Kind: gpu.StrRowRepeat}, nd, gpu.Col(2, nd), gpu.Col(0, i64))
	p := &gpu.Pipeline{Inputs: []gpu.Type{i64, i64, nd}, Sink: gpu.SinkMaterialize,
		Filter:  call(gpu.OpLt, gpu.Type{Kind: gpu.Bool}, gpu.Col(1, i64), gpu.Const(i64, gpu.Value{I64: 3})),
		Project: []*gpu.Expr{rep, gpu.Col(2, nd)}}
	rows, over := splitRowPipeline(p)
	if rows.Filter != p.Filter || len(rows.Project) != 2 || scanPipeline(rows).rowFuncs {
		t.Fatalf("rows pipeline %s: want p's filter and the two columns used, no row function", rows)
	}
	if over.Filter != nil || len(over.Inputs) != 2 || !scanPipeline(over).rowFuncs {
		t.Fatalf("over pipeline %s: want no filter, two inputs, the row function", over)
	}
	if a := over.Project[0].Args; a[0].Col != 0 || a[1].Col != 1 || over.Project[1].Col != 0 {
		t.Fatalf("over pipeline %s: columns not renumbered onto the rows pipeline's", over)
	}
}
