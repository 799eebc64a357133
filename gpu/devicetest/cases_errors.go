package devicetest

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rigel-db/rigel/gpu"
)

func errorCases() []testCase {
	return []testCase{
		{"errors/bad_pipelines", testBadPipelines},
		{"errors/bad_sort", testBadSort},
		{"errors/unsupported_upload", testUnsupportedUpload},
	}
}

// testBadPipelines: ill-formed input is an error, never a panic or a result.
func testBadPipelines(t *testing.T, dev gpu.Device) {
	cols, types := table(t, dev, MakeArray(I64, int64(1), nil), MakeArray(I32, int64(1), int64(2)), MakeArray(String, "a", "b"))
	defer ReleaseCols(cols)
	short := Upload(t, dev, MakeArray(I32, int64(1)))
	defer short.Release()
	i64, i32, dict := gpu.Col(0, types[0]), gpu.Col(1, TI32), gpu.Col(2, TDict)
	mat := func(p gpu.Pipeline) *gpu.Pipeline {
		if p.Inputs == nil {
			p.Inputs = types
		}
		if p.Sink == 0 {
			p.Sink = gpu.SinkMaterialize
		}
		return &p
	}
	for _, c := range []struct {
		name string
		p    *gpu.Pipeline
		in   []gpu.Column
	}{
		{"too few inputs", mat(gpu.Pipeline{Project: []*gpu.Expr{i32}}), cols[:2]},
		{"too many inputs", mat(gpu.Pipeline{Inputs: types[:2], Project: []*gpu.Expr{i32}}), cols},
		{"input kind mismatch", mat(gpu.Pipeline{Inputs: []gpu.Type{N(TI64), TI64, TDict}, Project: []*gpu.Expr{i32}}), cols},
		{"nullable column declared not null", mat(gpu.Pipeline{Inputs: []gpu.Type{TI64, TI32, TDict}, Project: []*gpu.Expr{i32}}), cols},
		{"unequal lengths", mat(gpu.Pipeline{Inputs: []gpu.Type{N(TI64), TI32}, Project: []*gpu.Expr{i32}}), []gpu.Column{cols[0], short}},
		{"column index out of range", mat(gpu.Pipeline{Project: []*gpu.Expr{gpu.Col(7, TI32)}}), cols},
		{"column typed wrongly", mat(gpu.Pipeline{Project: []*gpu.Expr{gpu.Col(1, TI64)}}), cols},
		{"mixed argument kinds", mat(gpu.Pipeline{Project: []*gpu.Expr{gpu.Call(gpu.OpAdd, N(TI64), i64, i32)}}), cols},
		{"missing argument", mat(gpu.Pipeline{Project: []*gpu.Expr{gpu.Call(gpu.OpAdd, N(TI64), i64)}}), cols},
		{"nil argument", mat(gpu.Pipeline{Project: []*gpu.Expr{gpu.Call(gpu.OpAdd, N(TI64), i64, nil)}}), cols},
		{"nil project", mat(gpu.Pipeline{Project: []*gpu.Expr{nil}}), cols},
		{"filter not bool", mat(gpu.Pipeline{Filter: i32, Project: []*gpu.Expr{i32}}), cols},
		{"and of ints", mat(gpu.Pipeline{Project: []*gpu.Expr{gpu.Call(gpu.OpAnd, TBool, i32, i32)}}), cols},
		{"arithmetic on dict", mat(gpu.Pipeline{Project: []*gpu.Expr{gpu.Call(gpu.OpAdd, TDict, dict, dict)}}), cols},
		{"case with even args", mat(gpu.Pipeline{Project: []*gpu.Expr{gpu.Call(gpu.OpCase, TI32, gpu.Const(TBool, gpu.Value{I64: 1}), i32)}}), cols},
		{"decimal add with unequal scales", mat(gpu.Pipeline{Project: []*gpu.Expr{gpu.Call(gpu.OpAdd, TDec64(10, 2),
			gpu.Call(gpu.OpCast, TDec64(10, 2), i32), gpu.Call(gpu.OpCast, TDec64(10, 1), i32))}}), cols},
		{"decimal128 literal without value", mat(gpu.Pipeline{Project: []*gpu.Expr{gpu.Const(TDec128(38, 0), gpu.Value{})}}), cols},
		{"invalid decimal precision", mat(gpu.Pipeline{Project: []*gpu.Expr{gpu.Call(gpu.OpCast, TDec64(30, 2), i32)}}), cols},
		{"unknown op", mat(gpu.Pipeline{Project: []*gpu.Expr{{Op: 200, Type: TI32, Args: []*gpu.Expr{i32}}}}), cols},
		{"unknown sink", mat(gpu.Pipeline{Project: []*gpu.Expr{i32}, Sink: 9}), cols},
		{"key out of range", mat(gpu.Pipeline{Project: []*gpu.Expr{i32}, Sink: gpu.SinkAggregate, Keys: []int{3}}), cols},
		{"agg arg out of range", mat(gpu.Pipeline{Project: []*gpu.Expr{i32}, Sink: gpu.SinkAggregate, Aggs: []gpu.Agg{{Kind: gpu.AggSum, Arg: 5, Type: N(TDec128(38, 0))}}}), cols},
		{"sum of dict", mat(gpu.Pipeline{Project: []*gpu.Expr{dict}, Sink: gpu.SinkAggregate, Aggs: []gpu.Agg{{Kind: gpu.AggSum, Arg: 0, Type: N(TDec128(38, 0))}}}), cols},
		{"sum with wrong result type", mat(gpu.Pipeline{Project: []*gpu.Expr{i32}, Sink: gpu.SinkAggregate, Aggs: []gpu.Agg{{Kind: gpu.AggSum, Arg: 0, Type: N(TI64)}}}), cols},
		{"unknown aggregate", mat(gpu.Pipeline{Project: []*gpu.Expr{i32}, Sink: gpu.SinkAggregate, Aggs: []gpu.Agg{{Kind: 77, Arg: 0, Type: TI64}}}), cols},
		{"nil column", mat(gpu.Pipeline{Project: []*gpu.Expr{i32}}), []gpu.Column{cols[0], nil, cols[2]}},
	} {
		t.Run(c.name, func(t *testing.T) {
			expectError(t, RunPipelineErr(dev, c.p, c.in), c.name)
		})
	}
	t.Run("nil pipeline", func(t *testing.T) {
		expectError(t, RunPipelineErr(dev, nil, cols), "nil pipeline")
	})
}

