package physical

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/rigel-db/rigel/gpu"
)

// The host memory of loads. Loading a column holds it on the host about
// three times over for a moment: DuckDB's materialized result, rigel's
// copy of it, and its encoding for the device; a table's columns load side
// by side. At TPC-H SF100 the 7 columns of Q1's lineitem held more than
// the machine's 128 GB that way and the process was killed (issue 24). So
// each column's load first takes its estimate from one budget for all
// loads of the process, and waits while the others hold too much of it;
// a column whose estimate exceeds the whole budget is refused with
// gpu.ErrHostMemory, which runs the query on DuckDB, saying why.

// loadMemoryShare: a process's loads hold at most half its memory (the
// rest is DuckDB's buffer pool, the device's pinned staging, and queries).
const loadMemoryShare = 2

// loadBudget bounds the bytes the loads of the process hold at once.
type loadBudget struct {
	mu      sync.Mutex
	total   int64
	held    int64
	changed chan struct{} // closed, and replaced, whenever held drops
	err     error         // a RIGEL_LOAD_MEMORY that does not parse
}

// loads is the process's budget: RIGEL_LOAD_MEMORY (a size, e.g. 16GB),
// else half of gpu.ProcessMemory.
var loads = sync.OnceValue(func() *loadBudget {
	b := &loadBudget{total: gpu.ProcessMemory() / loadMemoryShare, changed: make(chan struct{})}
	if s := os.Getenv("RIGEL_LOAD_MEMORY"); s != "" {
		n, err := gpu.ParseSize(s)
		if err == nil && n <= 0 {
			err = fmt.Errorf("%q is not a positive size", s)
		}
		if err != nil {
			b.err = fmt.Errorf("RIGEL_LOAD_MEMORY: %w", err)
		}
		b.total = n
	}
	return b
})

// acquire takes n bytes of the budget for the load of what, waiting while
// other loads hold too much, and returns their release.
func (b *loadBudget) acquire(ctx context.Context, n int64, what string) (release func(), err error) {
	if b.err != nil {
		return nil, b.err
	}
	if n > b.total {
		return nil, fmt.Errorf("loading %s takes about %s of host memory, more than the %s loads may hold (RIGEL_LOAD_MEMORY; default: half of the memory this process may use): %w",
			what, gpu.SizeText(n), gpu.SizeText(b.total), gpu.ErrHostMemory)
	}
	for {
		b.mu.Lock()
		if b.held+n <= b.total {
			b.held += n
			b.mu.Unlock()
			return func() { b.give(n) }, nil
		}
		wait := b.changed
		b.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

func (b *loadBudget) give(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held -= n
	close(b.changed)
	b.changed = make(chan struct{})
}

// loadBytes estimates the host memory that loading rows of a column of
// type t holds at its peak. Fixed-width values: DuckDB's, rigel's Arrow
// copy (decimals as 128 bits) and the device encoding, each at most 16
// bytes. Strings, whose lengths are not known before the load: DuckDB's
// 16-byte string_t a row, a dictionary's Arrow copy (the string, counted
// at 24 bytes, and its offset) and codes: 48 bytes; in Arrow layout the
// copy and the upload's characters: 96.
func loadBytes(rows int64, t gpu.Type) int64 {
	switch t.Kind {
	case gpu.Dict:
		return rows * 48
	case gpu.Str:
		return rows * 96
	case gpu.Decimal64, gpu.Decimal128:
		return rows * 3 * 16
	}
	return rows * 3 * int64(t.Kind.Width())
}
