package cuda

import (
	"context"
	"fmt"
	"math"

	"github.com/rigel-db/rigel/gpu"
)

var _ gpu.ProbeRunner = (*Device)(nil)

// maxArgWords is the size of prelude.cuh's Args block.
const maxArgWords = 256

// RunProbe runs a pipeline over the inner join of probe and build (see
// gpu.ProbeRunner) without materializing the join: join.cu builds the hash
// table over build and finds each probe row's first match, then generated
// kernels (codegen_probe.go) walk each probe row's matches and evaluate the
// filter and projections over both sides' columns directly, writing the
// passing pairs' outputs at their exact places.
//
// A SinkAggregate pipeline runs as Run's aggregate kernels with the pair
// loop around their per-row body: nothing per pair is written to memory
// but the aggregate table's updates.
func (d *Device) RunProbe(ctx context.Context, p *gpu.Pipeline, probe, build []gpu.Column, probeKeys, buildKeys []int, nullsEqual []bool) ([]gpu.Column, error) {
	scan := scanPipeline(p)
	if scan.rowFuncs { // rowstrings.go
		return splitRowStrings(ctx, d, p, func(pairs *gpu.Pipeline) ([]gpu.Column, error) {
			return d.RunProbe(ctx, pairs, probe, build, probeKeys, buildKeys, nullsEqual)
		})
	}
	var out []*column
	err := d.probeCall(ctx, "run probe", gpu.KernelCall{Kind: gpu.CallProbe, Pipe: p}, probe, build, probeKeys, buildKeys, nullsEqual,
		func() error { return gpu.CheckProbeShape(p, probe, build, probeKeys, buildKeys, nullsEqual) },
		func(j *probeJoin) (err error) {
			p, err := mixDictionaries(p, j.cols, scan.dictMixes) // dictorder.go
			if err != nil {
				return err
			}
			switch p.Sink {
			case gpu.SinkMaterialize:
				out, err = d.probeMaterialize(ctx, p, j)
			case gpu.SinkAggregate:
				out, err = d.probeAggregate(ctx, p, j)
			default:
				err = fmt.Errorf("sink %d: %w", p.Sink, gpu.ErrUnsupported)
			}
			return err
		})
	if err != nil {
		return nil, err
	}
	return asColumns(out), nil
}

// probeCall is what RunProbe, RunProbeLeft and ProbeCounts do around
// their kernels: the context, check (the call's shape), then under d.mu
// the open device, the join set up (probeSetup) for body and released
// after it; errors past check name what and p.
func (d *Device) probeCall(ctx context.Context, what string, call gpu.KernelCall, probe, build []gpu.Column, probeKeys, buildKeys []int, nullsEqual []bool, check func() error, body func(j *probeJoin) error) error {
	p := call.Pipe
	if err := gpu.CtxErr(ctx); err != nil {
		return err
	}
	if err := check(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.watch(ctx)()
	if d.closed {
		return fmt.Errorf("%s: CUDA device is closed", what)
	}
	if d.deferFused(ctx, call, probe, build) {
		return fmt.Errorf("%s %s: its kernel is not compiled yet: %w", what, p, gpu.ErrUnsupported)
	}
	j, err := d.probeSetup(p, probe, build, probeKeys, buildKeys, nullsEqual)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, p, err)
	}
	defer j.release()
	if err := body(j); err != nil {
		return fmt.Errorf("%s %s: %w", what, p, err)
	}
	return nil
}

// asColumns hands out the device's columns as gpu.Columns.
func asColumns(out []*column) []gpu.Column {
	res := make([]gpu.Column, len(out))
	for i, c := range out {
		res[i] = c
	}
	return res
}

