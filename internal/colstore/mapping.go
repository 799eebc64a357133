package colstore

import "sync/atomic"

// mapping is a file mapped into memory, unmapped when its last reference
// (the reader's, then one a buffer over it) is dropped.
type mapping struct {
	data  []byte
	refs  atomic.Int64
	unmap func([]byte)
}

func (m *mapping) release() {
	if m.refs.Add(-1) == 0 {
		m.unmap(m.data)
		m.data = nil
	}
}
