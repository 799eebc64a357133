package cuda

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/gpu"
)

// String-function tables over a large dictionary stay on the device between
// runs. gpu's host cache already keeps each table's bytes per (dictionary,
// function); without this cache every run still encoded and uploaded them:
// ~3 ms for each pipeline of TPC-H Q22 at SF10 (substring over c_phone's
// 1.5M-entry dictionary, a 6 MB code map), while its kernels took 0.1 ms
// (H100 trace of run 10, RIGEL_TRACE=1). Small tables are cheaper to upload than to keep.
const (
	minDevTableEntries = 1 << 14
	maxDevTableBytes   = 256 << 20
)

// devTableKey names a table: the dictionary it was built over (held by
// the cache, so that its address is not reused while the entry lives) and
// the function.
type devTableKey struct {
	dict *array.String
	fn   string
}

type devTableCache struct {
	blocks map[devTableKey]uint64 // pool blocks holding the tables
	sizes  map[devTableKey]int64
	order  []devTableKey // oldest first
	bytes  int64
}

// cachedStrTable returns the device copy of node e's table, uploading it first if
// it is worth keeping; ok is false when the table goes with the run's
// other tables instead. Called with d.mu held.
func (d *Device) cachedStrTable(e *gpu.Expr, dict *array.String, table []byte) (ptr uint64, ok bool) {
	if dict == nil || dict.Len() < minDevTableEntries || int64(len(table)) > maxDevTableBytes/4 || isPlaceIn(e) || isCodeIn(e) {
		// (Place and merged-code tables depend on other dictionaries,
		// which the key does not name: dictorder.go.)
		return 0, false
	}
	c := &d.tables
	k := devTableKey{dict, e.Str.String()}
	if b, hit := c.blocks[k]; hit {
		return b, true
	}
	size := int64(len(table))
	for c.bytes+size > maxDevTableBytes && len(c.order) > 0 {
		d.dropStrTable(c.order[0])
	}
	b, err := d.pool.get(size, "string table")
	if err != nil {
		return 0, false // the run's own block may still fit
	}
	if err := d.copyIn(b, table, "string table"); err != nil {
		d.pool.put(b)
		return 0, false
	}
	if c.blocks == nil {
		c.blocks, c.sizes = map[devTableKey]uint64{}, map[devTableKey]int64{}
	}
	dict.Retain()
	c.blocks[k], c.sizes[k] = b, size
	c.order = append(c.order, k)
	c.bytes += size
	return b, true
}

// dropStrTable gives a cached table's block back to the pool (stream
// ordered: runs already queued still read it first).
func (d *Device) dropStrTable(k devTableKey) {
	c := &d.tables
	b, ok := c.blocks[k]
	if !ok {
		return
	}
	d.pool.put(b)
	c.bytes -= c.sizes[k]
	delete(c.blocks, k)
	delete(c.sizes, k)
	for i, o := range c.order {
		if o == k {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
	k.dict.Release()
}

// dropStrTables empties the cache (Close, and before giving up on memory).
func (d *Device) dropStrTables() {
	for len(d.tables.order) > 0 {
		d.dropStrTable(d.tables.order[0])
	}
}

// tableBytes is node e's table as the kernel reads it: the predicate's
// bytes, or the code map's int32s in the host's (little-endian) order.
func tableBytes(st *strTables, e *gpu.Expr) []byte {
	if e.Op == gpu.OpStrPred {
		return st.pred[e]
	}
	codes := st.codes[e]
	if len(codes) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&codes[0])), 4*len(codes))
}
