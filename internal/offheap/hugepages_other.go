//go:build unix && !linux

package offheap

// adviseHugePages does nothing where transparent huge pages are not
// asked for by madvise.
func adviseHugePages([]byte) {}