func testBadSort(t *testing.T, dev gpu.Device) {
	cols, _ := table(t, dev, MakeArray(I64, int64(1), int64(2)))
	defer ReleaseCols(cols)
	short := Upload(t, dev, MakeArray(I32, int64(1)))
	defer short.Release()
	try := func(name string, cs []gpu.Column, keys []gpu.SortKey) {
		t.Helper()
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = &panicError{r}
				}
			}()
			var out []gpu.Column
			out, err = dev.Sort(context.Background(), cs, keys, 0)
			ReleaseCols(out)
		}()
		expectError(t, err, name)
	}
	try("key out of range", cols, []gpu.SortKey{{Col: 1}})
	try("negative key", cols, []gpu.SortKey{{Col: -1}})
	try("unequal lengths", []gpu.Column{cols[0], short}, []gpu.SortKey{{Col: 0}})
}

func testUnsupportedUpload(t *testing.T, dev gpu.Device) {
	b := array.NewTime32Builder(memory.DefaultAllocator, &arrow.Time32Type{Unit: arrow.Second})
	defer b.Release()
	b.Append(1)
	arr := b.NewArray()
	defer arr.Release()
	c, err := dev.Upload(context.Background(), arr)
	if err == nil {
		c.Release()
		t.Fatal("uploading time32 succeeded, want ErrUnsupported")
	}
	if !errors.Is(err, gpu.ErrUnsupported) {
		t.Fatalf("uploading time32: %v does not wrap ErrUnsupported", err)
	}
}
