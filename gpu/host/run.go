package host

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
)

// chunkRows is how many rows one task evaluates at a time: large enough to
// amortize per-chunk work, small enough for intermediates to stay in cache.
const chunkRows = 8192

// plan is a checked pipeline with its resolved inputs.
type plan struct {
	ctx       context.Context // the run's: batches check it (eval)
	p         *gpu.Pipeline
	cols      []*column
	n         int
	projDicts []*array.String // per Project expression (Dict kinds only)
	tabs      map[*gpu.Expr]*strTab
}

// Run executes a pipeline (see gpu.Device).
func (d *Device) Run(ctx context.Context, p *gpu.Pipeline, inputs []gpu.Column) ([]gpu.Column, error) {
	if err := d.checkOpen("run"); err != nil {
		return nil, err
	}
	pl, err := d.prepare(ctx, p, inputs)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	defer func() {
		ns := time.Since(start).Nanoseconds()
		d.count(func(s *gpu.Stats) { s.KernelLaunches++; s.DeviceNanos += ns })
	}()
	if p.Sink == gpu.SinkMaterialize {
		return d.materialize(ctx, pl)
	}
	return d.aggregate(ctx, pl)
}

// prepare checks the pipeline against its inputs.
func (d *Device) prepare(ctx context.Context, p *gpu.Pipeline, inputs []gpu.Column) (*plan, error) {
	if p == nil {
		return nil, fmt.Errorf("run: nil pipeline")
	}
	if len(inputs) != len(p.Inputs) {
		return nil, fmt.Errorf("run %s: %d input columns given, the pipeline declares %d", p, len(inputs), len(p.Inputs))
	}
	pl := &plan{ctx: ctx, p: p, cols: make([]*column, len(inputs)), n: -1}
	ck := &checker{ctx: ctx, inputs: p.Inputs, dicts: make([]*array.String, len(inputs))}
	for i, in := range inputs {
		c, err := d.own(in, fmt.Sprintf("run: input %d", i))
		if err != nil {
			return nil, err
		}
		want := p.Inputs[i]
		if err := checkType(want); err != nil {
			return nil, fmt.Errorf("run: input %d: %w", i, err)
		}
		if !sameType(c.typ, want) || (c.typ.Nullable && !want.Nullable) {
			return nil, fmt.Errorf("run: input %d is %s, the pipeline declares %s", i, c.typ, want)
		}
		if pl.n >= 0 && c.n != pl.n {
			return nil, fmt.Errorf("run: input %d has %d rows, input 0 has %d", i, c.n, pl.n)
		}
		pl.n = c.n
		pl.cols[i] = c
		ck.dicts[i] = c.dict
	}
	ck.cols, ck.n = pl.cols, pl.n
	if pl.n < 0 {
		// No inputs: nothing says how many rows there are.
		return nil, fmt.Errorf("run %s: a pipeline needs at least one input column", p)
	}
	if p.Filter != nil {
		if _, err := ck.check(p.Filter); err != nil {
			return nil, fmt.Errorf("run: filter: %w", err)
		}
		if p.Filter.Type.Kind != gpu.Bool {
			return nil, fmt.Errorf("run: filter %s is %s, not bool", p.Filter, p.Filter.Type)
		}
	}
	pl.projDicts = make([]*array.String, len(p.Project))
	for i, e := range p.Project {
		dict, err := ck.check(e)
		if err != nil {
			return nil, fmt.Errorf("run: project %d: %w", i, err)
		}
		if e.Type.Kind == gpu.Dict && dict == nil {
			return nil, fmt.Errorf("run: project %d: dict expression %s has no dictionary (no dict column in it): %w", i, e, gpu.ErrUnsupported)
		}
		pl.projDicts[i] = dict
	}
	pl.tabs = ck.tabs
	switch p.Sink {
	case gpu.SinkMaterialize:
	case gpu.SinkAggregate:
		if err := checkAggregate(p); err != nil {
			return nil, fmt.Errorf("run %s: %w", p, err)
		}
	default:
		return nil, fmt.Errorf("run: unknown sink %d", p.Sink)
	}
	return pl, nil
}

