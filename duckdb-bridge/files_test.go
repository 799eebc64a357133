package duckdbbridge

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
	"github.com/rigel-db/rigel/internal/ipcfiles"
)

// secretText is what a hostile plan tries to read from outside the
// allowed folder; no error may quote it.
const secretText = "root:SECRET-MARKER-51c0:0:0\n"

// fileTree is an allowed folder (in) beside a forbidden one (out): each
// holds the rows x = 1, 2, 3 as Arrow IPC, Parquet and CSV (out's files
// begin with the secret text where the format allows), in holds links
// to out's files and a named pipe.
type fileTree struct{ base, in, out string }

func makeFileTree(t *testing.T) fileTree {
	t.Helper()
	base := t.TempDir()
	ft := fileTree{base: base, in: filepath.Join(base, "in"), out: filepath.Join(base, "out")}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, dir := range []string{ft.in, ft.out} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := arrowfmt.WriteInt64File(filepath.Join(dir, "t.arrow"), "x", []int64{1, 2, 3}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("COPY (SELECT range + 1 AS x FROM range(3)) TO '" + filepath.Join(dir, "t.parquet") + "' (FORMAT parquet)"); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "t.csv"), []byte("1\n2\n3\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ft.out, "secret.arrow"), []byte(secretText), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"t.arrow", "t.parquet", "t.csv", "secret.arrow"} {
		if err := os.Symlink(filepath.Join(ft.out, name), filepath.Join(ft.in, "link-"+name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(ft.in, "pipe.arrow"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ft
}

// filePlan is a plan reading column x (BIGINT) of one LocalFiles item.
func filePlan(item string) []byte {
	return []byte(`{"relations":[{"root":{"input":{"read":{"common":{"direct":{}},"baseSchema":{"names":["x"],"struct":{"types":[` +
		`{"i64":{"nullability":"NULLABILITY_NULLABLE"}}],"nullability":"NULLABILITY_REQUIRED"}},"localFiles":{"items":[` + item + `]}}},"names":["x"]}}]}`)
}

func arrowItem(p string) string { return `{"uriFile":"file://` + p + `","arrow":{}}` }
func parquetItem(p string) string {
	return `{"uriFile":"file://` + p + `","parquet":{}}`
}
func csvItem(p string) string {
	return `{"uriPath":"` + p + `","text":{"fieldDelimiter":",","quote":"\"","escape":"\""}}`
}

// fileEngines are an engine on the host device and one without a device
// (DuckDB runs whole plans, rigel reading their Arrow IPC files), each on
// its own DuckDB database: restricting files is for good.
func fileEngines(t *testing.T) map[string]*Engine {
	t.Helper()
	out := map[string]*Engine{}
	for name, dev := range map[string]bool{"host": true, "nodevice": false} {
		db, err := sql.Open("duckdb", "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if dev {
			out[name] = NewEngine(db, "files-"+name, host.New(), "")
		} else {
			out[name] = NewEngine(db, "files-"+name, nil, "no device in this test")
		}
	}
	return out
}

// runSoon runs a plan, failing the test if it has not returned within
// seconds (a named pipe once stalled every device query).
func runSoon(t *testing.T, e *Engine, plan []byte) (*Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	type answer struct {
		res *Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := e.RunPlan(ctx, plan)
		done <- answer{res, err}
	}()
	select {
	case a := <-done:
		return a.res, a.err
	case <-time.After(30 * time.Second):
		t.Fatal("the plan has not returned after 30 s")
		return nil, nil
	}
}

func wantX123(t *testing.T, res *Result, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	if got := res.Record.Column(0).String(); got != "[1 2 3]" {
		t.Fatalf("read %s (on %s), want [1 2 3]", got, res.Where)
	}
}

func wantFileRefused(t *testing.T, err, kind error, words ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("the plan ran, want it refused")
	}
	if kind != nil && !errors.Is(err, kind) {
		t.Errorf("error %q is not %v", err, kind)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q, want one containing %q", err, w)
		}
	}
	for _, leak := range []string{"SECRET", "MARKER", "1953460082"} { // "root" read as a length
		if strings.Contains(err.Error(), leak) {
			t.Errorf("error %q quotes the file's bytes (%s)", err, leak)
		}
	}
}

// With folders allowed, plans read the files inside them, in every format
// and on every engine, and nothing else: a path outside, a link or ".."
// leading out, a glob reaching out, a named pipe inside.
func TestRestrictFiles(t *testing.T) {
	ft := makeFileTree(t)
	for name, e := range fileEngines(t) {
		t.Run(name, func(t *testing.T) {
			if err := e.RestrictFiles([]string{ft.in}, 0); err != nil {
				t.Fatal(err)
			}
			for _, item := range []string{arrowItem(filepath.Join(ft.in, "t.arrow")), parquetItem(filepath.Join(ft.in, "t.parquet")), csvItem(filepath.Join(ft.in, "t.csv"))} {
				res, err := runSoon(t, e, filePlan(item))
				wantX123(t, res, err)
			}
			outside := filepath.Join(ft.out, "secret.arrow")
			for _, c := range []struct {
				name  string
				item  string
				kind  error
				words []string
			}{
				{"Arrow IPC outside", arrowItem(outside), ipcfiles.ErrNotAllowed, []string{outside, "outside the folders"}},
				{"Arrow IPC through ..", arrowItem(ft.in + "/../out/secret.arrow"), ipcfiles.ErrNotAllowed, []string{"outside the folders"}},
				{"Arrow IPC through a link", arrowItem(filepath.Join(ft.in, "link-secret.arrow")), ipcfiles.ErrNotAllowed, []string{"leads outside"}},
				{"Arrow IPC glob reaching out", `{"uriPathGlob":"` + ft.base + `/*/secret.arrow","arrow":{}}`, ipcfiles.ErrNotAllowed, []string{"outside the folders"}},
				{"Arrow IPC named pipe", arrowItem(filepath.Join(ft.in, "pipe.arrow")), ipcfiles.ErrNotRegular, []string{"named pipe"}},
				{"Arrow IPC /dev/zero", arrowItem("/dev/zero"), ipcfiles.ErrNotAllowed, []string{"/dev/zero"}},
				{"Parquet outside", parquetItem(filepath.Join(ft.out, "t.parquet")), nil, []string{"disabled by configuration"}},
				{"Parquet through a link", parquetItem(filepath.Join(ft.in, "link-t.parquet")), nil, []string{"disabled by configuration"}},
				{"Parquet through ..", parquetItem(ft.in + "/../out/t.parquet"), nil, []string{"disabled by configuration"}},
				{"CSV outside", csvItem(filepath.Join(ft.out, "t.csv")), nil, []string{"disabled by configuration"}},
				{"CSV through a link", csvItem(filepath.Join(ft.in, "link-t.csv")), nil, []string{"disabled by configuration"}},
			} {
				t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
					res, err := runSoon(t, e, filePlan(c.item))
					if err == nil {
						res.Release()
					}
					wantFileRefused(t, err, c.kind, c.words...)
					t.Log(err)
				})
			}
			// SQL obeys the same folders.
			res, err := e.RunOnDuckDB(context.Background(), "SELECT sum(x) AS s FROM read_parquet('"+filepath.Join(ft.in, "t.parquet")+"')")
			if err != nil {
				t.Fatal(err)
			}
			res.Release()
			if _, err := e.RunOnDuckDB(context.Background(), "SELECT * FROM read_csv('"+filepath.Join(ft.out, "t.csv")+"')"); err == nil {
				t.Fatal("SQL read a CSV file outside the allowed folder")
			}
		})
	}
}

