package physical

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
)

// Host-held columns. A scan that a plan streams through the device a
// segment at a time (Chunked) reads its table's columns into host memory
// once and keeps them there, in the cache beside the device columns. On a
// device that spills (gpu.Spiller) each segment's first upload is copied
// back as the device holds it (packed) and later runs restore that copy:
// the link carries the packed bytes, and the host neither reads the source
// nor encodes again. A string column the device holds as a dictionary is
// kept dictionary-encoded (an Arrow dictionary array over one sorted
// dictionary), so that every segment carries the same dictionary and the
// segments' results can be put together (a Concat of two dictionaries is
// refused).
//
// A string column in Arrow layout (gpu.Str) is read a segment at a time
// where the source can (SegmentReader), each segment an array of its own:
// the devices copy no such column back, so every run uploads its rows as
// read, and one array of a large table's strings would pass the 2 GB that
// Arrow's 32-bit offsets address (TPC-H SF100's o_comment holds 7.3 GB,
// bench/results/2026-11-28-h200-tpch-sf100-budget-16gb-v52.md).
//
// The host columns answer to the loads' host memory budget (loadbudget.go)
// while they are read, and to hostColumnShare of the process's memory
// while they are kept: past it the least recently used leave.

// hostColumnShare: the kept host columns take at most this part of the
// process's memory (gpu.ProcessMemory).
const hostColumnShare = 2

// hostColumnLimit is that part, read once: trimHost runs twice in every
// run of a streamed plan, and the process's memory takes reading three
// files.
var hostColumnLimit = sync.OnceValue(func() int64 { return gpu.ProcessMemory() / hostColumnShare })

// hostEntry is one column held on the host: as read (arr), and, on a
// device that spills (gpu.Spiller), each segment as the device held it
// after its first upload (segs, by segment rows), which later runs
// restore instead of uploading arr's rows again. arr goes once every
// segment of a segmentation is spilled.
type hostEntry struct {
	key string // the column's cache key (scanKey)
	arr arrow.Array
	// parts, in place of arr, are the column's segments of partRows rows
	// as read (strings in Arrow layout, see above).
	parts    []arrow.Array
	partRows int64
	rows     int64
	segs     map[int64][]gpu.HostColumn
	bytes    int64
	used     int64 // the cache's use counter when last read
	pins     int   // runs using it
	gone     bool  // dropped from the map while pinned: freed at the last unpin
}

func (e *hostEntry) free() {
	if e.arr != nil {
		e.arr.Release()
		e.arr = nil
	}
	for _, p := range e.parts {
		p.Release()
	}
	e.parts = nil
	for _, segs := range e.segs {
		releaseHeld(segs)
	}
	e.segs = nil
}

// hostColumns returns the columns of s held on the host for segments of
// seg rows, reading the missing ones from src (and those held only in
// segments of another size, spilled under another budget), pinned: the
// caller unpins them (unpinHost).
func (c *ColumnCache) hostColumns(ctx context.Context, src TableSource, s *Scan, seg int64) ([]*hostEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.host == nil {
		c.host = map[string]*hostEntry{}
	}
	out := make([]*hostEntry, 0, len(s.Columns))
	start := time.Now()
	var read int64
	defer func() {
		if read > 0 {
			c.progress(fmt.Sprintf("read %.2f GB of %s into host memory in %s (%.2f GB/s), to stream it through the device", float64(read)/1e9, s.Table,
				time.Since(start).Round(time.Millisecond), float64(read)/1e9/max(time.Since(start).Seconds(), 1e-9)))
		}
	}()
	for i := range s.Columns {
		key := scanKey(src.ID(), s, i)
		c.hostUses++
		e, ok := c.host[key]
		if !ok || !e.serves(seg) {
			if read == 0 {
				c.progress(fmt.Sprintf("reading columns of %s into host memory, to stream them through the device a segment of %d rows at a time", s.Table, seg))
			}
			arr, parts, err := c.readHostColumn(ctx, src, s, i, seg)
			if err != nil {
				c.unpinHostLocked(out)
				return nil, fmt.Errorf("reading %s.%s into host memory: %w", s.Table, s.Columns[i], err)
			}
			if !ok {
				e = &hostEntry{key: key}
				c.host[key] = e
			}
			var n int64
			if arr != nil {
				n = arrayBytes(arr)
				e.arr, e.rows = arr, int64(arr.Len())
			} else {
				for _, p := range e.parts {
					e.bytes -= arrayBytes(p)
					c.hostBytes -= arrayBytes(p)
					p.Release()
				}
				e.parts, e.partRows, e.rows = parts, seg, 0
				for _, p := range parts {
					n += arrayBytes(p)
					e.rows += int64(p.Len())
				}
			}
			e.bytes += n
			c.hostBytes += n
			read += n
		}
		e.used = c.hostUses
		e.pins++
		out = append(out, e)
	}
	c.trimHost()
	return out, nil
}

