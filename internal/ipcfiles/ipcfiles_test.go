package ipcfiles

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

func TestItemOf(t *testing.T) {
	file := func(u string) *proto.ReadRel_LocalFiles_FileOrFiles {
		return &proto.ReadRel_LocalFiles_FileOrFiles{PathType: &proto.ReadRel_LocalFiles_FileOrFiles_UriFile{UriFile: u}}
	}
	for _, c := range []struct {
		in   *proto.ReadRel_LocalFiles_FileOrFiles
		want Item
		err  string
	}{
		{in: file("file:///tmp/a%20b.arrow"), want: Item{File, "/tmp/a b.arrow"}},
		{in: file("file://localhost/tmp/a.arrow"), want: Item{File, "/tmp/a.arrow"}},
		{in: file("/tmp/a.arrow"), want: Item{File, "/tmp/a.arrow"}},
		{in: &proto.ReadRel_LocalFiles_FileOrFiles{PathType: &proto.ReadRel_LocalFiles_FileOrFiles_UriFolder{UriFolder: "file:///d/"}}, want: Item{Folder, "/d/"}},
		{in: &proto.ReadRel_LocalFiles_FileOrFiles{PathType: &proto.ReadRel_LocalFiles_FileOrFiles_UriPathGlob{UriPathGlob: "/d/*.arrow"}}, want: Item{Glob, "/d/*.arrow"}},
		{in: file("s3://bucket/a.arrow"), err: "only local files"},
		{in: file("file://other/a.arrow"), err: "another host"},
		{in: file(""), err: "empty"},
		{in: &proto.ReadRel_LocalFiles_FileOrFiles{}, err: "names no path"},
	} {
		got, err := ItemOf(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%v: %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// readAll reads items under AllFiles, as the command line does.
func readAll(items []Item, cols []Column) ([]arrow.Array, error) {
	return AllFiles(0).Read(context.Background(), items, cols)
}

func writeInts(t *testing.T, path string, typ arrow.DataType, batches ...[]int64) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "X", Type: typ, Nullable: true}}, nil)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	for _, vals := range batches {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for _, v := range vals {
			switch fb := b.Field(0).(type) {
			case *array.Int64Builder:
				fb.Append(v)
			case *array.Int32Builder:
				fb.Append(int32(v))
			}
		}
		rec := b.NewRecordBatch()
		b.Release()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// A folder's files in name order (hidden files and subfolders left out),
// names matched ignoring case, a file without batches, and files that
// disagree on a column's type.
func TestReadFolder(t *testing.T) {
	dir := t.TempDir()
	writeInts(t, filepath.Join(dir, "b.arrow"), arrow.PrimitiveTypes.Int64, []int64{3}, []int64{4, 5})
	writeInts(t, filepath.Join(dir, "a.arrow"), arrow.PrimitiveTypes.Int64, []int64{1, 2})
	writeInts(t, filepath.Join(dir, "c.arrow"), arrow.PrimitiveTypes.Int64) // no record batch
	if err := os.WriteFile(filepath.Join(dir, ".hidden"), []byte("not arrow"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	arrs, err := readAll([]Item{{Folder, dir}}, []Column{{Name: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	defer arrs[0].Release()
	if got := arrs[0].String(); got != "[1 2 3 4 5]" {
		t.Fatalf("read %s, want [1 2 3 4 5]", got)
	}

	writeInts(t, filepath.Join(dir, "d.arrow"), arrow.PrimitiveTypes.Int32, []int64{6})
	_, err = readAll([]Item{{Folder, dir}}, []Column{{Name: "x"}})
	if err == nil || !strings.Contains(err.Error(), "a.arrow and "+filepath.Join(dir, "d.arrow")+" hold column x in different types (int64, int32)") {
		t.Fatalf("error %v, want the two files and types named", err)
	}

	if _, err = readAll([]Item{{File, dir}}, []Column{{Name: "x"}}); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Fatalf("error %v, want a folder named as a file refused", err)
	}
	empty := t.TempDir()
	if _, err = readAll([]Item{{Folder, empty}}, []Column{{Name: "x"}}); err == nil || !strings.Contains(err.Error(), "holds no file") {
		t.Fatalf("error %v, want an empty folder refused", err)
	}
	if _, err = readAll([]Item{{Glob, dir + "/**/*.arrow"}}, []Column{{Name: "x"}}); err == nil || !strings.Contains(err.Error(), "recursive globs") {
		t.Fatalf("error %v, want ** refused", err)
	}
}

// A file without record batches gives empty columns of its types.
func TestReadEmpty(t *testing.T) {
	p := filepath.Join(t.TempDir(), "e.arrow")
	writeInts(t, p, arrow.PrimitiveTypes.Int32)
	arrs, err := readAll([]Item{{File, p}}, []Column{{Name: "X"}})
	if err != nil {
		t.Fatal(err)
	}
	defer arrs[0].Release()
	if arrs[0].Len() != 0 || !arrow.TypeEqual(arrs[0].DataType(), arrow.PrimitiveTypes.Int32) {
		t.Fatalf("got %s of %s, want an empty int32 column", arrs[0], arrs[0].DataType())
	}
}

// Every single damaged byte of a file with a string column gives a read or
// an error, never a panic (the read's values are then safe to use).
func TestDamagedBytes(t *testing.T) {
	dir := t.TempDir()
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	for i := 0; i < 20; i++ {
		if i%3 == 0 {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.StringBuilder).Append(strings.Repeat("x", i))
		}
		b.Field(1).(*array.Int64Builder).Append(int64(i))
	}
	rec := b.NewRecordBatch()
	for _, stream := range []bool{false, true} {
		var buf strings.Builder
		var w interface {
			Write(arrow.RecordBatch) error
			Close() error
		} = ipc.NewWriter(&buf, ipc.WithSchema(schema))
		if !stream {
			fw, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema))
			if err != nil {
				t.Fatal(err)
			}
			w = fw
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		damage(t, dir, []byte(buf.String()))
	}
}

func damage(t *testing.T, dir string, good []byte) {
	p := filepath.Join(dir, "d.arrow")
	errs := 0
	for i := range good {
		for _, v := range []byte{0xff, 0x7f} {
			bad := append([]byte(nil), good...)
			bad[i] ^= v
			if err := os.WriteFile(p, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			arrs, err := readAll([]Item{{File, p}}, []Column{{Name: "s"}, {Name: "n"}})
			if err != nil {
				errs++
				continue
			}
			for _, a := range arrs {
				_ = a.String() // reads every value
				a.Release()
			}
		}
	}
	if errs == 0 {
		t.Fatal("no damaged byte was noticed")
	}
	t.Logf("%d of %d damaged files refused", errs, 2*len(good))
}
