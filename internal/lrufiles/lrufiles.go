// Package lrufiles keeps a folder of cache files under a size: the least
// recently used go first, by modification time (readers touch a file to
// mark it used, so the order holds across processes). The kernel cache
// (gpu/cuda) and the column store (internal/colstore) trim their folders
// with it.
package lrufiles

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Trim removes the least recently used of the files in dir that counted
// accepts, sparing the one named spare, until they hold at most limit
// bytes, and returns the bytes they hold then (more than limit when the
// files that remain cannot be removed, or spare alone passes it), or the
// error of listing dir. Files counted does not accept are neither counted
// nor touched.
func Trim(dir string, limit int64, counted func(name string, info fs.FileInfo) bool, spare string) (int64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	type file struct {
		name string
		size int64
		used time.Time
	}
	var files []file
	var total int64
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil || !counted(e.Name(), info) {
			continue
		}
		files = append(files, file{e.Name(), info.Size(), info.ModTime()})
		total += info.Size()
	}
	if total <= limit {
		return total, nil
	}
	slices.SortFunc(files, func(a, b file) int { return a.used.Compare(b.used) })
	for _, f := range files {
		if total <= limit {
			break
		}
		if f.name != spare && os.Remove(filepath.Join(dir, f.name)) == nil {
			total -= f.size
		}
	}
	return total, nil
}
