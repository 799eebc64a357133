// Package forpack is the host side of the device's packed integer columns:
// frame-of-reference bit packing (FOR in ../shared/RESEARCH-NOTES.md). A
// column keeps its smallest value (the base) and stores every value as its
// difference from the base in the fewest bits that hold the largest
// difference (Width, 0 to 32). TPC-H's decimals, dates and dictionary
// codes need 2 to 24 bits where the device's plain layout spends 32 or 64.
//
// One base and one width for the whole column, not per block: a kernel
// then finds row i's bits at bit i*Width without reading anything first,
// and decodes it with two 32-bit loads, a funnel shift and an add
// (prelude.cuh's rg_unpacked), as fast as a plain load. Per-block headers
// (GPU-FOR's) made every value's load wait for its header's: TPC-H Q6 ran
// 2.2x slower hot than plain (bench/results/2026-11-28-h200-tpch-sf10-packed-v37.md).
//
// Layout: little-endian uint32 words, value i's difference at bit i*Width
// (bit 0 = the lowest bit of word 0), then PadWords zero words, so that a
// decoder may always read the word after a value's first.
package forpack

import (
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

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

// ints is data viewed as its little-endian signed integers (the host is
// little-endian, as the device): typed loops, not a decode a value.
type ints interface{ ~int32 | ~int64 }

func view[T ints](data []byte, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&data[0])), n)
}

// checkElem refuses element sizes other than 4 and 8 bytes and data
// shorter than n values.
func checkElem(data []byte, elem, n int) error {
	if elem != 4 && elem != 8 {
		return fmt.Errorf("forpack: %d-byte values (4 or 8)", elem)
	}
	if len(data) < n*elem {
		return fmt.Errorf("forpack: %d bytes hold fewer than %d values of %d bytes", len(data), n, elem)
	}
	return nil
}

// Range is the smallest and largest of n values of data (little-endian
// signed integers of elem bytes, 4 or 8), read in parallel; ok is false
// for no values.
func Range(data []byte, elem, n int) (lo, hi int64, ok bool, err error) {
	if err := checkElem(data, elem, n); err != nil {
		return 0, 0, false, err
	}
	if n == 0 {
		return 0, 0, false, nil
	}
	if elem == 4 {
		lo, hi = rangeOf(view[int32](data, n))
	} else {
		lo, hi = rangeOf(view[int64](data, n))
	}
	return lo, hi, true, nil
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

// Pack writes n values of data in frame f (every value must lie in it:
// Range, Holds) into words, the first value at bit firstBit (below 32) of
// words[0]: a column packed in parts continues the word its last part
// ended in. words holds the (firstBit + n*Width) bits zeroed (or holding
// the earlier part's bits, which Pack keeps); in parallel.
func Pack(data []byte, elem, n int, f Frame, words []uint32, firstBit uint) error {
	if err := checkElem(data, elem, n); err != nil {
		return err
	}
	if f.Width > MaxWidth || firstBit >= 32 {
		return fmt.Errorf("forpack: width %d (at most %d) from bit %d", f.Width, MaxWidth, firstBit)
	}
	if need := (uint64(firstBit) + uint64(n)*uint64(f.Width) + 31) / 32; uint64(len(words)) < need {
		return fmt.Errorf("forpack: %d words, %d values of width %d need %d", len(words), n, f.Width, need)
	}
	if f.Width == 0 {
		return nil
	}
	if elem == 4 {
		pack(view[int32](data, n), f, words, firstBit)
	} else {
		pack(view[int64](data, n), f, words, firstBit)
	}
	return nil
}

// rangeOf is the smallest and largest of vals (not empty), in parallel.
func rangeOf[T ints](vals []T) (int64, int64) {
	type span struct{ lo, hi T }
	parts := make([]span, runtime.GOMAXPROCS(0))
	used := parallel(len(vals), func(part, lo, hi int) {
		a, z := vals[lo], vals[lo]
		for _, v := range vals[lo+1 : hi] {
			a, z = min(a, v), max(z, v)
		}
		parts[part] = span{a, z}
	})
	a, z := parts[0].lo, parts[0].hi
	for _, p := range parts[1:used] {
		a, z = min(a, p.lo), max(z, p.hi)
	}
	return int64(a), int64(z)
}

// pack writes vals' differences from f.Base, each goroutine a range of
// 32-value groups (a group of width w is w words from the same bit of a
// word). A range's first and last words may hold another range's bits
// (or the earlier part's): those it ORs in atomically.
func pack[T ints](vals []T, f Frame, words []uint32, firstBit uint) {
	base, w := uint64(f.Base), uint(f.Width)
	groups := (len(vals) + 31) / 32
	parallel(groups, func(_, g0, g1 int) {
		lo, hi := g0*32, min(g1*32, len(vals))
		out := words[uint(g0)*w:]
		// Bits gather in a 64-bit accumulator, written a word at a time.
		acc, have, k := uint64(0), firstBit, 0
		put := func(v uint32, last bool) {
			if k == 0 || last {
				atomic.OrUint32(&out[k], v)
			} else {
				out[k] = v
			}
			k++
		}
		for _, v := range vals[lo:hi] {
			acc |= (uint64(int64(v)) - base) << have
			have += w
			if have >= 32 {
				put(uint32(acc), false)
				acc >>= 32
				have -= 32
			}
		}
		if have > 0 {
			put(uint32(acc), true)
		}
	})
}

// Value decodes value i of words packed in f, as the device does
// (prelude.cuh's rg_unpacked): the reference the tests hold the device to.
func Value(words []uint32, f Frame, i int) int64 {
	bit := uint64(i) * uint64(f.Width)
	p := words[bit>>5:]
	d := (uint64(p[0]) | uint64(p[1])<<32) >> (bit & 31) & (1<<f.Width - 1)
	return int64(uint64(f.Base) + d)
}

// parallel runs f over [0, n) in up to GOMAXPROCS ranges, f(part, lo, hi)
// each on its goroutine; it returns the parts used.
func parallel(n int, f func(part, lo, hi int)) int {
	const grain = 1 << 16 // items a goroutine takes at least
	parts := max(1, min(runtime.GOMAXPROCS(0), (n+grain-1)/grain))
	if parts == 1 {
		f(0, 0, n)
		return 1
	}
	var wg sync.WaitGroup
	step := (n + parts - 1) / parts
	used := 0
	for lo := 0; lo < n; lo += step {
		wg.Add(1)
		go func(part, lo, hi int) {
			defer wg.Done()
			f(part, lo, hi)
		}(used, lo, min(lo+step, n))
		used++
	}
	wg.Wait()
	return used
}
