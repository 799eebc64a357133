package colstore

import "syscall"

// populate maps a file's pages (in the page cache after its first read)
// all at once: an upload reading the map then meets no page fault every
// 4 KB.
const populate = syscall.MAP_POPULATE
