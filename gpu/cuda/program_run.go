package cuda

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/rigel-db/rigel/gpu"
)

// programMode says when a pipeline runs on the interpreter (program.go):
//   - programAuto (the default): when its generated kernel is not ready
//     (not loaded, not compiled, not in the disk cache); the kernel then
//     compiles in the background and later runs take it.
//   - programAlways: whenever the interpreter runs it (its generated
//     kernel is never compiled): the battery and the benchmark of the
//     precompiled path alone.
//   - programOff: never (every pipeline waits for its kernel, as before).
type programMode uint8

const (
	programAuto programMode = iota
	programAlways
	programOff
)

// RIGEL_PROGRAM=always|off|auto.
func programModeFromEnv() programMode {
	switch os.Getenv("RIGEL_PROGRAM") {
	case "always":
		return programAlways
	case "off", "0":
		return programOff
	}
	return programAuto
}

var defaultProgramMode = programModeFromEnv()

// fusedReady reports whether a generated kernel's module can be had
// without waiting for a compile (loaded, finished in the background, or
// in the disk cache): if not, a pipeline the interpreter runs takes the
// interpreter instead of waiting. In programAlways mode it never
// is; in programOff mode it always is (the caller waits, as before).
// Callers hold d.mu.
func (d *Device) fusedReady(e *srcEntry) bool {
	switch {
	case d.programMode == programOff || e.mod != nil:
		return true
	case d.programMode == programAlways:
		return false
	}
	return d.compiled(e.src)
}

// compileLater starts the background compile of a generated kernel that
// a run did not wait for (full level: nothing waits for it), for the
// runs after it; none in programAlways mode. Callers hold d.mu.
func (d *Device) compileLater(e *srcEntry, file string) {
	if d.programMode != programAlways {
		d.compileAhead(context.Background(), []kernelFile{{file, e.src}}, levelFull)
	}
}

// launchRefused reports whether err is the driver refusing to launch one
// of the interpreter's kernels for its shape (shared memory, resources):
// nothing ran that the pipeline's own kernel cannot redo, so the caller
// runs that instead, waiting for its compile, rather than failing the
// query. Said in the trace (RIGEL_TRACE=1).
func (d *Device) launchRefused(err error) bool {
	var ce *cuError
	if !errors.As(err, &ce) || !strings.HasPrefix(ce.what, "cuLaunchKernel pg_") {
		return false
	}
	if ce.name != "CUDA_ERROR_INVALID_VALUE" && ce.name != "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" {
		return false
	}
	if traceKernels {
		fmt.Fprintf(os.Stderr, "rigel trace: the interpreter's launch was refused (%v): the pipeline's own kernel runs\n", err)
	}
	return true
}

// programModule is the interpreter's module (built in, prebuilt.go, or
// compiled from Open on).
func (d *Device) programModule() (*module, error) { return d.loaded(&d.program, programFile) }

// onProgram counts a pipeline that runs on the interpreter, and says so
// in the trace (RIGEL_TRACE=1).
func (d *Device) onProgram(what string, p *gpu.Pipeline) {
	d.st.programRuns.Add(1)
	if traceKernels {
		fmt.Fprintf(os.Stderr, "rigel trace: %s %s runs on the precompiled interpreter (its own kernel compiles in the background)\n", what, p)
	}
}

// uploadProgram copies a program block to the device; the caller puts it
// back in the pool (stream order: after the kernels that read it).
func (d *Device) uploadProgram(b []byte) (uint64, error) {
	blk, err := d.pool.get(int64(len(b)), "program")
	if err != nil {
		return 0, err
	}
	if err := d.copyIn(blk, b, "program"); err != nil {
		d.pool.put(blk)
		return 0, err
	}
	return blk, nil
}

// strPointers are the string tables' device pointers that Run put in its
// Args (uploadStrTables), in strNodes order.
func strPointers(p *gpu.Pipeline, args []uint64) []uint64 {
	base := inputWord(len(p.Inputs))
	return append([]uint64(nil), args[base:base+len(strNodes(p))]...)
}

