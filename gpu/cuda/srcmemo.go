package cuda

import "github.com/rigel-db/rigel/gpu"

// Generated sources of recently run pipelines. Generating one costs 25 to
// 170 µs of host time (more for aggregates; measured on this project's
// 2-core build machine by a benchmark over samplePipelines), paid by every
// operator of every run: 1-2 ms of a 20-operator query, most of what a
// small TPC-H query spends off the GPU. A prepared statement runs the same
// *gpu.Pipeline values again, so they key the memo.
//
// The key holds the pipeline itself, so its address cannot be reused by a
// different pipeline while the entry lives; pipelines are never changed
// after planning (the planner's rewrites copy them). extra carries every
// other input of the generator (dictionary sizes, the probe side's width).

// srcMemoEntries bounds the memo (sources are 10-40 KB each).
const srcMemoEntries = 256

type srcKey struct {
	p     *gpu.Pipeline
	kind  string
	extra string
}

type srcMemo struct {
	src   map[srcKey]string
	order []srcKey // oldest first
}

// memoSource returns the source of key k, generating it with gen on a
// miss. Callers hold d.mu.
func (d *Device) memoSource(k srcKey, gen func() (string, error)) (string, error) {
	m := &d.srcs
	if s, ok := m.src[k]; ok {
		return s, nil
	}
	s, err := gen()
	if err != nil {
		return "", err
	}
	if m.src == nil {
		m.src = map[srcKey]string{}
	}
	if len(m.order) >= srcMemoEntries {
		delete(m.src, m.order[0])
		m.order = m.order[1:]
	}
	m.src[k] = s
	m.order = append(m.order, k)
	return s, nil
}
