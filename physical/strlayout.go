package physical

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/gpu"
)

// String layouts. Every string column is dictionary-encoded at upload
// (gpu.Dict) unless this pass, run on a plan before execution and before
// EXPLAIN is rendered, picks Arrow layout (gpu.Str: offsets + characters on
// the device) for it. A Scan's string column goes Str when
//
//   - the device can hold Str columns (gpu.StrUploader),
//   - every operator its values reach unchanged takes a Str column there
//     (gpu/ext_strings.go): as the argument of a per-row string predicate
//     (gpu.StrPredOnStr) or a bare projection of a pipeline (a group key
//     too, not an aggregate's argument), a sort key or payload, a join's
//     payload, a slice, the plan's result, a fallback's input. A join key,
//     any other expression (a comparison of two values, substring, CASE,
//     ...), an aggregate's argument or a UNION ALL (whose parts a device
//     may refuse to concatenate) keeps it a dictionary, and
//   - it is high-cardinality: see strDistinctRatio and strMinRows.
//
// EXPLAIN shows the decision and its reason for every dictionary-typed
// column of a Scan (Scan.Layouts).

// strSampleRows is how many leading values of a column the decision reads.
const strSampleRows = 1 << 16

// strDistinctRatio: a column goes to Arrow layout when more than this
// fraction of its sampled values are distinct. Why one half: dictionary
// encoding pays a hash and a map probe per row at load time and then runs
// the predicate once per distinct value, so it wins when a dictionary entry
// stands for several rows (l_shipmode: 7 values, p_type: 150, c_mktsegment:
// 5 - ratios far below 1%). When most values are distinct (o_comment,
// p_name, s_comment: ratios near 1) the dictionary is as large as the
// column, its build on the host dominates a cold query, and the per-entry
// predicate table saves nothing; the per-row matcher reads each string
// once. Between the two groups TPC-H has nothing; one half keeps the
// dictionary wherever it shares at least two rows per entry on average.
const strDistinctRatio = 0.5

// strMinRows: a table of fewer rows keeps its string columns as
// dictionaries whatever their cardinality (n_name: 25 of 25 distinct):
// such a dictionary costs next to nothing to build, and codes are what the
// devices handle best (fixed-width keys, compares, gathers).
const strMinRows = 1000

// layoutMemo remembers each column's decision (keyed like the cache, by
// source, table and column), so that the sample is read once per column
// and every later plan makes the same choice. Invalidate forgets it with
// the columns.
type layoutMemo struct {
	mu  sync.Mutex
	str map[string]layoutChoice
}

type layoutChoice struct {
	arrow bool
	why   string
}

func (m *layoutMemo) get(key string) (layoutChoice, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.str[key]
	return c, ok
}

func (m *layoutMemo) put(key string, c layoutChoice) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.str == nil {
		m.str = map[string]layoutChoice{}
	}
	m.str[key] = c
}

func (m *layoutMemo) forget(prefix string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.str {
		if strings.HasPrefix(k, prefix) {
			delete(m.str, k)
		}
	}
}

// scanKey is the cache key of column i of a scan: the column's key, and
// for a Str column a suffix, so that a query that wants the same column
// dictionary-encoded finds (or loads) its Dict entry, never the Str one.
func scanKey(src string, s *Scan, i int) string {
	k := cacheKey(src, s.Table, s.Columns[i])
	if f := s.derived(i); f != nil {
		k += "\x00" + f.SQL("")
	}
	if s.Types[i].Kind == gpu.Str {
		k += "\x00str"
	}
	return k
}

// upload puts an array on the device as the scan's type asks.
func upload(ctx context.Context, dev gpu.Device, arr arrow.Array, t gpu.Type) (gpu.Column, error) {
	if t.Kind != gpu.Str {
		return dev.Upload(ctx, arr)
	}
	su, ok := dev.(gpu.StrUploader)
	if !ok {
		return nil, fmt.Errorf("the plan wants strings in Arrow layout, which device %s cannot hold: %w", dev.Info().Name, gpu.ErrUnsupported)
	}
	return su.UploadStr(ctx, arr)
}

// charBytes is a Str column's characters on the device (0 otherwise).
func charBytes(col gpu.Column) int64 {
	if sc, ok := col.(gpu.StrColumn); ok && col.Type().Kind == gpu.Str {
		return sc.CharBytes()
	}
	return 0
}