// parallel runs task(worker, chunk) for every chunk on up to d.workers
// goroutines and returns the first error. A panic in a task becomes an
// error: a bad plan must never take the process down.
func (d *Device) parallel(ctx context.Context, chunks int, task func(w, c int) error) error {
	workers := min(d.workers, chunks)
	var (
		next   atomic.Int64
		failed atomic.Bool
		once   sync.Once
		first  error
		wg     sync.WaitGroup
	)
	fail := func(err error) {
		once.Do(func() { first = err })
		failed.Store(true)
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					fail(fmt.Errorf("host device internal error: %v\n%s", r, debug.Stack()))
				}
			}()
			for !failed.Load() {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				if err := gpu.CtxErr(ctx); err != nil {
					fail(err)
					return
				}
				if err := task(w, c); err != nil {
					fail(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	return first
}

func chunkBounds(n, c int) (int, int) { return c * chunkRows, min(n, (c+1)*chunkRows) }

func numChunks(n int) int { return (n + chunkRows - 1) / chunkRows }

// filtered returns the rows of chunk c that pass the filter.
func (pl *plan) filtered(c int) (*batch, error) {
	lo, hi := chunkBounds(pl.n, c)
	b := newBatch(pl.ctx, pl.cols, lo, hi)
	b.tabs = pl.tabs
	if pl.p.Filter == nil {
		return b, nil
	}
	f, err := eval(pl.p.Filter, b)
	if err != nil {
		return nil, err
	}
	sel := make([]int32, 0, b.n)
	for i, v := range f.i64[:b.n] {
		if v != 0 && f.isValid(i) { // null is not true: the row is dropped
			sel = append(sel, int32(i))
		}
	}
	return b.sub(sel), nil
}

func (d *Device) materialize(ctx context.Context, pl *plan) ([]gpu.Column, error) {
	p := pl.p
	// Each chunk's projected rows, then the output columns they are copied
	// into (each with a validity vector until output drops it).
	var rowOut int64
	for _, e := range p.Project {
		rowOut += rowBytes(e.Type.WithNullable(true))
	}
	g, err := d.reserve(fmt.Sprintf("a pipeline's %d output columns over %d rows", len(p.Project), pl.n), 0)
	if err != nil {
		return nil, err
	}
	defer g.done()
	chunks := numChunks(pl.n)
	parts := make([][]*vec, chunks)
	sizes := make([]int, chunks)
	err = d.parallel(ctx, chunks, func(_, c int) error {
		b, err := pl.filtered(c)
		if err != nil {
			return err
		}
		if err := g.add(times(int64(b.n), rowOut)); err != nil {
			return err
		}
		out := make([]*vec, len(p.Project))
		for i, e := range p.Project {
			if out[i], err = eval(e, b); err != nil {
				return err
			}
		}
		parts[c], sizes[c] = out, b.n
		return nil
	})
	if err != nil {
		return nil, err
	}
	total := 0
	for _, s := range sizes {
		total += s
	}
	if err := g.add(times(int64(total), rowOut)); err != nil {
		return nil, err
	}
	cols := make([]gpu.Column, 0, len(p.Project))
	fail := func(err error) ([]gpu.Column, error) {
		releaseAll(cols)
		return nil, err
	}
	for i, e := range p.Project {
		if err := gpu.CtxErr(ctx); err != nil {
			return fail(err)
		}
		var v *vec
		if e.Type.Kind == gpu.Str {
			// A bare Str input column (checkStrUse): the chunks' rows
			// into that input, listed in order.
			strs := make([]*vec, len(parts))
			for c := range parts {
				strs[c] = parts[c][i]
			}
			s, err := concatStr(strs, sizes)
			if err != nil {
				return fail(fmt.Errorf("run: project %d (%s): %w", i, e, err))
			}
			v = &vec{str: s, valid: make([]bool, total)}
		} else {
			v = newVec(e.Type.Kind, total, true)
		}
		at := 0
		for c := range parts {
			part := parts[c][i]
			m := sizes[c]
			switch {
			case v.i64 != nil:
				copy(v.i64[at:], part.i64[:m])
			case v.f64 != nil:
				copy(v.f64[at:], part.f64[:m])
			case v.i128 != nil:
				copy(v.i128[at:], part.i128[:m])
			}
			if part.valid == nil {
				for j := at; j < at+m; j++ {
					v.valid[j] = true
				}
			} else {
				copy(v.valid[at:], part.valid[:m])
			}
			at += m
		}
		c, err := d.output(e.Type, total, v, pl.projDicts[i], fmt.Sprintf("project %d (%s)", i, e))
		if err != nil {
			return fail(err)
		}
		cols = append(cols, c)
	}
	return cols, nil
}

// output makes a result column, refusing a null in a column typed
// non-nullable (the translator's nullability must be right).
func (d *Device) output(t gpu.Type, n int, v *vec, dict *array.String, what string) (gpu.Column, error) {
	if v.valid != nil && !v.hasNull() {
		v.valid = nil
	}
	if v.valid != nil && !t.Nullable {
		return nil, fmt.Errorf("run: %s is typed %s (not nullable) but produced a null", what, t)
	}
	// A nullable column without nulls keeps valid == nil (every reader
	// treats nil as all valid).
	return d.newColumn(t, n, v, dict), nil
}
