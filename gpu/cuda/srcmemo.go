package cuda

import (
	"math"
	"math/big"
	"slices"

	"github.com/rigel-db/rigel/gpu"
)

// Generated sources of recently run pipelines. Generating one costs 25 to
// 170 µs of host time (more for aggregates; measured on this project's
// 2-core build machine by a benchmark over samplePipelines), paid by every
// operator of every run: 1-2 ms of a 20-operator query, most of what a
// small TPC-H query spends off the GPU (Q2 at SF10 on the H100: 4.5 ms ->
// 2.8 ms hot with the memo). A prepared statement hands the device the same
// *gpu.Pipeline values again, so they key the memo.
//
// Nothing in gpu.Device's contract forbids changing a pipeline between two
// runs (the device test battery does), so a hit is taken only when the
// pipeline still equals the deep copy made when its source was generated:
// a tree comparison of about a microsecond. extra carries every other
// input of the generator (dictionary sizes, the probe side's width).

// srcMemoEntries bounds the memo (sources are 10-40 KB each).
const srcMemoEntries = 256

type srcKey struct {
	p     *gpu.Pipeline
	kind  string
	extra string
	cond  *gpu.Expr // a left join's condition (RunProbeLeft), compared as p is
	// packed is the inputs that arrive packed (packedInputs.key), which
	// the source is specialised to.
	packed string
}

type srcEntry struct {
	snap *gpu.Pipeline // the pipeline as it was when src was generated
	cond *gpu.Expr     // and the condition
	src  string        // with its constants hoisted (constants.go)
	// consts are the words of the module's constant array for this
	// pipeline's literals.
	consts []uint64
	// Both read once: moduleFor hashes, and raisesFlags searches, the whole
	// source, a cost on every run otherwise.
	mod    *module // src's module, once loaded (entryModule)
	raises bool    // raisesFlags(src)
}

type srcMemo struct {
	src   map[srcKey]*srcEntry
	order []srcKey // oldest first
}

// entryModule returns e's loaded module (kernelModule; file names it),
// with its constant array holding e's constants for the kernels launched
// next. e keeps the module once it is the final one. Callers hold d.mu.
func (d *Device) entryModule(e *srcEntry, file string) (*module, error) {
	mod := e.mod
	if mod == nil {
		m, final, err := d.kernelModule(e.src, file)
		if err != nil {
			return nil, err
		}
		if final {
			e.mod = m
		}
		mod = m
	}
	if err := d.setConstants(mod, e.consts); err != nil {
		return nil, err
	}
	return mod, nil
}

// memoEntry returns the memo's entry for k, generating its source with gen
// on a miss. Callers hold d.mu.
func (d *Device) memoEntry(k srcKey, gen func() (string, error)) (*srcEntry, error) {
	m := &d.srcs
	e, ok := m.src[k]
	if ok && samePipeline(e.snap, k.p) && sameExpr(e.cond, k.cond) {
		return e, nil
	}
	s, err := gen()
	if err != nil {
		return nil, err
	}
	if m.src == nil {
		m.src = map[srcKey]*srcEntry{}
	}
	if !ok {
		if len(m.order) >= srcMemoEntries {
			delete(m.src, m.order[0])
			m.order = m.order[1:]
		}
		m.order = append(m.order, k)
	}
	s, consts := hoistConstants(s)
	dumpSource(k.kind, s)
	e = &srcEntry{snap: clonePipeline(k.p), cond: cloneExpr(k.cond), src: s, consts: consts, raises: raisesFlags(s)}
	m.src[k] = e
	return e, nil
}

// clonePipeline and samePipeline cover every field of gpu.Pipeline,
// gpu.Expr, gpu.Agg, gpu.Value and gpu.StrFunc (TestMemoCoversEveryField
// fails when one is added, so that it is added here too).
func clonePipeline(p *gpu.Pipeline) *gpu.Pipeline {
	if p == nil {
		return nil
	}
	c := *p
	c.Inputs = slices.Clone(p.Inputs)
	c.Filter = cloneExpr(p.Filter)
	c.Project = make([]*gpu.Expr, len(p.Project))
	for i, e := range p.Project {
		c.Project[i] = cloneExpr(e)
	}
	c.Keys = slices.Clone(p.Keys)
	c.Aggs = slices.Clone(p.Aggs)
	return &c
}

func cloneExpr(e *gpu.Expr) *gpu.Expr {
	if e == nil {
		return nil
	}
	c := *e
	if e.Const.I128 != nil {
		c.Const.I128 = new(big.Int).Set(e.Const.I128)
	}
	if e.Str != nil {
		f := *e.Str
		f.List = slices.Clone(e.Str.List)
		c.Str = &f
	}
	c.Args = make([]*gpu.Expr, len(e.Args))
	for i, a := range e.Args {
		c.Args[i] = cloneExpr(a)
	}
	return &c
}

func samePipeline(a, b *gpu.Pipeline) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Sink != b.Sink || a.GroupHint != b.GroupHint || !slices.Equal(a.Inputs, b.Inputs) ||
		!slices.Equal(a.Keys, b.Keys) || !slices.Equal(a.Aggs, b.Aggs) ||
		!sameExpr(a.Filter, b.Filter) || len(a.Project) != len(b.Project) {
		return false
	}
	for i := range a.Project {
		if !sameExpr(a.Project[i], b.Project[i]) {
			return false
		}
	}
	return true
}

func sameExpr(a, b *gpu.Expr) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Op != b.Op || a.Type != b.Type || a.Col != b.Col || len(a.Args) != len(b.Args) ||
		a.Const.Null != b.Const.Null || a.Const.I64 != b.Const.I64 ||
		math.Float64bits(a.Const.F64) != math.Float64bits(b.Const.F64) || !sameBig(a.Const.I128, b.Const.I128) || !sameStrFunc(a.Str, b.Str) {
		return false
	}
	for i := range a.Args {
		if !sameExpr(a.Args[i], b.Args[i]) {
			return false
		}
	}
	return true
}

func sameBig(a, b *big.Int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Cmp(b) == 0
}

func sameStrFunc(a, b *gpu.StrFunc) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Kind == b.Kind && a.Pattern == b.Pattern && a.Op == b.Op && slices.Equal(a.List, b.List) &&
		a.From == b.From && a.Length == b.Length && a.HasLength == b.HasLength
}