// ChooseStringLayouts decides the layout of the plan's string columns (see
// above; first, derive.go loads the columns read only through one
// substring as that substring) and rewrites the chosen ones to Str in place: the Scans' types and
// the inputs and column references of the pipelines and join residuals that
// read them (new gpu.Pipeline values and expression nodes: the old ones may
// be shared); the other operators' types follow from their inputs'. It
// reads a sample of each column that may go Str from the source the first
// time. Idempotent: a Scan with Layouts was decided already.
func (x *Executor) ChooseStringLayouts(ctx context.Context, root Node) error {
	if _, ok := x.Dev.(gpu.StrUploader); !ok || x.Source == nil || x.Cache == nil {
		return nil
	}
	derived := x.deriveSubstrings(root) // derive.go: before the origins are counted
	defer func() {
		for s, notes := range derived {
			s.Layouts = append(s.Layouts, notes...)
		}
	}()
	f := &strFlow{carried: map[Node][]int{}, why: map[int]string{}}
	f.checkUses(root)
	// The columns every use allows Str are sampled, side by side: each a
	// query on DuckDB of its own (a plan of TPC-H Q2 samples 8).
	choices := make([]layoutChoice, len(f.origins))
	errs := make([]error, len(f.origins))
	var wg sync.WaitGroup
	sem := make(chan struct{}, samplesAtOnce)
	for o, org := range f.origins {
		if _, kept := f.why[o]; kept {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			// A panic here (a bug) would end the process from this
			// goroutine: it becomes the plan's error.
			defer func() {
				if p := recover(); p != nil {
					errs[o] = fmt.Errorf("string layout of %s.%s: internal error (a bug): %v", org.scan.Table, org.scan.Columns[org.col], p)
				}
			}()
			choices[o], errs[o] = x.sampledLayout(ctx, org.scan, org.col)
		}()
	}
	wg.Wait()
	str := map[int]bool{}
	for o, org := range f.origins {
		s, i := org.scan, org.col
		why, kept := f.why[o]
		if kept {
			why = "dictionary (" + why + ")"
		} else {
			if errs[o] != nil {
				return errs[o]
			}
			why = choices[o].why
			if choices[o].arrow {
				str[o] = true
			}
		}
		s.Layouts = append(s.Layouts, s.Columns[i]+": "+why)
	}
	if len(str) > 0 {
		f.rewrite(root, str, map[Node]bool{})
	}
	return nil
}

// LayoutKeeper is a TableSource that keeps string layout decisions for
// other processes on the same, unchanged data (duckdb-bridge: with its
// column store), so that they sample nothing.
type LayoutKeeper interface {
	KeptLayout(ctx context.Context, table, column string) (arrowLayout bool, why string, ok bool)
	KeepLayout(ctx context.Context, table, column string, arrowLayout bool, why string)
}

// samplesAtOnce bounds the columns ChooseStringLayouts samples at once.
const samplesAtOnce = 8

// sampledLayout is the layout a sample of column i of s asks for, read once
// per column and cache.
func (x *Executor) sampledLayout(ctx context.Context, s *Scan, i int) (layoutChoice, error) {
	key := cacheKey(x.Source.ID(), s.Table, s.Columns[i])
	if c, ok := x.Cache.layouts.get(key); ok {
		return c, nil
	}
	keeper, keeps := x.Source.(LayoutKeeper)
	if keeps {
		if arrowLayout, why, ok := keeper.KeptLayout(ctx, s.Table, s.Columns[i]); ok {
			c := layoutChoice{arrow: arrowLayout, why: why}
			x.Cache.layouts.put(key, c)
			return c, nil
		}
	}
	c, err := sampleLayout(ctx, x.Source, s.Table, s.Columns[i])
	if err != nil {
		if ctx.Err() != nil {
			return c, err
		}
		// The column stays as it always was; the scan itself will report a
		// source that really fails.
		return layoutChoice{why: "dictionary (sampling failed: " + err.Error() + ")"}, nil
	}
	x.Cache.layouts.put(key, c)
	if keeps {
		keeper.KeepLayout(ctx, s.Table, s.Columns[i], c.arrow, c.why)
	}
	return c, nil
}