// probeSetup checks a RunProbe, RunProbeLeft or ProbeCounts call's columns against p and
// each other and gathers them. Callers hold d.mu.
func (d *Device) probeSetup(p *gpu.Pipeline, probe, build []gpu.Column, probeKeys, buildKeys []int, nullsEqual []bool) (*probeJoin, error) {
	pc, err := d.sameLength(probe, "probe column", pipelineAccepts())
	if err != nil {
		return nil, err
	}
	bc, err := d.sameLength(build, "build column", pipelineAccepts())
	if err != nil {
		return nil, err
	}
	cols := append(append([]*column(nil), pc...), bc...)
	for i, c := range cols {
		want := p.Inputs[i]
		if c.t.Kind != want.Kind || c.t.Precision != want.Precision || c.t.Scale != want.Scale {
			return nil, fmt.Errorf("input %d is %s, pipeline expects %s", i, c.t, want)
		}
		if c.t.Nullable && !want.Nullable {
			return nil, fmt.Errorf("input %d holds nulls, pipeline expects %s", i, want)
		}
	}
	bk := make([]gpu.Column, len(buildKeys))
	pk := make([]gpu.Column, len(probeKeys))
	for i := range buildKeys {
		bk[i], pk[i] = build[buildKeys[i]], probe[probeKeys[i]]
	}
	bkc, pkc, release, err := d.joinKeys(bk, pk, nullsEqual)
	if err != nil {
		return nil, err
	}
	np, nb := pc[0].n, bc[0].n
	if nb > math.MaxInt32 || np > math.MaxInt32 {
		release()
		return nil, fmt.Errorf("%d build and %d probe rows: row indexes are int32: %w", nb, np, gpu.ErrUnsupported)
	}
	return &probeJoin{cols: cols, nprobe: len(pc), np: np, nb: nb, bkc: bkc, pkc: pkc, nullsEqual: nullsEqual, release: release, packed: packedOf(cols)}, nil
}

// probeJoin is a checked RunProbe call: the input columns (probe's then
// build's), the probe side's column count and both sides' rows, the key
// columns.
type probeJoin struct {
	cols       []*column
	nprobe     int
	np, nb     int
	bkc, pkc   []*column
	nullsEqual []bool
	release    func() // frees the key columns joinKeys made
	// packed are cols' packed inputs (packedInputs), which the probe
	// kernels' sources are specialised to.
	packed packedInputs
}

// probeStrTables checks that a probe kernel's Args fit (words in all) and
// makes the string tables of p over the join's columns.
func probeStrTables(p *gpu.Pipeline, j *probeJoin, words int) (*strTables, error) {
	if words > maxArgWords {
		return nil, fmt.Errorf("%d kernel argument words (at most %d): %w", words, maxArgWords, gpu.ErrUnsupported)
	}
	st, err := buildStrTables(p, j.cols)
	if err != nil {
		return nil, err
	}
	if err := st.checkDictMixing(p, j.cols); err != nil {
		return nil, err
	}
	return st, nil
}

// probeArgs is the head of a probe kernel's Args, up to sinkWord: n, the
// status word, the join's columns and the string tables, uploaded into a
// pool block that the caller puts back (when not 0) after the kernels.
// capacity reserves room for the words the caller appends.
func (d *Device) probeArgs(p *gpu.Pipeline, j *probeJoin, st *strTables, n uint64, capacity int) (args []uint64, block uint64, err error) {
	args = make([]uint64, sinkWord(p), capacity)
	args[0], args[1] = n, d.status
	for i, c := range j.cols {
		w := inputWord(i)
		args[w], args[w+1], args[w+2] = inputArgs(c)
	}
	block, err = d.uploadStrTables(p, st, args)
	return args, block, err
}

// probeTable builds the join's hash table and looks every probe row up
// (joinTable), with buffers from tmp: the join module, its Args and the
// number of tiles. With find, rg_probe_find looks the rows up, testing its
// filter first.
func (d *Device) probeTable(ctx context.Context, j *probeJoin, tmp *temps, find *probeFinder) (jmod *module, jargs []uint64, ntiles int64, err error) {
	if jmod, err = d.joinModule(); err != nil {
		return nil, nil, 0, err
	}
	jargs = d.joinArgs(j.bkc, j.pkc, j.nullsEqual)
	var lookup func([]uint64, int64) error
	if find != nil {
		lookup = func(jargs []uint64, ntiles int64) error { return find.launch(d, tmp, jargs, ntiles) }
	}
	ntiles, err = d.joinTable(ctx, jmod, jargs, j.nb, j.np, tmp, lookup)
	return jmod, jargs, ntiles, err
}

// probeFinder is a pipeline's rg_probe_find (codegen_probe_find.go),
// ready to run once the table is built: its module and its Args up to the
// join's words.
type probeFinder struct {
	mod           *module
	args          []uint64
	tsel, mcounts uint64 // each tile's list of matched rows and its length, once launched
}

