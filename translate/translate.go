// Package translate turns a loaded Substrait plan into a physical plan:
// chains of Read, Filter and Project fuse into one gpu.Pipeline up to the
// next pipeline breaker (aggregate, sort), and what the device cannot run is
// reported as ErrUnsupported with the reason, for the engine to fall back.
package translate

import (
	"fmt"
	"math"
	"strings"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/physical"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// Translate builds the physical plan of a loaded Substrait plan. The root of
// the result produces exactly the plan's output columns, in order.
func Translate(p *substrait.Plan) (physical.Node, error) {
	return TranslateWith(p, Options{})
}

// Options of a translation.
type Options struct {
	// Split: each relation the device cannot run becomes a
	// physical.Fallback (DuckDB SQL) over its inputs, which run on the
	// device where they can. For a consumer with a host database.
	Split bool
	// Tables gives the tables' stored types; a column the plan declares
	// with another type (Isthmus: INTEGER keys over BIGINT columns) is read
	// at the stored type and cast (see scanStream). nil trusts the plan's
	// declared types (rigel's own producer writes the tables' types).
	Tables Catalog
	// Device, where set, is asked about every operation and aggregate a
	// relation adds (refuse.go): one the device refuses makes that
	// relation a fallback (with Split) or an error, before anything runs.
	Device gpu.Refuser
	// OnDuckDB: relations of these kinds become fallbacks (with Split),
	// each with the reason the device gave while running a plan made
	// before (physical.RunRefusal).
	OnDuckDB map[physical.RefusedOp]string
}

// TranslateWith is Translate with options.
func TranslateWith(p *substrait.Plan, o Options) (physical.Node, error) {
	t := &translator{split: o.Split, tables: o.Tables, done: map[plan.Rel]translated{}, device: o.Device, onDuckDB: o.OnDuckDB}
	if o.Split {
		// A split plan's root may become a DuckDB subtree, whose temporal
		// columns the device cannot take in: such plans run whole on DuckDB.
		if err := refuseTemporalOutput(p.Root); err != nil {
			return nil, err
		}
	}
	retype, err := temporalOutput(p.Root)
	if err != nil {
		return nil, err
	}
	s, err := t.rel(p.Root)
	if err != nil {
		return nil, err
	}
	n, err := t.finish(s)
	if err != nil {
		return nil, err
	}
	return withRetype(n, retype), nil
}

// translator holds what the whole translation shares (Options).
type translator struct {
	split  bool
	tables Catalog
	// done holds each relation's translation, for the fallback's writer,
	// which asks again for the inputs of a relation that failed: without
	// it, a chain of relations that each fall back translates its lowest
	// one 2^n times (a 40-deep chain of fetches never finished).
	done map[plan.Rel]translated
	// views counts the fallbacks' input views (addInput).
	views int
	// device and checked: the device asked about operations (refuse.go),
	// and the expressions and nodes already asked about.
	device gpu.Refuser
	// onDuckDB: Options.OnDuckDB.
	onDuckDB map[physical.RefusedOp]string
	checked  map[any]bool
}

// translated is a relation's translation: a stream (copied at each use:
// its users fold filters and columns into it) or an error.
type translated struct {
	s   *stream
	err error
}

// stream is a relation's output not yet materialized: rows of src that pass
// filter, projected through exprs. Filters and projections keep folding into
// it until an operator needs real columns.
type stream struct {
	src    physical.Node
	filter *gpu.Expr
	exprs  []*gpu.Expr
	// slice, when set, is a Fetch to apply once the stream is materialized.
	slice *physical.Slice
}

func identity(src physical.Node) *stream {
	ts := src.OutputTypes()
	s := &stream{src: src, exprs: make([]*gpu.Expr, len(ts))}
	for i, t := range ts {
		s.exprs[i] = gpu.Col(i, t)
	}
	return s
}

// columnOf returns the position of e among the stream's columns, adding
// it as a new column when it is not one of them.
func (s *stream) columnOf(e *gpu.Expr) int {
	for i, x := range s.exprs {
		if x == e {
			return i
		}
	}
	s.exprs = append(s.exprs, e)
	return len(s.exprs) - 1
}

// copy is a stream that can change without changing s; the nodes and
// expressions it points to are never changed once built.
func (s *stream) copy() *stream {
	c := *s
	c.exprs = append([]*gpu.Expr(nil), s.exprs...)
	if s.slice != nil {
		sl := *s.slice
		c.slice = &sl
	}
	return &c
}

func (s *stream) isIdentity() bool {
	if s.filter != nil || len(s.exprs) != len(s.src.OutputTypes()) {
		return false
	}
	for i, e := range s.exprs {
		if e.Op != gpu.OpCol || e.Col != i {
			return false
		}
	}
	return true
}

// rel translates r once; a second call answers a copy of the first's
// result.
func (t *translator) rel(r plan.Rel) (*stream, error) {
	if d, ok := t.done[r]; ok {
		if d.err != nil {
			return nil, d.err
		}
		return d.s.copy(), nil
	}
	s, err := t.relOnce(r)
	if err != nil {
		t.done[r] = translated{err: err}
		return nil, err
	}
	t.done[r] = translated{s: s.copy()}
	return s, nil
}

func (t *translator) relOnce(r plan.Rel) (*stream, error) {
	s, err := t.relNoEmit(r)
	if err == nil {
		err = t.refused(s)
	}
	if err != nil {
		if t.split {
			// Per-subtree fallback: r runs as DuckDB SQL (its emit
			// included) over its inputs, on the device where they can.
			return t.fallbackRel(r, err)
		}
		return nil, err
	}
	if m := outputMapping(r); m != nil {
		exprs := make([]*gpu.Expr, len(m))
		for i, j := range m {
			if j < 0 || int(j) >= len(s.exprs) {
				return nil, fmt.Errorf("%s: emit refers to column %d of %d", substrait.RelName(r), j, len(s.exprs))
			}
			exprs[i] = s.exprs[j]
		}
		s.exprs = exprs
	}
	return s, nil
}

func outputMapping(r plan.Rel) []int32 {
	if m, ok := r.(interface{ OutputMapping() []int32 }); ok {
		return m.OutputMapping()
	}
	return nil
}

func (t *translator) relNoEmit(r plan.Rel) (*stream, error) {
	switch x := r.(type) {
	case *plan.NamedTableReadRel:
		return t.read(x)
	case *plan.VirtualTableReadRel:
		return t.values(x)
	case *plan.LocalFileReadRel:
		return t.localFiles(x)
	case *plan.FilterRel:
		if cr, ok := x.Input().(*plan.CrossRel); ok && outputMapping(cr) == nil {
			return t.filterOverCross(x, cr) // Isthmus's way to write joins
		}
		in, err := t.rel(x.Input())
		if err != nil {
			return nil, err
		}
		if in, err = t.unsliced(in); err != nil {
			return nil, err
		}
		cond, err := exprConv{in.exprs}.convert(x.Condition())
		if err != nil {
			return nil, fmt.Errorf("FilterRel condition: %w", err)
		}
		in.filter = and(in.filter, cond)
		return in, nil
	case *plan.ProjectRel:
		in, err := t.rel(x.Input())
		if err != nil {
			return nil, err
		}
		if in, err = t.unsliced(in); err != nil {
			return nil, err
		}
		if hasWindow(x) {
			return t.windowProject(x, in)
		}
		base, literal := in.exprs, map[int]*gpu.Expr(nil)
		if lits := literalColumns(x.Expressions()); len(lits) > 0 && len(in.exprs) > 0 {
			var src physical.Node
			if base, literal, src, err = t.withLiterals(in, lits); err != nil {
				return nil, err
			}
			in = &stream{src: src}
		}
		conv := exprConv{base}
		out := append([]*gpu.Expr(nil), base...)
		for i, e := range x.Expressions() {
			if c, ok := literal[i]; ok {
				out = append(out, c)
				continue
			}
			g, err := conv.convert(e)
			if err != nil {
				return nil, fmt.Errorf("ProjectRel expression %d: %w", i, err)
			}
			if err := refuseDictConst(g); err != nil {
				return nil, fmt.Errorf("ProjectRel expression %d: %w", i, err)
			}
			out = append(out, g)
		}
		in.exprs = out
		return in, nil
	case *plan.AggregateRel:
		return t.aggregate(x)
	case *plan.JoinRel:
		return t.join(x)
	case *plan.CrossRel:
		return t.cross(x)
	case *plan.SetRel:
		return t.set(x)
	case *plan.SortRel:
		return t.sort(x)
	case *plan.FetchRel:
		in, err := t.rel(x.Input())
		if err != nil {
			return nil, err
		}
		if in, err = t.unsliced(in); err != nil {
			return nil, err
		}
		in.slice = &physical.Slice{Offset: x.Offset(), Count: x.Count()}
		return in, nil
	}
	return nil, unsupported(fmt.Sprintf("relation %s", substrait.RelName(r)))
}

// unsliced is s with its pending Fetch run first, where an operator comes
// above it (a LIMIT inside the plan): the stream materialized into a Slice
// node, which the device runs (physical/slice.go). A stream of no columns
// carries no row count to slice, and is refused.
func (t *translator) unsliced(s *stream) (*stream, error) {
	if s.slice == nil {
		return s, nil
	}
	if len(s.exprs) == 0 {
		return nil, unsupported("an operator above a FetchRel of no columns")
	}
	n, err := t.materialize(s)
	if err != nil {
		return nil, err
	}
	return identity(n), nil
}

func and(a, b *gpu.Expr) *gpu.Expr {
	if a == nil {
		return b
	}
	t := gpu.Type{Kind: gpu.Bool, Nullable: a.Type.Nullable || b.Type.Nullable}
	return gpu.Call(gpu.OpAnd, t, a, b)
}

func (t *translator) read(r *plan.NamedTableReadRel) (*stream, error) {
	names := r.Names()
	if len(names) == 0 {
		return nil, fmt.Errorf("ReadRel: named table without a name")
	}
	// A qualified name (catalog, schema, table) stays qualified: the
	// table source resolves "catalog.schema.table".
	table := strings.Join(names, ".")
	base := r.BaseSchema()
	fieldTypes := base.Struct.Types
	if len(base.Names) != len(fieldTypes) {
		// Nested base schemas carry more names than top-level fields.
		return nil, unsupported("ReadRel base_schema with nested types")
	}
	// A table may hold columns of types rigel cannot run yet that the
	// query never reads: those get a placeholder type, and only a
	// reference to one (by the filter or the output) is an error.
	scan := &physical.Scan{Table: table, Columns: base.Names, Types: make([]gpu.Type, len(fieldTypes))}
	bad := map[int]error{}
	for i, ft := range fieldTypes {
		gt, err := gpuType(ft)
		if err != nil {
			bad[i] = fmt.Errorf("ReadRel %s column %s: %w", table, base.Names[i], err)
			gt = gpu.Type{Kind: gpu.Bool, Nullable: true}
		}
		scan.Types[i] = gt
	}
	// badRef is the error of the first unusable column that used(i) says
	// the plan reads, or nil.
	badRef := func(used func(i int) bool) error {
		for i := range fieldTypes {
			if bad[i] != nil && used(i) {
				return bad[i]
			}
		}
		return nil
	}
	s, err := t.scanStream(scan, func(i int) bool { return bad[i] != nil })
	if err != nil {
		return nil, err
	}
	// A best_effort_filter may be ignored: the plan re-checks it above.
	if f := r.Filter(); f != nil {
		cond, err := exprConv{s.exprs}.convert(f)
		if err != nil {
			if len(bad) > 0 {
				return nil, fmt.Errorf("ReadRel %s filter: %w (or %w)", table, err, badRef(func(int) bool { return true }))
			}
			return nil, fmt.Errorf("ReadRel %s filter: %w", table, err)
		}
		used := map[int]bool{}
		gpu.MarkColumns(cond, used)
		if err := badRef(func(i int) bool { return used[i] }); err != nil {
			return nil, err
		}
		s.filter = cond
	}
	outCols := make([]int, len(fieldTypes))
	for i := range outCols {
		outCols[i] = i
	}
	if p := r.Projection(); p != nil {
		cols, err := maskColumns(p, len(fieldTypes))
		if err != nil {
			return nil, fmt.Errorf("ReadRel %s projection: %w", table, err)
		}
		exprs := make([]*gpu.Expr, len(cols))
		for i, c := range cols {
			exprs[i] = s.exprs[c]
		}
		s.exprs, outCols = exprs, cols
	}
	used := map[int]bool{}
	if m := outputMapping(r); m != nil {
		for _, j := range m {
			if int(j) >= 0 && int(j) < len(outCols) {
				used[outCols[j]] = true
			}
		}
	} else {
		for _, c := range outCols {
			used[c] = true
		}
	}
	if err := badRef(func(i int) bool { return used[i] }); err != nil {
		return nil, err
	}
	return s, nil
}

// maskColumns reads a projection mask that selects top-level fields.
func maskColumns(m *expr.MaskExpression, n int) ([]int, error) {
	p := m.ToProto()
	sel := p.GetSelect()
	if sel == nil {
		return nil, unsupported("projection mask without a struct select")
	}
	var out []int
	for _, it := range sel.GetStructItems() {
		if it.GetChild() != nil {
			return nil, unsupported("nested projection mask")
		}
		f := int(it.GetField())
		if f < 0 || f >= n {
			return nil, fmt.Errorf("projection mask field %d out of range (%d columns)", f, n)
		}
		out = append(out, f)
	}
	return out, nil
}

func (t *translator) values(r *plan.VirtualTableReadRel) (*stream, error) {
	rt := r.RecordType()
	if len(rt.Types()) == 0 {
		// A table without columns (DuckDB's dummy scan under SELECT
		// without FROM): a device pipeline counts its rows from its input
		// columns, so it cannot run one.
		return nil, unsupported("VirtualTable without columns (SELECT without FROM)")
	}
	v := &physical.Values{}
	for _, ft := range rt.Types() {
		gt, err := gpuType(ft)
		if tt, ok := valuesTemporal(ft); ok {
			gt, err = tt, nil
		}
		if err != nil {
			return nil, fmt.Errorf("VirtualTable: %w", err)
		}
		v.Types = append(v.Types, gt)
	}
	for i, row := range r.Values() {
		var vals []gpu.Value
		if v.Text != nil || hasDict(v.Types) {
			v.Text = append(v.Text, make([]string, len(row)))
		}
		for j, e := range row {
			if tv, ok, err := valuesTemporalCell(e, rt.Types()[j]); ok {
				if err != nil {
					return nil, fmt.Errorf("VirtualTable row %d column %d: %w", i, j, err)
				}
				vals = append(vals, tv)
				continue
			}
			if j < len(v.Types) && v.Types[j].Kind == gpu.Dict {
				// Strings have no gpu.Value: they travel in Text.
				s, null, ok := stringLiteral(e)
				if !ok {
					return nil, unsupported(fmt.Sprintf("VirtualTable row %d column %d: %s in a string column", i, j, e))
				}
				v.Text[i][j] = s
				vals = append(vals, gpu.Value{Null: null})
				continue
			}
			g, err := exprConv{}.convert(e)
			if err != nil {
				return nil, fmt.Errorf("VirtualTable row %d column %d: %w", i, j, err)
			}
			if g.Op != gpu.OpConst {
				return nil, unsupported("VirtualTable with non-literal values")
			}
			c, err := cast(g, v.Types[j])
			if err != nil || c.Op != gpu.OpConst {
				return nil, unsupported(fmt.Sprintf("VirtualTable value of type %s in a column of %s", g.Type, v.Types[j]))
			}
			vals = append(vals, c.Const)
		}
		v.Rows = append(v.Rows, vals)
	}
	return identity(v), nil
}

// materialize turns a stream into a node producing its columns.
func (t *translator) materialize(s *stream) (physical.Node, error) {
	var n physical.Node
	if s.isIdentity() {
		n = s.src
	} else {
		src, inputs, exprs, filter := prune(s.src, s.exprs, s.filter)
		if pruned := (&stream{src: src, filter: filter, exprs: exprs}); pruned.isIdentity() {
			n = src // the scan of just these columns is the result
		} else {
			n = &physical.Pipeline{Input: src, Pipe: &gpu.Pipeline{
				Inputs: inputs, Filter: filter, Project: exprs, Sink: gpu.SinkMaterialize,
			}}
		}
	}
	if s.slice != nil {
		sl := *s.slice
		sl.Input = n
		if sort, ok := n.(*physical.Sort); ok && sl.Count >= 0 && sl.Count <= math.MaxInt64-sl.Offset {
			// top-k: only these rows can survive. A copy: the sort's
			// stream may be materialized again without the fetch.
			topk := *sort
			topk.Limit = int(sl.Offset + sl.Count)
			sl.Input = &topk
		}
		n = &sl
	}
	return n, nil
}

// prune narrows a Scan source to the columns the expressions use, so that a
// scan reads (and caches) only those.
func prune(src physical.Node, exprs []*gpu.Expr, filter *gpu.Expr) (physical.Node, []gpu.Type, []*gpu.Expr, *gpu.Expr) {
	scan, ok := src.(*physical.Scan)
	if !ok {
		return src, src.OutputTypes(), exprs, filter
	}
	used := map[int]bool{}
	for _, e := range exprs {
		gpu.MarkColumns(e, used)
	}
	gpu.MarkColumns(filter, used)
	if len(used) == 0 && len(scan.Columns) > 0 {
		// count(*) alone reads no column, but a pipeline counts the rows of
		// its inputs: keep one column, preferably one without nulls.
		keep := 0
		for i, t := range scan.Types {
			if !t.Nullable {
				keep = i
				break
			}
		}
		used[keep] = true
	}
	remap := map[int]int{}
	ns := &physical.Scan{Table: scan.Table}
	for i := range scan.Columns {
		if used[i] {
			remap[i] = len(ns.Columns)
			ns.Columns = append(ns.Columns, scan.Columns[i])
			ns.Types = append(ns.Types, scan.Types[i])
		}
	}
	out := make([]*gpu.Expr, len(exprs))
	for i, e := range exprs {
		out[i] = gpu.Renumbered(e, remap)
	}
	return ns, ns.Types, out, gpu.Renumbered(filter, remap)
}

func (t *translator) sort(r *plan.SortRel) (*stream, error) {
	if why, ok := t.onDuckDB[physical.RefusedSort]; ok {
		return nil, unsupported("refused while running: " + why)
	}
	in, err := t.rel(r.Input())
	if err != nil {
		return nil, err
	}
	if in, err = t.unsliced(in); err != nil {
		return nil, err
	}
	// Sort keys that are expressions become extra columns, dropped after.
	width := len(in.exprs)
	conv := exprConv{in.exprs}
	var keys []gpu.SortKey
	for i, sf := range r.Sorts() {
		g, err := conv.convert(sf.Expr)
		if err != nil {
			return nil, fmt.Errorf("SortRel key %d: %w", i, err)
		}
		k, err := sortKey(sf, in.columnOf(g))
		if err != nil {
			return nil, fmt.Errorf("SortRel key %d: %w", i, err)
		}
		keys = append(keys, k)
	}
	src, err := t.materialize(in)
	if err != nil {
		return nil, err
	}
	out := identity(&physical.Sort{Input: src, Keys: keys})
	out.exprs = out.exprs[:width]
	return out, nil
}

// finish materializes the root stream.
func (t *translator) finish(s *stream) (physical.Node, error) {
	return t.materialize(s)
}
