//go:build unix && !linux

package colstore

// populate is nothing where mmap cannot map the pages ahead.
const populate = 0
