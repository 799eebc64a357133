package physical

import (
	"cmp"
	"container/list"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/internal/arrowrec"
)

// ColumnCache keeps table columns on the device across queries (DESIGN.md's
// caching region), so that a hot query reads only device memory.
//
// Entries are whole table columns keyed by source, table and column. The
// cache holds at most Limit bytes (0: no limit); past it, the least recently
// used entries are freed on the device. An entry a running query uses is
// pinned from its scan to the end of the run (Executor.Run unpins it), so
// neither eviction nor Invalidate frees a column under a running query:
// an invalidated pinned entry leaves the cache at once (no later query can
// get it) and is freed when its last user unpins it.
//
// The cache does not see writes to the tables: whoever changes a table
// calls Invalidate (the DuckDB bridge and its database/sql driver do).
type ColumnCache struct {
	mu      sync.Mutex
	entries map[string]*cacheEntry
	lru     *list.List // of *cacheEntry, most recently used first
	limit   int64
	used    int64 // bytes of the entries in the map
	stats   CacheStats
	// Progress, when set, hears about loads (they take seconds on large
	// tables): one line when a load starts and one when it ends.
	Progress func(msg string)
	// layouts remembers the string layout chosen per column (strlayout.go).
	layouts layoutMemo
	// budget bounds the host memory of loads (loadbudget.go): the
	// process's when nil.
	budget *loadBudget
	// refused keeps, per column, a load that failed because the device
	// cannot hold the column (gpu.ErrUnsupported: a string column of more
	// than 2 GB of characters): later scans of it fail at once, and their
	// queries run on DuckDB without scanning the table again first.
	// Invalidate forgets them with the table's columns.
	refused map[string]error
	// segmentRows is the rows of a column a load holds on the host at a
	// time (loadsegments.go); 0: the process's (RIGEL_LOAD_SEGMENT_ROWS).
	segmentRows int64
	// host holds the columns of streamed scans in host memory
	// (hostcolumns.go), hostBytes their bytes; hostUses orders their uses.
	host      map[string]*hostEntry
	hostBytes int64
	hostUses  int64
}

func (c *ColumnCache) loads() *loadBudget {
	if c.budget != nil {
		return c.budget
	}
	return loads()
}

type cacheEntry struct {
	key   string
	col   gpu.Column
	bytes int64
	pins  int
	gone  bool // out of the map (evicted or invalidated); freed at the last unpin
	elem  *list.Element
}

// CacheStats counts what the cache did since it was made.
type CacheStats struct {
	Hits, Misses  int64 // columns found / loaded by scans
	BytesFromHost int64 // table bytes read from the host database and uploaded
	Evictions     int64 // entries freed to stay under the limit
	Invalidations int64 // entries dropped by Invalidate or FreeDeviceColumns
	Entries       int   // columns cached now
	Bytes         int64 // device bytes of the cached columns now
	Limit         int64 // the size limit (0: none)
	// HostBytes is the host memory of the columns of streamed scans
	// (hostcolumns.go); SegmentsRestored counts their segments put back
	// on the device from a spilled copy instead of uploaded again.
	HostBytes        int64
	SegmentsRestored int64
}

func NewColumnCache() *ColumnCache {
	return &ColumnCache{entries: map[string]*cacheEntry{}, lru: list.New()}
}

func cacheKey(src, table, col string) string {
	return src + "\x00" + strings.ToLower(table) + "\x00" + strings.ToLower(col)
}

// ScanStats counts what scans did.
type ScanStats struct {
	BytesFromHost int64 // table bytes read from the host database and uploaded
	BytesScanned  int64 // device bytes of the columns the plan's scans read (packed columns' packed bytes)
	CacheHits     int
	CacheMisses   int
	// BytesStreamed is the bytes of host-held columns put on the device a
	// segment at a time (Chunked): uploaded, or restored from a spill.
	// The Segments counters count column segments by where they came
	// from: the device cache, a spilled copy, or the rows as read.
	BytesStreamed                                      int64
	SegmentsCached, SegmentsRestored, SegmentsUploaded int64
}

