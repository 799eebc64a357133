package gpu

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// String function tables are a pass over a whole dictionary on the host,
// which for a column of millions of distinct strings costs more than the
// query's kernels. A cached column keeps its dictionary, so the tables are
// kept per (dictionary, function): the hot runs of a query build none.
// The cache holds at most maxCachedTableBytes; the oldest entries go first.
const maxCachedTableBytes = 1 << 30

type strTableKey struct {
	dict *array.String
	fn   string
}

type strTableEntry struct {
	pred  []byte        // predicate table
	codes []int32       // string function: code map ...
	out   *array.String // ... and its dictionary (retained by the cache)
	bytes int
}

type tableCache struct {
	sync.Mutex
	entries map[strTableKey]*strTableEntry
	order   []strTableKey // oldest first
	bytes   int
}

var strTableCache = tableCache{entries: map[strTableKey]*strTableEntry{}}

func cachedTable(dict *array.String, f *StrFunc) (*strTableEntry, bool) {
	if dict == nil {
		return nil, false
	}
	c := &strTableCache
	c.Lock()
	defer c.Unlock()
	e, ok := c.entries[strTableKey{dict, f.String()}]
	if ok && e.out != nil {
		e.out.Retain() // the caller's reference
	}
	return e, ok
}

func storeTable(dict *array.String, f *StrFunc, e *strTableEntry) {
	if dict == nil {
		return
	}
	e.bytes = len(e.pred) + 4*len(e.codes)
	if e.out != nil {
		e.bytes += len(e.out.ValueBytes()) + 4*e.out.Len()
		e.out.Retain() // the cache's reference
	}
	c := &strTableCache
	c.Lock()
	defer c.Unlock()
	k := strTableKey{dict, f.String()}
	if old, ok := c.entries[k]; ok {
		c.drop(k, old)
	}
	for c.bytes+e.bytes > maxCachedTableBytes && len(c.order) > 0 {
		oldest := c.order[0]
		c.drop(oldest, c.entries[oldest])
	}
	// The key holds the dictionary, so its address is not reused while the
	// entry lives; an entry for a dictionary no column uses any more only
	// waits for eviction.
	c.entries[k] = e
	c.order = append(c.order, k)
	c.bytes += e.bytes
}

func (c *tableCache) drop(k strTableKey, e *strTableEntry) {
	delete(c.entries, k)
	for i, o := range c.order {
		if o == k {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
	c.bytes -= e.bytes
	if e.out != nil {
		e.out.Release()
	}
}
