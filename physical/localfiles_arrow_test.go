package physical

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
	"github.com/rigel-db/rigel/internal/ipcfiles"
)

// The executor reads only the files its Files policy allows: none when
// unset, the allowed folder's regular files when set; a named pipe inside
// the folder, or a file outside it, is an error at once (a pipe once
// stalled the device queue until someone wrote to it).
func TestArrowFilesPolicy(t *testing.T) {
	base := t.TempDir()
	in, out := filepath.Join(base, "in"), filepath.Join(base, "out")
	for _, d := range []string{in, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := arrowfmt.WriteInt64File(filepath.Join(d, "t.arrow"), "x", []int64{1, 2, 3}); err != nil {
			t.Fatal(err)
		}
	}
	pipe := filepath.Join(in, "pipe.arrow")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	folders, err := ipcfiles.Folders(0, in)
	if err != nil {
		t.Fatal(err)
	}
	run := func(files ipcfiles.Access, path string) (string, error) {
		t.Helper()
		x := &Executor{Dev: host.New(), Source: &memSource{}, Cache: NewColumnCache(), Files: files}
		node := &ArrowFiles{Items: []ipcfiles.Item{{Kind: ipcfiles.File, Path: path}}, Columns: []string{"x"},
			Types: []gpu.Type{{Kind: gpu.Int64, Nullable: true}}}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		type answer struct {
			rows string
			err  error
		}
		done := make(chan answer, 1)
		go func() {
			rec, _, err := x.Run(ctx, node, []string{"x"})
			if err != nil {
				done <- answer{err: err}
				return
			}
			defer rec.Release()
			done <- answer{rows: rec.Column(0).String()}
		}()
		select {
		case a := <-done:
			return a.rows, a.err
		case <-time.After(20 * time.Second):
			t.Fatalf("reading %s has not returned after 20 s", path)
			return "", nil
		}
	}
	if _, err := run(ipcfiles.Access{}, filepath.Join(in, "t.arrow")); !errors.Is(err, ipcfiles.ErrNotAllowed) {
		t.Fatalf("an executor without a policy: %v, want ErrNotAllowed", err)
	}
	if rows, err := run(folders, filepath.Join(in, "t.arrow")); err != nil || rows != "[1 2 3]" {
		t.Fatalf("read %s, %v; want [1 2 3]", rows, err)
	}
	if _, err := run(folders, filepath.Join(out, "t.arrow")); !errors.Is(err, ipcfiles.ErrNotAllowed) {
		t.Fatalf("a file outside the folder: %v, want ErrNotAllowed", err)
	}
	for _, files := range []ipcfiles.Access{folders, ipcfiles.AllFiles(0)} {
		if _, err := run(files, pipe); !errors.Is(err, ipcfiles.ErrNotRegular) {
			t.Fatalf("a named pipe: %v, want ErrNotRegular", err)
		}
	}
	if _, err := run(ipcfiles.AllFiles(0), "/dev/zero"); !errors.Is(err, ipcfiles.ErrNotRegular) {
		t.Fatalf("/dev/zero: %v, want ErrNotRegular", err)
	}
}
