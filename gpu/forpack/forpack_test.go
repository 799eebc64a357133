package forpack

import (
	"math"
	"testing"
)

// TestFrames checks a frame's width from its span, the refusal past 32
// bits, the bytes n values take (the pad words included), and Holds at a
// frame's edges. The device's packing itself is checked by the device
// battery (gpu/devicetest's packed cases).
func TestFrames(t *testing.T) {
	for _, c := range []struct {
		lo, hi int64
		want   uint8
	}{{0, 0, 0}, {5, 6, 1}, {0, 10, 4}, {-128, 127, 8}, {0, 256, 9}, {0, math.MaxUint32, 32},
		{math.MinInt64, math.MinInt64 + 1000, 10}, {math.MaxInt64 - 1, math.MaxInt64, 1}} {
		if f, ok := FrameOf(c.lo, c.hi); !ok || f.Width != c.want || f.Base != c.lo {
			t.Errorf("FrameOf(%d, %d) = %+v, %v; want width %d", c.lo, c.hi, f, ok, c.want)
		}
	}
	for _, c := range [][2]int64{{0, math.MaxUint32 + 1}, {math.MinInt64, math.MaxInt64}, {-1, math.MaxUint32}} {
		if f, ok := FrameOf(c[0], c[1]); ok {
			t.Errorf("FrameOf(%d, %d) = %+v: more than 32 bits taken", c[0], c[1], f)
		}
	}
	f, _ := FrameOf(0, 10)
	if got, want := f.Bytes(1<<16), int64(1<<16)/2+4*PadWords; got != want {
		t.Errorf("4-bit column of %d values packs into %d bytes, want %d", 1<<16, got, want)
	}
	if got := (Frame{Width: 16}).Words(3); got != 2+PadWords {
		t.Errorf("3 values of 16 bits: %d words, want %d", got, 2+PadWords)
	}
	if !f.Holds(0, 15) || f.Holds(0, 16) || f.Holds(-1, 3) {
		t.Errorf("frame %+v: Holds wrong at its edges", f)
	}
}
