package cuda

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/devicetest"
)

// TestBenchProbe (RIGEL_PROBE_BENCH=1, or =<probe rows>) times RunProbe
// against the composed path (HashJoin, a Gather of each side, Run) on
// TPC-H SF10-shaped sides: 60M lineitem rows (l_orderkey, l_extendedprice)
// probing 15M orders rows (o_orderkey, o_orderdate), with a filter on the
// build side's date and, as Q3-like pipelines do, either the joined rows'
// key and price written out or their prices summed per date bucket. Both
// paths must give the same rows; the test prints the kernel time of each.
func TestBenchProbe(t *testing.T) {
	env := os.Getenv("RIGEL_PROBE_BENCH")
	if env == "" {
		t.Skip("SKIP: set RIGEL_PROBE_BENCH=1 (or =<probe rows>) to run the 60M x 15M probe benchmark")
	}
	np := 60_000_000
	if n, err := strconv.Atoi(env); err == nil && n > 1 {
		np = n
	}
	d := openOrSkip(t)
	d.TimeKernels(true) // DeviceNanos below
	defer d.TimeKernels(false)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 5))
	orderKey := func(i int64) int64 { return i/8*32 + i%8 + 1 }
	var probeKey, price []int64
	var nb int64
	for len(probeKey) < np {
		k := orderKey(nb)
		for l := 1 + r.IntN(7); l > 0 && len(probeKey) < np; l-- {
			probeKey = append(probeKey, k)
			price = append(price, int64(90000+r.IntN(10_000_000)))
		}
		nb++
	}
	perm := r.Perm(len(probeKey))
	pk, pp := make([]int64, np), make([]int64, np)
	for i, j := range perm {
		pk[i], pp[i] = probeKey[j], price[j]
	}
	buildKey, date := make([]int64, nb), make([]int64, nb)
	for i := range buildKey {
		buildKey[i], date[i] = orderKey(int64(i)), int64(8035+r.IntN(2406)) // 1992-01-01 + ~6.6 years
	}
	up := func(v []int64, t32 bool, typ gpu.Type) *column {
		w := 8
		if t32 {
			w = 4
		}
		b := make([]byte, w*len(v))
		for i, x := range v {
			if t32 {
				binary.LittleEndian.PutUint32(b[i*4:], uint32(x))
			} else {
				binary.LittleEndian.PutUint64(b[i*8:], uint64(x))
			}
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		c, err := d.place(&hostColumn{t: typ, n: len(v), data: b}, false)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	i64, dec := gpu.Type{Kind: gpu.Int64}, gpu.Type{Kind: gpu.Decimal64, Precision: 15, Scale: 2}
	dt := gpu.Type{Kind: gpu.Date32}
	probe := []gpu.Column{up(pk, false, i64), up(pp, false, dec)}
	build := []gpu.Column{up(buildKey, false, i64), up(date, true, dt)}
	defer devicetest.ReleaseCols(probe)
	defer devicetest.ReleaseCols(build)
	in := []gpu.Type{i64, dec, i64, dt}
	filter := gpu.Call(gpu.OpLt, gpu.Type{Kind: gpu.Bool}, gpu.Col(3, dt), gpu.Const(dt, gpu.Value{I64: 9204}))
	year := gpu.Call(gpu.OpYear, i64, gpu.Col(3, dt))
	pipes := map[string]*gpu.Pipeline{
		"materialize": {Inputs: in, Filter: filter, Project: []*gpu.Expr{gpu.Col(0, i64), gpu.Col(1, dec)}, Sink: gpu.SinkMaterialize},
		"aggregate": {Inputs: in, Filter: filter, Project: []*gpu.Expr{year, gpu.Col(1, dec)}, Sink: gpu.SinkAggregate, Keys: []int{0},
			Aggs: []gpu.Agg{{Kind: gpu.AggSum, Arg: 1, Type: gpu.Type{Kind: gpu.Decimal128, Precision: 38, Scale: 2, Nullable: true}}, {Kind: gpu.AggCountStar, Type: i64}}},
	}
	t.Logf("probe %d rows, build %d rows", np, nb)
	for name, p := range pipes {
		composed := func() []gpu.Column {
			pi, bi, err := d.HashJoin(ctx, build[:1], probe[:1], nil)
			if err != nil {
				t.Fatal(err)
			}
			defer pi.Release()
			defer bi.Release()
			g1, err := d.Gather(ctx, probe, pi, false)
			if err != nil {
				t.Fatal(err)
			}
			defer devicetest.ReleaseCols(g1)
			g2, err := d.Gather(ctx, build, bi, false)
			if err != nil {
				t.Fatal(err)
			}
			defer devicetest.ReleaseCols(g2)
			out, err := d.Run(ctx, p, append(g1, g2...))
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		fused := func() []gpu.Column {
			out, err := d.RunProbe(ctx, p, probe, build, []int{0}, []int{0}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		// summary: the rows of an aggregate, or count and sums of the
		// 30M materialized rows (their order is free, their text huge).
		summary := func(out []gpu.Column) []string {
			if p.Sink == gpu.SinkAggregate {
				return devicetest.Rows(t, d, out)
			}
			s128 := gpu.Type{Kind: gpu.Decimal128, Precision: 38, Nullable: true}
			s128p := gpu.Type{Kind: gpu.Decimal128, Precision: 38, Scale: 2, Nullable: true}
			sum, err := d.Run(ctx, &gpu.Pipeline{Inputs: []gpu.Type{i64, dec}, Project: []*gpu.Expr{gpu.Col(0, i64), gpu.Col(1, dec)}, Sink: gpu.SinkAggregate,
				Aggs: []gpu.Agg{{Kind: gpu.AggCountStar, Type: i64}, {Kind: gpu.AggSum, Arg: 0, Type: s128}, {Kind: gpu.AggSum, Arg: 1, Type: s128p}}}, out)
			if err != nil {
				t.Fatal(err)
			}
			defer devicetest.ReleaseCols(sum)
			return devicetest.Rows(t, d, sum)
		}
		var want []string
		for _, path := range []struct {
			name string
			run  func() []gpu.Column
		}{{"composed", composed}, {"fused", fused}} {
			best := int64(-1)
			for rep := 0; rep < 3; rep++ {
				d.ResetStats()
				out := path.run()
				st := d.Stats()
				if rep == 0 {
					rows := summary(out)
					if want == nil {
						want = rows
					} else if err := devicetest.EqualRows(rows, want, false, 0); err != nil {
						t.Fatalf("%s: fused differs from composed: %v", name, err)
					}
				}
				devicetest.ReleaseCols(out)
				if best < 0 || st.DeviceNanos < best {
					best = st.DeviceNanos
				}
			}
			t.Logf("%s %s: best kernels %.3f ms", name, path.name, float64(best)/1e6)
		}
	}
}