// runMaterializeProgram is runMaterialize on the interpreter: the same
// tiles, pass mask and output order.
func (d *Device) runMaterializeProgram(pr *program, cols []*column, args []uint64, n int, st *strTables) (out []*column, err error) {
	p := pr.p
	mod, err := d.programModule()
	if err != nil {
		return nil, err
	}
	if err := st.checkDictProjections(p, cols); err != nil {
		return nil, err
	}
	tmp := &temps{d: d}
	defer tmp.release()
	defer d.freeOnError(&out, &err)
	if n == 0 {
		return d.projectOutputs(p, cols, st, 0, "pipeline")
	}
	blk, err := d.uploadProgram(pr.block(n, d.status, cols, strPointers(p, args), nil))
	if err != nil {
		return nil, err
	}
	defer d.pool.put(blk)
	if err := d.resetStatus(); err != nil {
		return nil, err
	}
	ntiles := (n + tileRows - 1) / tileRows
	a := []uint64{blk, 0, uint64(ntiles), 0, 0}
	total := n
	if p.Filter != nil {
		total, a[1], err = d.countPassing(tmp, n, ntiles, func(counts, mask uint64) error {
			a[1], a[3] = counts, mask
			return d.timedLaunch(mod, "pg_count", d.gridFor(int64(ntiles), 1), blockThreads, regBytes(pr.regs, blockThreads), a)
		})
		if err != nil {
			return nil, err
		}
	}
	if out, err = d.projectOutputs(p, cols, st, total, "pipeline"); err != nil {
		return nil, err
	}
	if total > 0 && len(out) > 0 {
		if a[4], err = d.outputWords(tmp, out, "program outputs"); err != nil {
			return out, err
		}
		if p.Filter != nil {
			err = d.timedLaunch(mod, "pg_write", d.gridFor(int64(ntiles), 1), blockThreads, regBytes(pr.regs, blockThreads), a)
		} else {
			err = d.timedLaunch(mod, "pg_write_all", d.gridFor(int64(n), blockThreads), blockThreads, regBytes(pr.regs, blockThreads), a)
		}
		if err != nil {
			return out, err
		}
	}
	if _, err := d.checkStatus(); err != nil {
		return out, err
	}
	return out, nil
}

// outputWords uploads the data and validity words of each output column
// (two a column), which the interpreter's writing kernels read their
// destinations from; tmp releases the block.
func (d *Device) outputWords(tmp *temps, out []*column, what string) (uint64, error) {
	b := make([]byte, 16*len(out))
	for j, c := range out {
		binary.LittleEndian.PutUint64(b[16*j:], c.data)
		binary.LittleEndian.PutUint64(b[16*j+8:], c.valid)
	}
	blk, err := tmp.get(int64(len(b)), what)
	if err != nil {
		return 0, err
	}
	return blk, d.copyIn(blk, b, what)
}

// programKeyWords is the words of a group key program.cu's pg_agg_hash
// holds (its key array); wider keys run in generated kernels alone.
const programKeyWords = 8

// programAgg is an aggregate's part of the program block: program.cu's
// aggregate, key and output words and the table's shape (planAggregate's
// layout, which finalize and the hash emit read).
type programAgg struct {
	hash                      bool
	aggs, keys, outs          []uint64
	slotWords, pslots, groups int
	keyWords, nullWord        int
	regs                      int // the program's registers (regBytes)
}

