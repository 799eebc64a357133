package physical

import (
	"context"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// countingDevice counts the pipelines that reach the device.
type countingDevice struct {
	gpu.Device
	runs int
}

func (c *countingDevice) Run(ctx context.Context, p *gpu.Pipeline, in []gpu.Column) ([]gpu.Column, error) {
	c.runs++
	return c.Device.Run(ctx, p, in)
}

func TestPassThroughNeedsNoDevice(t *testing.T) {
	i64n := i64.WithNullable(true)
	scan := &Scan{Table: "t", Columns: []string{"k", "v"}, Types: []gpu.Type{i64, i64}}
	cases := []struct {
		name  string
		pipe  *gpu.Pipeline
		runs  int
		first string // first result row
	}{
		{"reorder and repeat", &gpu.Pipeline{Inputs: []gpu.Type{i64, i64}, Sink: gpu.SinkMaterialize,
			Project: []*gpu.Expr{gpu.Col(1, i64), gpu.Col(0, i64), gpu.Col(1, i64)}}, 0, "0 0 0"},
		// A column declared nullable may be fed a non-nullable one.
		{"declared nullable", &gpu.Pipeline{Inputs: []gpu.Type{i64n, i64n}, Sink: gpu.SinkMaterialize,
			Project: []*gpu.Expr{gpu.Col(1, i64n)}}, 0, "0"},
		{"computed", &gpu.Pipeline{Inputs: []gpu.Type{i64, i64}, Sink: gpu.SinkMaterialize,
			Project: []*gpu.Expr{gpu.Call(gpu.OpAdd, i64, gpu.Col(0, i64), gpu.Col(1, i64))}}, 1, "0"},
		{"filtered", &gpu.Pipeline{Inputs: []gpu.Type{i64, i64}, Sink: gpu.SinkMaterialize,
			Filter:  gpu.Call(gpu.OpGt, gpu.Type{Kind: gpu.Bool}, gpu.Col(1, i64), gpu.Const(i64, gpu.Value{I64: 5})),
			Project: []*gpu.Expr{gpu.Col(1, i64)}}, 1, "10"},
		{"retyped", &gpu.Pipeline{Inputs: []gpu.Type{i64, i64}, Sink: gpu.SinkMaterialize,
			Project: []*gpu.Expr{gpu.Col(1, gpu.Type{Kind: gpu.Date32})}}, 1, ""},
	}
	for _, tc := range cases {
		dev := &countingDevice{Device: host.New()}
		x := &Executor{Dev: dev, Source: &memSource{}, Cache: NewColumnCache()}
		names := make([]string, len(tc.pipe.Project))
		for i := range names {
			names[i] = "c"
		}
		rec, _, err := x.Run(context.Background(), &Pipeline{Input: scan, Pipe: tc.pipe}, names)
		if dev.runs != tc.runs {
			t.Errorf("%s: %d pipelines ran on the device, want %d", tc.name, dev.runs, tc.runs)
		}
		if tc.first == "" { // the device refuses a projection of the wrong type
			if err == nil {
				rec.Release()
				t.Errorf("%s: no error", tc.name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		rows := arrowfmt.Rows(rec)
		rec.Release()
		if len(rows) == 0 || strings.Join(rows[0], " ") != tc.first {
			t.Errorf("%s: first row %v, want %s", tc.name, rows, tc.first)
		}
	}
}
