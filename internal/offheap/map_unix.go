//go:build unix

package offheap

import (
	"fmt"
	"os"
	"syscall"
)

// Map is n bytes (zeros) of an anonymous memory map, its capacity the
// whole pages mapped.
func Map(n int) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	page := os.Getpagesize()
	b, err := syscall.Mmap(-1, 0, (n+page-1)/page*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("mapping %d bytes of host memory: %w", n, err)
	}
	adviseHugePages(b)
	mapped(len(b))
	return b[:n], nil
}

// Unmap returns b's map (a slice of Map's, any length) to the
// system.
func Unmap(b []byte) {
	if cap(b) > 0 {
		if syscall.Munmap(b[:cap(b)]) == nil {
			unmapped(cap(b))
		}
	}
}
