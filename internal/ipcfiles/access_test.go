package ipcfiles

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// secret opens the file a hostile plan tries to read: text that must never
// come back in an error, in letters or as the numbers its bytes spell.
const secret = "root:SECRET-MARKER-7f3a:0:0:/root:/bin/bash\n"

// tree is a folder a policy allows (in) beside one it does not (out):
// in holds good.arrow (rows 1 2 3), sub/more.arrow (rows 4), a link to a
// file inside (inner.arrow), and links leading out (abs.arrow, rel.arrow,
// outdir); out holds secret.arrow.
type tree struct{ base, in, out, good, secret string }

func makeTree(t *testing.T) tree {
	t.Helper()
	base := t.TempDir()
	tr := tree{base: base, in: filepath.Join(base, "in"), out: filepath.Join(base, "out")}
	for _, d := range []string{tr.in, tr.out, filepath.Join(tr.in, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tr.good = filepath.Join(tr.in, "good.arrow")
	writeInts(t, tr.good, arrow.PrimitiveTypes.Int64, []int64{1, 2, 3})
	writeInts(t, filepath.Join(tr.in, "sub", "more.arrow"), arrow.PrimitiveTypes.Int64, []int64{4})
	tr.secret = filepath.Join(tr.out, "secret.arrow")
	if err := os.WriteFile(tr.secret, []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"inner.arrow": "good.arrow",
		"abs.arrow":   tr.secret,
		"rel.arrow":   "../out/secret.arrow",
		"outdir":      "../out",
	} {
		if err := os.Symlink(target, filepath.Join(tr.in, link)); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

func (tr tree) policy(t *testing.T, maxBytes int64) Access {
	t.Helper()
	a, err := Folders(maxBytes, tr.in)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// readSoon reads under a, failing the test if the read has not returned
// within seconds (a named pipe once blocked a read for good).
func readSoon(t *testing.T, a Access, items ...Item) ([]arrow.Array, error) {
	t.Helper()
	type result struct {
		arrs []arrow.Array
		err  error
	}
	done := make(chan result, 1)
	go func() {
		arrs, err := a.Read(context.Background(), items, []Column{{Name: "x"}})
		done <- result{arrs, err}
	}()
	select {
	case r := <-done:
		return r.arrs, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("reading %v has not returned after 10 s", items)
		return nil, nil
	}
}

func wantRows(t *testing.T, arrs []arrow.Array, err error, want string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer arrs[0].Release()
	if got := arrs[0].String(); got != want {
		t.Fatalf("read %s, want %s", got, want)
	}
}

// wantRefused checks that err matches kind, holds every one of words, and
// leaks nothing of the secret file.
func wantRefused(t *testing.T, err, kind error, words ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("read, want an error")
	}
	if kind != nil && !errors.Is(err, kind) {
		t.Errorf("error %q is not %v", err, kind)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q, want one containing %q", err, w)
		}
	}
	noLeak(t, err, []byte(secret))
}

// noLeak fails when the message holds a piece of data: six bytes of it in
// a row, or a number its bytes spell when read as a little-endian 16-,
// 32- or 64-bit integer (as a reader takes a length or an offset).
func noLeak(t *testing.T, err error, data []byte) {
	t.Helper()
	msg := err.Error()
	for i := 0; i+6 <= len(data); i++ {
		if strings.Contains(msg, string(data[i:i+6])) {
			t.Fatalf("error %q quotes the file's bytes %q", msg, data[i:i+6])
		}
	}
	numbers := map[string]bool{}
	for _, w := range strings.FieldsFunc(msg, func(r rune) bool { return r < '0' || r > '9' }) {
		numbers[w] = true
	}
	for i := 0; i+2 <= len(data); i++ {
		vals := []uint64{uint64(binary.LittleEndian.Uint16(data[i:]))}
		if i+4 <= len(data) {
			u := binary.LittleEndian.Uint32(data[i:])
			vals = append(vals, uint64(u), uint64(-int64(int32(u))))
		}
		if i+8 <= len(data) {
			vals = append(vals, binary.LittleEndian.Uint64(data[i:]))
		}
		for _, v := range vals {
			if v >= 1000 && numbers[strconv.FormatUint(v, 10)] {
				t.Fatalf("error %q holds %d, the file's bytes at %d read as a number", msg, v, i)
			}
		}
	}
}

// With no policy set, nothing is read, and the error says how to allow
// folders.
func TestNoFilesByDefault(t *testing.T) {
	tr := makeTree(t)
	var none Access
	for _, it := range []Item{{File, tr.good}, {Glob, tr.in + "/*.arrow"}, {Folder, tr.in}, {File, tr.secret}} {
		_, err := readSoon(t, none, it)
		wantRefused(t, err, ErrNotAllowed, it.Path, "reading files named by a plan is off", "rigel serve --allow-files DIR")
	}
	a, err := Folders(0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = readSoon(t, a, Item{File, tr.good})
	wantRefused(t, err, ErrNotAllowed, "is off")
}

// Inside an allowed folder: a file, a link to a file inside, a glob, a
// folder, a path with ".." that stays inside, and a relative path.
func TestFoldersRead(t *testing.T) {
	tr := makeTree(t)
	a := tr.policy(t, 0)
	arrs, err := readSoon(t, a, Item{File, tr.good})
	wantRows(t, arrs, err, "[1 2 3]")
	arrs, err = readSoon(t, a, Item{File, filepath.Join(tr.in, "inner.arrow")})
	wantRows(t, arrs, err, "[1 2 3]")
	arrs, err = readSoon(t, a, Item{File, tr.in + "/sub/../good.arrow"}, Item{Glob, tr.in + "/s*/*.arrow"})
	wantRows(t, arrs, err, "[1 2 3 4]")
	arrs, err = readSoon(t, a, Item{Folder, filepath.Join(tr.in, "sub")})
	wantRows(t, arrs, err, "[4]")

	t.Chdir(tr.base)
	arrs, err = readSoon(t, a, Item{File, "in/good.arrow"})
	wantRows(t, arrs, err, "[1 2 3]")
	rel, err := Folders(0, "in")
	if err != nil {
		t.Fatal(err)
	}
	arrs, err = readSoon(t, rel, Item{File, tr.good})
	wantRows(t, arrs, err, "[1 2 3]")

	// A folder allowed by the name of a link to it reads by either name.
	link := filepath.Join(tr.base, "alias")
	if err := os.Symlink(tr.in, link); err != nil {
		t.Fatal(err)
	}
	viaLink, err := Folders(0, link)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(link, "good.arrow"), tr.good} {
		arrs, err = readSoon(t, viaLink, Item{File, p})
		wantRows(t, arrs, err, "[1 2 3]")
	}
	if got := viaLink.Dirs(); len(got) != 1 || got[0] != tr.in {
		t.Fatalf("Dirs() = %v, want the real path [%s]", got, tr.in)
	}
}

// Every way out of the allowed folder is refused with ErrNotAllowed, and
// no error says anything of the file read through it.
func TestFoldersConfine(t *testing.T) {
	tr := makeTree(t)
	a := tr.policy(t, 0)
	outside := []struct {
		name  string
		items []Item
		words []string
	}{
		{"a file outside", []Item{{File, tr.secret}}, []string{tr.secret, "is outside the folders plans may read"}},
		{"climbing out with ..", []Item{{File, tr.in + "/../out/secret.arrow"}}, []string{"outside"}},
		{"a folder outside", []Item{{Folder, tr.out}}, []string{"outside"}},
		{"a glob outside", []Item{{Glob, tr.base + "/*/secret.arrow"}}, []string{"outside"}},
		{"a glob climbing out", []Item{{Glob, tr.in + "/../out/*"}}, []string{"outside"}},
		{"the root of the disk", []Item{{Glob, "/*"}}, []string{"outside"}},
		{"/etc/passwd", []Item{{File, "/etc/passwd"}}, []string{"/etc/passwd", "outside"}},
		{"an absolute link", []Item{{File, filepath.Join(tr.in, "abs.arrow")}}, []string{"abs.arrow", "leads outside"}},
		{"a relative link", []Item{{File, filepath.Join(tr.in, "rel.arrow")}}, []string{"rel.arrow", "leads outside"}},
		{"a linked folder", []Item{{File, filepath.Join(tr.in, "outdir", "secret.arrow")}}, []string{"leads outside"}},
		{"a folder through a link", []Item{{Folder, filepath.Join(tr.in, "outdir")}}, []string{"leads outside"}},
		{"a glob over links", []Item{{Glob, tr.in + "/*.arrow"}}, []string{"leads outside"}},
		{"a folder holding links", []Item{{Folder, tr.in}}, []string{"leads outside"}},
		{"a good file, then one outside", []Item{{File, tr.good}, {File, tr.secret}}, []string{tr.secret}},
	}
	for _, c := range outside {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			_, err := readSoon(t, a, c.items...)
			wantRefused(t, err, ErrNotAllowed, c.words...)
			t.Log(err)
		})
	}

	// Outside the folders, a missing file gets the same answer as a file
	// that exists: the refusal looks nothing up.
	_, errThere := readSoon(t, a, Item{File, tr.secret})
	missing := filepath.Join(tr.out, "missing.arrow")
	_, errMissing := readSoon(t, a, Item{File, missing})
	if got, want := strings.ReplaceAll(errMissing.Error(), missing, "P"), strings.ReplaceAll(errThere.Error(), tr.secret, "P"); got != want {
		t.Fatalf("a missing file outside answers %q, an existing one %q: the answer probes the disk", got, want)
	}
}

// Only regular files are read, and what is not one is refused at once:
// devices, named pipes (which once blocked the read until a writer came),
// sockets, folders; on both policies.
func TestRegularFilesOnly(t *testing.T) {
	tr := makeTree(t)
	fifo := filepath.Join(tr.in, "pipe.arrow")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(tr.in, "s.arrow")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, p := range []struct {
		name string
		a    Access
	}{{"all", AllFiles(0)}, {"folders", tr.policy(t, 0)}} {
		t.Run(p.name, func(t *testing.T) {
			_, err := readSoon(t, p.a, Item{File, fifo})
			wantRefused(t, err, ErrNotRegular, fifo, "is a named pipe, not a regular file")
			_, err = readSoon(t, p.a, Item{File, tr.in})
			wantRefused(t, err, ErrNotRegular, "is a folder")
			_, err = readSoon(t, p.a, Item{File, sock})
			wantRefused(t, err, nil, sock) // a socket cannot be opened: ENXIO
			// A folder's and a glob's pipes and sockets are not its files.
			arrs, err := readSoon(t, p.a, Item{Glob, tr.in + "/[gps]*.arrow"})
			wantRows(t, arrs, err, "[1 2 3]")
		})
	}
	all := AllFiles(0)
	for _, dev := range []string{"/dev/zero", "/dev/null", "/dev/stdin"} {
		if _, err := os.Stat(dev); err != nil {
			continue
		}
		_, err := readSoon(t, all, Item{File, dev})
		if err == nil {
			t.Fatalf("%s read", dev)
		}
		if dev != "/dev/stdin" && !errors.Is(err, ErrNotRegular) {
			t.Fatalf("%s: %v, want ErrNotRegular", dev, err)
		}
		t.Logf("%s: %v", dev, err)
	}
}

// Sizes are checked before reading: a file over the bound, files over it
// together, a sparse file of a terabyte; a file that is not the size it
// said is an error (a /proc file says 0 bytes and holds more).
func TestSizeBound(t *testing.T) {
	tr := makeTree(t)
	fi, err := os.Stat(tr.good)
	if err != nil {
		t.Fatal(err)
	}
	size := fi.Size()
	_, err = readSoon(t, tr.policy(t, size-1), Item{File, tr.good})
	wantRefused(t, err, ErrTooLarge, tr.good, "holds "+strconv.FormatInt(size, 10)+" bytes, more than the "+strconv.FormatInt(size-1, 10)+" bytes")
	arrs, err := readSoon(t, tr.policy(t, size), Item{File, tr.good})
	wantRows(t, arrs, err, "[1 2 3]")
	_, err = readSoon(t, tr.policy(t, size+10), Item{File, tr.good}, Item{File, tr.good})
	wantRefused(t, err, ErrTooLarge, "past the")

	huge := filepath.Join(tr.in, "huge.arrow")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		f.Close()
		t.Skipf("no sparse file of 1 TiB here: %v", err)
	}
	f.Close()
	start := time.Now()
	_, err = readSoon(t, AllFiles(0), Item{File, huge})
	wantRefused(t, err, ErrTooLarge, "holds 1099511627776 bytes")
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("refusing took %v", d)
	}

	if _, err := os.Stat("/proc/self/status"); err == nil {
		_, err = readSoon(t, AllFiles(0), Item{File, "/proc/self/status"})
		if err == nil || !strings.Contains(err.Error(), "grew while it was read") {
			t.Fatalf("error %v, want a file larger than its size refused", err)
		}
	}
}

