package physical

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// freeCounter wraps the host device so that the test sees which uploaded
// columns were freed.
type freeCounter struct {
	gpu.Device
	freed map[string]int // by column name
}

type countedCol struct {
	gpu.Column
	name string
	d    *freeCounter
}

func (c *countedCol) Release() { c.d.freed[c.name]++; c.Column.Release() }

func (d *freeCounter) Upload(ctx context.Context, arr arrow.Array) (gpu.Column, error) {
	col, err := d.Device.Upload(ctx, arr)
	if err != nil {
		return nil, err
	}
	return &countedCol{Column: col, d: d}, nil
}

// scanOne loads (or finds) one column of a table through the cache and
// returns its pins; it names the uploaded column for the free counter.
func scanOne(t *testing.T, c *ColumnCache, d *freeCounter, table, col string) []*cacheEntry {
	t.Helper()
	var pins []*cacheEntry
	var st ScanStats
	cols, err := c.get(context.Background(), d, &memSource{}, &Scan{Table: table, Columns: []string{col}, Types: []gpu.Type{i64}}, &st, &pins)
	if err != nil {
		t.Fatal(err)
	}
	if cc, ok := cols[0].(*countedCol); ok && cc.name == "" {
		cc.name = table + "." + col
	}
	return pins
}

// Each memSource column is 10 int64 values: 80 device bytes.
const colBytes = 80

// hostBytes is what reading one memSource column costs from the host (its
// Arrow buffers).
func hostBytes(t *testing.T) int64 {
	t.Helper()
	arrs, err := readColumns(context.Background(), &memSource{}, "t", []string{"k"})
	if err != nil {
		t.Fatal(err)
	}
	defer arrs[0].Release()
	return arrayBytes(arrs[0])
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	d := &freeCounter{Device: host.New(), freed: map[string]int{}}
	c := NewColumnCache()
	if err := c.SetLimit(2*colBytes + 10); err != nil {
		t.Fatal(err)
	}
	c.unpin(scanOne(t, c, d, "t", "k"))
	c.unpin(scanOne(t, c, d, "t", "v"))
	c.unpin(scanOne(t, c, d, "t", "k")) // t.k is now more recent than t.v
	c.unpin(scanOne(t, c, d, "u", "k")) // a third column: t.v must go
	if d.freed["t.v"] != 1 || d.freed["t.k"] != 0 || d.freed["u.k"] != 0 {
		t.Fatalf("freed %v, want only t.v", d.freed)
	}
	s := c.Stats()
	if s.Evictions != 1 || s.Entries != 2 || s.Bytes != 2*colBytes || s.Hits != 1 || s.Misses != 3 || s.BytesFromHost != 3*hostBytes(t) {
		t.Fatalf("stats %+v", s)
	}
	// Shrinking the limit evicts down to it, least recent first (t.k).
	if err := c.SetLimit(colBytes); err != nil {
		t.Fatal(err)
	}
	if d.freed["t.k"] != 1 || d.freed["u.k"] != 0 || c.Len() != 1 {
		t.Fatalf("after shrinking: freed %v, %d entries", d.freed, c.Len())
	}
	if err := c.SetLimit(-1); err == nil {
		t.Fatal("a negative size was accepted")
	}
}

func TestCacheKeepsPinnedColumns(t *testing.T) {
	d := &freeCounter{Device: host.New(), freed: map[string]int{}}
	c := NewColumnCache()
	if err := c.SetLimit(colBytes + 10); err != nil {
		t.Fatal(err)
	}
	// One query scans two columns that together exceed the limit: neither
	// may be freed while it runs.
	pins := scanOne(t, c, d, "t", "k")
	pins = append(pins, scanOne(t, c, d, "t", "v")...)
	if len(d.freed) != 0 || c.Len() != 2 {
		t.Fatalf("a pinned column was evicted: freed %v, %d entries", d.freed, c.Len())
	}
	c.unpin(pins) // the run ends: back under the limit, the older one goes
	if d.freed["t.k"] != 1 || d.freed["t.v"] != 0 || c.Len() != 1 {
		t.Fatalf("after the run: freed %v, %d entries", d.freed, c.Len())
	}
}

func TestCacheInvalidateWaitsForRunningQuery(t *testing.T) {
	d := &freeCounter{Device: host.New(), freed: map[string]int{}}
	c := NewColumnCache()
	pins := scanOne(t, c, d, "t", "k")
	c.unpin(scanOne(t, c, d, "u", "k"))
	c.Invalidate("mem", "T") // table names match case-insensitively
	if c.Len() != 1 || d.freed["t.k"] != 0 || d.freed["u.k"] != 0 {
		t.Fatalf("invalidated while pinned: freed %v, %d entries", d.freed, c.Len())
	}
	c.unpin(pins)
	if d.freed["t.k"] != 1 {
		t.Fatalf("the invalidated column was not freed after its run: %v", d.freed)
	}
	// The next scan of t.k reads the table again.
	var st ScanStats
	var p []*cacheEntry
	if _, err := c.get(context.Background(), d, &memSource{}, &Scan{Table: "t", Columns: []string{"k"}, Types: []gpu.Type{i64}}, &st, &p); err != nil {
		t.Fatal(err)
	}
	c.unpin(p)
	if st.CacheMisses != 1 || st.BytesFromHost != hostBytes(t) {
		t.Fatalf("after Invalidate the scan did not reload: %+v", st)
	}
	c.Invalidate("mem", "")
	if c.Len() != 0 || c.Stats().Invalidations != 3 {
		t.Fatalf("Invalidate of the whole source left %d entries, stats %+v", c.Len(), c.Stats())
	}
}