// With no folder allowed (a server whose operator named none), no file is
// read, and the error says how to allow folders.
func TestRestrictFilesToNone(t *testing.T) {
	ft := makeFileTree(t)
	for name, e := range fileEngines(t) {
		t.Run(name, func(t *testing.T) {
			if err := e.RestrictFiles(nil, 0); err != nil {
				t.Fatal(err)
			}
			_, err := runSoon(t, e, filePlan(arrowItem(filepath.Join(ft.in, "t.arrow"))))
			wantFileRefused(t, err, ipcfiles.ErrNotAllowed, "reading files named by a plan is off", "rigel serve --allow-files DIR")
			_, err = runSoon(t, e, filePlan(parquetItem(filepath.Join(ft.in, "t.parquet"))))
			wantFileRefused(t, err, nil, "disabled by configuration")
		})
	}
}

// An engine that nobody restricted reads any regular file (the command
// line's user reads their own files), but still no device, named pipe or
// file larger than the bound: each is refused at once.
func TestDefaultFilesRegularOnly(t *testing.T) {
	ft := makeFileTree(t)
	for name, e := range fileEngines(t) {
		t.Run(name, func(t *testing.T) {
			res, err := runSoon(t, e, filePlan(arrowItem(filepath.Join(ft.out, "t.arrow"))))
			wantX123(t, res, err)
			for _, p := range []string{"/dev/zero", filepath.Join(ft.in, "pipe.arrow")} {
				start := time.Now()
				_, err := runSoon(t, e, filePlan(arrowItem(p)))
				wantFileRefused(t, err, ipcfiles.ErrNotRegular, p, "not a regular file")
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("%s took %v to refuse", p, d)
				}
			}
		})
	}
}

