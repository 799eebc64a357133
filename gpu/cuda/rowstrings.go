package cuda

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rigel-db/rigel/gpu"
)

// Row-wise string functions (gpu.OpStrRow: concat of two columns,
// coalesce of strings, a function whose string is not its first argument)
// on the CUDA device. Strings live in host-side dictionaries, so its
// kernels do not run them; instead the device runs their arguments as a
// pipeline of their own, downloads them, evaluates the function row by row
// on the host (gpu.EvalRows: the host device's semantics, one definition)
// and uploads the results, which the pipeline then reads as input columns.
// TPC-DS q05 and q80 (concat('store', s_store_id)) and q84 (concat of two
// coalesced names) ran such a projection on DuckDB.
//
// A filter without row functions runs first (the rows it keeps
// materialized, then the rest of the pipeline over them), so that a row it
// drops is never evaluated, as on the host device. Where the filter has
// row functions itself, they and the projections' are evaluated on every
// row: a row the function fails on (a pattern that does not compile, a
// repetition too long) may be one the filter drops, so a failure there is
// a refusal (the engine hands the query to DuckDB, whose answer or error
// stands), never this device's error.

// maxRowStringBytes bounds the host memory the arguments and the results
// of one pipeline's row functions take (2 GiB): past it the pipeline is
// refused (gpu.ErrHostMemory, an out-of-memory the engine answers by
// handing the query to DuckDB), where it would take the process down.
const maxRowStringBytes = 2 << 30

// runRowStrings is dev's Run of a pipeline with row functions: the
// outermost ones evaluated on the host over their arguments (inner ones,
// among the arguments, by the Run that evaluates those), then p with each
// replaced by an input column of its results. dev is the CUDA device; its
// tests pass the host device, whose own Run then checks the composition.
func runRowStrings(ctx context.Context, dev gpu.Device, p *gpu.Pipeline, inputs []gpu.Column) ([]gpu.Column, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("a row function over no input columns: %w", gpu.ErrUnsupported)
	}
	if p.Filter != nil && !hasStrRow(p.Filter) {
		return splitRowStrings(ctx, dev, p, func(rows *gpu.Pipeline) ([]gpu.Column, error) { return dev.Run(ctx, rows, inputs) })
	}
	n := inputs[0].Len()
	// The outermost row functions, each argument that is not a constant
	// once (rewritePipeline visits arguments first: a row function under
	// another is replaced by its argument's evaluation instead).
	var nodes []*gpu.Expr
	seen := map[*gpu.Expr]bool{}
	var outer func(e *gpu.Expr)
	outer = func(e *gpu.Expr) {
		if e == nil || seen[e] {
			return
		}
		seen[e] = true
		if e.Op == gpu.OpStrRow {
			nodes = append(nodes, e)
			return
		}
		for _, a := range e.Args {
			outer(a)
		}
	}
	outer(p.Filter)
	for _, e := range p.Project {
		outer(e)
	}
	argAt := map[*gpu.Expr]int{}
	var argExprs []*gpu.Expr
	for _, e := range nodes {
		for _, a := range e.Args {
			if _, ok := argAt[a]; !ok && a.Op != gpu.OpConst {
				argAt[a] = len(argExprs)
				argExprs = append(argExprs, a)
			}
		}
	}
	var argVals []arrow.Array
	defer func() {
		for _, a := range argVals {
			a.Release()
		}
	}()
	if len(argExprs) > 0 {
		cols, err := dev.Run(ctx, &gpu.Pipeline{Inputs: p.Inputs, Project: argExprs, Sink: gpu.SinkMaterialize}, inputs)
		if err != nil {
			return nil, fmt.Errorf("the arguments of row functions: %w", err)
		}
		for _, c := range cols {
			if err == nil {
				var a arrow.Array
				if a, err = dev.Download(ctx, c); err == nil {
					argVals = append(argVals, a)
				}
			}
			c.Release()
		}
		if err != nil {
			return nil, fmt.Errorf("the arguments of row functions: %w", err)
		}
		held := int64(0)
		for _, a := range argVals {
			for _, b := range a.Data().Buffers() {
				if b != nil {
					held += int64(b.Len())
				}
			}
		}
		if held > maxRowStringBytes {
			return nil, fmt.Errorf("the arguments of row functions over %d rows take %d bytes of host memory, more than the %d evaluated at once: %w", n, held, int64(maxRowStringBytes), gpu.ErrHostMemory)
		}
	}
	var results []gpu.Column
	defer func() {
		for _, c := range results {
			c.Release()
		}
	}()
	at := map[*gpu.Expr]int{}
	types := append([]gpu.Type(nil), p.Inputs...)
	for _, e := range nodes {
		args := make([]arrow.Array, len(e.Args))
		for k, a := range e.Args {
			if i, ok := argAt[a]; ok {
				args[k] = argVals[i]
			}
		}
		arr, err := gpu.EvalRows(e, n, args, maxRowStringBytes)
		if err != nil {
			if !errors.Is(err, gpu.ErrUnsupported) && !errors.Is(err, gpu.ErrOutOfMemory) {
				err = fmt.Errorf("%w (evaluated before the pipeline's filter: %w)", gpu.ErrUnsupported, err)
			}
			return nil, err
		}
		c, err := dev.Upload(ctx, arr)
		arr.Release()
		if err != nil {
			return nil, fmt.Errorf("%s's results: %w", e.Str.RowName(), err)
		}
		results = append(results, c)
		at[e] = len(types)
		types = append(types, e.Type)
	}
	q := rewritePipeline(p, func(orig, e *gpu.Expr) (*gpu.Expr, bool) {
		if i, ok := at[orig]; ok {
			return gpu.Col(i, orig.Type), true
		}
		return nil, false
	})
	q.Inputs = types
	return dev.Run(ctx, q, append(append([]gpu.Column(nil), inputs...), results...))
}

