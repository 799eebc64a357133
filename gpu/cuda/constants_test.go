package cuda

import (
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

func TestHoistConstants(t *testing.T) {
	src := "x <= RG_K64(0x00000000000028e4ull) && d > RG_KF64(0x3ff0000000000000ull) && " +
		"v < RG_K128(0xffffffffffffffffull, 0xfffffffffffffff6ull) && f == RG_KF32(0x000000003f800000ull)"
	got, words := hoistConstants(src)
	want := "__constant__ unsigned long long rg_k[5];\n" + // no prelude here: at the top
		"x <= ((long long)rg_k[0]) && d > __longlong_as_double((long long)rg_k[1]) && " +
		"v < I128(rg_k[2], rg_k[3]) && f == __int_as_float((int)rg_k[4])"
	if got != want {
		t.Fatalf("hoisted:\n%s\nwant:\n%s", got, want)
	}
	wantWords := []uint64{10468, math.Float64bits(1), math.MaxUint64, math.MaxUint64 - 9, uint64(math.Float32bits(1))}
	if !slices.Equal(words, wantWords) {
		t.Fatalf("words %v, want %v", words, wantWords)
	}
	if s, w := hoistConstants("no constants"); s != "no constants" || w != nil {
		t.Fatalf("a source without markers changed: %q %v", s, w)
	}
	long := strings.Repeat("x == RG_K64(0x0000000000000001ull) || ", maxConstWords+1)
	if s, w := hoistConstants(long); s != long || w != nil {
		t.Fatalf("%d constants, more than rg_k holds, were hoisted (%d words)", maxConstWords+1, len(w))
	}
}

// TestHoistKeepsPreludeFirst: a generated source keeps the prelude at its
// start once hoisted, so that what looks past the prelude still sees only
// the kernel's code: raisesFlags said yes for every kernel with a constant
// while the declaration came first, and each such run read the status
// word back (one host wait more per pipeline, TPC-H SF10 run v20).
func TestHoistKeepsPreludeFirst(t *testing.T) {
	for _, s := range samplePipelines() {
		src, err := pipelineSource(s.p, s.dictLen)
		if err != nil {
			continue
		}
		h, words := hoistConstants(src)
		if len(words) > 0 && !strings.HasPrefix(h, preludeSrc+"__constant__") {
			t.Errorf("%s: the hoisted source does not begin with the prelude, then rg_k", s.name)
		}
		if raisesFlags(h) != raisesFlags(src) {
			t.Errorf("%s: raisesFlags %v hoisted, %v before", s.name, raisesFlags(h), raisesFlags(src))
		}
	}
}

// TestSameShapeSameSource: a query with other constants (Q1's date, Q6's
// date range and thresholds, a decimal128 and a float literal) generates
// the same source once its constants are hoisted, so it compiles nothing
// new; only the constant words differ, and they are the literals' bits.
func TestSameShapeSameSource(t *testing.T) {
	hoisted := func(p *gpu.Pipeline, dictLen []int) (string, []uint64) {
		t.Helper()
		src, err := pipelineSource(p, dictLen)
		if err != nil {
			t.Fatal(err)
		}
		return hoistConstants(src)
	}
	q1dicts := []int{0, 3, 2, 0, 0, 0, 0}
	a, wa := hoisted(q1Pipeline(10471), q1dicts)
	b, wb := hoisted(q1Pipeline(10400), q1dicts)
	if a != b {
		t.Fatal("Q1 with another date generates another source")
	}
	if !slices.Contains(wa, 10471) || !slices.Contains(wb, 10400) || slices.Contains(wb, 10471) {
		t.Fatalf("Q1's date is not among its constant words: %v / %v", wa, wb)
	}
	q6dicts := []int{0, 0, 0, 0}
	other := q6Pipeline(8800, 9100)
	other.Filter.Args[2].Args[1] = ci(tDec152, 4) // discount >= 0.04 (same bit length as 0.05 and 0.07)
	other.Filter.Args[4].Args[1] = ci(tDec152, 2500)
	a, wa = hoisted(q6Pipeline(8766, 9131), q6dicts)
	b, wb = hoisted(other, q6dicts)
	if a != b {
		t.Fatal("Q6 with other bounds generates another source")
	}
	if !slices.Equal(wa, []uint64{8766, 9131, 5, 7, 2400}) || !slices.Equal(wb, []uint64{8800, 9100, 4, 7, 2500}) {
		t.Fatalf("Q6's constant words: %v and %v", wa, wb)
	}
	if constMarker.MatchString(a) || !strings.Contains(a, "rg_k[4]") {
		t.Fatalf("markers left in the hoisted source, or slots missing:\n%s", a)
	}

	// A decimal128 and a float literal in a projection.
	proj := func(d int64, f float64) *gpu.Pipeline {
		return &gpu.Pipeline{
			Inputs: []gpu.Type{dec128(38, 2), tF64},
			Sink:   gpu.SinkMaterialize,
			Project: []*gpu.Expr{
				call(gpu.OpAdd, dec128(38, 2), gpu.Col(0, dec128(38, 2)), gpu.Const(dec128(38, 2), gpu.Value{I128: big.NewInt(d)})),
				call(gpu.OpMul, tF64, gpu.Col(1, tF64), cf(tF64, f)),
			},
		}
	}
	a, wa = hoisted(proj(-12345, 0.25), nil)
	b, wb = hoisted(proj(-23456, 0.75), nil)
	if a != b {
		t.Fatal("a projection with other literals generates another source")
	}
	if !slices.Contains(wa, math.Float64bits(0.25)) || !slices.Contains(wb, math.Float64bits(0.75)) {
		t.Fatalf("float literal words: %v / %v", wa, wb)
	}
}