// probeFilters splits p's filter for a probe run over j: when some of it
// reads only the probe side and cannot raise, that part becomes an
// rg_probe_find (returned with the pool block of its string tables, to put
// back after the kernels when not 0) and the pipeline the pairs are given
// to keeps the rest of the filter. Else p is returned as it is.
func (d *Device) probeFilters(p *gpu.Pipeline, j *probeJoin) (pairs *gpu.Pipeline, find *probeFinder, block uint64, err error) {
	pairs, pf := probeSplit(p, j.nprobe)
	if pf == nil {
		return p, nil, 0, nil
	}
	src, err := d.memoEntry(srcKey{p: p, kind: "probe find", extra: fmt.Sprint(j.nprobe), packed: j.packed.key()}, func() (string, error) { return probeFindSource(pf, j.packed, j.nprobe) })
	if err != nil {
		return nil, nil, 0, err
	}
	S := sinkWord(pf)
	words := S + pfKeys + jkWords*len(j.bkc)
	st, err := probeStrTables(pf, j, words)
	if err != nil {
		return nil, nil, 0, err
	}
	mod, err := d.entryModule(src, "rigel_probe_find.cu")
	if err != nil {
		return nil, nil, 0, err
	}
	args, block, err := d.probeArgs(pf, j, st, uint64(j.np), words)
	if err != nil {
		return nil, nil, 0, err
	}
	return pairs, &probeFinder{mod: mod, args: args}, block, nil
}

// probeSplit splits p's filter for a probe run with np probe columns
// (probeFilters): find is the rg_probe_find pipeline of the part that
// reads only the probe side and cannot raise, pairs p with the rest of the
// filter; without such a part, p itself and no find.
func probeSplit(p *gpu.Pipeline, np int) (pairs, find *gpu.Pipeline) {
	pre, rest := splitProbeFilter(p.Filter, np)
	if pre == nil {
		return p, nil
	}
	r := *p
	r.Filter = rest
	return &r, probeFindPipeline(p, pre)
}

// launch runs rg_probe_find over the table in jargs, in place of
// rg_join_count: it writes each tile's matched rows to a buffer from tmp
// and their representatives to the join's rep.
func (f *probeFinder) launch(d *Device, tmp *temps, jargs []uint64, ntiles int64) error {
	mcounts, err := tmp.get(ntiles*8, "matched rows per tile")
	if err != nil {
		return err
	}
	tsel, err := tmp.get(int64(jargs[jaN])*4, "matched rows by tile")
	if err != nil {
		return err
	}
	f.tsel, f.mcounts = tsel, mcounts
	a := append(f.args[:len(f.args):len(f.args)], jargs[jaRep], jargs[jaClen], jargs[jaCounts], uint64(ntiles),
		jargs[jaMulti], jargs[jaSlots], jargs[jaMask], jargs[jaFast], jargs[jaNKeys], mcounts, tsel)
	a = append(a, jargs[jaKeys:]...)
	return d.timedLaunch(f.mod, "rg_probe_find", d.gridFor(ntiles, 1), joinThreads, 0, a)
}

// selection joins, after launch, the tiles' lists of matched probe rows
// into one, in probe row order (rg_jn_select): the rows, their
// representatives and how many there are, in buffers from tmp (none when
// there are none).
func (f *probeFinder) selection(d *Device, jmod *module, jargs []uint64, ntiles int64, tmp *temps) (sel, srep uint64, n int, err error) {
	offsets, err := f.offsets(ntiles, tmp)
	if err != nil {
		return 0, 0, 0, err
	}
	if n, err = d.scanTiles(jmod, f.mcounts, offsets, ntiles); err != nil {
		return 0, 0, 0, err
	}
	sel, srep, err = f.selectScanned(d, jmod, jargs, ntiles, offsets, n, tmp)
	return sel, srep, n, err
}

// offsets is a temp for the scan of the tiles' matched row counts.
func (f *probeFinder) offsets(ntiles int64, tmp *temps) (uint64, error) {
	return tmp.get((ntiles+1)*8, "matched row offsets")
}

// selectScanned is selection once the matched row counts are scanned into
// offsets (n rows in all).
func (f *probeFinder) selectScanned(d *Device, jmod *module, jargs []uint64, ntiles int64, offsets uint64, n int, tmp *temps) (sel, srep uint64, err error) {
	if n == 0 {
		return 0, 0, nil
	}
	if sel, err = tmp.get(int64(n)*4, "matched probe rows"); err != nil {
		return 0, 0, err
	}
	if srep, err = tmp.get(int64(n)*4, "their representatives"); err != nil {
		return 0, 0, err
	}
	err = d.timedLaunch(jmod, "rg_jn_select", d.gridFor(ntiles, 1), joinThreads, 0,
		[]uint64{uint64(ntiles), 0, f.tsel, jargs[jaRep], offsets, f.mcounts, sel, srep})
	return sel, srep, err
}