// splitRowPipeline makes a pipeline with row functions two: first the
// columns of its input rows (a join's pairs) that it reads, filtered by
// p's filter when that has no row function; then p over them, for Run
// (runRowStrings).
func splitRowPipeline(p *gpu.Pipeline) (rows, over *gpu.Pipeline) {
	filtered := p.Filter != nil && !hasStrRow(p.Filter)
	src := *p // the rest of p, over the rows' columns
	if filtered {
		src.Filter = nil
	}
	// The columns read, numbered as first met.
	at := map[int]int{}
	var cols []*gpu.Expr
	var mark func(e *gpu.Expr)
	mark = func(e *gpu.Expr) {
		if e == nil {
			return
		}
		if e.Op == gpu.OpCol {
			if _, ok := at[e.Col]; !ok {
				at[e.Col] = len(cols)
				cols = append(cols, gpu.Col(e.Col, p.Inputs[e.Col]))
			}
			return
		}
		for _, a := range e.Args {
			mark(a)
		}
	}
	for _, e := range src.Project {
		mark(e)
	}
	mark(src.Filter)
	if len(cols) == 0 { // the rows' count still needs a column
		mark(gpu.Col(0, p.Inputs[0]))
	}
	rows = &gpu.Pipeline{Inputs: p.Inputs, Project: cols, Sink: gpu.SinkMaterialize}
	if filtered {
		rows.Filter = p.Filter
	}
	over = rewritePipeline(&src, func(orig, e *gpu.Expr) (*gpu.Expr, bool) {
		if e.Op == gpu.OpCol {
			return gpu.Col(at[e.Col], e.Type), true
		}
		return nil, false
	})
	over.Inputs = make([]gpu.Type, len(cols))
	for i, c := range cols {
		over.Inputs[i] = c.Type
	}
	return rows, over
}

// splitRowStrings runs a pipeline with row functions in two
// (splitRowPipeline): first(rows) gives the columns of the input rows it
// reads (a join's pairs, or Run's filtered rows), then Run evaluates p over
// them. RunProbe and RunProbeLeft pass their join.
func splitRowStrings(ctx context.Context, dev gpu.Device, p *gpu.Pipeline, first func(rows *gpu.Pipeline) ([]gpu.Column, error)) ([]gpu.Column, error) {
	rows, over := splitRowPipeline(p)
	cols, err := first(rows)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	return dev.Run(ctx, over, cols)
}