// A cache smaller than one column still answers queries: the column lives
// for the run and is freed after it.
func TestRunWithTinyCache(t *testing.T) {
	x := &Executor{Dev: host.New(), Source: &memSource{}, Cache: NewColumnCache()}
	if err := x.Cache.SetLimit(1); err != nil {
		t.Fatal(err)
	}
	for run := 0; run < 2; run++ {
		rec, st, err := x.Run(context.Background(), topPlan(), []string{"v"})
		if err != nil {
			t.Fatal(err)
		}
		got := arrowfmt.Rows(rec)
		rec.Release()
		if len(got) != 2 || got[0][0] != "80" || got[1][0] != "70" {
			t.Fatalf("run %d: got %v", run, got)
		}
		if st.Scan.BytesFromHost != hostBytes(t) || x.Cache.Len() != 0 {
			t.Fatalf("run %d: %+v, %d entries left", run, st.Scan, x.Cache.Len())
		}
	}
	if s := x.Cache.Stats(); s.Evictions != 2 {
		t.Fatalf("stats %+v, want 2 evictions", s)
	}
}

// refusingSource reads every column as memSource does, except "big",
// which the device cannot hold: the source says so with gpu.ErrUnsupported
// after reading it (as a string column of more than 2 GB of characters
// does, having scanned the table).
type refusingSource struct {
	memSource
	reads atomic.Int64 // the columns load side by side
}

func (s *refusingSource) ReadColumn(ctx context.Context, table, column string) (arrow.Array, error) {
	s.reads.Add(1)
	if column == "big" {
		return nil, fmt.Errorf("%s.%s holds more than a device column addresses: %w", table, column, gpu.ErrUnsupported)
	}
	arrs, err := readColumns(ctx, &s.memSource, table, []string{column})
	if err != nil {
		return nil, err
	}
	return arrs[0], nil
}

// A column the device cannot hold is read once: later scans of it fail at
// once with the same error (their queries run on DuckDB without scanning
// the table again), until the table is invalidated.
func TestCacheRemembersRefusedColumns(t *testing.T) {
	c := NewColumnCache()
	src := &refusingSource{}
	scan := func() error {
		var pins []*cacheEntry
		var st ScanStats
		_, err := c.get(context.Background(), host.New(), src, &Scan{Table: "t", Columns: []string{"k", "big"}, Types: []gpu.Type{i64, i64}}, &st, &pins)
		c.unpin(pins)
		return err
	}
	for i := range 3 {
		if err := scan(); !errors.Is(err, gpu.ErrUnsupported) {
			t.Fatalf("scan %d: want the device's refusal, got %v", i, err)
		}
	}
	if src.reads.Load() != 2 { // k and big, once
		t.Fatalf("the source was read %d times, want 2 (the refusal remembered)", src.reads.Load())
	}
	c.Invalidate(src.ID(), "t")
	if err := scan(); !errors.Is(err, gpu.ErrUnsupported) {
		t.Fatalf("after Invalidate: want the device's refusal, got %v", err)
	}
	if src.reads.Load() != 4 {
		t.Fatalf("after Invalidate the source was read %d times in all, want 4 (read again)", src.reads.Load())
	}
}

// quarterPacked is a device whose uploads hold their values in a quarter
// of their plain bytes, as a packing device's do (gpu.PackedColumn).
type quarterPacked struct{ gpu.Device }

type quarterCol struct{ gpu.Column }

func (c quarterCol) PackedBytes() int64 { return int64(c.Len()) * int64(c.Type().Kind.Width()) / 4 }
func (c quarterCol) ValueBytes() int64  { return c.PackedBytes() }

func (d quarterPacked) Upload(ctx context.Context, arr arrow.Array) (gpu.Column, error) {
	col, err := d.Device.Upload(ctx, arr)
	return quarterCol{col}, err
}

// Columns lists a source's cached columns by table and column, with the
// device bytes they hold and their plain size.
func TestCacheListsColumns(t *testing.T) {
	c := NewColumnCache()
	var pins []*cacheEntry
	var st ScanStats
	for _, table := range []string{"u", "t"} {
		if _, err := c.get(context.Background(), quarterPacked{host.New()}, &memSource{}, &Scan{Table: table, Columns: []string{"v", "k"}, Types: []gpu.Type{i64, i64}}, &st, &pins); err != nil {
			t.Fatal(err)
		}
	}
	defer c.unpin(pins)
	got := c.Columns("mem")
	if len(got) != 4 || got[0].Table != "t" || got[0].Column != "k" || got[3].Table != "u" || got[3].Column != "v" {
		t.Fatalf("columns %+v, want t.k, t.v, u.k, u.v", got)
	}
	for _, col := range got {
		if col.Rows != 10 || col.PlainBytes != colBytes || col.Bytes != colBytes/4 || col.Type != i64 {
			t.Fatalf("%s.%s: %+v, want 10 rows in %d bytes, %d plain", col.Table, col.Column, col, colBytes/4, colBytes)
		}
	}
	if other := c.Columns("another"); len(other) != 0 {
		t.Fatalf("another source's columns: %+v", other)
	}
}