// strFlow follows each dictionary-typed column of a Scan (an origin)
// through the plan: which output columns of each node hold exactly its
// values, and whether every operator that reads them takes a Str column
// there. A column holds at most one origin, so rejecting one origin
// changes nothing about the others: one pass over the plan decides.
type strFlow struct {
	origins []strOrigin
	carried map[Node][]int // per output column, the origin it holds or -1
	why     map[int]string // rejected origins: the first use that keeps them Dict
}

type strOrigin struct {
	scan *Scan
	col  int
}

func noOrigins(n int) []int {
	c := make([]int, n)
	for i := range c {
		c[i] = -1
	}
	return c
}

// carries lists, per output column of n, the origin whose values the column
// holds unchanged, or -1. Memoized by node: a plan may be a DAG, and each
// Scan's origins must be made once.
func (f *strFlow) carries(n Node) []int {
	if c, ok := f.carried[n]; ok {
		return c
	}
	var c []int
	switch n := n.(type) {
	case *Scan:
		c = noOrigins(len(n.Types))
		if n.Layouts == nil && len(n.Columns) == len(n.Types) {
			for i, t := range n.Types {
				if t.Kind == gpu.Dict && n.derived(i) == nil {
					c[i] = len(f.origins)
					f.origins = append(f.origins, strOrigin{n, i})
				}
			}
		}
	case *Pipeline:
		in, p := f.carries(n.Input), n.Pipe
		bare := func(j int) int {
			if j >= 0 && j < len(p.Project) {
				if e := p.Project[j]; e.Op == gpu.OpCol && e.Col >= 0 && e.Col < len(in) {
					return in[e.Col]
				}
			}
			return -1
		}
		if p.Sink == gpu.SinkAggregate {
			c = noOrigins(len(p.Keys) + len(p.Aggs)) // keys, then aggregates
			for k, j := range p.Keys {
				c[k] = bare(j)
			}
		} else {
			c = make([]int, len(p.Project))
			for j := range p.Project {
				c[j] = bare(j)
			}
		}
	case *Sort:
		c = f.carries(n.Input)
	case *Slice:
		c = f.carries(n.Input)
	case *Retype:
		c = f.carries(n.Input)
	case *Join:
		c = f.carries(n.Left)
		if n.Type != JoinSemi && n.Type != JoinAnti {
			c = append(append([]int(nil), c...), f.carries(n.Right)...)
		}
	default: // Union, Fallback, Values, ArrowFiles: columns of their own
		c = noOrigins(len(n.OutputTypes()))
	}
	f.carried[n] = c
	return c
}

func (f *strFlow) reject(o int, why string) {
	if _, ok := f.why[o]; o >= 0 && !ok {
		f.why[o] = why
	}
}

// checkUses visits every node once and rejects the origins it reads in a
// way that only dictionaries allow (gpu/ext_strings.go).
func (f *strFlow) checkUses(root Node) {
	exprs := func(e *gpu.Expr, in []int, bare bool) { f.exprUses(e, nil, in, bare) } // a bare projection passes Str on
	f.walk(root, map[Node]bool{}, func(n Node, ins [][]int) {
		if commonReads(n, ins, f.reject, exprs) {
			return
		}
		switch n.(type) {
		case *Sort, *Slice, *Retype, *Fallback:
			// Str keys and payload; the others download.
		case *Union:
			// Concat may refuse Str parts of different uploads.
			rejectAll(ins, f.reject, "a UNION ALL input")
		default:
			rejectAll(ins, f.reject, fmt.Sprintf("read by %T", n))
		}
	})
}

// walk visits every node under n once, parents first, handing reads each
// node and its inputs' origins (carries).
func (f *strFlow) walk(n Node, seen map[Node]bool, reads func(n Node, ins [][]int)) {
	if seen[n] {
		return
	}
	seen[n] = true
	f.carries(n)
	kids := n.Children()
	ins := make([][]int, len(kids))
	for i, k := range kids {
		ins[i] = f.carries(k)
	}
	reads(n, ins)
	for _, k := range kids {
		f.walk(k, seen, reads)
	}
}

func rejectAll(ins [][]int, reject func(o int, why string), why string) {
	for _, in := range ins {
		for _, o := range in {
			reject(o, why)
		}
	}
}