// walkArgs are the words from sinkWord of codegen_probe.go's kernels,
// pbRep to pbSel: the representatives of the rows walked (the lookup's, or
// a selection's with sel), the join's chains, tiles and flag, and pcnt.
func walkArgs(jargs []uint64, rep uint64, ntiles int64, pcnt, sel uint64) []uint64 {
	return []uint64{rep, jargs[jaNext], jargs[jaClen], jargs[jaCounts], uint64(ntiles), pcnt, jargs[jaMulti], sel}
}

// probeMaterialize runs a SinkMaterialize pipeline over the join's pairs.
func (d *Device) probeMaterialize(ctx context.Context, p *gpu.Pipeline, j *probeJoin) (out []*column, err error) {
	orig := p
	p, find, fblock, err := d.probeFilters(p, j)
	if err != nil {
		return nil, err
	}
	if fblock != 0 {
		defer d.pool.put(fblock) // stream order, as below
	}
	src, err := d.memoEntry(srcKey{p: orig, kind: "probe", extra: fmt.Sprint(j.nprobe), packed: j.packed.key()}, func() (string, error) { return probeSource(p, j.packed, j.nprobe) })
	if err != nil {
		return nil, err
	}
	S := sinkWord(p)
	st, mod, err := d.probeModule(p, j, src, "rigel_probe.cu")
	if err != nil {
		return nil, err
	}
	defer d.freeOnError(&out, &err)
	newOut := func(total int) (err error) {
		out, err = d.projectOutputs(p, j.cols, st, total, "probe pipeline")
		return err
	}
	if j.np == 0 || j.nb == 0 {
		err = newOut(0)
		return out, err
	}

	args, block, err := d.probeArgs(p, j, st, uint64(j.np), S+pbOut+2*len(p.Project))
	if err != nil {
		return nil, err
	}
	if block != 0 {
		defer d.pool.put(block) // stream order: later users wait for the kernels
	}
	tmp := &temps{d: d}
	defer tmp.release()
	if err := d.resetStatus(); err != nil {
		return nil, err
	}
	jmod, jargs, ntiles, err := d.probeTable(ctx, j, tmp, find)
	if err != nil {
		return nil, err
	}
	// The kernels walk every probe row, or rg_probe_find's matched ones.
	n, rep, sel := j.np, jargs[jaRep], uint64(0)
	if find != nil {
		if sel, rep, n, err = find.selection(d, jmod, jargs, ntiles, tmp); err != nil {
			return nil, err
		}
		if n == 0 {
			return out, newOut(0)
		}
		ntiles = (int64(n) + joinTile - 1) / joinTile
	}
	args[0] = uint64(n)
	args = append(args, walkArgs(jargs, rep, ntiles, 0, sel)...)
	grid := d.gridFor(ntiles, 1)
	if p.Filter != nil || sel != 0 {
		// rg_probe_count replaces the lookup's tile counts (every pair,
		// per tile of probe rows) with those of the passing pairs, per
		// tile of the rows walked.
		pcnt, err := tmp.get(int64(n)*4, "probe row pair counts")
		if err != nil {
			return nil, err
		}
		args[S+pbPcnt] = pcnt
		if err := d.timedLaunch(mod, "rg_probe_count", grid, joinThreads, 0, args); err != nil {
			return nil, err
		}
	}
	// The join's own kernels and rg_probe_find (gpu.CannotRaise) raise no
	// status flag: only the pipeline's may.
	err = d.probeWrite(ctx, mod, jmod, jargs, args, ntiles, S, src.raises, newOut, &out)
	return out, err
}

// probeWrite is the end that probeMaterialize and probeLeft share, once
// rg_probe_count has counted each tile's rows: the scan of the counts, the
// outputs (newOut, into *out), rg_probe_write, and the status word when
// the kernels may raise a flag.
func (d *Device) probeWrite(ctx context.Context, mod, jmod *module, jargs, args []uint64, ntiles int64, S int, raises bool, newOut func(int) error, out *[]*column) error {
	total, err := d.scanTiles(jmod, jargs[jaCounts], jargs[jaOffsets], ntiles)
	if err != nil {
		return err
	}
	if err := gpu.CtxErr(ctx); err != nil {
		return err
	}
	if err := newOut(total); err != nil {
		return err
	}
	if total > 0 {
		args[S+pbCounts] = jargs[jaOffsets]
		for _, c := range *out {
			args = append(args, c.data, c.valid)
		}
		if err := d.timedLaunch(mod, "rg_probe_write", d.gridFor(ntiles, 1), joinThreads, 0, args); err != nil {
			return err
		}
	}
	if raises {
		if _, err := d.checkStatus(); err != nil {
			return err
		}
	}
	return nil
}

