package offheap

import "syscall"

// hugePage is the size of a transparent huge page on x86-64 and arm64.
const hugePage = 2 << 20

// adviseHugePages asks for transparent huge pages for a large map where
// the system gives them on request (THP "madvise", a common default): a
// column's first writes then fault once every 2 MB instead of every 4 KB.
// Advice only: an error changes nothing.
func adviseHugePages(b []byte) {
	if len(b) >= hugePage {
		_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	}
}
