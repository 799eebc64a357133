package forpack

import (
	"encoding/binary"
	"math"
	"math/rand"
	"testing"
)

// column writes vals as little-endian integers of elem bytes.
func column(vals []int64, elem int) []byte {
	b := make([]byte, len(vals)*elem)
	for i, v := range vals {
		if elem == 4 {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(v)))
		} else {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
		}
	}
	return b
}

// roundTrip packs vals in their frame and checks every value decodes
// back; ok is false when they need more than MaxWidth bits.
func roundTrip(t *testing.T, vals []int64, elem int) (f Frame, ok bool) {
	t.Helper()
	data := column(vals, elem)
	lo, hi, any, err := Range(data, elem, len(vals))
	if err != nil {
		t.Fatal(err)
	}
	if !any {
		lo, hi = 0, 0
	}
	if f, ok = FrameOf(lo, hi); !ok {
		return f, false
	}
	if !f.Holds(lo, hi) {
		t.Fatalf("frame %+v does not hold its own range [%d, %d]", f, lo, hi)
	}
	words := make([]uint32, f.Words(len(vals)))
	if err := Pack(data, elem, len(vals), f, words, 0); err != nil {
		t.Fatal(err)
	}
	if words[len(words)-1] != 0 || words[len(words)-2] != 0 {
		t.Fatalf("the last words are %#x, not the zero words decoders may read", words[len(words)-2:])
	}
	for i, want := range vals {
		if got := Value(words, f, i); got != want {
			t.Fatalf("value %d of %d (width %d): %d, want %d", i, len(vals), f.Width, got, want)
		}
	}
	return f, true
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	cases := map[string]struct {
		elem  int
		packs bool
		gen   func(i int) int64
	}{
		"constant":       {8, true, func(int) int64 { return 42 }},
		"discount 0..10": {8, true, func(int) int64 { return r.Int63n(11) }},
		"dates":          {4, true, func(int) int64 { return 8035 + r.Int63n(2557) }},
		"negative int32": {4, true, func(int) int64 { return -r.Int63n(1 << 20) }},
		"int32 extremes": {4, true, func(i int) int64 { return []int64{math.MinInt32, math.MaxInt32, 0}[i%3] }},
		"width 32":       {8, true, func(i int) int64 { return -5 + int64(i%2)*math.MaxUint32 }},
		"width 33":       {8, false, func(i int) int64 { return int64(i%2) << 32 }},
		"int64 extremes": {8, false, func(i int) int64 { return []int64{math.MinInt64, math.MaxInt64}[i%2] }},
		"near int64 max": {8, true, func(i int) int64 { return math.MaxInt64 - int64(i%1000) }},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			for _, n := range []int{1, 31, 32, 33, 1000, 1 << 18} {
				vals := make([]int64, n)
				for i := range vals {
					vals[i] = c.gen(i)
				}
				if n < 3 && !c.packs {
					continue // one or two values may fit where more do not
				}
				if _, ok := roundTrip(t, vals, c.elem); ok != c.packs {
					t.Fatalf("%d values pack: %v, want %v", n, ok, c.packs)
				}
			}
		})
	}
}

// TestWidths checks the sizes packing is for: a frame's width from its
// span, and the bytes a column of TPC-H-like values packs into.
func TestWidths(t *testing.T) {
	for _, c := range []struct {
		lo, hi int64
		want   uint8
	}{{0, 0, 0}, {5, 6, 1}, {0, 10, 4}, {-128, 127, 8}, {0, 256, 9}, {0, math.MaxUint32, 32}} {
		if f, ok := FrameOf(c.lo, c.hi); !ok || f.Width != c.want || f.Base != c.lo {
			t.Errorf("FrameOf(%d, %d) = %+v, %v; want width %d", c.lo, c.hi, f, ok, c.want)
		}
	}
	r := rand.New(rand.NewSource(2))
	vals := make([]int64, 1<<16)
	for i := range vals {
		vals[i] = r.Int63n(11) // l_discount as hundredths: 4 bits
	}
	f, _ := roundTrip(t, vals, 8)
	if got, want := f.Bytes(len(vals)), int64(len(vals))/2+4*PadWords; got != want {
		t.Errorf("4-bit column of %d values packs into %d bytes, want %d", len(vals), got, want)
	}
	if !f.Holds(0, 15) || f.Holds(0, 16) || f.Holds(-1, 3) {
		t.Errorf("frame %+v: Holds wrong at its edges", f)
	}
}

// TestPackInParts packs a column in parts that start inside a word, each
// continuing the word the last ended in, as the device's segment upload
// does; the parts' goroutines share boundary words too.
func TestPackInParts(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	vals := make([]int64, 1<<18+77)
	for i := range vals {
		vals[i] = 1000 + r.Int63n(1<<13)
	}
	f, _ := FrameOf(1000, 1000+1<<13-1)
	words := make([]uint32, f.Words(len(vals)))
	for _, cut := range [][2]int{{0, 1}, {1, 33}, {33, 100_003}, {100_003, len(vals)}} {
		part := vals[cut[0]:cut[1]]
		bit := uint64(cut[0]) * uint64(f.Width)
		if err := Pack(column(part, 8), 8, len(part), f, words[bit/32:], uint(bit%32)); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range vals {
		if got := Value(words, f, i); got != want {
			t.Fatalf("value %d: %d, want %d", i, got, want)
		}
	}
}

func TestRefusals(t *testing.T) {
	if _, _, _, err := Range(make([]byte, 8), 2, 4); err == nil {
		t.Error("2-byte values: no error")
	}
	if _, _, _, err := Range(make([]byte, 8), 8, 2); err == nil {
		t.Error("8 bytes for two int64: no error")
	}
	f := Frame{Width: 7}
	if err := Pack(make([]byte, 8*100), 8, 100, f, make([]uint32, f.Words(100)-PadWords-1), 0); err == nil {
		t.Error("no room for the words: no error")
	}
	if err := Pack(make([]byte, 8), 8, 1, Frame{Width: 33}, make([]uint32, 8), 0); err == nil {
		t.Error("width 33: no error")
	}
}

func BenchmarkRangeAndPack(b *testing.B) {
	r := rand.New(rand.NewSource(3))
	vals := make([]int64, 1<<22)
	for i := range vals {
		vals[i] = r.Int63n(1 << 20)
	}
	data := column(vals, 8)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		lo, hi, _, _ := Range(data, 8, len(vals))
		f, _ := FrameOf(lo, hi)
		words := make([]uint32, f.Words(len(vals)))
		_ = Pack(data, 8, len(vals), f, words, 0)
	}
}
