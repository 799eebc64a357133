package cuda

import "fmt"

// pool is the processing-region allocator: blocks are rounded up to a power
// of two (at least 256 bytes) and freed blocks wait in a free list of their
// size class for reuse, since cuMemAlloc/cuMemFree synchronize the device
// and cost far more than a kernel over a small intermediate.
type pool struct {
	cx    ctx
	free  map[int][]uint64 // size class -> free blocks
	class map[uint64]int   // live and free blocks -> size class
	held  int64            // bytes in free lists
	live  int64            // bytes of blocks handed out and not put back
	// direct is the device's bytes allocated outside the pool, and peak
	// the most live + *direct reached since the device's ResetStats
	// (Stats.PeakBytesLive).
	direct *int64
	peak   int64
}

func newPool(cx ctx, direct *int64) *pool {
	return &pool{cx: cx, free: map[int][]uint64{}, class: map[uint64]int{}, direct: direct}
}

// notePeak records the device's live bytes when they pass the peak.
func (p *pool) notePeak() {
	if v := p.live + *p.direct; v > p.peak {
		p.peak = v
	}
}

func sizeClass(n int64) int {
	c := 8
	for int64(1)<<c < n {
		c++
	}
	return c
}

// get returns a block of at least n bytes. On out-of-memory it frees the
// cached blocks and tries once more; the error then wraps gpu.ErrOutOfMemory.
func (p *pool) get(n int64, what string) (uint64, error) {
	c := sizeClass(n)
	if l := p.free[c]; len(l) > 0 {
		b := l[len(l)-1]
		p.free[c] = l[:len(l)-1]
		p.held -= 1 << c
		p.live += 1 << c
		p.notePeak()
		return b, nil
	}
	b, err := p.cx.alloc(1<<c, what)
	if err != nil && p.held > 0 {
		if derr := p.drainFree(); derr != nil {
			return 0, fmt.Errorf("%w (and freeing the pool: %v)", err, derr)
		}
		b, err = p.cx.alloc(1<<c, what)
	}
	if err != nil {
		return 0, err
	}
	p.class[b] = c
	p.live += 1 << c
	p.notePeak()
	return b, nil
}

// put returns a block to its free list.
func (p *pool) put(b uint64) {
	c, ok := p.class[b]
	if !ok {
		return
	}
	p.free[c] = append(p.free[c], b)
	p.held += 1 << c
	p.live -= 1 << c
}

func (p *pool) drainFree() error {
	var first error
	for c, l := range p.free {
		for _, b := range l {
			if err := p.cx.free(b); err != nil && first == nil {
				first = err
			}
			delete(p.class, b)
		}
		delete(p.free, c)
	}
	p.held = 0
	return first
}

// drain frees every block, live ones included (device Close).
func (p *pool) drain() error {
	first := p.drainFree()
	for b := range p.class {
		if err := p.cx.free(b); err != nil && first == nil {
			first = err
		}
	}
	p.class = map[uint64]int{}
	p.live = 0
	return first
}