// commonReads hands over the reads of origins that every string analysis
// (the layouts here, the derived columns of derive.go) treats alike, and
// says whether n was such a node: a pipeline's filter and projections go
// to exprs (bare: a whole projection, which passes its column on) and its
// aggregates' arguments to reject (they need the strings themselves); a
// join's keys go to reject, its residual (a filter over Left's columns,
// then Right's) to exprs.
func commonReads(n Node, ins [][]int, reject func(o int, why string), exprs func(e *gpu.Expr, in []int, bare bool)) bool {
	switch n := n.(type) {
	case *Pipeline:
		in, p := ins[0], n.Pipe
		if len(in) != len(p.Inputs) {
			rejectAll(ins, reject, "read by a pipeline of other inputs")
			return true
		}
		exprs(p.Filter, in, false)
		for _, e := range p.Project {
			exprs(e, in, true)
		}
		if p.Sink == gpu.SinkAggregate {
			for _, a := range p.Aggs {
				if a.Kind != gpu.AggCountStar && a.Arg >= 0 && a.Arg < len(p.Project) {
					if e := p.Project[a.Arg]; e.Op == gpu.OpCol && e.Col >= 0 && e.Col < len(in) {
						reject(in[e.Col], "aggregated by "+a.Kind.String())
					}
				}
			}
		}
		return true
	case *Join:
		for i, k := range n.LeftKeys {
			if k >= 0 && k < len(ins[0]) {
				reject(ins[0][k], "a join key")
			}
			if k := n.RightKeys[i]; k >= 0 && k < len(ins[1]) {
				reject(ins[1][k], "a join key")
			}
		}
		exprs(n.Residual, append(append([]int(nil), ins[0]...), ins[1]...), false)
		return true
	}
	return false
}

// exprUses rejects the origins that e reads other than as Args[0] of a
// per-row string predicate or, when bare (a projection), as the expression
// itself. parent is e's parent expression (nil at the top).
func (f *strFlow) exprUses(e, parent *gpu.Expr, in []int, bare bool) {
	if e == nil {
		return
	}
	if e.Op == gpu.OpCol {
		if !bare && e.Col >= 0 && e.Col < len(in) {
			f.reject(in[e.Col], exprUse(parent))
		}
		return
	}
	argOK := e.Op == gpu.OpStrPred && len(e.Args) == 1 && gpu.StrPredOnStr(e.Str)
	for _, a := range e.Args {
		f.exprUses(a, e, in, argOK)
	}
}

// exprUse names, for EXPLAIN, an expression that reads a string column in a
// way only dictionaries allow.
func exprUse(e *gpu.Expr) string {
	switch {
	case e == nil:
		return "a filter"
	case e.Str != nil && e.Str.IsRowFunc():
		return "read by " + e.Str.RowName()
	case e.Op == gpu.OpStrMap && e.Str != nil && e.Str.Kind == gpu.StrSubstring:
		return "read by substring"
	case e.Op == gpu.OpStrPred:
		// A predicate kind StrPredOnStr knows, with too many constants.
		return fmt.Sprintf("read by a string predicate of over %d bytes", gpu.MaxStrPredBytes)
	case e.Op >= gpu.OpEq && e.Op <= gpu.OpGe:
		return "in a comparison (" + e.Op.String() + ")"
	case e.Op == gpu.OpCase:
		return "in a CASE"
	}
	return "read by " + e.Op.String()
}

// rewrite types the chosen origins Str where they are read: the Scans'
// types, the pipelines' inputs and column references, the join residuals'
// column references. Every other type in the plan follows from these.
func (f *strFlow) rewrite(n Node, str map[int]bool, seen map[Node]bool) {
	if seen[n] {
		return
	}
	seen[n] = true
	chosen := func(o int) bool { return str[o] }
	switch n := n.(type) {
	case *Scan:
		if m := originCols(chosen, f.carries(n)); len(m) > 0 {
			n.Types = append([]gpu.Type(nil), n.Types...) // may be shared with a pipeline's Inputs
			for i := range m {
				n.Types[i].Kind = gpu.Str
			}
		}
	case *Pipeline:
		if m := originCols(chosen, f.carries(n.Input)); len(m) > 0 {
			p := rewritePipeExprs(n.Pipe, retypeCols(m))
			p.Inputs = append([]gpu.Type(nil), p.Inputs...)
			for i := range m {
				p.Inputs[i].Kind = gpu.Str
			}
			n.Pipe = p
		}
	case *Join:
		if m := originCols(chosen, f.carries(n.Left), f.carries(n.Right)); n.Residual != nil && len(m) > 0 {
			n.Residual = rewriteExpr(n.Residual, retypeCols(m), map[*gpu.Expr]*gpu.Expr{})
		}
	}
	for _, k := range n.Children() {
		f.rewrite(k, str, seen)
	}
}

