package physical

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
)

// ColumnCache keeps table columns on the device across queries (DESIGN.md's
// caching region), so that a hot query reads only device memory.
//
// Entries are keyed by source, table and column. Invalidation on writes to
// the table is not done here yet: callers that change a table must call
// Invalidate (the DuckDB bridge's write tracking comes with issue 3).
type ColumnCache struct {
	mu      sync.Mutex
	entries map[string]gpu.Column
	// Progress, when set, hears about loads (they take seconds on large
	// tables): one line when a load starts and one when it ends.
	Progress func(msg string)
}

func NewColumnCache() *ColumnCache { return &ColumnCache{entries: map[string]gpu.Column{}} }

func cacheKey(src, table, col string) string {
	return src + "\x00" + strings.ToLower(table) + "\x00" + strings.ToLower(col)
}

// ScanStats counts what scans did.
type ScanStats struct {
	BytesFromHost int64 // table bytes read from the host database and uploaded
	BytesScanned  int64 // device bytes of the columns the plan's scans read
	CacheHits     int
	CacheMisses   int
}

// get returns the device columns of a scan, loading missing ones.
func (c *ColumnCache) get(ctx context.Context, dev gpu.Device, src TableSource, s *Scan, st *ScanStats) ([]gpu.Column, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]gpu.Column, len(s.Columns))
	var missing []int
	for i, name := range s.Columns {
		if col, ok := c.entries[cacheKey(src.ID(), s.Table, name)]; ok {
			out[i] = col
			st.CacheHits++
		} else {
			missing = append(missing, i)
			st.CacheMisses++
		}
	}
	if len(missing) > 0 {
		loaded, err := c.load(ctx, dev, src, s, missing, st)
		if err != nil {
			return nil, err
		}
		for j, i := range missing {
			c.entries[cacheKey(src.ID(), s.Table, s.Columns[i])] = loaded[j]
			out[i] = loaded[j]
		}
	}
	for _, col := range out {
		st.BytesScanned += int64(col.Len()) * int64(col.Type().Kind.Width())
	}
	return out, nil
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
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for j, i := range missing {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r := &results[j]
			arrays, err := readColumns(ctx, src, s.Table, []string{s.Columns[i]})
			if err != nil {
				r.err = err
				return
			}
			arr := arrays[0]
			r.bytes = arrayBytes(arr)
			r.col, r.err = dev.Upload(ctx, arr)
			arr.Release()
			if r.err != nil {
				r.err = fmt.Errorf("upload %s.%s: %w", s.Table, s.Columns[i], r.err)
				return
			}
			if got := r.col.Type(); got.Kind != s.Types[i].Kind || got.Scale != s.Types[i].Scale {
				r.err = fmt.Errorf("scan %s.%s: the table holds %s but the plan expects %s", s.Table, s.Columns[i], got, s.Types[i])
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
	c.progress(fmt.Sprintf("loaded %s: %d column(s), %d rows, %.2f GB in %s", s.Table, len(out), out[0].Len(),
		float64(bytes)/1e9, time.Since(start).Round(time.Millisecond)))
	return out, nil
}

func (c *ColumnCache) progress(msg string) {
	if c.Progress != nil {
		c.Progress(msg)
	}
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

func arrayBytes(a arrow.Array) int64 {
	var n int64
	for _, b := range a.Data().Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	return n
}

// Invalidate drops every cached column of a table (all tables when table is "").
func (c *ColumnCache) Invalidate(src, table string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	prefix := src + "\x00"
	if table != "" {
		prefix += strings.ToLower(table) + "\x00"
	}
	for k, col := range c.entries {
		if strings.HasPrefix(k, prefix) {
			col.Release()
			delete(c.entries, k)
		}
	}
}

// Len is the number of cached columns.
func (c *ColumnCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
