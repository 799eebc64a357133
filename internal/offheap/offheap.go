// Package offheap holds the large, short-lived buffers of loading a table
// column (DuckDB's values copied out, encoded for the device, then
// uploaded) in anonymous memory maps that go back to the system when freed,
// outside the Go heap.
//
// Why: in the heap, a table's columns (gigabytes, garbage once on the
// device) left the runtime returning those pages to the system while the
// next queries ran, and those queries' own allocations faulted pages back
// in. On an H100 machine, TPC-H SF10's hot runs took 4.31 ms in geometric
// mean right after loads that allocated their columns in the heap, against
// 2.38 ms after the older, slower loads
// (bench/results/2026-11-28-h100-tpch-sf10-loader-v30.md); on the build
// machine a loop of allocations after each load of SF1's lineitem met
// 10,000 to 40,000 page faults a run for half a second, and at most a few
// thousand once the buffers were maps.
package offheap

import "github.com/apache/arrow-go/v18/arrow/memory"

// Allocator is memory.Allocator over Map, so that an array's Release
// unmaps its buffers.
type Allocator struct{}

func (Allocator) Allocate(n int) []byte {
	b, err := Map(n)
	if err != nil {
		panic(err) // memory.Allocator cannot fail; Region's callers get the error
	}
	return b
}

func (Allocator) Reallocate(n int, b []byte) []byte {
	nb := Allocator{}.Allocate(n)
	copy(nb, b)
	Unmap(b)
	return nb
}

func (Allocator) Free(b []byte) { Unmap(b) }

var _ memory.Allocator = Allocator{}

// Region is a growing buffer of mapped memory: len(B) is what is used.
type Region struct{ B []byte }

// Extend makes the region n bytes long, keeping its contents; the bytes
// added hold whatever was there (the caller writes them).
func (r *Region) Extend(n int) error {
	if n <= cap(r.B) {
		r.B = r.B[:n]
		return nil
	}
	nb, err := Map(max(n, 2*cap(r.B)))
	if err != nil {
		return err
	}
	copy(nb, r.B)
	Unmap(r.B)
	r.B = nb[:n]
	return nil
}

// Add appends p.
func (r *Region) Add(p []byte) error {
	at := len(r.B)
	if err := r.Extend(at + len(p)); err != nil {
		return err
	}
	copy(r.B[at:], p)
	return nil
}

// Reserve makes room for n bytes without using them.
func (r *Region) Reserve(n int) error {
	if n <= cap(r.B) {
		return nil
	}
	at := len(r.B)
	if err := r.Extend(n); err != nil {
		return err
	}
	r.B = r.B[:at]
	return nil
}

// Free unmaps the region.
func (r *Region) Free() {
	Unmap(r.B)
	r.B = nil
}

// Buffer hands the region to an Arrow buffer that unmaps it on release.
func (r *Region) Buffer() *memory.Buffer {
	b := r.B
	r.B = nil
	if b == nil {
		return memory.NewBufferBytes(nil)
	}
	return memory.NewBufferWithAllocator(b, Allocator{})
}