// SetLimit sets the cache's size in bytes (0: no limit) and evicts the
// least recently used entries that no longer fit.
func (c *ColumnCache) SetLimit(bytes int64) error {
	if bytes < 0 {
		return fmt.Errorf("column cache size must not be negative, got %d", bytes)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit = bytes
	c.evictToFit()
	return nil
}

// Stats returns the cache's counters.
func (c *ColumnCache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Entries, s.Bytes, s.Limit, s.HostBytes = len(c.entries), c.used, c.limit, c.hostBytes
	return s
}

// columnBytes is what a column holds on the device: its values, its
// validity bitmap and, for strings, its dictionary.
func columnBytes(col gpu.Column) int64 {
	t := col.Type()
	n := gpu.ValueBytes(col)
	if t.Nullable {
		n += (int64(col.Len()) + 7) / 8
	}
	if d := col.Dictionary(); d != nil {
		n += arrayBytes(d)
	}
	return n + charBytes(col)
}

// get returns the device columns of a scan, loading missing ones. Every
// column it returns is pinned and appended to pins; the caller unpins them
// when it no longer uses the columns.
//
// get holds the cache's lock while it loads. That is what keeps a write's
// Invalidate correct: a load that read the table before the write ended
// finishes before Invalidate (called after the write) takes the lock, so
// Invalidate drops what it loaded instead of missing it.
func (c *ColumnCache) get(ctx context.Context, dev gpu.Device, src TableSource, s *Scan, st *ScanStats, pins *[]*cacheEntry) ([]gpu.Column, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]gpu.Column, len(s.Columns))
	var missing []int
	for i := range s.Columns {
		if e, ok := c.entries[scanKey(src.ID(), s, i)]; ok {
			e.pins++
			*pins = append(*pins, e)
			c.lru.MoveToFront(e.elem)
			out[i] = e.col
			st.CacheHits++
			c.stats.Hits++
		} else {
			missing = append(missing, i)
			st.CacheMisses++
			c.stats.Misses++
		}
	}
	for _, i := range missing {
		if err, ok := c.refused[scanKey(src.ID(), s, i)]; ok {
			return nil, err
		}
	}
	if len(missing) > 0 {
		loaded, err := c.load(ctx, dev, src, s, missing, st)
		if err != nil {
			return nil, err
		}
		for j, i := range missing {
			key := scanKey(src.ID(), s, i)
			if old, ok := c.entries[key]; ok {
				// The same column twice in one scan: keep one copy.
				c.remove(old)
			}
			e := &cacheEntry{key: key, col: loaded[j], bytes: columnBytes(loaded[j]), pins: 1}
			e.elem = c.lru.PushFront(e)
			c.entries[key] = e
			c.used += e.bytes
			*pins = append(*pins, e)
			out[i] = e.col
		}
		c.evictToFit()
	}
	for _, col := range out {
		st.BytesScanned += gpu.ScanBytes(col) + charBytes(col)
	}
	return out, nil
}

// unpin ends the use of columns get returned: entries that left the cache
// meanwhile are freed, and the cache shrinks to its limit again.
func (c *ColumnCache) unpin(pins []*cacheEntry) {
	if len(pins) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range pins {
		e.pins--
		if e.pins == 0 && e.gone {
			e.col.Release()
		}
	}
	c.evictToFit()
}

// evictToFit frees the least recently used unpinned entries until the
// cache fits its limit. Pinned entries stay (a running query uses them),
// so the cache may exceed its limit until they are unpinned.
func (c *ColumnCache) evictToFit() {
	if c.limit <= 0 {
		return
	}
	for el := c.lru.Back(); el != nil && c.used > c.limit; {
		e := el.Value.(*cacheEntry)
		el = el.Prev()
		if e.pins > 0 {
			continue
		}
		c.remove(e)
		c.stats.Evictions++
	}
}

// remove takes an entry out of the cache and frees it unless pinned (then
// its last unpin frees it).
func (c *ColumnCache) remove(e *cacheEntry) {
	delete(c.entries, e.key)
	c.lru.Remove(e.elem)
	c.used -= e.bytes
	e.gone = true
	if e.pins == 0 {
		e.col.Release()
	}
}

