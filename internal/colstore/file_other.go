//go:build !unix

package colstore

import (
	"errors"
	"fmt"
	"os"
)

// mapFile reads the file at path (no memory maps here).
func mapFile(path string) (*mapping, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := &mapping{data: b, unmap: func([]byte) {}}
	m.refs.Store(1)
	return m, nil
}

func fileID(st os.FileInfo) string {
	return fmt.Sprintf("%d:%d", st.Size(), st.ModTime().UnixNano())
}

func freeBytes(string) (int64, error) { return 0, errors.New("colstore: free space unknown here") }
