//go:build unix

package colstore

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps the file at path, read-only.
func mapFile(path string) (*mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() == 0 {
		return nil, fmt.Errorf("colstore: %s is empty", path)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED|populate)
	if err != nil {
		return nil, fmt.Errorf("colstore: mapping %s: %w", path, err)
	}
	m := &mapping{data: b, unmap: func(b []byte) { _ = syscall.Munmap(b) }}
	m.refs.Store(1)
	return m, nil
}

// fileID identifies a file's version: its device, inode, size and
// modification time.
func fileID(st os.FileInfo) string {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d:%d:%d", s.Dev, s.Ino, st.Size(), st.ModTime().UnixNano())
	}
	return fmt.Sprintf("%d:%d", st.Size(), st.ModTime().UnixNano())
}

// freeBytes is the space left to an unprivileged user on dir's file system.
func freeBytes(dir string) (int64, error) {
	var s syscall.Statfs_t
	if err := syscall.Statfs(dir, &s); err != nil {
		return 0, err
	}
	return int64(s.Bavail) * int64(s.Bsize), nil
}