// load reads the missing columns of a scan from the source and uploads
// them, one goroutine per column (at most GOMAXPROCS at once): each column
// is its own query on its own connection, and the Arrow conversion, the
// dictionary encoding and the upload's host side of different columns run
// side by side instead of one after the other.
func (c *ColumnCache) load(ctx context.Context, dev gpu.Device, src TableSource, s *Scan, missing []int, st *ScanStats) ([]gpu.Column, error) {
	start := time.Now()
	c.progress(fmt.Sprintf("loading %d column(s) of %s into device memory", len(missing), s.Table))
	type result struct {
		col   gpu.Column
		bytes int64
		err   error
	}
	results := make([]result, len(missing))
	rows := int64(-1) // unknown: the loads are not bounded
	if rc, ok := src.(RowCounter); ok {
		n, err := rc.Rows(ctx, s.Table)
		if err != nil {
			return nil, err
		}
		rows = n
	}
	per := c.segmentRows
	if per == 0 {
		var err error
		if per, err = segmentRows(); err != nil {
			return nil, err
		}
	}
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	var doneCols, doneBytes atomic.Int64
	var reading, uploading atomic.Int64 // nanoseconds, summed over the columns
	var segmented atomic.Int64          // columns loaded a segment at a time
	stopProgress := c.progressEvery(loadProgressEvery, func() string {
		gb := float64(doneBytes.Load()) / 1e9
		return fmt.Sprintf("loading %s: %d of %d column(s) done, %.2f GB (%.2f GB/s)", s.Table, doneCols.Load(), len(missing),
			gb, gb/max(time.Since(start).Seconds(), 1e-9))
	})
	defer stopProgress()
	for j, i := range missing {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r := &results[j]
			// A panic here (a bug reading or encoding a column) would end
			// the process from this goroutine: it becomes the load's error.
			defer func() {
				if p := recover(); p != nil {
					r.err = fmt.Errorf("loading %s.%s: internal error (a bug): %v", s.Table, s.Columns[i], p)
				}
			}()
			sr, su := segmentsOf(src, dev, s, i, rows, per)
			if rows >= 0 {
				held := loadBytes(rows, s.Types[i])
				if su != nil {
					held = loadBytes(per, s.Types[i]) // one segment at a time
				}
				release, err := c.loads().acquire(ctx, held, s.Table+"."+s.Columns[i])
				if err != nil {
					r.err = err
					return
				}
				defer release() // after the upload: the encoding is gone
			}
			t0 := time.Now()
			if su != nil {
				segmented.Add(1)
				var up time.Duration
				// Each segment counts in the progress line as it lands:
				// one column of a large table takes seconds.
				r.col, r.bytes, up, r.err = loadSegments(ctx, sr, su, s.Table, s.Columns[i], s.Types[i], rows, per, func(n int64) { doneBytes.Add(n) })
				uploading.Add(int64(up))
				reading.Add(int64(time.Since(t0) - up))
			} else {
				arr, err := readScanColumn(ctx, src, s, i)
				if err != nil {
					r.err = err
					return
				}
				t1 := time.Now()
				r.bytes = arrayBytes(arr)
				r.col, r.err = upload(ctx, dev, arr, s.Types[i])
				arr.Release()
				reading.Add(int64(t1.Sub(t0)))
				uploading.Add(int64(time.Since(t1)))
			}
			if r.err != nil {
				r.err = fmt.Errorf("upload %s.%s: %w", s.Table, s.Columns[i], r.err)
				return
			}
			if got := r.col.Type(); got.Kind != s.Types[i].Kind || got.Scale != s.Types[i].Scale {
				r.err = fmt.Errorf("scan %s.%s: the table holds %s but the plan expects %s", s.Table, s.Columns[i], got, s.Types[i])
			}
			doneCols.Add(1)
			if su == nil {
				doneBytes.Add(r.bytes)
			}
		}()
	}
	wg.Wait()
	var firstErr error
	out := make([]gpu.Column, len(missing))
	var bytes int64
	for j, r := range results {
		if r.err != nil && firstErr == nil {
			firstErr = r.err
		}
		if errors.Is(r.err, gpu.ErrUnsupported) {
			if c.refused == nil {
				c.refused = map[string]error{}
			}
			c.refused[scanKey(src.ID(), s, missing[j])] = r.err
		}
		out[j] = r.col
		bytes += r.bytes
	}
	if firstErr != nil {
		for _, col := range out {
			if col != nil {
				col.Release()
			}
		}
		return nil, firstErr
	}
	st.BytesFromHost += bytes
	c.stats.BytesFromHost += bytes
	took := time.Since(start)
	// Where the time went, the columns' times added up (they overlap):
	// reading from the source, then encoding and uploading.
	inSegments := ""
	if n := segmented.Load(); n > 0 {
		inSegments = fmt.Sprintf(", %d of them in segments of %d rows", n, per)
	}
	c.progress(fmt.Sprintf("loaded %s: %d column(s)%s, %d rows, %.2f GB in %s (%.2f GB/s; columns' read %s, upload %s)%s", s.Table, len(out), inSegments, out[0].Len(),
		float64(bytes)/1e9, took.Round(time.Millisecond), float64(bytes)/1e9/max(took.Seconds(), 1e-9),
		time.Duration(reading.Load()).Round(time.Millisecond), time.Duration(uploading.Load()).Round(time.Millisecond), packedText(out)))
	return out, nil
}

