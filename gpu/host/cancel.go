package host

import (
	"context"

	"github.com/rigel-db/rigel/gpu"
)

// Cancellation. Every loop over rows checks its caller's ctx at least every
// checkRows rows (a parallel task per chunk, eval per expression node over
// a chunk, the sequential loops through inRanges or a ticker), so that a
// query whose client gave up stops within milliseconds with gpu.CtxErr
// instead of running on for minutes. A check is one ctx.Err() call: a few
// nanoseconds for 64K rows of work.

// checkRows is how many rows a sequential loop handles between two checks.
const checkRows = 1 << 16

// inRanges calls f on consecutive ranges [lo, hi) of at most checkRows rows
// that cover [0, n), checking ctx before each (and once when n is 0).
func inRanges(ctx context.Context, n int, f func(lo, hi int) error) error {
	for lo := 0; lo < n || lo == 0; lo += checkRows {
		if err := gpu.CtxErr(ctx); err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if err := f(lo, min(n, lo+checkRows)); err != nil {
			return err
		}
	}
	return nil
}

// ticker checks ctx in loops whose steps do unequal work (a probe row with
// many matches): tick counts the rows a step handled and checks ctx each
// time checkRows of them have passed.
type ticker struct {
	ctx  context.Context
	left int
}

func newTicker(ctx context.Context) *ticker { return &ticker{ctx: ctx, left: checkRows} }

func (t *ticker) tick(rows int) error {
	t.left -= rows
	if t.left > 0 {
		return nil
	}
	t.left = checkRows
	return gpu.CtxErr(t.ctx)
}
