package host_test

import (
	"context"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/devicetest"
	"github.com/rigel-db/rigel/gpu/host"
)

// benchLineitem uploads 6M random lineitem rows (TPC-H scale factor 1).
func benchLineitem(b *testing.B, dev gpu.Device) []gpu.Column {
	l := devicetest.RandomLineitem(6_000_000, 1)
	arrs := l.Arrays()
	cols := make([]gpu.Column, len(arrs))
	for i, a := range arrs {
		c, err := dev.Upload(context.Background(), a)
		if err != nil {
			b.Fatal(err)
		}
		cols[i] = c
		a.Release()
	}
	return cols
}

func benchPipeline(b *testing.B, p *gpu.Pipeline) {
	dev := host.New()
	cols := benchLineitem(b, dev)
	defer devicetest.ReleaseCols(cols)
	b.SetBytes(int64(cols[0].Len()) * 7 * 8) // the columns a device would read
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := dev.Run(context.Background(), p, cols)
		if err != nil {
			b.Fatal(err)
		}
		devicetest.ReleaseCols(out)
	}
}

// BenchmarkQ1 runs the Q1-shaped aggregation over 6M rows.
func BenchmarkQ1(b *testing.B) {
	benchPipeline(b, devicetest.Q1Pipeline(devicetest.ParseDate("1998-09-02")))
}

// BenchmarkQ6 runs the Q6-shaped filter and sum over 6M rows.
func BenchmarkQ6(b *testing.B) {
	benchPipeline(b, devicetest.Q6Pipeline(devicetest.ParseDate("1994-01-01"), devicetest.ParseDate("1995-01-01")))
}
