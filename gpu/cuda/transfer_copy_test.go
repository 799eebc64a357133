package cuda

import (
	"bytes"
	"testing"
)

// The staging copy splits a copy of at least 2 MiB over up to 8 threads
// in parts of whole cache lines. Sizes whose share per thread, rounded
// down, is already aligned lost their last bytes once (TPC-H SF100's p_name
// lost its last row's tail); every size here must arrive whole.
func TestParallelCopyCoversEveryByte(t *testing.T) {
	const mib = 1 << 20
	src := make([]byte, 9*mib+100)
	for i := range src {
		src[i] = byte(i*7 + i>>8 + 1)
	}
	for _, n := range []int{0, 1, 63, mib, 2*mib - 1, 2 * mib, 2*mib + 1, 3*mib + 2, 5*mib + 3, 7*mib + 6, 8 * mib, 8*mib + 7, 9*mib + 5, 9*mib + 100} {
		dst := make([]byte, n+64)
		parallelCopy(dst[:n], src[:n])
		if !bytes.Equal(dst[:n], src[:n]) {
			i := 0
			for i < n && dst[i] == src[i] {
				i++
			}
			t.Fatalf("copy of %d bytes: first wrong byte at %d (%d from the end)", n, i, n-i)
		}
		for i, b := range dst[n:] {
			if b != 0 {
				t.Fatalf("copy of %d bytes wrote past its end at %d", n, n+i)
			}
		}
	}
}
