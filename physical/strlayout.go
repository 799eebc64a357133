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
// the device, predicates per row) for it. A column qualifies when
//
//   - it is read by a Scan whose parent is a Pipeline (the pipeline's
//     inputs are the scan's columns),
//   - every use of it in that pipeline's filter and projections is the
//     argument of a string predicate the devices run per row
//     (gpu.StrPredOnStr), so that it never leaves the pipeline: a Str
//     column has no codes to join, group, sort or hand on,
//   - the device can hold Str columns (gpu.StrUploader), and
//   - it is high-cardinality: see strDistinctRatio.
//
// Everything else stays Dict, exactly as before this pass existed.

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
// above) and rewrites the chosen ones to Str in place: the Scan's type, the
// Pipeline's input type and the column references of its expressions (new
// nodes; the old ones may be shared). It reads a sample of each candidate
// column from the source the first time. Idempotent: a plan it already
// rewrote is left as it is.
func (x *Executor) ChooseStringLayouts(ctx context.Context, root Node) error {
	if _, ok := x.Dev.(gpu.StrUploader); !ok || x.Source == nil || x.Cache == nil {
		return nil
	}
	var walk func(n Node) error
	walk = func(n Node) error {
		if p, ok := n.(*Pipeline); ok {
			if s, ok := p.Input.(*Scan); ok {
				if err := x.chooseScan(ctx, p, s); err != nil {
					return err
				}
			}
		}
		for _, c := range n.Children() {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root)
}

func (x *Executor) chooseScan(ctx context.Context, p *Pipeline, s *Scan) error {
	if len(s.Types) != len(p.Pipe.Inputs) || len(s.Columns) != len(s.Types) || s.Layouts != nil {
		return nil // not a scan's own pipeline, or decided already
	}
	var picked []int
	for i, t := range s.Types {
		if t.Kind != gpu.Dict || p.Pipe.Inputs[i].Kind != gpu.Dict || !onlyStrPreds(p.Pipe, i) {
			continue
		}
		key := cacheKey(x.Source.ID(), s.Table, s.Columns[i])
		c, ok := x.Cache.layouts.get(key)
		if !ok {
			var err error
			if c, err = sampleLayout(ctx, x.Source, s.Table, s.Columns[i]); err != nil {
				if ctx.Err() != nil {
					return err
				}
				// The column stays as it always was; the scan itself will
				// report a source that really fails.
				c = layoutChoice{why: "dictionary (sampling failed: " + err.Error() + ")"}
			} else {
				x.Cache.layouts.put(key, c)
			}
		}
		s.Layouts = append(s.Layouts, s.Columns[i]+": "+c.why)
		if c.arrow {
			picked = append(picked, i)
		}
	}
	if len(picked) == 0 {
		return nil
	}
	types := append([]gpu.Type(nil), s.Types...)
	pipe := *p.Pipe
	pipe.Inputs = append([]gpu.Type(nil), p.Pipe.Inputs...)
	isStr := map[int]bool{}
	for _, i := range picked {
		types[i].Kind, pipe.Inputs[i].Kind = gpu.Str, gpu.Str
		isStr[i] = true
	}
	memo := map[*gpu.Expr]*gpu.Expr{}
	pipe.Filter = retypeCols(p.Pipe.Filter, isStr, memo)
	pipe.Project = make([]*gpu.Expr, len(p.Pipe.Project))
	for j, e := range p.Pipe.Project {
		pipe.Project[j] = retypeCols(e, isStr, memo)
	}
	s.Types, p.Pipe = types, &pipe
	return nil
}

// onlyStrPreds reports whether every reference to input column c in the
// pipeline is the argument of a per-row string predicate (and there is at
// least one).
func onlyStrPreds(p *gpu.Pipeline, c int) bool {
	uses, ok := 0, true
	var walk func(e *gpu.Expr, parentOK bool)
	walk = func(e *gpu.Expr, parentOK bool) {
		if e == nil || !ok {
			return
		}
		if e.Op == gpu.OpCol {
			if e.Col == c {
				uses++
				ok = ok && parentOK
			}
			return
		}
		argOK := e.Op == gpu.OpStrPred && len(e.Args) == 1 && gpu.StrPredOnStr(e.Str)
		for _, a := range e.Args {
			walk(a, argOK)
		}
	}
	walk(p.Filter, false)
	for _, e := range p.Project {
		walk(e, false)
	}
	return ok && uses > 0
}

// retypeCols copies e with the references to the columns in isStr typed
// Str; subtrees without them are kept, shared nodes stay shared.
func retypeCols(e *gpu.Expr, isStr map[int]bool, memo map[*gpu.Expr]*gpu.Expr) *gpu.Expr {
	if e == nil {
		return nil
	}
	if r, ok := memo[e]; ok {
		return r
	}
	r := e
	if e.Op == gpu.OpCol {
		if isStr[e.Col] {
			c := *e
			c.Type.Kind = gpu.Str
			r = &c
		}
	} else {
		var args []*gpu.Expr
		for i, a := range e.Args {
			na := retypeCols(a, isStr, memo)
			if na != a && args == nil {
				args = append([]*gpu.Expr(nil), e.Args...)
			}
			if args != nil {
				args[i] = na
			}
		}
		if args != nil {
			c := *e
			c.Args = args
			r = &c
		}
	}
	memo[e] = r
	return r
}

// ColumnSampler is implemented by table sources that read the first rows of
// a column more cheaply than a whole scan (a LIMIT query); the layout
// decision then uses it.
type ColumnSampler interface {
	SampleColumn(ctx context.Context, table, column string, rows int) (array.RecordReader, error)
}

// sampleLayout reads up to strSampleRows leading values of a column and
// decides its layout. Arrays other than utf8 and large_utf8 stay Dict.
func sampleLayout(ctx context.Context, src TableSource, table, col string) (layoutChoice, error) {
	var rr array.RecordReader
	var err error
	if s, ok := src.(ColumnSampler); ok {
		rr, err = s.SampleColumn(ctx, table, col, strSampleRows)
	} else {
		rr, err = src.ScanColumns(ctx, table, []string{col})
	}
	if err != nil {
		return layoutChoice{}, fmt.Errorf("string layout of %s.%s: %w", table, col, err)
	}
	defer rr.Release()
	seen := map[string]struct{}{}
	rows := 0
	for rows < strSampleRows && rr.Next() {
		rec := rr.RecordBatch()
		if rec.NumCols() != 1 {
			return layoutChoice{}, fmt.Errorf("string layout of %s.%s: the source returned %d columns, want 1", table, col, rec.NumCols())
		}
		var value func(i int) string
		switch a := rec.Column(0).(type) {
		case *array.String:
			value = a.Value
		case *array.LargeString:
			value = a.Value
		default:
			return layoutChoice{why: fmt.Sprintf("dictionary (%s values)", a.DataType())}, nil
		}
		a := rec.Column(0)
		for i := 0; i < a.Len() && rows < strSampleRows; i++ {
			rows++
			if a.IsValid(i) {
				if _, ok := seen[value(i)]; !ok {
					seen[string([]byte(value(i)))] = struct{}{} // detach from the batch
				}
			}
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, context.Canceled) {
		return layoutChoice{}, fmt.Errorf("string layout of %s.%s: %w", table, col, err)
	}
	if rows == 0 {
		return layoutChoice{why: "dictionary (empty table)"}, nil
	}
	ratio := float64(len(seen)) / float64(rows)
	if ratio > strDistinctRatio {
		return layoutChoice{arrow: true, why: fmt.Sprintf("arrow strings (%d of %d sampled values distinct)", len(seen), rows)}, nil
	}
	return layoutChoice{why: fmt.Sprintf("dictionary (%d of %d sampled values distinct)", len(seen), rows)}, nil
}
