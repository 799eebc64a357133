package gpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Every row of a frame is added once: over integers (exact in any order)
// each frame's sum is the plain sum.
func TestSegmentTreeAddsEveryRowOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, 5000)
	for i := range vals {
		vals[i] = float64(r.IntN(2001) - 1000)
	}
	tree := NewSegmentTree(vals)
	for _, f := range [][2]int{{0, 0}, {0, 1}, {3, 17}, {15, 16}, {16, 32}, {0, 4096}, {1, 4097}, {17, 4999}, {0, 5000}, {4095, 4097}} {
		want := 0.0
		for _, v := range vals[f[0]:f[1]] {
			want += v
		}
		if got := tree.Sum(f[0], f[1]); got != want {
			t.Errorf("frame [%d, %d): %v, want %v", f[0], f[1], got, want)
		}
	}
	for i := 0; i < 2000; i++ {
		b := r.IntN(len(vals))
		e := b + r.IntN(len(vals)-b+1)
		want := 0.0
		for _, v := range vals[b:e] {
			want += v
		}
		if got := tree.Sum(b, e); got != want {
			t.Fatalf("frame [%d, %d): %v, want %v", b, e, got, want)
		}
	}
}

// The order, written out for two frames: the ragged rows at the start,
// the level-1 entries between (each the sum of its 16 rows onto 0), the
// ragged rows at the end; and a frame crossing level 2.
func TestSegmentTreeOrder(t *testing.T) {
	vals := make([]float64, 600)
	for i := range vals {
		vals[i] = 1/float64(i+3) + float64(i%7)*1e7
	}
	sum := func(from, to int) float64 {
		acc := 0.0
		for _, v := range vals[from:to] {
			acc += v
		}
		return acc
	}
	l1 := func(j int) float64 { return sum(16*j, min(len(vals), 16*j+16)) }
	tree := NewSegmentTree(vals)
	want := 0.0
	want = sum(3, 16) // onto 0
	want += l1(1)
	want = sumRange(vals, 32, 37, want)
	if got := tree.Sum(3, 37); math.Float64bits(got) != math.Float64bits(want) {
		t.Errorf("[3, 37): %v, want %v", got, want)
	}
	// [5, 530): rows 5..15, level 1 entries 1..15, level 2 entry 1 (rows
	// 256..511, the sum of its 16 level-1 entries onto 0), level 1 entry
	// 32 (rows 512..527), rows 528..529.
	want = sum(5, 16)
	for j := 1; j < 16; j++ {
		want += l1(j)
	}
	l2 := 0.0
	for j := 16; j < 32; j++ {
		l2 += l1(j)
	}
	want += l2
	want += l1(32)
	want = sumRange(vals, 528, 530, want)
	if got := tree.Sum(5, 530); math.Float64bits(got) != math.Float64bits(want) {
		t.Errorf("[5, 530): %v, want %v", got, want)
	}
	// The values make the order matter: row after row gives other bits.
	if plain := sum(5, 530); math.Float64bits(plain) == math.Float64bits(want) {
		t.Errorf("[5, 530) added row after row is %v too: the case does not tell the orders apart", plain)
	}
}