// RestrictFiles checks its folders before changing anything, may be
// called again with the same folders, and says so when DuckDB's file
// access was turned off before it (DuckDB then cannot take folders).
func TestRestrictFilesOrder(t *testing.T) {
	ft := makeFileTree(t)
	e := fileEngines(t)["nodevice"]
	external := func() bool {
		var on bool
		if err := e.DB().QueryRow("SELECT current_setting('enable_external_access')").Scan(&on); err != nil {
			t.Fatal(err)
		}
		return on
	}
	if err := e.RestrictFiles([]string{ft.in, filepath.Join(ft.base, "missing")}, 0); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("error %v, want the missing folder named", err)
	}
	if err := e.RestrictFiles([]string{filepath.Join(ft.in, "t.csv")}, 0); err == nil || !strings.Contains(err.Error(), "is not a folder") {
		t.Fatalf("error %v, want a file refused as a folder", err)
	}
	if !external() {
		t.Fatal("a refused RestrictFiles turned DuckDB's external access off")
	}
	res, err := runSoon(t, e, filePlan(arrowItem(filepath.Join(ft.out, "t.arrow"))))
	wantX123(t, res, err) // and left rigel's reader as it was

	if err := e.RestrictFiles([]string{ft.in}, 0); err != nil {
		t.Fatal(err)
	}
	if external() {
		t.Fatal("DuckDB's external access is still on")
	}
	if err := e.RestrictFiles([]string{ft.in + "/"}, 0); err != nil {
		t.Fatalf("the same folder again: %v", err)
	}
	if err := e.RestrictFiles([]string{ft.out}, 0); err == nil || !strings.Contains(err.Error(), "cannot change them now") {
		t.Fatalf("error %v, want another folder refused once DuckDB's access is off", err)
	}

	bare := fileEngines(t)["nodevice"]
	if _, err := bare.DB().Exec("SET enable_external_access = false"); err != nil {
		t.Fatal(err)
	}
	if err := bare.RestrictFiles(nil, 0); err != nil {
		t.Fatalf("no folders after DuckDB's access went off: %v", err)
	}
	if err := bare.RestrictFiles([]string{ft.in}, 0); err == nil || !strings.Contains(err.Error(), "before anything turns DuckDB's external access off") {
		t.Fatalf("error %v, want the order explained", err)
	}
}