// programAggregate describes ap's aggregate for pg_agg_domain or
// pg_agg_hash.
func programAggregate(ap *aggPlan, pr *program) (*programAgg, error) {
	if ap.probe > 0 {
		return nil, fmt.Errorf("an aggregate over a join's pairs: %w", errNoProgram)
	}
	if ap.keyWords > programKeyWords {
		return nil, fmt.Errorf("group keys of %d words (the interpreter holds %d): %w", ap.keyWords, programKeyWords, errNoProgram)
	}
	for _, a := range ap.p.Aggs {
		if a.Kind != gpu.AggCountStar && ap.p.Project[a.Arg].Type.Kind == gpu.Str {
			return nil, fmt.Errorf("%s of a str value: %w", a.Kind, errNoProgram)
		}
	}
	pa := &programAgg{hash: ap.strat == stratHash, slotWords: ap.slotWords, groups: ap.groups, pslots: 1,
		keyWords: ap.keyWords, nullWord: ap.nullWord, regs: pr.regs}
	for _, l := range ap.aggs {
		w := uint64(l.a.Kind) | uint64(l.arg.Kind)<<8
		if l.a.Kind != gpu.AggCountStar {
			if l.arg.Nullable {
				w |= 1 << 16
			}
			w |= uint64(pr.projReg[l.a.Arg]) << 24
		}
		if l.val >= 0 {
			w |= uint64(l.val) << 40
		}
		nn := uint64(0xff)
		if l.nn >= 0 {
			nn = uint64(l.nn)
		}
		w |= nn << 48
		w |= uint64(pa.pslots) << 56
		switch {
		case l.a.Kind == gpu.AggCountStar:
		case l.a.Kind == gpu.AggCount:
			if l.arg.Nullable {
				pa.pslots++
			}
		default:
			if l.arg.Nullable {
				pa.pslots++
			}
			pa.pslots++
			if l.minMax && l.arg.Kind == gpu.Decimal128 {
				pa.pslots++
			}
		}
		if pa.pslots > 0xff || l.val > 0xff || l.nn > 0xfe {
			return nil, fmt.Errorf("an aggregate table of %d words: %w", ap.slotWords, errNoProgram)
		}
		pa.aggs = append(pa.aggs, w)
	}
	for ki, k := range ap.p.Keys {
		t := ap.p.Project[k].Type
		r := uint64(pr.projReg[k])
		if !pa.hash {
			w := r | uint64(ap.domains[ki])<<16 | uint64(ap.strides[ki])<<32
			if t.Nullable {
				w |= 1 << 63
			}
			pa.keys = append(pa.keys, w)
			continue
		}
		nb := uint64(0xff)
		if ap.nullBit[ki] >= 0 {
			nb = uint64(ap.nullBit[ki])
		}
		w := r | uint64(t.Kind)<<16 | uint64(ap.keyWord[ki])<<24 | nb<<32
		if t.Kind == gpu.Str { // planAggregate: a str key is an input column
			w |= uint64(ap.p.Project[k].Col) << 40
		}
		pa.keys = append(pa.keys, w)
	}
	for _, t := range ap.p.OutputTypes() {
		w := uint64(t.Kind)
		if t.Nullable {
			w |= 1 << 8
		}
		pa.outs = append(pa.outs, w)
	}
	return pa, nil
}

// threads is the aggregate kernel's block size: pg_agg_hash's, or for
// pg_agg_domain the largest warp multiple up to 256 whose partials and
// registers fit 48 KiB of shared memory (0 when not even a warp's do).
func (pa *programAgg) threads() int {
	if pa.hash {
		return blockThreads
	}
	return min(blockThreads, (sharedAggBytes/max(pa.perThread(), 1))/32*32)
}

// perThread is the shared memory a thread of pg_agg_domain takes: its
// partials, then its registers.
func (pa *programAgg) perThread() int { return pa.groups*pa.pslots*8 + regBytes(pa.regs, 1) }

// regBytes is the shared memory of a block's registers (program.cu's
// pg_regs: an i128 a register and thread).
func regBytes(regs, threads int) int { return regs * 16 * threads }

// programFits reports whether this device gives the interpreter's kernels
// the shared memory pr's registers take (its opt-in limit: 227 KiB on an
// H100, 163 on an A100, 99 on others); where not, the pipeline waits for
// its generated kernel.
func (d *Device) programFits(pr *program) bool {
	return regBytes(pr.regs, blockThreads)+staticSharedSlack <= d.maxShared
}

// runAggregateProgram is an aggregate on the interpreter: the generated
// kernels' table, finalized the same way (on the host for the domain
// strategy, by the emit kernels for the hash strategy, whose table grows
// as aggregateGrowing's does).
func (d *Device) runAggregateProgram(ap *aggPlan, pr *program, pa *programAgg, cols []*column, args []uint64, n int) ([]*column, error) {
	mod, err := d.programModule()
	if err != nil {
		return nil, err
	}
	blk, err := d.uploadProgram(pr.block(n, d.status, cols, strPointers(ap.p, args), pa))
	if err != nil {
		return nil, err
	}
	defer d.pool.put(blk)
	if !pa.hash {
		return d.domainProgram(ap, pa, mod, blk, cols, n)
	}
	capacity := firstCapacity(ap.p, n)
	for {
		out, fill, err := d.hashProgram(ap, pa, mod, blk, cols, n, capacity)
		if err != nil || fill == nil {
			return out, err
		}
		next := grownCapacity(capacity, n, fill)
		if next <= capacity {
			return nil, fmt.Errorf("aggregate table of %d slots reported full for %d rows", capacity, n)
		}
		capacity = next
	}
}