// Errors about files that are not Arrow IPC, or are damaged, name the file
// and the damage but hold none of its bytes, in letters or in numbers
// (the first four bytes of /etc/passwd, read as a length, spelt "root").
func TestErrorsHoldNoFileBytes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.arrow")
	a, err := Folders(0, dir)
	if err != nil {
		t.Fatal(err)
	}
	try := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readSoon(t, a, Item{File, p})
		if err == nil {
			t.Fatalf("%s: read", name)
		}
		noLeak(t, err, data)
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("%s: error %q does not name the file", name, err)
		}
	}
	try("text", []byte(secret))
	try("text behind the file magic", []byte("ARROW1\x00\x00"+secret+"ARROW1"))
	try("a continuation token, then text", append([]byte{0xff, 0xff, 0xff, 0xff}, secret...))

	// A good file and a good stream with the secret written over each
	// part in turn: every error stays clean of it.
	var file, stream strings.Builder
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	for i := 0; i < 8; i++ {
		b.Field(0).(*array.StringBuilder).Append(strings.Repeat("v", i))
	}
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	fw, err := ipc.NewFileWriter(&file, ipc.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	sw := ipc.NewWriter(&stream, ipc.WithSchema(schema))
	for _, w := range []interface {
		Write(arrow.RecordBatch) error
		Close() error
	}{fw, sw} {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	refused := 0
	for _, good := range []string{file.String(), stream.String()} {
		for at := 0; at+len(secret) <= len(good); at += 4 {
			bad := []byte(good)
			copy(bad[at:], secret)
			if err := os.WriteFile(p, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			arrs, err := readSoon(t, a, Item{File, p})
			if err != nil {
				refused++
				noLeak(t, err, bad[at:at+len(secret)])
				continue
			}
			arrs[0].Release()
		}
	}
	if refused == 0 {
		t.Fatal("no damaged file was refused: the test tests nothing")
	}
	t.Logf("%d damaged files refused, none quoting their bytes", refused)
}

// Folders checks its folders: each must exist and be a folder.
func TestFoldersChecked(t *testing.T) {
	tr := makeTree(t)
	for _, c := range []struct {
		dir, want string
	}{
		{"", "empty path"},
		{filepath.Join(tr.base, "nothing"), "no such file"},
		{tr.good, "is not a folder"},
	} {
		if _, err := Folders(0, tr.in, c.dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Folders(%q): %v, want an error containing %q", c.dir, err, c.want)
		}
	}
	if a := AllFiles(0); a.MaxBytes() != DefaultMaxBytes || a.Dirs() != nil {
		t.Errorf("AllFiles(0) = %+v", a)
	}
}

// A cancelled context stops the read before its next file.
func TestReadCancelled(t *testing.T) {
	tr := makeTree(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("client went away")
	cancel(cause)
	_, err := tr.policy(t, 0).Read(ctx, []Item{{File, tr.good}}, []Column{{Name: "x"}})
	if !errors.Is(err, cause) {
		t.Fatalf("error %v, want the context's cause", err)
	}
}
