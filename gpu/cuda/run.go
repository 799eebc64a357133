package cuda

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/gpu"
)

// Run executes a pipeline as one generated kernel (plus a scan for
// materialization, an init for aggregation).
func (d *Device) Run(ctx context.Context, p *gpu.Pipeline, inputs []gpu.Column) ([]gpu.Column, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("run: nil pipeline")
	}
	scan := scanPipeline(p)
	if scan.rowFuncs { // rowstrings.go
		return runRowStrings(ctx, d, p, inputs)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.watch(ctx)()
	if d.closed {
		return nil, fmt.Errorf("run: CUDA device is closed")
	}
	cols, err := d.asPipelineInputs(inputs) // Str and packed columns too (strcol_strings.go, packed.go)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", p, err)
	}
	if len(cols) != len(p.Inputs) {
		return nil, fmt.Errorf("run %s: %d input columns, pipeline has %d", p, len(cols), len(p.Inputs))
	}
	n := 0
	for i, c := range cols {
		want := p.Inputs[i]
		if c.t.Kind != want.Kind || c.t.Precision != want.Precision || c.t.Scale != want.Scale {
			return nil, fmt.Errorf("run: input %d is %s, pipeline expects %s", i, c.t, want)
		}
		if c.t.Nullable && !want.Nullable {
			return nil, fmt.Errorf("run: input %d holds nulls, pipeline expects %s", i, want)
		}
		if i == 0 {
			n = c.n
		} else if c.n != n {
			return nil, fmt.Errorf("run: input %d has %d rows, input 0 has %d", i, c.n, n)
		}
	}
	placed, err := mixDictionaries(p, cols, scan.dictMixes) // dictorder.go
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", p, err)
	}
	p = placed
	args := make([]uint64, sinkWord(p))
	args[0], args[1] = uint64(n), d.status
	for i, c := range cols {
		w := inputWord(i)
		args[w], args[w+1], args[w+2] = inputArgs(c)
	}
	st, err := buildStrTables(p, cols)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", p, err)
	}
	if err := st.checkDictMixing(p, cols); err != nil {
		return nil, fmt.Errorf("run %s: %w", p, err)
	}
	block, err := d.uploadStrTables(p, st, args)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", p, err)
	}
	if block != 0 {
		defer d.pool.put(block) // stream order: later users wait for the kernels
	}

	var out []*column
	switch p.Sink {
	case gpu.SinkMaterialize:
		out, err = d.runMaterialize(p, cols, args, n, st)
	case gpu.SinkAggregate:
		out, err = d.runAggregate(p, cols, args, n, dictLens(cols), st)
	default:
		err = fmt.Errorf("sink %d: %w", p.Sink, gpu.ErrUnsupported)
	}
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", p, err)
	}
	return asColumns(out), nil
}

// countPassing is a materialization's count pass over n rows in ntiles
// tiles: count (given the tile counts and the pass mask to fill) launches
// the kernel that counts each tile's passing rows; util's rg_scan turns
// the counts into tile offsets. It returns the total and the offsets.
func (d *Device) countPassing(tmp *temps, n, ntiles int, count func(counts, mask uint64) error) (total int, offsets uint64, err error) {
	counts, err := tmp.get(int64(ntiles)*4, "tile counts")
	if err != nil {
		return 0, 0, err
	}
	if offsets, err = tmp.get(int64(ntiles+1)*8, "tile offsets"); err != nil {
		return 0, 0, err
	}
	mask, err := tmp.get(int64((n+31)/32)*4, "pass mask")
	if err != nil {
		return 0, 0, err
	}
	if err := count(counts, mask); err != nil {
		return 0, 0, err
	}
	total, err = d.scanTileCounts(counts, offsets, ntiles, "row count")
	return total, offsets, err
}

// temps are pool blocks released when the run ends.
type temps struct {
	d    *Device
	bufs []uint64
}

func (t *temps) get(n int64, what string) (uint64, error) {
	b, err := t.d.pool.get(n, what)
	if err == nil {
		t.bufs = append(t.bufs, b)
	}
	return b, err
}

func (t *temps) release() {
	for _, b := range t.bufs {
		t.d.pool.put(b)
	}
}

// scanTileCounts turns ntiles uint32 counts into ntiles+1 uint64 offsets
// (util's rg_scan) and returns the total, which waits for the kernels before.
func (d *Device) scanTileCounts(counts, offsets uint64, ntiles int, what string) (int, error) {
	if err := d.timedLaunch(d.util, "rg_scan", 1, 1024, 0, []uint64{uint64(ntiles), counts, offsets}); err != nil {
		return 0, err
	}
	var b [8]byte
	if err := d.copyOut(b[:], offsets+uint64(ntiles)*8, what); err != nil {
		return 0, err
	}
	return int(binary.LittleEndian.Uint64(b[:])), nil
}

// raisesFlags reports whether a generated kernel can raise a status flag:
// only code that names the status word can (rg_raise(status, ...), or a
// prelude function handed it). A materialization that cannot is not read
// back, which saves a host synchronization per pipeline.
func raisesFlags(src string) bool {
	return strings.Contains(strings.TrimPrefix(src, preludeSrc), "status")
}