// packedText tells how much smaller the device holds the packed ones of
// cols (gpu.PackedColumn) than their plain values; "" when none is packed.
func packedText(cols []gpu.Column) string {
	var packed, plain int64
	n := 0
	for _, col := range cols {
		if p, ok := col.(gpu.PackedColumn); ok && p.PackedBytes() > 0 {
			n++
			packed += p.PackedBytes()
			plain += gpu.PlainBytes(col)
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d packed: %.2f GB of values in %.2f GB, %.1fx", n, float64(plain)/1e9, float64(packed)/1e9, float64(plain)/float64(max(packed, 1)))
}

func (c *ColumnCache) progress(msg string) {
	if c.Progress != nil {
		c.Progress(msg)
	}
}

// loadProgressEvery is how often a long load says how far it got.
const loadProgressEvery = 5 * time.Second

// progressEvery tells Progress line() every period until the returned stop
// is called (nothing when there is no Progress).
func (c *ColumnCache) progressEvery(period time.Duration, line func() string) (stop func()) {
	if c.Progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				c.progress(line())
			case <-done:
				return
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// readColumn reads one whole column from the source; dictionary-encoded
// where the source can, when the device will hold it as a dictionary.
func readColumn(ctx context.Context, src TableSource, table, column string, dict bool) (arrow.Array, error) {
	if dr, ok := src.(DictionaryReader); ok && dict {
		return dr.ReadDictionaryColumn(ctx, table, column)
	}
	if cr, ok := src.(ColumnReader); ok {
		return cr.ReadColumn(ctx, table, column)
	}
	arrays, err := readColumns(ctx, src, table, []string{column})
	if err != nil {
		return nil, err
	}
	return arrays[0], nil
}

// readScanColumn reads column i of s whole: the dictionary of the string
// function it derives, computed by the source (derive.go), or the column,
// dictionary-encoded where the device holds it so.
func readScanColumn(ctx context.Context, src TableSource, s *Scan, i int) (arrow.Array, error) {
	f := s.derived(i)
	if f == nil {
		return readColumn(ctx, src, s.Table, s.Columns[i], s.Types[i].Kind == gpu.Dict)
	}
	dr, ok := src.(DerivedReader)
	if !ok {
		return nil, fmt.Errorf("scan %s: the source cannot compute %s: %w", s.Table, f.SQL(s.Columns[i]), gpu.ErrUnsupported)
	}
	return dr.ReadDerivedDictionary(ctx, s.Table, s.Columns[i], f)
}

// readColumns reads whole columns from the source, one array each.
func readColumns(ctx context.Context, src TableSource, table string, names []string) ([]arrow.Array, error) {
	rr, err := src.ScanColumns(ctx, table, names)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	chunks := make([][]arrow.Array, len(names))
	releaseChunks := func() {
		for _, cs := range chunks {
			for _, c := range cs {
				c.Release()
			}
		}
	}
	for rr.Next() {
		if err := gpu.CtxErr(ctx); err != nil {
			releaseChunks()
			return nil, err
		}
		rec := rr.RecordBatch()
		if int(rec.NumCols()) != len(names) {
			releaseChunks()
			return nil, fmt.Errorf("scan %s: source returned %d columns, want %d", table, rec.NumCols(), len(names))
		}
		for i := range names {
			a := rec.Column(i)
			a.Retain()
			chunks[i] = append(chunks[i], a)
		}
	}
	if err := rr.Err(); err != nil {
		releaseChunks()
		return nil, fmt.Errorf("scan %s: %w", table, err)
	}
	out := make([]arrow.Array, len(names))
	for i := range names {
		switch len(chunks[i]) {
		case 0:
			out[i] = array.MakeArrayOfNull(memory.DefaultAllocator, rr.Schema().Field(i).Type, 0)
		case 1:
			out[i] = chunks[i][0]
		default:
			a, err := array.Concatenate(chunks[i], memory.DefaultAllocator)
			for _, c := range chunks[i] {
				c.Release()
			}
			if err != nil {
				return nil, fmt.Errorf("scan %s.%s: %w", table, names[i], err)
			}
			out[i] = a
		}
	}
	return out, nil
}

func arrayBytes(a arrow.Array) int64 { return arrowrec.DataBytes(a.Data()) }

// Invalidate drops every cached column of a table (all tables of the
// source when table is ""). Columns a running query uses are freed when it
// ends.
func (c *ColumnCache) Invalidate(src, table string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	prefix := src + "\x00"
	if table != "" {
		prefix += strings.ToLower(table) + "\x00"
	}
	for k, e := range c.entries {
		if strings.HasPrefix(k, prefix) {
			c.remove(e)
			c.stats.Invalidations++
		}
	}
	for k := range c.refused {
		if strings.HasPrefix(k, prefix) {
			delete(c.refused, k)
		}
	}
	c.layouts.forget(prefix)
	c.invalidateHost(prefix)
}

// FreeDeviceColumns frees every cached device column (those a running
// query uses when it ends), keeping what depends on the tables' contents
// only: the layouts chosen, and the columns held on the host for streamed
// scans with their spilled segments. The engine calls it when the device
// ran out of memory, before it tries again.
func (c *ColumnCache) FreeDeviceColumns() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		c.remove(e)
		c.stats.Invalidations++
	}
}

// Len is the number of cached columns.
func (c *ColumnCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// CachedColumn is a column in the cache, as `rigel bench load` reports it.
type CachedColumn struct {
	Table, Column string // lower case, as the cache keys them; a string column's layout after its name
	Type          gpu.Type
	Rows          int
	// Bytes is the device memory it holds: values (packed where the
	// device packs them), validity, dictionary and characters.
	Bytes int64
	// PlainBytes is the same with the values plain (Rows x the kind's
	// width): the column's logical size on the device.
	PlainBytes int64
}

// Columns lists the cached columns of source src, by table and column.
func (c *ColumnCache) Columns(src string) []CachedColumn {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []CachedColumn
	for key, e := range c.entries {
		parts := strings.SplitN(key, "\x00", 3)
		if len(parts) != 3 || parts[0] != src {
			continue
		}
		col := e.col
		plain := e.bytes - gpu.ValueBytes(col) + gpu.PlainBytes(col)
		// A string column's key names its layout after a NUL (strlayout.go).
		name := strings.ReplaceAll(parts[2], "\x00", " ")
		out = append(out, CachedColumn{Table: parts[1], Column: name, Type: col.Type(), Rows: col.Len(), Bytes: e.bytes, PlainBytes: plain})
	}
	slices.SortFunc(out, func(a, b CachedColumn) int {
		return cmp.Or(cmp.Compare(a.Table, b.Table), cmp.Compare(a.Column, b.Column))
	})
	return out
}

// LoadScans loads every column root's scans read into the column cache and
// runs nothing else, so that a query's first run can be timed apart from
// its loads (rigel bench tpch --first-run).
func (x *Executor) LoadScans(ctx context.Context, root Node) error {
	var pins []*cacheEntry
	defer func() { x.Cache.unpin(pins) }()
	var st ScanStats
	return forEachScan(root, func(s *Scan) error {
		_, err := x.Cache.get(ctx, x.Dev, x.Source, s, &st, &pins)
		return err
	})
}