func (d *Device) domainProgram(ap *aggPlan, pa *programAgg, mod *module, blk uint64, cols []*column, n int) ([]*column, error) {
	tmp := &temps{d: d}
	defer tmp.release()
	tableBytes := int64(ap.groups) * int64(ap.slotWords) * 8
	table, err := tmp.get(tableBytes, fmt.Sprintf("aggregate table (%d slots)", ap.groups))
	if err != nil {
		return nil, err
	}
	if err := d.resetStatus(); err != nil {
		return nil, err
	}
	a := []uint64{blk, table, uint64(ap.groups), 0}
	if err := d.timedLaunch(mod, "pg_agg_init", d.gridFor(int64(ap.groups), blockThreads), blockThreads, 0, a); err != nil {
		return nil, err
	}
	if n > 0 {
		threads := pa.threads()
		shmem := pa.perThread() * threads
		if err := d.timedLaunch(mod, "pg_agg_domain", d.gridFor(int64(n), threads), threads, shmem, a); err != nil {
			return nil, err
		}
	}
	if _, err := d.checkStatus(); err != nil {
		return nil, err
	}
	tb := make([]byte, tableBytes)
	if err := d.copyOut(tb, table, "aggregate table"); err != nil {
		return nil, err
	}
	hosts, err := finalize(ap, cols, tb)
	if err != nil {
		return nil, err
	}
	return d.placeBatch(hosts)
}

// hashProgram runs the hash aggregate with a table of capacity slots; a
// non-nil tableFill, and no columns, when the table filled up first.
func (d *Device) hashProgram(ap *aggPlan, pa *programAgg, mod *module, blk uint64, cols []*column, n, capacity int) (out []*column, _ *tableFill, err error) {
	tmp := &temps{d: d}
	defer tmp.release()
	defer d.freeOnError(&out, &err)
	table, err := tmp.get(int64(capacity)*int64(ap.slotWords)*8, fmt.Sprintf("aggregate table (%d slots)", capacity))
	if err != nil {
		return nil, nil, err
	}
	states, err := tmp.get(int64(capacity)*4, "aggregate slot states")
	if err != nil {
		return nil, nil, err
	}
	keys, err := tmp.get(int64(capacity*ap.keyWords)*8, "aggregate keys")
	if err != nil {
		return nil, nil, err
	}
	fill, err := tmp.get(48, "aggregate fill counter")
	if err != nil {
		return nil, nil, err
	}
	if err := d.cx.memset(fill, 0, 48, d.stream); err != nil {
		return nil, nil, err
	}
	if err := d.resetStatus(); err != nil {
		return nil, nil, err
	}
	if err := d.timedLaunch(mod, "pg_agg_init", d.gridFor(int64(capacity), blockThreads), blockThreads, 0, []uint64{blk, table, uint64(capacity), states}); err != nil {
		return nil, nil, err
	}
	if n > 0 {
		a := []uint64{blk, table, keys, states, fill, uint64(capacity), uint64(capacity) * 7 / 10}
		if err := d.timedLaunch(mod, "pg_agg_hash", d.gridFor(int64(n), blockThreads), blockThreads, regBytes(pa.regs, blockThreads), a); err != nil {
			return nil, nil, err
		}
	}
	full, err := d.checkStatus()
	if err != nil {
		return nil, nil, err
	}
	if full {
		f, err := d.readTableFill(fill)
		return nil, f, err
	}
	ntiles := (capacity + tileRows - 1) / tileRows
	counts, err := tmp.get(int64(ntiles)*4, "aggregate tile counts")
	if err != nil {
		return nil, nil, err
	}
	offsets, err := tmp.get(int64(ntiles+1)*8, "aggregate tile offsets")
	if err != nil {
		return nil, nil, err
	}
	grid := d.gridFor(int64(ntiles), 1)
	if err := d.timedLaunch(mod, "pg_agg_used", grid, blockThreads, 0, []uint64{blk, table, uint64(capacity), counts, uint64(ntiles)}); err != nil {
		return nil, nil, err
	}
	groups, err := d.scanTileCounts(counts, offsets, ntiles, "group count")
	if err != nil {
		return nil, nil, err
	}
	if out, err = d.groupOutputs(ap, cols, groups); err != nil {
		return out, nil, err
	}
	if groups > 0 {
		outs, err := d.outputWords(tmp, out, "aggregate outputs")
		if err != nil {
			return out, nil, err
		}
		if err := d.timedLaunch(mod, "pg_agg_emit", grid, blockThreads, 0, []uint64{blk, table, uint64(capacity), offsets, uint64(ntiles), keys, outs}); err != nil {
			return out, nil, err
		}
	}
	_, err = d.checkStatus()
	return out, nil, err
}