// statusNullNotNullable and statusSubqueryRows are prelude.cuh's
// RG_NULL_NOT_NULLABLE and RG_SUBQUERY_ROWS.
const (
	statusNullNotNullable = 32
	statusSubqueryRows    = 64
)

// resetStatus clears the flag word kernels raise errors in.
func (d *Device) resetStatus() error { return d.cx.memset(d.status, 0, 8, d.stream) }

// checkStatus reads the flag word after the kernels and turns flags into
// errors.
func (d *Device) checkStatus() (tableFull bool, err error) {
	var b [4]byte
	if err := d.copyOut(b[:], d.status, "kernel status"); err != nil {
		return false, err
	}
	f := binary.LittleEndian.Uint32(b[:])
	switch {
	case f&1 != 0:
		return false, fmt.Errorf("an integer or decimal result does not fit its type: %w", gpu.ErrOverflow)
	case f&8 != 0:
		return false, fmt.Errorf("an argument is outside its function's domain: %w", gpu.ErrDomain)
	case f&2 != 0:
		return false, fmt.Errorf("decimal to float conversion of a value beyond the exactly convertible range: %w", gpu.ErrUnsupported)
	case f&statusNullNotNullable != 0:
		return false, errors.New("a null where the output type is not nullable (an aggregate of no rows, or a null group key)")
	case f&statusSubqueryRows != 0:
		return false, gpu.ErrSubqueryRows
	}
	return f&4 != 0, nil
}

// newOutput allocates an operation's output column from the pool: a Str
// one holds views (the caller shares its characters, shareStr).
func (d *Device) newOutput(t gpu.Type, n int, dict *array.String, what string) (*column, error) {
	c := &column{d: d, t: t, n: n, pooled: true, dict: dict, views: t.Kind == gpu.Str}
	if dict != nil {
		dict.Retain() // the column's own reference, released by freeColumn
	}
	var err error
	if c.data, err = d.pool.get(int64(n*devWidth(t)), what); err != nil {
		d.freeColumn(c)
		return nil, err
	}
	if t.Nullable {
		if c.valid, err = d.pool.get(int64(n), what+" validity"); err != nil {
			d.freeColumn(c)
			return nil, err
		}
	}
	return c, nil
}

func (d *Device) runMaterialize(p *gpu.Pipeline, cols []*column, args []uint64, n int, st *strTables) (out []*column, err error) {
	packed := packedOf(cols)
	src, err := d.memoEntry(srcKey{p: p, kind: "materialize", packed: packed.key()}, func() (string, error) { return materializeSource(p, packed) })
	if err != nil {
		return nil, err
	}
	if !d.fusedReady(src) {
		if pr, _, err := programOf(p, nil); err == nil && d.programFits(pr) {
			d.compileLater(src, "rigel_materialize.cu")
			d.onProgram("materialize", p)
			out, err := d.runMaterializeProgram(pr, cols, args, n, st)
			if !d.launchRefused(err) {
				return out, err
			}
		}
	}
	mod, err := d.entryModule(src, "rigel_materialize.cu")
	if err != nil {
		return nil, err
	}
	if err := st.checkDictProjections(p, cols); err != nil {
		return nil, err
	}
	tmp := &temps{d: d}
	defer tmp.release()
	defer d.freeOnError(&out, &err)
	total := 0
	ntiles := (n + tileRows - 1) / tileRows
	check := src.raises
	if n > 0 {
		if check {
			if err := d.resetStatus(); err != nil {
				return nil, err
			}
		}
		grid := d.gridFor(int64(ntiles), 1)
		// counts|offsets, ntiles, the outputs' words (filled below), the
		// pass mask (materializeSource).
		S := sinkWord(p)
		args = append(args, make([]uint64, 2+2*len(p.Project)+1)...)
		args[S+1] = uint64(ntiles)
		if p.Filter == nil { // every row passes: rg_write alone (writeEveryRow)
			total = n
			grid = d.gridFor(int64(n), blockThreads)
		} else {
			total, args[S], err = d.countPassing(tmp, n, ntiles, func(counts, mask uint64) error {
				args[S], args[len(args)-1] = counts, mask
				return d.timedLaunch(mod, "rg_count", grid, blockThreads, 0, args)
			})
			if err != nil {
				return nil, err
			}
		}
		if out, err = d.projectOutputs(p, cols, st, total, "pipeline"); err != nil {
			return nil, err
		}
		for j, c := range out {
			args[S+2+2*j], args[S+3+2*j] = c.data, c.valid
		}
		if total > 0 {
			if err := d.timedLaunch(mod, "rg_write", grid, blockThreads, 0, args); err != nil {
				return out, err
			}
		}
		if check {
			if _, err := d.checkStatus(); err != nil {
				return out, err
			}
		}
		return out, nil
	}
	out, err = d.projectOutputs(p, cols, st, 0, "pipeline")
	return out, err
}

// projectOutputs allocates the output columns of p's projections over
// cols, total rows each (what names them in errors); none on error.
func (d *Device) projectOutputs(p *gpu.Pipeline, cols []*column, st *strTables, total int, what string) ([]*column, error) {
	var out []*column
	for k, e := range p.Project {
		c, err := d.newExprOutput(e, total, cols, st, fmt.Sprintf("%s output #%d (%d rows)", what, k, total))
		if err != nil {
			for _, c := range out {
				d.freeColumn(c)
			}
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}