// retypeCols types the references to the columns in isStr Str.
func retypeCols(isStr map[int]bool) func(*gpu.Expr) (*gpu.Expr, bool) {
	return func(e *gpu.Expr) (*gpu.Expr, bool) {
		if e.Op != gpu.OpCol {
			return nil, false
		}
		if !isStr[e.Col] {
			return e, true
		}
		c := *e
		c.Type.Kind = gpu.Str
		return &c, true
	}
}

// ColumnSampler is implemented by table sources that read the first rows of
// a column more cheaply than a whole scan (a LIMIT query); the layout
// decision then uses it.
type ColumnSampler interface {
	SampleColumn(ctx context.Context, table, column string, rows int) (arrow.Array, error)
}

// sampleLayout reads up to strSampleRows leading values of a column and
// decides its layout. Arrays other than utf8 and large_utf8 stay Dict.
func sampleLayout(ctx context.Context, src TableSource, table, col string) (layoutChoice, error) {
	var batches []arrow.Array
	if s, ok := src.(ColumnSampler); ok {
		arr, err := s.SampleColumn(ctx, table, col, strSampleRows)
		if err != nil {
			return layoutChoice{}, fmt.Errorf("string layout of %s.%s: %w", table, col, err)
		}
		defer arr.Release()
		batches = []arrow.Array{arr}
	} else {
		rr, err := src.ScanColumns(ctx, table, []string{col})
		if err != nil {
			return layoutChoice{}, fmt.Errorf("string layout of %s.%s: %w", table, col, err)
		}
		defer rr.Release()
		rows := 0
		for rows < strSampleRows && rr.Next() {
			rec := rr.RecordBatch()
			if rec.NumCols() != 1 {
				return layoutChoice{}, fmt.Errorf("string layout of %s.%s: the source returned %d columns, want 1", table, col, rec.NumCols())
			}
			a := rec.Column(0)
			a.Retain()
			defer a.Release()
			batches = append(batches, a)
			rows += a.Len()
		}
		if err := rr.Err(); err != nil && !errors.Is(err, context.Canceled) {
			return layoutChoice{}, fmt.Errorf("string layout of %s.%s: %w", table, col, err)
		}
	}
	// The batches outlive the map: its keys may point into them. Sized for
	// a whole sample, it does not grow; once more than the ratio's share
	// of a whole sample is distinct, the answer is known.
	seen := make(map[string]struct{}, strSampleRows)
	enough := int(strDistinctRatio*strSampleRows) + 1
	rows := 0
	for _, a := range batches {
		var value func(i int) string
		switch a := a.(type) {
		case *array.String:
			value = a.Value
		case *array.LargeString:
			value = a.Value
		default:
			return layoutChoice{why: fmt.Sprintf("dictionary (%s values)", a.DataType())}, nil
		}
		for i := 0; i < a.Len() && rows < strSampleRows && len(seen) < enough; i++ {
			rows++
			if a.IsValid(i) {
				seen[value(i)] = struct{}{}
			}
		}
	}
	if len(seen) >= enough {
		return layoutChoice{arrow: true, why: fmt.Sprintf("arrow strings (%d of the first %d sampled values distinct)", len(seen), rows)}, nil
	}
	if rows == 0 {
		return layoutChoice{why: "dictionary (empty table)"}, nil
	}
	if rows < strMinRows {
		return layoutChoice{why: fmt.Sprintf("dictionary (%d rows)", rows)}, nil
	}
	ratio := float64(len(seen)) / float64(rows)
	if ratio > strDistinctRatio {
		return layoutChoice{arrow: true, why: fmt.Sprintf("arrow strings (%d of %d sampled values distinct)", len(seen), rows)}, nil
	}
	return layoutChoice{why: fmt.Sprintf("dictionary (%d of %d sampled values distinct)", len(seen), rows)}, nil
}