// programOf compiles p for the interpreter: its program and, for an
// aggregate (ap, its plan; nil for a materialization), the aggregate's
// description; errNoProgram where the interpreter does not run it.
func programOf(p *gpu.Pipeline, ap *aggPlan) (*program, *programAgg, error) {
	if ap == nil {
		pr, err := compileProgram(p, nil)
		return pr, nil, err
	}
	pr, err := compileProgram(p, aggProjections(p))
	if err != nil {
		return nil, nil, err
	}
	pa, err := programAggregate(ap, pr)
	if err != nil {
		return nil, nil, err
	}
	if pa.threads() < 32 {
		return nil, nil, fmt.Errorf("aggregate partials of %d words a group: %w", pa.pslots, errNoProgram)
	}
	return pr, pa, nil
}

// aggProjections marks the projections an aggregate reads: its keys and
// arguments (the generated kernel evaluates only those, aggInputs).
func aggProjections(p *gpu.Pipeline) []bool {
	use := make([]bool, len(p.Project))
	for _, k := range p.Keys {
		if k >= 0 && k < len(use) {
			use[k] = true
		}
	}
	for _, a := range p.Aggs {
		if a.Kind != gpu.AggCountStar && a.Arg >= 0 && a.Arg < len(use) {
			use[a.Arg] = true
		}
	}
	return use
}

// deferFused reports whether a fused join call gives way to the composed
// join (gpu.MayCompose) because one of its kernels is not ready; those
// then compile in the background (full level) for later runs, unless the
// mode is programAlways (the precompiled path alone). Callers hold d.mu.
func (d *Device) deferFused(ctx context.Context, call gpu.KernelCall, probe, build []gpu.Column) bool {
	if d.programMode == programOff || !gpu.Composable(ctx) {
		return false
	}
	if d.programMode == programAlways {
		d.st.deferred.Add(1)
		return true
	}
	// A call found ready once stays ready (its modules stay loaded or on
	// disk): hot runs skip generating its sources. Keyed by the pipeline's
	// pointer, which a cached plan keeps; a pointer reused by another
	// pipeline can only make that one wait for its compile, as before.
	key := readyKey{call.Pipe, call.Kind}
	if d.readyCalls[key] {
		return false
	}
	call.NProbe = len(probe)
	call.Inputs = append(append([]gpu.Column(nil), probe...), build...)
	for _, c := range call.Inputs {
		n := 0
		if cc, ok := c.(*column); ok && cc.dict != nil {
			n = cc.dict.Len()
		}
		call.DictLen = append(call.DictLen, n)
	}
	files, err := callSources(call)
	if err != nil {
		return false // the call itself reports it
	}
	var missing []kernelFile
	for _, f := range files {
		if !d.compiled(f.src) {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		if d.readyCalls == nil || len(d.readyCalls) >= 4096 {
			d.readyCalls = map[readyKey]bool{}
		}
		d.readyCalls[key] = true
		return false
	}
	d.compileAhead(context.Background(), missing, levelFull)
	d.st.deferred.Add(1)
	if traceKernels {
		fmt.Fprintf(os.Stderr, "rigel trace: %s gives way to the composed join (%d of its kernels compile in the background)\n", call.Pipe, len(missing))
	}
	return true
}

// readyKey names a fused call whose kernels were all ready.
type readyKey struct {
	p    *gpu.Pipeline
	kind gpu.CallKind
}

// compiled reports whether a generated source's module can be had
// without waiting: loaded, finished in the background, or in the disk
// cache. Callers hold d.mu.
func (d *Device) compiled(src string) bool {
	if _, ok := d.mods[src]; ok {
		return true
	}
	if _, ok := d.quick[src]; ok {
		return true
	}
	for _, m := range []map[string]*pendingCompile{d.pending, d.pendingQuick} {
		if p, ok := m[src]; ok && p.finished() && p.err == nil {
			return true
		}
	}
	_, ok, err := cachedCubin(src, d.arch, levelFull)
	return err == nil && ok
}
