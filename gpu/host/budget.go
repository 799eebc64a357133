package host

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/rigel-db/rigel/gpu"
)

// The host device's memory budget. Its columns live on the Go heap, so a
// query whose intermediates outgrow the machine (a cross product, a join
// whose keys repeat on both sides) would end the process. Every operation
// therefore reserves what it is about to allocate (its output from the row
// count, its hash tables and scratch) before allocating it, and fails with
// gpu.ErrOutOfMemory when the reservation would pass the budget: the engine
// then runs the query on DuckDB instead. Columns count what they hold from
// their creation to their Release (Stats.BytesLive).

// Options configure a host device.
type Options struct {
	// MemoryLimit bounds the bytes its columns and running operations hold
	// at once; 0 takes DefaultMemoryLimit().
	MemoryLimit int64
}

// NewWithOptions returns a host device that uses every CPU.
func NewWithOptions(o Options) (*Device, error) {
	if o.MemoryLimit < 0 {
		return nil, fmt.Errorf("host device: MemoryLimit must be 0 (the default, %s) or a positive number of bytes, got %d",
			gpu.SizeText(DefaultMemoryLimit()), o.MemoryLimit)
	}
	d := newDevice()
	d.limit = o.MemoryLimit
	if d.limit == 0 {
		d.limit = DefaultMemoryLimit()
	}
	return d, nil
}

// MemoryLimit is the device's budget in bytes.
func (d *Device) MemoryLimit() int64 { return d.limit }

// memoryShare is the part of the process's memory the default budget
// takes. The Go collector lets the heap grow to about twice what is live
// before it collects (GOGC=100), so columns holding a quarter of the memory
// may occupy half of it; the other half stays for DuckDB (in the same
// process), the Arrow results on their way to the client, and the rest.
const memoryShare = 4

// DefaultMemoryLimit is a quarter (memoryShare) of the memory this process
// may use: the cgroup's limit where there is one, else the machine's.
func DefaultMemoryLimit() int64 {
	return gpu.ProcessMemory() / memoryShare
}

// grant is what one operation has reserved of the budget: its scratch and
// its outputs, reserved before they are allocated and given back when the
// operation ends (done). The output columns are charged by themselves
// (newColumn) for as long as they live.
type grant struct {
	d     *Device
	what  string
	bytes atomic.Int64 // the parallel tasks of one operation add to it
}

// reserve opens a grant for an operation (what names it in errors) and
// reserves n bytes in it.
func (d *Device) reserve(what string, n int64) (*grant, error) {
	g := &grant{d: d, what: what}
	return g, g.add(n)
}

// add reserves n more bytes, or fails with gpu.ErrOutOfMemory when they
// would pass the budget.
func (g *grant) add(n int64) error {
	if n <= 0 {
		return nil
	}
	d := g.d
	for {
		live := d.live.Load()
		if live > d.limit-n { // live+n > limit, without overflow
			return &gpu.OutOfMemory{Device: "host", What: g.what, Asked: n, InUse: live, Budget: d.limit,
				Hint: "a smaller query, or a larger budget: rigel --host-memory, host.Options.MemoryLimit in Go"}
		}
		if d.live.CompareAndSwap(live, live+n) {
			d.noteLive(live + n)
			g.bytes.Add(n)
			return nil
		}
	}
}

// done gives the grant's bytes back to the budget.
func (g *grant) done() {
	g.d.live.Add(-g.bytes.Swap(0))
}

// CheckRows tells whether rows rows of types fit in what is left of the
// budget now (gpu.MemoryBudget); it reserves nothing.
func (d *Device) CheckRows(what string, rows int64, types []gpu.Type) error {
	g, err := d.reserve(what, times(rows, rowBytes(types...)))
	if err == nil {
		g.done()
	}
	return err
}

// rowBytes is what one row of columns of these types holds on the host
// (vec): 8 bytes a value (16 for decimal128; a Str row is an int32 into
// characters it shares), one more where the type is nullable.
func rowBytes(types ...gpu.Type) int64 {
	var n int64
	for _, t := range types {
		switch {
		case t.Kind == gpu.Str:
			n += 4
		case storageOf(t.Kind) == st128:
			n += 16
		default:
			n += 8
		}
		if t.Nullable {
			n++
		}
	}
	return n
}

// times is n*per, saturated at math.MaxInt64 (a cross product's row count
// times a row's bytes can pass it; the budget refuses it all the same).
func times(n, per int64) int64 {
	if n <= 0 || per <= 0 {
		return 0
	}
	if n > math.MaxInt64/per {
		return math.MaxInt64
	}
	return n * per
}

// vecBytes is what a column's vector holds: its slices' capacity, and for
// Str either the row list into shared characters or, where the vector has
// none, the offsets and characters it owns.
func vecBytes(v *vec) int64 {
	n := int64(cap(v.i64))*8 + int64(cap(v.f64))*8 + int64(cap(v.i128))*16 + int64(cap(v.valid))
	if s := v.str; s != nil {
		if s.rows != nil {
			n += int64(cap(s.rows)) * 4
		} else {
			n += int64(cap(s.offs))*4 + int64(cap(s.chars))
		}
	}
	return n
}
