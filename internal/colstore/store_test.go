package colstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "x.duckdb")
	if err := os.WriteFile(db, []byte("a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := For(db, "")
	if err != nil {
		t.Fatal(err)
	}
	s.minFree = 0
	return s, db
}

func columns(t *testing.T) map[string]arrow.Array {
	mem := memory.DefaultAllocator
	d := array.NewDecimal64Builder(mem, &arrow.Decimal64Type{Precision: 15, Scale: 2})
	defer d.Release()
	s := array.NewStringBuilder(mem)
	defer s.Release()
	c := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
	defer c.Release()
	for i := range 10000 {
		if i%7 == 3 {
			d.AppendNull()
			s.AppendNull()
			c.AppendNull()
			continue
		}
		d.Append(decimal.Decimal64(int64(i*37 - 5000)))
		s.Append(string(rune('a' + i%26)))
		if err := c.AppendString([]string{"AIR", "MAIL", "SHIP"}[i%3]); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]arrow.Array{"decimal": d.NewArray(), "string": s.NewArray(), "dictionary": c.NewArray()}
}

// A column put is got back equal, from a file, in either form; under
// another identity (the database changed) it is a miss, and the first put
// under the new identity removes the old one's files.
func TestPutGet(t *testing.T) {
	s, db := newStore(t)
	id, err := s.Identity()
	if err != nil {
		t.Fatal(err)
	}
	cols := columns(t)
	for name, arr := range cols {
		form := FormPlain
		if name == "dictionary" {
			form = FormDictionary
		}
		k := Key{Identity: id, Table: `"main"."t"`, Column: name, Form: form}
		if _, ok := s.Get(k); ok {
			t.Fatalf("%s: found before it was put", name)
		}
		s.Put(k, arr)
		s.Wait()
		got, ok := s.Get(k)
		if !ok {
			t.Fatalf("%s: not found after Put (%+v)", name, s.Stats())
		}
		if !arrow.TypeEqual(got.DataType(), arr.DataType()) || !array.Equal(got, arr) || got.NullN() != arr.NullN() {
			t.Fatalf("%s: got %s back, put %s", name, got, arr)
		}
		got.Release()
		if _, ok := s.Get(Key{Identity: id, Table: `"main"."t"`, Column: name, Form: "other"}); ok {
			t.Fatalf("%s: found in another form", name)
		}
	}
	if st := s.Stats(); st.Written != 3 || st.Hits != 3 {
		t.Fatalf("stats %+v", st)
	}
	// The database changes: a new identity, the old entries are misses
	// and go with the next write.
	if err := os.WriteFile(db, []byte("a database, changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	id2, err := s.Identity()
	if err != nil || id2 == id {
		t.Fatalf("identity after a change: %s, %v (was %s)", id2, err, id)
	}
	if _, ok := s.Get(Key{Identity: id2, Table: `"main"."t"`, Column: "decimal", Form: FormPlain}); ok {
		t.Fatal("an entry of the old identity found under the new one")
	}
	s.Put(Key{Identity: id2, Table: `"main"."t"`, Column: "decimal", Form: FormPlain}, cols["decimal"])
	s.Wait()
	if _, err := os.Stat(filepath.Join(s.Dir(), id)); !os.IsNotExist(err) {
		t.Fatalf("the old identity's files are still there: %v", err)
	}
	for _, a := range cols {
		a.Release()
	}
}

// A file that is not the column's (damaged, or another key's) is a miss
// and is removed.
func TestDamagedFile(t *testing.T) {
	s, _ := newStore(t)
	id, _ := s.Identity()
	cols := columns(t)
	defer func() {
		for _, a := range cols {
			a.Release()
		}
	}()
	k := Key{Identity: id, Table: "t", Column: "decimal", Form: FormPlain}
	s.Put(k, cols["decimal"])
	s.Wait()
	path := k.file(s.Dir()) + ".arrow"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Get(k); ok {
		t.Fatal("a truncated file read as the column")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("the truncated file was kept")
	}
	// Another key's file under this key's name.
	other := Key{Identity: id, Table: "t", Column: "string", Form: FormPlain}
	s.Put(other, cols["string"])
	s.Wait()
	if err := os.Rename(other.file(s.Dir())+".arrow", path); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Get(k); ok {
		t.Fatal("another column's file read as this one")
	}
}

// A column over the IPC reader's default body limit (256 MB) is got back.
func TestLargeColumn(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 300 MB")
	}
	s, _ := newStore(t)
	id, _ := s.Identity()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range 300 << 20 / 8 {
		b.Append(int64(i))
	}
	arr := b.NewArray()
	defer arr.Release()
	k := Key{Identity: id, Table: "t", Column: "big", Form: FormPlain}
	s.Put(k, arr)
	s.Wait()
	got, ok := s.Get(k)
	if !ok {
		t.Fatalf("a 300 MB column was not got back: %+v", s.Stats())
	}
	if !array.Equal(got, arr) {
		t.Fatal("the 300 MB column differs")
	}
	got.Release()
}

// A database rewritten in place to the same size and modification time
// (a checkpoint within a coarse clock tick) still gets a new identity:
// DuckDB's headers at its start changed.
func TestIdentitySeesTheHeaders(t *testing.T) {
	s, db := newStore(t)
	before, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := s.Identity()
	b, _ := os.ReadFile(db)
	b[3] ^= 1
	if err := os.WriteFile(db, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(db, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	if id2, _ := s.Identity(); id2 == id {
		t.Fatal("the same identity after the headers changed")
	}
}

// Past its limit the store removes the files least recently used first;
// a column larger than the limit is not kept.
func TestLimit(t *testing.T) {
	s, _ := newStore(t)
	id, _ := s.Identity()
	mk := func(n int) arrow.Array {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		defer b.Release()
		for i := range n {
			b.Append(int64(i))
		}
		return b.NewArray()
	}
	one := mk(10000) // about 80 KB as a file
	defer one.Release()
	key := func(c string) Key { return Key{Identity: id, Table: "t", Column: c, Form: FormPlain} }
	s.SetLimit(200 << 10)
	for _, c := range []string{"a", "b"} {
		s.Put(key(c), one)
		s.Wait()
		time.Sleep(20 * time.Millisecond) // distinct modification times
	}
	if got, ok := s.Get(key("a")); ok { // a is now more recent than b
		got.Release()
	} else {
		t.Fatal("a missing")
	}
	time.Sleep(20 * time.Millisecond)
	s.Put(key("c"), one) // needs room: b goes
	s.Wait()
	for c, want := range map[string]bool{"a": true, "b": false, "c": true} {
		got, ok := s.Get(key(c))
		if ok != want {
			t.Errorf("%s kept: %v, want %v", c, ok, want)
		}
		if ok {
			got.Release()
		}
	}
	big := mk(40000) // about 320 KB: over the limit
	defer big.Release()
	s.Put(key("big"), big)
	s.Wait()
	if _, ok := s.Get(key("big")); ok {
		t.Error("a column over the limit was kept")
	}
}

// A record put is got back under its key alone; another identity misses.
func TestRecord(t *testing.T) {
	s, _ := newStore(t)
	id, _ := s.Identity()
	k := Key{Identity: id, Table: "t", Column: "c", Form: "layout"}
	if _, ok := s.GetRecord(k); ok {
		t.Fatal("found before it was put")
	}
	s.PutRecord(k, []byte("1 arrow strings"))
	if b, ok := s.GetRecord(k); !ok || string(b) != "1 arrow strings" {
		t.Fatalf("got %q, %v", b, ok)
	}
	for _, other := range []Key{{Identity: "other", Table: "t", Column: "c", Form: "layout"}, {Identity: id, Table: "t", Column: "d", Form: "layout"}} {
		if _, ok := s.GetRecord(other); ok {
			t.Errorf("%+v: found under another key", other)
		}
	}
}

// Writes side by side must not each count the same free space: a second
// write that would leave less than the store's free space while the first
// is under way is refused, and fits again once the first is done.
func TestReserveCountsWritesUnderWay(t *testing.T) {
	s, _ := newStore(t)
	dir := t.TempDir()
	free, err := freeBytes(dir)
	if err != nil {
		t.Skip("free space unknown on this system:", err)
	}
	const size = 100 << 20
	s.minFree = free - 3*size/2 // room for one write of size, not two
	release, err := s.reserve(dir, size)
	if err != nil {
		t.Fatalf("the first write should fit: %v", err)
	}
	if _, err := s.reserve(dir, size); err == nil {
		t.Fatal("a second write counted the free space the first one takes")
	} else if !strings.Contains(err.Error(), "free on the disk") {
		t.Fatalf("the refusal should say why: %v", err)
	}
	release()
	release, err = s.reserve(dir, size)
	if err != nil {
		t.Fatalf("after the first write, another should fit: %v", err)
	}
	release()
}

// A column kept a segment at a time is got back as those segments
// (GetSegments) and as the whole column (Get), in either form; an aborted
// one leaves no file behind, and a column over the store's limit is not
// started.
func TestSegmentWriter(t *testing.T) {
	s, _ := newStore(t)
	id, err := s.Identity()
	if err != nil {
		t.Fatal(err)
	}
	for name, arr := range columns(t) {
		form := FormPlain
		if name == "dictionary" {
			form = FormDictionary
		}
		k := Key{Identity: id, Table: `"main"."t"`, Column: name, Form: form}
		w := s.NewSegmentWriter(k, 1<<20)
		if w == nil {
			t.Fatalf("%s: no writer (%+v)", name, s.Stats())
		}
		var segs []arrow.Array
		for i := 0; i < arr.Len(); i += 3000 {
			seg := array.NewSlice(arr, int64(i), int64(min(i+3000, arr.Len())))
			segs = append(segs, seg)
			w.Append(seg)
		}
		w.Commit()
		got, ok := s.GetSegments(k)
		if !ok || len(got) != len(segs) {
			t.Fatalf("%s: %d segments back (found %v), wrote %d (%+v)", name, len(got), ok, len(segs), s.Stats())
		}
		for i := range segs {
			if !array.Equal(got[i], segs[i]) {
				t.Fatalf("%s: segment %d differs", name, i)
			}
			got[i].Release()
			segs[i].Release()
		}
		whole, ok := s.Get(k)
		if !ok || !array.Equal(whole, arr) {
			t.Fatalf("%s: the whole column differs (found %v)", name, ok)
		}
		whole.Release()

		aborted := Key{Identity: id, Table: `"main"."t"`, Column: name + " aborted", Form: form}
		w = s.NewSegmentWriter(aborted, 1<<20)
		w.Append(arr)
		w.Abort()
		if _, ok := s.GetSegments(aborted); ok {
			t.Fatalf("%s: an aborted column was found", name)
		}
		arr.Release()
	}
	entries, err := os.ReadDir(filepath.Join(s.Dir(), id))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Fatalf("a temporary file was left: %s", e.Name())
		}
	}
	if st := s.Stats(); st.Written != 3 || st.Skipped != 3 {
		t.Fatalf("stats %+v: want 3 written, 3 skipped (the aborted)", st)
	}
	s.SetLimit(1000)
	if w := s.NewSegmentWriter(Key{Identity: id, Table: "t", Column: "big", Form: FormPlain}, 2000); w != nil {
		t.Fatal("a column over the store's limit was started")
	}
}
