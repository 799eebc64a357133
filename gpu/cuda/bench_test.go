package cuda

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
)

// TestBenchTPCH (RIGEL_BENCH=rows, e.g. 60000000) builds TPC-H lineitem-like
// columns, uploads them once, runs the Q6- and Q1-shaped pipelines, checks
// the results against exact Go sums, and prints kernel times and input GB/s
// against the measured device copy bandwidth.
func TestBenchTPCH(t *testing.T) {
	rows, _ := strconv.Atoi(os.Getenv("RIGEL_BENCH"))
	if rows <= 0 {
		t.Skip("SKIP: set RIGEL_BENCH=<rows> to run the TPC-H-shaped benchmark")
	}
	d := openOrSkip(t)
	d.TimeKernels(true) // DeviceNanos below
	defer d.TimeKernels(false)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	ship := make([]byte, rows*4)
	rf := make([]byte, rows*4)
	ls := make([]byte, rows*4)
	dec := func() []byte { return make([]byte, rows*8) }
	qty, price, disc, tax := dec(), dec(), dec(), dec()
	for i := 0; i < rows; i++ {
		s := int32(8036 + r.IntN(2526)) // 1992-01-02 .. 1998-12-01
		binary.LittleEndian.PutUint32(ship[i*4:], uint32(s))
		q := int64(1+r.IntN(50)) * 100
		binary.LittleEndian.PutUint64(qty[i*8:], uint64(q))
		binary.LittleEndian.PutUint64(price[i*8:], uint64(q/100*int64(90000+r.IntN(20000))))
		binary.LittleEndian.PutUint64(disc[i*8:], uint64(r.IntN(11)))
		binary.LittleEndian.PutUint64(tax[i*8:], uint64(r.IntN(9)))
		var f, l uint32
		if s > 9298 { // after 1995-06-17: N, else A or R; linestatus O/F
			f, l = 1, 1
		} else {
			f, l = uint32(r.IntN(2)*2), 0
		}
		binary.LittleEndian.PutUint32(rf[i*4:], f)
		binary.LittleEndian.PutUint32(ls[i*4:], l)
	}
	dictOf := func(vals ...string) *array.String {
		b := array.NewStringBuilder(memory.DefaultAllocator)
		b.AppendValues(vals, nil)
		return b.NewStringArray()
	}
	up := func(t gpu.Type, b []byte, dict *array.String) *column {
		d.mu.Lock()
		defer d.mu.Unlock()
		c, err := d.place(&hostColumn{t: t, n: rows, data: b, dict: dict}, false)
		if err != nil {
			panic(err)
		}
		return c
	}
	t0 := time.Now()
	d.ResetStats()
	cShip, cRF, cLS := up(tDate, ship, dictOf("A", "N", "R")), up(tDict, rf, dictOf("A", "N", "R")), up(tDict, ls, dictOf("F", "O"))
	cQty, cPrice, cDisc, cTax := up(tDec152, qty, nil), up(tDec152, price, nil), up(tDec152, disc, nil), up(tDec152, tax, nil)
	upTime := time.Since(t0)
	upBytes := d.Stats().BytesUploaded

	copyBW, err := d.MeasureCopyBandwidth()
	if err != nil {
		t.Fatal(err)
	}
	upBW, err := d.MeasureUploadBandwidth()
	if err != nil {
		t.Fatal(err)
	}

	// Exact expectations.
	const d0, d1, cut = 8766, 9131, 10471
	q6 := new(big.Int)
	type acc struct{ hi, lo uint64 }
	add := func(a *acc, v int64) {
		var c uint64
		a.lo, c = bits.Add64(a.lo, uint64(v), 0)
		a.hi += c + uint64(v>>63)
	}
	var g1 [3][2][5]acc
	var c1 [3][2]int64
	for i := 0; i < rows; i++ {
		s := int32(binary.LittleEndian.Uint32(ship[i*4:]))
		q := int64(binary.LittleEndian.Uint64(qty[i*8:]))
		p := int64(binary.LittleEndian.Uint64(price[i*8:]))
		di := int64(binary.LittleEndian.Uint64(disc[i*8:]))
		tx := int64(binary.LittleEndian.Uint64(tax[i*8:]))
		if s >= d0 && s < d1 && di >= 5 && di <= 7 && q < 2400 {
			q6.Add(q6, big.NewInt(p*di))
		}
		if s <= cut {
			f, l := binary.LittleEndian.Uint32(rf[i*4:]), binary.LittleEndian.Uint32(ls[i*4:])
			dp := p * (100 - di)
			a := &g1[f][l]
			add(&a[0], q)
			add(&a[1], p)
			add(&a[2], dp)
			add(&a[3], dp*(100+tx))
			add(&a[4], di)
			c1[f][l]++
		}
	}

	runQ := func(name string, p *gpu.Pipeline, in []gpu.Column, inBytes int64) (time.Duration, []gpu.Column) {
		var best time.Duration
		var out []gpu.Column
		for rep := 0; rep < 6; rep++ {
			if out != nil {
				for _, c := range out {
					c.Release()
				}
			}
			d.ResetStats()
			var err error
			out, err = d.Run(ctx, p, in)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			st := d.Stats()
			// Only the main kernel: init kernels are microseconds.
			k := time.Duration(st.DeviceNanos)
			if rep > 0 && (best == 0 || k < best) {
				best = k
			}
		}
		return best, out
	}
	q6p := q6Pipeline(d0, d1)
	q6t, q6o := runQ("q6", q6p, []gpu.Column{cShip, cDisc, cQty, cPrice}, int64(rows)*28)
	a, err := d.Download(ctx, q6o[0])
	if err != nil {
		t.Fatal(err)
	}
	got := a.(*array.Decimal128).Value(0).BigInt()
	if got.Cmp(q6) != 0 {
		t.Errorf("Q6 sum %s, want %s", got, q6)
	}
	q1p := q1Pipeline(cut)
	q1t, q1o := runQ("q1", q1p, []gpu.Column{cShip, cRF, cLS, cQty, cPrice, cDisc, cTax}, int64(rows)*52)
	var cols []any
	for _, c := range q1o {
		a, err := d.Download(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		cols = append(cols, a)
	}
	groups := cols[0].(*array.String).Len()
	seen := 0
	for r := 0; r < groups; r++ {
		f := map[string]int{"A": 0, "N": 1, "R": 2}[cols[0].(*array.String).Value(r)]
		l := map[string]int{"F": 0, "O": 1}[cols[1].(*array.String).Value(r)]
		if c1[f][l] == 0 {
			t.Errorf("Q1: unexpected group %d/%d", f, l)
			continue
		}
		seen++
		for k := 0; k < 5; k++ {
			w := g1[f][l][k]
			want := decimal128.New(int64(w.hi), w.lo)
			if g := cols[2+k].(*array.Decimal128).Value(r); g != want {
				t.Errorf("Q1 group %d/%d sum %d: got %s want %s", f, l, k, g.BigInt(), want.BigInt())
			}
		}
		if g := cols[10].(*array.Int64).Value(r); g != c1[f][l] {
			t.Errorf("Q1 group %d/%d count: got %d want %d", f, l, g, c1[f][l])
		}
	}
	want := 0
	for f := range c1 {
		for l := range c1[f] {
			if c1[f][l] > 0 {
				want++
			}
		}
	}
	if seen != want {
		t.Errorf("Q1: %d groups, want %d", seen, want)
	}
	// The Q1 kernel with its partials in registers instead of shared
	// memory. The generated-source memo would hand back the default
	// kernel, so it is cleared around the variant.
	forget := func() { d.mu.Lock(); d.srcs = srcMemo{}; d.mu.Unlock() }
	aggSharedPartials = false
	forget()
	regT, regO := runQ("q1", q1p, []gpu.Column{cShip, cRF, cLS, cQty, cPrice, cDisc, cTax}, 0)
	aggSharedPartials = true
	forget()
	for _, c := range regO {
		c.Release()
	}
	q6Bytes, q1Bytes := float64(rows)*(4+8+8+8), float64(rows)*(4+4+4+8*4)
	fmt.Printf("\n%-30s %12s\n", "measure", "value")
	fmt.Printf("%-30s %12d\n", "rows", rows)
	fmt.Printf("%-30s %9.1f ms (%.1f GB/s incl. host encode)\n", "upload", float64(upTime.Microseconds())/1e3, float64(upBytes)/upTime.Seconds()/1e9)
	fmt.Printf("%-30s %9.1f GB/s\n", "pinned H2D bandwidth", upBW/1e9)
	fmt.Printf("%-30s %9.1f GB/s\n", "device copy bandwidth", copyBW/1e9)
	for _, q := range []struct {
		name  string
		t     time.Duration
		bytes float64
		limit float64
	}{{"Q6", q6t, q6Bytes, 2}, {"Q1", q1t, q1Bytes, 3}} {
		floor := q.bytes / copyBW
		fmt.Printf("%-30s %9.3f ms  %7.1f GB/s  floor %.3f ms  ratio %.2fx (target <= %.0fx)\n",
			q.name+" kernel time", float64(q.t.Nanoseconds())/1e6, q.bytes/q.t.Seconds()/1e9, floor*1e3, q.t.Seconds()/floor, q.limit)
	}
	fmt.Printf("%-30s %9.3f ms  %7.1f GB/s\n", "Q1, partials in registers", float64(regT.Nanoseconds())/1e6, q1Bytes/regT.Seconds()/1e9)
}