// serves reports whether e holds the rows of every segment of seg rows:
// the column as read, its parts read in segments of that size, or the
// segments' spilled copies.
func (e *hostEntry) serves(seg int64) bool {
	return e.arr != nil || e.parts != nil && e.partRows == seg || e.segs[seg] != nil
}

// unpinHost ends a run's use of host columns.
func (c *ColumnCache) unpinHost(es []*hostEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unpinHostLocked(es)
	c.trimHost()
}

func (c *ColumnCache) unpinHostLocked(es []*hostEntry) {
	for _, e := range es {
		e.pins--
		if e.pins == 0 && e.gone {
			e.free()
		}
	}
}

// segmentColumn puts segment k (rows lo to hi, of seg rows a segment) of
// host column e on dev as type t, and returns with it release, which ends
// the segment's use of it. The column comes from the device cache where a
// run left it, else restored from its spilled copy, else uploaded from the
// rows as read (and then spilled for the next run); the device cache keeps
// it when it has room for it without evicting anything (admitSegment).
func (c *ColumnCache) segmentColumn(ctx context.Context, dev gpu.Device, e *hostEntry, t gpu.Type, seg, k, lo, hi int64, st *ScanStats) (col gpu.Column, release func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := fmt.Sprintf("%s\x00segment %d of %d rows", e.key, k, seg)
	if ce, ok := c.entries[key]; ok {
		ce.pins++
		c.lru.MoveToFront(ce.elem)
		c.stats.Hits++
		st.SegmentsCached++
		return ce.col, func() { c.unpin([]*cacheEntry{ce}) }, nil
	}
	c.stats.Misses++
	col, err = c.segmentFromHost(ctx, dev, e, t, seg, k, lo, hi, st)
	if err != nil {
		return nil, nil, err
	}
	return col, c.admitSegment(key, col), nil
}

// admitSegment keeps a segment's column in the device cache when the
// cache has room for it as it is: a streamed table's segments are read in
// the same order by every run, and making room for one by evicting the
// least recently used would evict the segment the next run reads first
// (every run would miss every segment). So the first segments that fit
// stay, and the others stream. At TPC-H SF10 under a 2 GB budget the hot
// geomean went from 9.7x DuckDB to 28.3x
// (bench/results/2026-11-28-h200-tpch-sf10-budget-2gb-v49-segments-kept.md).
// It returns what ends the segment's use of col. c.mu held.
func (c *ColumnCache) admitSegment(key string, col gpu.Column) (release func()) {
	bytes := columnBytes(col)
	if c.limit <= 0 || c.used+bytes > c.limit {
		return col.Release
	}
	ce := &cacheEntry{key: key, col: col, bytes: bytes, pins: 1}
	ce.elem = c.lru.PushFront(ce)
	c.entries[key] = ce
	c.used += bytes
	return func() { c.unpin([]*cacheEntry{ce}) }
}

// segmentFromHost puts segment k of e on dev: restored from its spilled
// copy, or uploaded from the rows as read and then spilled; st counts the
// bytes and the segment. c.mu held.
func (c *ColumnCache) segmentFromHost(ctx context.Context, dev gpu.Device, e *hostEntry, t gpu.Type, seg, k, lo, hi int64, st *ScanStats) (col gpu.Column, err error) {
	sp, spills := dev.(gpu.Spiller)
	if segs := e.segs[seg]; spills && segs != nil && segs[k] != nil {
		if col, err = sp.Restore(ctx, segs[k]); err != nil {
			return nil, err
		}
		c.stats.SegmentsRestored++
		st.SegmentsRestored++
		st.BytesStreamed += segs[k].Bytes()
		return col, nil
	}
	var part arrow.Array
	var bytes int64
	switch {
	case e.parts != nil && e.partRows == seg && k < int64(len(e.parts)):
		part = e.parts[k]
		part.Retain()
		bytes = arrayBytes(part)
	case e.arr != nil:
		part = arraySlice(e.arr, lo, hi)
		bytes = arrayBytes(e.arr) * (hi - lo) / max(e.rows, 1) // a slice shares the whole column's buffers
	default: // hostColumns read it again where its segments were another size
		return nil, fmt.Errorf("segment %d of %d rows: neither the column's rows nor a copy of the segment are held (a bug)", k, seg)
	}
	col, err = upload(ctx, dev, part, t)
	part.Release()
	if err != nil {
		return nil, err
	}
	st.SegmentsUploaded++
	st.BytesStreamed += bytes
	if !spills || t.Kind == gpu.Str {
		return col, nil
	}
	h, err := sp.Spill(ctx, col)
	if err != nil {
		return col, nil // the rows as read serve the next run too
	}
	if e.segs == nil {
		e.segs = map[int64][]gpu.HostColumn{}
	}
	segs := e.segs[seg]
	if segs == nil {
		segs = make([]gpu.HostColumn, max((e.rows+seg-1)/seg, 1))
		e.segs[seg] = segs
	}
	segs[k] = h
	e.bytes += h.Bytes()
	c.hostBytes += h.Bytes()
	for _, x := range segs {
		if x == nil {
			return col, nil
		}
	}
	// Every segment is spilled: the rows as read are no longer needed.
	n := arrayBytes(e.arr)
	e.arr.Release()
	e.arr = nil
	e.bytes -= n
	c.hostBytes -= n
	return col, nil
}