// probeModule is what probeMaterialize and probeLeft do before their
// kernels: p's string tables over j's columns (with room in the Args for
// the output words), the check that every dict projection reads a dict
// column, and src's module (file names it).
func (d *Device) probeModule(p *gpu.Pipeline, j *probeJoin, src *srcEntry, file string) (*strTables, *module, error) {
	st, err := probeStrTables(p, j, sinkWord(p)+pbOut+2*len(p.Project))
	if err != nil {
		return nil, nil, err
	}
	if err := st.checkDictProjections(p, j.cols); err != nil {
		return nil, nil, err
	}
	mod, err := d.entryModule(src, file)
	return st, mod, err
}

// planProbeAggregate is planAggregate for a probe run with np probe
// columns.
func planProbeAggregate(p *gpu.Pipeline, dictLen []int, np int) (*aggPlan, error) {
	ap, err := planAggregate(p, dictLen)
	if err != nil {
		return nil, err
	}
	ap.probe = np
	return ap, nil
}

// probeAggregate runs a SinkAggregate pipeline over the join's pairs: the
// aggregate kernels of Run with their row loop turned into a loop over each
// probe row's chain of build rows (codegen_probe_agg.go). The pair count
// (the scan of rg_join_count's tile counts) bounds the groups, as the row
// count does for Run: it sizes the hash strategy's table. A filter part
// that rg_probe_find tests before the lookup is not tested again per pair.
func (d *Device) probeAggregate(ctx context.Context, p *gpu.Pipeline, j *probeJoin) ([]*column, error) {
	orig := p
	p, find, fblock, err := d.probeFilters(p, j)
	if err != nil {
		return nil, err
	}
	if fblock != 0 {
		defer d.pool.put(fblock) // stream order: later users wait for the kernels
	}
	dictLen := dictLens(j.cols)
	ap, err := planProbeAggregate(p, dictLen, j.nprobe)
	if err != nil {
		return nil, err
	}
	S := sinkWord(p)
	st, err := probeStrTables(p, j, S+probeSelWord+1)
	if err != nil {
		return nil, err
	}
	ap.strs, ap.packed = st, j.packed
	for _, k := range p.Keys {
		if e := p.Project[k]; e.Type.Kind == gpu.Dict && st.dictOf(e, j.cols) == nil {
			return nil, fmt.Errorf("dict group key %s reads no dict column: %w", e, gpu.ErrUnsupported)
		}
	}
	src, err := d.memoEntry(srcKey{p: orig, kind: "probe aggregate", extra: fmt.Sprint(dictLen, j.nprobe), packed: j.packed.key()}, func() (string, error) { return aggregateSource(ap) })
	if err != nil {
		return nil, err
	}
	mod, err := d.entryModule(src, "rigel_probe_aggregate.cu")
	if err != nil {
		return nil, err
	}
	args, block, err := d.probeArgs(p, j, st, 0, S)
	if err != nil {
		return nil, err
	}
	if block != 0 {
		defer d.pool.put(block) // stream order: later users wait for the kernels
	}
	tmp := &temps{d: d}
	defer tmp.release()
	// With no pair the kernels aggregate no rows (an aggregate without
	// keys still gives its one row).
	n, pairs := 0, 0
	ap.probeArgs = []uint64{0, 0, 0, 0}
	if j.np > 0 && j.nb > 0 {
		jmod, jargs, ntiles, err := d.probeTable(ctx, j, tmp, find)
		if err != nil {
			return nil, err
		}
		// Every probe row, or rg_probe_find's matched ones: their count
		// is scanned beside the pairs'.
		rep, sel, moffsets := jargs[jaRep], uint64(0), uint64(0)
		n = j.np
		if find == nil {
			pairs, err = d.scanTiles(jmod, jargs[jaCounts], jargs[jaOffsets], ntiles)
		} else if moffsets, err = find.offsets(ntiles, tmp); err == nil {
			pairs, n, err = d.scanTilesTwo(jmod, jargs[jaCounts], jargs[jaOffsets], find.mcounts, moffsets, ntiles)
		}
		if err != nil {
			return nil, err
		}
		if pairs > 0 {
			if find != nil {
				if sel, rep, err = find.selectScanned(d, jmod, jargs, ntiles, moffsets, n, tmp); err != nil {
					return nil, err
				}
			}
			ap.probeArgs = []uint64{rep, jargs[jaNext], jargs[jaMulti], sel}
		} else {
			n = 0
		}
	}
	args[0] = uint64(n)
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	// As runAggregate, with the pairs in place of the rows.
	return d.aggregateGrowing(ap, mod, j.cols, args, n, pairs)
}
