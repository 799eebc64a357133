// Package forpack is the frame of reference of the device's packed integer
// columns (FOR in ../shared/RESEARCH-NOTES.md): a column keeps its
// smallest value (the base) and stores every value as its difference from
// the base in the fewest bits that hold the largest difference (Width, 0
// to 32). TPC-H's decimals, dates and dictionary codes need 2 to 24 bits
// where the device's plain layout spends 32 or 64.
//
// One base and one width for the whole column, not per block: a kernel
// then finds row i's bits at bit i*Width without reading anything first
// (prelude.cuh's rg_unpacked). Per-block headers (GPU-FOR's) made every
// value's load wait for its header's: TPC-H Q6 ran 2.2x slower hot than
// plain (bench/results/2026-11-28-h200-tpch-sf10-packed-v37.md). Any width
// fits the layout; the CUDA device rounds it to 8, 16 or 32 bits (gpu/cuda's
// byteWidth), which its generated kernels read with one load of that width,
// and packs on the device (rg_pack).
//
// Layout: little-endian uint32 words, value i's difference at bit i*Width
// (bit 0 = the lowest bit of word 0), then PadWords zero words, so that a
// decoder may always read the word after a value's first.
package forpack

import "math/bits"

// MaxWidth is the widest difference packed: a value is read from two words.
const MaxWidth = 32

// PadWords are the zero words after the values that decoders may read.
const PadWords = 2

// Frame is a column's frame of reference: its base and width.
type Frame struct {
	Base  int64
	Width uint8
}

// Words is the words n values packed in f take from a word's first bit,
// the zero words included.
func (f Frame) Words(n int) uint64 { return (uint64(n)*uint64(f.Width)+31)/32 + PadWords }

// Bytes is the packed size of n values.
func (f Frame) Bytes(n int) int64 { return int64(f.Words(n)) * 4 }

// Holds reports whether every value of [lo, hi] packs in f.
func (f Frame) Holds(lo, hi int64) bool {
	return lo >= f.Base && uint64(hi)-uint64(f.Base) <= 1<<f.Width-1
}

// FrameOf is the frame of values in [lo, hi]; ok is false when their
// differences need more than MaxWidth bits.
func FrameOf(lo, hi int64) (f Frame, ok bool) {
	w := bits.Len64(uint64(hi) - uint64(lo))
	if w > MaxWidth {
		return Frame{}, false
	}
	return Frame{Base: lo, Width: uint8(w)}, true
}
