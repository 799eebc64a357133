//go:build !unix

package offheap

// Without memory maps the buffers are Go's.
func Map(n int) ([]byte, error) {
	mapped(n)
	return make([]byte, n), nil
}

func Unmap(b []byte) { unmapped(cap(b)) }
