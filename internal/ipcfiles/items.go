// Package ipcfiles reads the Arrow IPC files of a Substrait ReadRel's
// LocalFiles (file format "arrow"): it resolves each item's path, glob or
// folder to files, those a file policy (Access) allows, and reads their
// record batches into one array per column the plan asks for, checking
// every file against the plan's base schema. Errors name the item or file
// at fault, never its contents; a damaged file is an error, never a
// panic.
package ipcfiles

import (
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"strings"

	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// PathKind is how an item names its files (the FileOrFiles path_type).
type PathKind int

const (
	// One file (uri_path or uri_file).
	File PathKind = iota
	// Every file a glob matches (uri_path_glob), in lexical order.
	Glob
	// Every file directly in a folder (uri_folder), in lexical order.
	Folder
)

// Item is one LocalFiles item, as a local path.
type Item struct {
	Kind PathKind
	Path string
}

func (it Item) String() string {
	switch it.Kind {
	case Glob:
		return "glob " + it.Path
	case Folder:
		return "folder " + it.Path
	}
	return it.Path
}

// ItemOf reads the path of a LocalFiles item: a local path, or a file://
// URI (of this host) whose path part is used. Other URI schemes are
// refused: rigel reads local files only.
func ItemOf(it *proto.ReadRel_LocalFiles_FileOrFiles) (Item, error) {
	var u string
	kind := File
	switch p := it.GetPathType().(type) {
	case *proto.ReadRel_LocalFiles_FileOrFiles_UriPath:
		u = p.UriPath
	case *proto.ReadRel_LocalFiles_FileOrFiles_UriFile:
		u = p.UriFile
	case *proto.ReadRel_LocalFiles_FileOrFiles_UriPathGlob:
		u, kind = p.UriPathGlob, Glob
	case *proto.ReadRel_LocalFiles_FileOrFiles_UriFolder:
		u, kind = p.UriFolder, Folder
	default:
		return Item{}, fmt.Errorf("the item names no path (uri_path, uri_file, uri_path_glob or uri_folder)")
	}
	if u == "" {
		return Item{}, fmt.Errorf("the item's path is empty")
	}
	if strings.HasPrefix(u, "file:") {
		pu, err := url.Parse(u)
		if err != nil {
			return Item{}, fmt.Errorf("URI %q: %v", u, err)
		}
		if pu.Host != "" && pu.Host != "localhost" {
			return Item{}, fmt.Errorf("URI %q names another host: rigel reads local files only", u)
		}
		if pu.Path == "" {
			return Item{}, fmt.Errorf("URI %q has no path", u)
		}
		u = pu.Path
	} else if i := strings.Index(u, "://"); i > 0 {
		return Item{}, fmt.Errorf("URI %q: only local files (file:// or a path) are read", u)
	}
	return Item{Kind: kind, Path: u}, nil
}

// files lists the files of the item in the place the policy finds it
// (which the caller closes), as paths relative to that place. A glob or
// folder that holds no file is an error (as DuckDB's readers make it): a
// plan that names files expects some, and an empty answer would hide a
// wrong path. Entries that are not regular files (subfolders, and
// symbolic links to nothing) are left out of a glob or folder; an entry
// leading out of an allowed folder is an error, not a silent gap in the
// rows.
func (a Access) files(it Item) (place, []string, error) {
	if it.Kind == Glob && strings.Contains(it.Path, "**") {
		return place{}, nil, fmt.Errorf("glob %s: recursive globs (**) are not supported; name the folders", it.Path)
	}
	pl, rel, err := a.locate(it.Path)
	if err != nil {
		return place{}, nil, err
	}
	var candidates []string
	switch it.Kind {
	case File:
		return pl, []string{rel}, nil
	case Glob:
		if candidates, err = fs.Glob(pl.fsys, rel); err != nil {
			pl.close()
			return place{}, nil, fmt.Errorf("glob %s: %v", it.Path, err)
		}
	case Folder:
		entries, err := fs.ReadDir(pl.fsys, rel)
		if err != nil {
			pl.close()
			return place{}, nil, openErr(pl, "folder", it.Path, err)
		}
		for _, e := range entries { // sorted by name
			// Hidden files (editor and OS metadata) are not data.
			if !strings.HasPrefix(e.Name(), ".") {
				candidates = append(candidates, path.Join(rel, e.Name()))
			}
		}
	}
	var files []string
	for _, c := range candidates {
		fi, err := fs.Stat(pl.fsys, c)
		switch {
		case err == nil && fi.Mode().IsRegular():
			files = append(files, c)
		case err != nil && pl.confined && escapes(err):
			pl.close()
			return place{}, nil, openErr(pl, it.String()+": entry", pl.show(c), err)
		}
	}
	if len(files) == 0 {
		pl.close()
		if it.Kind == Glob {
			return place{}, nil, fmt.Errorf("glob %s matches no file", it.Path)
		}
		return place{}, nil, fmt.Errorf("folder %s holds no file", it.Path)
	}
	return pl, files, nil
}

// Items reads the items of a LocalFiles read whose every item is an Arrow
// IPC file, refusing what rigel does not implement rather than ignoring
// it: byte ranges (start/length) of a file, and an advanced extension's
// enhancement. partition_index needs nothing: the read is the union of all
// partitions, so an item's partition does not change the rows.
func Items(lf *proto.ReadRel_LocalFiles) ([]Item, error) {
	if len(lf.GetItems()) == 0 {
		return nil, fmt.Errorf("LocalFiles read without files")
	}
	if e := lf.GetAdvancedExtension().GetEnhancement(); e != nil {
		return nil, fmt.Errorf("LocalFiles read with an advanced extension enhancement (%s) that changes its meaning in a way rigel does not know", e.GetTypeUrl())
	}
	var out []Item
	for i, it := range lf.GetItems() {
		if it.GetArrow() == nil {
			return nil, fmt.Errorf("LocalFiles item %d is not an Arrow IPC file, and the read's other items are: one read has one file format", i)
		}
		if it.Start != 0 || it.Length != 0 {
			return nil, fmt.Errorf("LocalFiles item %d reads a byte range of its file (start %d, length %d): rigel reads Arrow IPC files whole (start 0, length 0)", i, it.Start, it.Length)
		}
		f, err := ItemOf(it)
		if err != nil {
			return nil, fmt.Errorf("LocalFiles item %d: %w", i, err)
		}
		out = append(out, f)
	}
	return out, nil
}