// readHostColumn reads column i of s, under the loads' budget: a string
// column in Arrow layout in parts of seg rows where the source reads
// segments (see above), any other whole (arr), a dictionary column that
// came as plain strings encoded.
func (c *ColumnCache) readHostColumn(ctx context.Context, src TableSource, s *Scan, i int, seg int64) (arr arrow.Array, parts []arrow.Array, err error) {
	var rows int64 = -1
	if rc, ok := src.(RowCounter); ok {
		n, err := rc.Rows(ctx, s.Table)
		if err != nil {
			return nil, nil, err
		}
		rows = n
	}
	if rows >= 0 {
		release, err := c.loads().acquire(ctx, loadBytes(rows, s.Types[i]), s.Table+"."+s.Columns[i])
		if err != nil {
			return nil, nil, err
		}
		defer release()
	}
	if sr, ok := src.(SegmentReader); ok && s.Types[i].Kind == gpu.Str && s.derived(i) == nil {
		err := sr.ReadColumnSegments(ctx, s.Table, s.Columns[i], false, seg, func(a arrow.Array) error {
			parts = append(parts, a)
			return nil
		})
		if err == nil && !partsOf(parts, seg) {
			// A source that read the column whole (put once): sliced as
			// any column read so.
			if len(parts) == 1 {
				return parts[0], nil, nil
			}
			err = fmt.Errorf("the source's segments are not of %d rows", seg)
		}
		if err != nil {
			for _, p := range parts {
				p.Release()
			}
			return nil, nil, err
		}
		return nil, parts, nil
	}
	arr, err = readScanColumn(ctx, src, s, i)
	if err != nil {
		return nil, nil, err
	}
	if s.Types[i].Kind != gpu.Dict {
		return arr, nil, nil
	}
	defer arr.Release()
	arr, err = dictionaryArray(arr)
	return arr, nil, err
}

// partsOf reports whether parts are segments of seg rows (the last one
// fewer, or all of an empty column).
func partsOf(parts []arrow.Array, seg int64) bool {
	for i, p := range parts {
		if n := int64(p.Len()); n > seg || n < seg && i < len(parts)-1 {
			return false
		}
	}
	return len(parts) > 0
}

// dictionaryArray is arr as an Arrow dictionary array of int32 codes into
// its sorted distinct strings (gpu.EncodeDictionary's encoding, which the
// devices then take as it is).
func dictionaryArray(arr arrow.Array) (arrow.Array, error) {
	d, err := gpu.EncodeDictionary(arr)
	if err != nil {
		return nil, err
	}
	defer d.Values.Release()
	b := array.NewInt32Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(d.Codes, d.Valid)
	codes := b.NewInt32Array()
	defer codes.Release()
	typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	return array.NewDictionaryArray(typ, codes, d.Values), nil
}

// trimHost drops the least recently used host columns past the share;
// those a run uses leave the map and are freed when it ends. c.mu held.
func (c *ColumnCache) trimHost() {
	for c.hostBytes > hostColumnLimit() && len(c.host) > 1 {
		var oldest string
		for k, e := range c.host {
			if oldest == "" || e.used < c.host[oldest].used {
				oldest = k
			}
		}
		c.dropHost(oldest)
	}
}

// dropHost forgets one host column. c.mu held.
func (c *ColumnCache) dropHost(key string) {
	e := c.host[key]
	delete(c.host, key)
	c.hostBytes -= e.bytes
	e.gone = true
	if e.pins == 0 {
		e.free()
	}
}

// invalidateHost drops the host columns under a key prefix. c.mu held.
func (c *ColumnCache) invalidateHost(prefix string) {
	for k := range c.host {
		if strings.HasPrefix(k, prefix) {
			c.dropHost(k)
		}
	}
}
