package ipcfiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Access says which files the plans of an engine may read. Its zero value
// allows none: a server answers clients who must not read its disk, so a
// caller that sets nothing reads nothing. AllFiles is for a user who runs
// rigel on their own files (the command line), Folders for a server whose
// operator names the folders clients may read.
//
// Whatever the policy, only regular files are read (a device, a named
// pipe or a socket is refused at once, never read or waited on), and no
// read takes more than MaxBytes from its files.
type Access struct {
	all   bool
	roots []root
	// max bounds the bytes one read takes from its files (each file, and
	// all of them together: their rows are held in memory together).
	max int64
}

// root is one allowed folder, by the name it was given (absolute, clean)
// and by its real path (symbolic links resolved), so that a plan may name
// a file by either.
type root struct{ name, real string }

// DefaultMaxBytes bounds the bytes one LocalFiles read may take from its
// files when the policy does not say. A read holds its files in memory
// whole (their columns point into those bytes until they are
// concatenated), so this is about what one plan may make the process
// allocate for its files.
const DefaultMaxBytes int64 = 8 << 30

// Errors a refused file's error wraps (errors.Is), so that a server can
// answer with the right status.
var (
	// ErrNotAllowed: the policy does not let plans read the file (file
	// reading is off, or the path lies outside the allowed folders).
	ErrNotAllowed = errors.New("file not allowed")
	// ErrNotRegular: the path names a folder, a device, a named pipe, a
	// socket: not a regular file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file, or the read's files together, are larger
	// than the policy's bound.
	ErrTooLarge = errors.New("file too large")
)

// refusal is an error with its own words that errors.Is matches to kind.
type refusal struct {
	msg  string
	kind error
}

func (r *refusal) Error() string { return r.msg }
func (r *refusal) Unwrap() error { return r.kind }

func refuse(kind error, format string, args ...any) error {
	return &refusal{msg: fmt.Sprintf(format, args...), kind: kind}
}

// AllFiles lets plans read any regular file the process can read, as
// DuckDB's own readers do by default. maxBytes <= 0 means
// DefaultMaxBytes.
func AllFiles(maxBytes int64) Access {
	return Access{all: true, max: orDefault(maxBytes)}
}

// Folders lets plans read the regular files inside the folders dirs (and
// their subfolders), nothing else: a path is matched to a folder by its
// name (made absolute against the working folder and cleaned, so "a/../b"
// is "b"), and opened through os.Root, which refuses a symbolic link or
// ".." leading out of the folder (a link inside it is followed when it is
// relative and stays inside; os.Root refuses every absolute link). Every
// folder must exist. No folder at all gives the zero policy: no file may
// be read. maxBytes <= 0 means DefaultMaxBytes.
func Folders(maxBytes int64, dirs ...string) (Access, error) {
	a := Access{max: orDefault(maxBytes)}
	for _, d := range dirs {
		if d == "" {
			return Access{}, errors.New("an allowed folder is an empty path")
		}
		name, err := filepath.Abs(d)
		if err != nil {
			return Access{}, fmt.Errorf("allowed folder %s: %w", d, err)
		}
		real, err := filepath.EvalSymlinks(name)
		if err != nil {
			return Access{}, fmt.Errorf("allowed folder %s: %w", d, pathReason(err))
		}
		fi, err := os.Stat(real)
		if err != nil {
			return Access{}, fmt.Errorf("allowed folder %s: %w", d, pathReason(err))
		}
		if !fi.IsDir() {
			return Access{}, fmt.Errorf("allowed folder %s is not a folder", d)
		}
		a.roots = append(a.roots, root{name: name, real: real})
	}
	return a, nil
}

func orDefault(maxBytes int64) int64 {
	if maxBytes <= 0 {
		return DefaultMaxBytes
	}
	return maxBytes
}

