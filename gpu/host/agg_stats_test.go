package host_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/devicetest"
	"github.com/rigel-db/rigel/gpu/host"
)

// Variance and standard deviation over many chunks (so that several
// workers' partial states are merged), grouped, with nulls, over values
// 1e9 + small: sum(x^2) - n*mean^2 loses every digit there, Welford must not.
func TestStatAggsAccurateAndMerged(t *testing.T) {
	const n = 100_000
	const groups = 3
	keys := make([]any, n)
	vals := make([]any, n)
	var data [groups][]float64
	for i := range n {
		g := int64(i % groups)
		keys[i] = g
		if i%11 == 5 {
			vals[i] = nil
			continue
		}
		x := 1e9 + float64((i*7919)%13) + 0.25*float64(g)
		vals[i] = x
		data[g] = append(data[g], x)
	}
	dev := host.New()
	defer dev.Close()
	kc := devicetest.Upload(t, dev, devicetest.MakeArray(arrow.PrimitiveTypes.Int64, keys...))
	vc := devicetest.Upload(t, dev, devicetest.MakeArray(arrow.PrimitiveTypes.Float64, vals...))
	cols := []gpu.Column{kc, vc}
	defer devicetest.ReleaseCols(cols)
	ti := gpu.Type{Kind: gpu.Int64}
	tf := gpu.Type{Kind: gpu.Float64, Nullable: true}
	kinds := []gpu.AggKind{gpu.AggVarSamp, gpu.AggVarPop, gpu.AggStdDevSamp, gpu.AggStdDevPop}
	p := &gpu.Pipeline{
		Inputs:  []gpu.Type{ti, tf},
		Project: []*gpu.Expr{gpu.Col(0, ti), gpu.Col(1, tf)},
		Sink:    gpu.SinkAggregate, Keys: []int{0},
	}
	for _, k := range kinds {
		p.Aggs = append(p.Aggs, gpu.Agg{Kind: k, Arg: 1, Type: tf})
	}
	out, err := dev.Run(t.Context(), p, cols)
	if err != nil {
		t.Fatal(err)
	}
	arrs := devicetest.Download(t, dev, out)
	defer devicetest.ReleaseAll(arrs)
	devicetest.ReleaseCols(out)
	kArr := arrs[0].(*array.Int64)
	if kArr.Len() != groups {
		t.Fatalf("%d groups, want %d", kArr.Len(), groups)
	}
	for r := 0; r < kArr.Len(); r++ {
		xs := data[kArr.Value(r)]
		// Two passes in float64: the reference. The inputs hold only ~8
		// significant digits of their spread, so both sides agree to ~1e-8;
		// sum(x^2) - n*mean^2 would be off by orders of magnitude.
		mean := 0.0
		for _, x := range xs {
			mean += x
		}
		mean /= float64(len(xs))
		m2 := 0.0
		for _, x := range xs {
			m2 += (x - mean) * (x - mean)
		}
		want := []float64{m2 / float64(len(xs)-1), m2 / float64(len(xs))}
		want = append(want, math.Sqrt(want[0]), math.Sqrt(want[1]))
		for a, k := range kinds {
			got := arrs[1+a].(*array.Float64).Value(r)
			if math.Abs(got-want[a]) > 1e-6*want[a] {
				t.Errorf("group %d %s = %v, want %v", kArr.Value(r), k, got, want[a])
			}
		}
	}
}

// Null rules: sample statistics need two values, population ones one; no
// values gives null for all.
func TestStatAggsNulls(t *testing.T) {
	dev := host.New()
	defer dev.Close()
	tf := gpu.Type{Kind: gpu.Float64, Nullable: true}
	kinds := []gpu.AggKind{gpu.AggVarSamp, gpu.AggVarPop, gpu.AggStdDevSamp, gpu.AggStdDevPop}
	for _, tc := range []struct {
		vals []any
		want []string
	}{
		{[]any{nil, nil}, []string{"null", "null", "null", "null"}},
		{[]any{nil, 4.0}, []string{"null", "0", "null", "0"}},
		{[]any{1.0, nil, 3.0}, []string{"2", "1", "1.4142135623730951", "1"}},
	} {
		vc := devicetest.Upload(t, dev, devicetest.MakeArray(arrow.PrimitiveTypes.Float64, tc.vals...))
		p := &gpu.Pipeline{Inputs: []gpu.Type{tf}, Project: []*gpu.Expr{gpu.Col(0, tf)}, Sink: gpu.SinkAggregate}
		for _, k := range kinds {
			p.Aggs = append(p.Aggs, gpu.Agg{Kind: k, Arg: 0, Type: tf})
		}
		out, err := dev.Run(t.Context(), p, []gpu.Column{vc})
		vc.Release()
		if err != nil {
			t.Fatal(err)
		}
		arrs := devicetest.Download(t, dev, out)
		devicetest.ReleaseCols(out)
		for a := range kinds {
			f := arrs[a].(*array.Float64)
			got := "null"
			if f.IsValid(0) {
				got = formatF(f.Value(0))
			}
			if got != tc.want[a] {
				t.Errorf("%v %s = %s, want %s", tc.vals, kinds[a], got, tc.want[a])
			}
		}
		devicetest.ReleaseAll(arrs)
	}
}

func formatF(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