// Dirs lists the allowed folders by their real paths (symbolic links
// resolved), for a host database whose file access must match (DuckDB's
// allowed_directories). Nil for AllFiles and for the zero policy.
func (a Access) Dirs() []string {
	var out []string
	for _, r := range a.roots {
		out = append(out, r.real)
	}
	return out
}

// MaxBytes is the bound on the bytes one read takes from its files.
func (a Access) MaxBytes() int64 { return orDefault(a.max) }

// off says how file reading is turned on, for an error.
const off = "reading files named by a plan is off here (a server's operator can allow folders: rigel serve --allow-files DIR; in Go, Engine.RestrictFiles)"

// place is where a path's files are looked up: a file system (for globs
// and folder listings) and the opening of a file in it, both by a slash
// path relative to the place, whose own path (as the plan spelled it) is
// base.
type place struct {
	fsys  fs.FS
	open  func(rel string) (*os.File, error)
	base  string
	close func()
	// confined: a failure to open may mean that the path leads out of an
	// allowed folder.
	confined bool
}

// show is the path of a file of the place, for errors.
func (p place) show(rel string) string { return filepath.Join(p.base, filepath.FromSlash(rel)) }

// openFlags open a file for reading without waiting: a named pipe with no
// writer would otherwise block the open, and a terminal must not become
// the process's controlling terminal. They change nothing for a regular
// file.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

// locate finds the place of path (a file, a glob or a folder), and the
// path relative to it: the whole file system for AllFiles, else the
// allowed folder holding it. A path outside every allowed folder is
// refused by its name alone: nothing is looked up on disk, so the answer
// says nothing about what exists there. The caller closes the place.
func (a Access) locate(path string) (place, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return place{}, "", fmt.Errorf("%s: %w", path, err)
	}
	if a.all {
		rel, _ := filepath.Rel("/", abs)
		return place{
			fsys:  os.DirFS("/"),
			open:  func(rel string) (*os.File, error) { return os.OpenFile("/"+rel, openFlags, 0) },
			base:  "/",
			close: func() {},
		}, filepath.ToSlash(rel), nil
	}
	if len(a.roots) == 0 {
		return place{}, "", refuse(ErrNotAllowed, "%s: %s", path, off)
	}
	// The most specific folder holding the path: a folder allowed inside
	// another may be reached through a symbolic link that the outer one
	// would refuse.
	best, base, rel := -1, "", ""
	for i, r := range a.roots {
		for _, dir := range []string{r.name, r.real} {
			if rp, err := filepath.Rel(dir, abs); err == nil && filepath.IsLocal(rp) {
				if best < 0 || len(rp) < len(rel) {
					best, base, rel = i, dir, rp
				}
			}
		}
	}
	if best < 0 {
		return place{}, "", refuse(ErrNotAllowed, "%s is outside the folders plans may read here", path)
	}
	rt, err := os.OpenRoot(a.roots[best].real)
	if err != nil {
		return place{}, "", fmt.Errorf("allowed folder %s: %w", a.roots[best].name, pathReason(err))
	}
	return place{
		fsys:     rt.FS(),
		open:     func(rel string) (*os.File, error) { return rt.OpenFile(rel, openFlags, 0) },
		base:     base,
		close:    func() { rt.Close() },
		confined: true,
	}, filepath.ToSlash(rel), nil
}

// escapes says whether an error of os.Root means that the path leads out
// of the root (through ".." or a symbolic link). os.Root's error for it is
// not exported; its words are (the tests pin them).
func escapes(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err.Error() == "path escapes from parent"
}

// pathReason is an os error without the path it repeats (the caller's
// message names the path as the plan wrote it).
func pathReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// openErr words a failure to open or list name in a place.
func openErr(pl place, what, name string, err error) error {
	if pl.confined && escapes(err) {
		return refuse(ErrNotAllowed, "%s %s leads outside the folders plans may read here (through a symbolic link or ..)", what, name)
	}
	return fmt.Errorf("%s %s: %w", what, name, pathReason(err))
}
