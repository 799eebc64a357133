package physical

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// strSource has tables of strRows rows (tinyRows for "tiny"): k int64, hi
// (every value distinct, some null), lo (two values).
type strSource struct{}

const tinyRows = 25

const strRows = 3000

func (strSource) ID() string { return "strmem" }

func (strSource) TableSchema(ctx context.Context, table string) (*arrow.Schema, error) {
	return nil, fmt.Errorf("not used")
}

func (strSource) ScanColumns(ctx context.Context, table string, cols []string) (array.RecordReader, error) {
	var fields []arrow.Field
	var arrs []arrow.Array
	strRows := strRows
	if table == "tiny" {
		strRows = tinyRows
	}
	for _, c := range cols {
		var b array.Builder
		switch c {
		case "k":
			ib := array.NewInt64Builder(memory.DefaultAllocator)
			for i := 0; i < strRows; i++ {
				ib.Append(int64(i % 5))
			}
			b = ib
		case "hi", "lo":
			sb := array.NewStringBuilder(memory.DefaultAllocator)
			for i := 0; i < strRows; i++ {
				switch {
				case c == "lo":
					sb.Append([]string{"A", "B"}[i%2])
				case i%11 == 0:
					sb.AppendNull()
				default:
					sb.Append(fmt.Sprintf("row %d é %d", i, i*7))
				}
			}
			b = sb
		default:
			return nil, fmt.Errorf("no column %q", c)
		}
		fields = append(fields, arrow.Field{Name: c, Type: b.Type(), Nullable: true})
		arrs = append(arrs, b.NewArray())
		b.Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(strRows))
	return array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
}

var (
	dictT = gpu.Type{Kind: gpu.Dict, Nullable: true}
	boolN = gpu.Type{Kind: gpu.Bool, Nullable: true}
)

// strPlan: SELECT k, count(*) FROM s WHERE hi LIKE '%7%' AND lo = 'A'
// GROUP BY k.
func strPlan() Node {
	scan := &Scan{Table: "s", Columns: []string{"k", "hi", "lo"}, Types: []gpu.Type{i64, dictT, dictT}}
	filter := gpu.Call(gpu.OpAnd, boolN,
		gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrLike, Pattern: "%7%"}, boolN, gpu.Col(1, dictT)),
		gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrCompare, Op: gpu.OpEq, Pattern: "A"}, boolN, gpu.Col(2, dictT)))
	return &Pipeline{Input: scan, Pipe: &gpu.Pipeline{Inputs: scan.Types, Filter: filter,
		Project: []*gpu.Expr{gpu.Col(0, i64)}, Sink: gpu.SinkAggregate, Keys: []int{0},
		Aggs: []gpu.Agg{{Kind: gpu.AggCountStar, Type: i64}}}}
}

func runPlan(t *testing.T, x *Executor, root Node, names ...string) arrow.RecordBatch {
	t.Helper()
	rec, _, err := x.Run(context.Background(), root, names)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestChooseStringLayouts(t *testing.T) {
	x := &Executor{Dev: host.New(), Source: strSource{}, Cache: NewColumnCache()}
	root := strPlan()
	if err := x.ChooseStringLayouts(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	scan := root.(*Pipeline).Input.(*Scan)
	if scan.Types[1].Kind != gpu.Str || scan.Types[2].Kind != gpu.Dict || root.(*Pipeline).Pipe.Inputs[1].Kind != gpu.Str {
		t.Fatalf("scan types %v, pipeline inputs %v: want hi str, lo dict", scan.Types, root.(*Pipeline).Pipe.Inputs)
	}
	plan := Explain(root, "host")
	for _, want := range []string{"hi: arrow strings (2727 of 3000 sampled values distinct)", "lo: dictionary (2 of 3000"} {
		if !strings.Contains(plan, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, plan)
		}
	}
	// Idempotent: a second pass changes nothing and adds no note.
	if err := x.ChooseStringLayouts(context.Background(), root); err != nil || Explain(root, "host") != plan {
		t.Fatalf("second pass changed the plan (%v):\n%s", err, Explain(root, "host"))
	}
	got := runPlan(t, x, root, "k", "n")
	defer got.Release()
	// The same plan left as dictionaries, on the same cache: the Str entry
	// of hi must not serve it.
	want := runPlan(t, x, strPlan(), "k", "n")
	defer want.Release()
	if err := arrowfmt.Compare(got, want, false); err != nil {
		t.Fatalf("arrow layout answer differs from the dictionary one: %v", err)
	}
	if want.NumRows() != 5 {
		t.Fatalf("%d groups, want 5", want.NumRows())
	}
	if n := x.Cache.Len(); n != 4 { // k, hi (str), lo, hi (dict)
		t.Fatalf("%d cached columns, want 4 (hi once per layout)", n)
	}
	// Invalidate forgets the decision with the columns.
	x.Cache.Invalidate("strmem", "s")
	if _, ok := x.Cache.layouts.get(cacheKey("strmem", "s", "hi")); ok {
		t.Fatal("Invalidate kept the layout decision")
	}
}

// strDev is a device that holds Str columns, for planning only.
type strDev struct{ gpu.Device }

func (strDev) UploadStr(ctx context.Context, arr arrow.Array) (gpu.Column, error) {
	return nil, fmt.Errorf("planning only")
}

// countingSource counts the reads of each table.column (the samples).
type countingSource struct {
	strSource
	reads map[string]int
}

func (c *countingSource) ScanColumns(ctx context.Context, table string, cols []string) (array.RecordReader, error) {
	for _, col := range cols {
		c.reads[table+"."+col]++
	}
	return c.strSource.ScanColumns(ctx, table, cols)
}

// scanOf scans table's columns: k int64, hi and lo strings.
func scanOf(table string, cols ...string) *Scan {
	s := &Scan{Table: table, Columns: cols}
	for _, c := range cols {
		if c == "k" {
			s.Types = append(s.Types, i64)
		} else {
			s.Types = append(s.Types, dictT)
		}
	}
	return s
}

// project is a materializing pipeline over in.
func project(in Node, filter *gpu.Expr, cols ...*gpu.Expr) *Pipeline {
	return &Pipeline{Input: in, Pipe: &gpu.Pipeline{Inputs: in.OutputTypes(), Filter: filter, Project: cols, Sink: gpu.SinkMaterialize}}
}

// checkStrTypes checks a plan after ChooseStringLayouts: every string column
// of a Scan has a layout in EXPLAIN, arrow strings exactly where its type is
// Str; every pipeline's inputs are its input's output kinds and its column
// references their inputs' kinds, and the devices' rules for Str uses hold
// (gpu.CheckStrUses); so for join residuals; no join key or union input is
// Str.
func checkStrTypes(t *testing.T, root Node) {
	t.Helper()
	exprKinds := func(where string, e *gpu.Expr, in []gpu.Type) {
		var walk func(e *gpu.Expr)
		walk = func(e *gpu.Expr) {
			if e == nil {
				return
			}
			if e.Op == gpu.OpCol && (e.Col >= len(in) || e.Type.Kind != in[e.Col].Kind) {
				t.Errorf("%s: %s is %s, its input %v", where, e, e.Type, in)
			}
			for _, a := range e.Args {
				walk(a)
			}
		}
		walk(e)
	}
	seen := map[Node]bool{}
	var walk func(n Node)
	walk = func(n Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		switch n := n.(type) {
		case *Scan:
			for i, ty := range n.Types {
				if ty.Kind != gpu.Dict && ty.Kind != gpu.Str {
					continue
				}
				found, arrow := false, false
				for _, l := range n.Layouts {
					if strings.HasPrefix(l, n.Columns[i]+": ") {
						found, arrow = true, strings.HasPrefix(l, n.Columns[i]+": arrow strings")
					}
				}
				if !found || arrow != (ty.Kind == gpu.Str) {
					t.Errorf("scan %s column %s is %s, layouts %q", n.Table, n.Columns[i], ty, n.Layouts)
				}
			}
		case *Pipeline:
			in := n.Input.OutputTypes()
			if len(in) != len(n.Pipe.Inputs) {
				t.Errorf("pipeline %s: inputs %v, its input gives %v", n.Pipe, n.Pipe.Inputs, in)
				break
			}
			for i := range in {
				if in[i].Kind != n.Pipe.Inputs[i].Kind {
					t.Errorf("pipeline %s: inputs %v, its input gives %v", n.Pipe, n.Pipe.Inputs, in)
				}
			}
			exprKinds(n.Pipe.String(), n.Pipe.Filter, n.Pipe.Inputs)
			for _, e := range n.Pipe.Project {
				exprKinds(n.Pipe.String(), e, n.Pipe.Inputs)
			}
			if err := gpu.CheckStrUses(n.Pipe); err != nil {
				t.Error(err)
			}
		case *Join:
			lt, rt := n.Left.OutputTypes(), n.Right.OutputTypes()
			in := append(append([]gpu.Type(nil), lt...), rt...)
			exprKinds(n.Describe(), n.Residual, in)
			if err := gpu.CheckStrUses(&gpu.Pipeline{Inputs: in, Filter: n.Residual, Sink: gpu.SinkMaterialize}); err != nil {
				t.Error(err)
			}
			for i := range n.LeftKeys {
				if lt[n.LeftKeys[i]].Kind == gpu.Str || rt[n.RightKeys[i]].Kind == gpu.Str {
					t.Errorf("%s: a str key", n.Describe())
				}
			}
		case *Union:
			for _, c := range n.Inputs {
				for _, ty := range c.OutputTypes() {
					if ty.Kind == gpu.Str {
						t.Errorf("a str union input")
					}
				}
			}
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(root)
}

// Each string column goes Str when every use on its way allows it (and it
// is high-cardinality), else stays Dict naming what keeps it one.
func TestStringLayoutFlow(t *testing.T) {
	like := func(e *gpu.Expr) *gpu.Expr {
		return gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrLike, Pattern: "%7%"}, boolN, e)
	}
	substr := func(e *gpu.Expr) *gpu.Expr {
		return gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrSubstring, From: 1, Length: 2, HasLength: true}, dictT, e)
	}
	isA := func(e *gpu.Expr) *gpu.Expr {
		return gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrCompare, Op: gpu.OpEq, Pattern: "A"}, boolN, e)
	}
	col := gpu.Col
	k := col(0, i64)
	const arrowHi = "hi: arrow strings (2727 of 3000 sampled values distinct)"
	const loDict = "lo: dictionary (2 of 3000 sampled values distinct)"
	cases := []struct {
		name   string
		plan   func() Node
		want   []string
		strOut int // a root output column that must be Str, or -1
	}{
		{"projected to the result", func() Node {
			return project(scanOf("s", "k", "hi", "lo"), isA(col(2, dictT)), k, col(1, dictT), col(2, dictT))
		}, []string{arrowHi, loDict}, 1},
		{"join payload and residual", func() Node {
			// Left: k, lo; right: k, hi; the residual and the pipeline
			// read the join's columns k, lo, k, hi.
			j := &Join{Left: project(scanOf("s", "k", "lo"), nil, k, col(1, dictT)), Right: scanOf("s", "k", "hi"),
				Type: JoinInner, LeftKeys: []int{0}, RightKeys: []int{0}, Residual: like(col(3, dictT))}
			return project(j, nil, col(3, dictT), col(1, dictT))
		}, []string{arrowHi, loDict}, 0},
		{"group key, then sort key", func() Node {
			s := scanOf("s", "k", "hi")
			agg := &Pipeline{Input: s, Pipe: &gpu.Pipeline{Inputs: s.Types, Project: []*gpu.Expr{col(1, dictT), k},
				Sink: gpu.SinkAggregate, Keys: []int{0}, Aggs: []gpu.Agg{{Kind: gpu.AggCountStar, Type: i64}, {Kind: gpu.AggMin, Arg: 1, Type: i64}}}}
			return &Sort{Input: agg, Keys: []gpu.SortKey{{Col: 0}}}
		}, []string{arrowHi}, 0},
		{"sort key", func() Node {
			return &Slice{Input: &Sort{Input: scanOf("s", "k", "hi"), Keys: []gpu.SortKey{{Col: 1, Descending: true}}, Limit: 10}, Count: 5}
		}, []string{arrowHi}, 1},
		{"join key", func() Node {
			return &Join{Left: scanOf("s", "k", "hi"), Right: scanOf("s", "hi"), Type: JoinSemi, LeftKeys: []int{1}, RightKeys: []int{0}}
		}, []string{"hi: dictionary (a join key)"}, -1},
		{"aggregate argument", func() Node {
			s := scanOf("s", "k", "hi")
			return &Pipeline{Input: s, Pipe: &gpu.Pipeline{Inputs: s.Types, Project: []*gpu.Expr{k, col(1, dictT)},
				Sink: gpu.SinkAggregate, Keys: []int{0}, Aggs: []gpu.Agg{{Kind: gpu.AggMin, Arg: 1, Type: dictT}}}}
		}, []string{"hi: dictionary (aggregated by min)"}, -1},
		{"comparison of two columns", func() Node {
			return project(scanOf("s", "k", "hi", "lo"), gpu.Call(gpu.OpEq, boolN, col(1, dictT), col(2, dictT)), k)
		}, []string{"hi: dictionary (in a comparison (=))", "lo: dictionary (in a comparison (=))"}, -1},
		{"union", func() Node {
			return &Union{Inputs: []Node{project(scanOf("s", "hi"), nil, col(0, dictT)), project(scanOf("s", "hi"), nil, col(0, dictT))}}
		}, []string{"hi: dictionary (a UNION ALL input)"}, -1},
		{"one scan under two parents", func() Node {
			// One parent passes hi on, the other reads it by substring:
			// the scan has one layout, so hi stays Dict for both.
			s := scanOf("s", "k", "hi")
			a := project(s, nil, k, col(1, dictT))
			b := project(s, nil, k, substr(col(1, dictT)))
			return &Join{Left: a, Right: b, Type: JoinInner, LeftKeys: []int{0}, RightKeys: []int{0}}
		}, []string{"hi: dictionary (read by substring)"}, -1},
		{"tiny table", func() Node {
			return project(scanOf("tiny", "k", "hi"), nil, col(1, dictT))
		}, []string{"hi: dictionary (25 rows)"}, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := &Executor{Dev: strDev{}, Source: strSource{}, Cache: NewColumnCache()}
			root := c.plan()
			if err := x.ChooseStringLayouts(context.Background(), root); err != nil {
				t.Fatal(err)
			}
			plan := Explain(root, "host")
			for _, want := range c.want {
				if !strings.Contains(plan, want) {
					t.Errorf("EXPLAIN lacks %q:\n%s", want, plan)
				}
			}
			checkStrTypes(t, root)
			if c.strOut >= 0 && root.OutputTypes()[c.strOut].Kind != gpu.Str {
				t.Errorf("result column %d is %s, want str", c.strOut, root.OutputTypes()[c.strOut])
			}
			// Idempotent: a second pass changes nothing.
			if err := x.ChooseStringLayouts(context.Background(), root); err != nil || Explain(root, "host") != plan {
				t.Errorf("second pass changed the plan (%v):\n%s", err, Explain(root, "host"))
			}
		})
	}
}

// A column is sampled once per cache, and not at all when a use keeps it a
// dictionary or the device holds no Str columns (no layouts then either).
func TestStringLayoutSamples(t *testing.T) {
	src := &countingSource{reads: map[string]int{}}
	x := &Executor{Dev: strDev{}, Source: src, Cache: NewColumnCache()}
	for i := 0; i < 2; i++ {
		root := project(scanOf("s", "k", "hi"), nil, gpu.Col(1, dictT))
		if err := x.ChooseStringLayouts(context.Background(), root); err != nil {
			t.Fatal(err)
		}
	}
	join := &Join{Left: scanOf("s", "k", "lo"), Right: scanOf("s", "lo"), Type: JoinSemi, LeftKeys: []int{1}, RightKeys: []int{0}}
	if err := x.ChooseStringLayouts(context.Background(), join); err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"s.hi": 1}; fmt.Sprint(src.reads) != fmt.Sprint(want) {
		t.Errorf("source reads %v, want %v", src.reads, want)
	}

	noStr := &Executor{Dev: struct{ gpu.Device }{host.New()}, Source: src, Cache: NewColumnCache()}
	root := strPlan()
	if err := noStr.ChooseStringLayouts(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	if s := root.(*Pipeline).Input.(*Scan); s.Types[1].Kind != gpu.Dict || s.Layouts != nil {
		t.Fatalf("a device without StrUploader got %v, layouts %q", s.Types, s.Layouts)
	}
	if src.reads["s.hi"] != 1 {
		t.Errorf("sampled for a device without StrUploader: %v", src.reads)
	}
}

// samplerSource hands out samples as arrays (ColumnSampler): column
// "unique" holds distinct strings, "few" three values.
type samplerSource struct {
	strSource
	mu    sync.Mutex
	asked map[string]int // rows asked for, per column
}

func (s *samplerSource) SampleColumn(ctx context.Context, table, column string, rows int) (arrow.Array, error) {
	s.mu.Lock()
	s.asked[column] = rows
	s.mu.Unlock()
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for i := range rows {
		if column == "unique" {
			b.Append(fmt.Sprintf("value %d", i))
		} else {
			b.Append([]string{"a", "b", "c"}[i%3])
		}
	}
	return b.NewArray(), nil
}

// A source's sample decides the layout: a column whose first half of a
// sample is distinct already goes Str without reading the rest; one of
// few values stays a dictionary. Several columns are sampled at once.
func TestStringLayoutFromSampler(t *testing.T) {
	src := &samplerSource{asked: map[string]int{}}
	x := &Executor{Dev: strDev{}, Source: src, Cache: NewColumnCache()}
	root := project(scanOf("s", "unique", "few"), nil, gpu.Col(0, dictT), gpu.Col(1, dictT))
	if err := x.ChooseStringLayouts(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	plan := Explain(root, "host")
	enough := int(strDistinctRatio*strSampleRows) + 1
	for _, want := range []string{
		fmt.Sprintf("unique: arrow strings (%d of the first %d sampled values distinct)", enough, enough),
		fmt.Sprintf("few: dictionary (3 of %d sampled values distinct)", strSampleRows),
	} {
		if !strings.Contains(plan, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, plan)
		}
	}
	if src.asked["unique"] != strSampleRows || src.asked["few"] != strSampleRows {
		t.Errorf("samples asked: %v", src.asked)
	}
}

// keepingSource keeps layout decisions (LayoutKeeper) and counts samples.
type keepingSource struct {
	samplerSource
	kept    map[string]string
	samples int
}

func (s *keepingSource) SampleColumn(ctx context.Context, table, column string, rows int) (arrow.Array, error) {
	s.mu.Lock()
	s.samples++
	s.mu.Unlock()
	return s.samplerSource.SampleColumn(ctx, table, column, rows)
}

func (s *keepingSource) KeptLayout(ctx context.Context, table, column string) (bool, string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.kept[table+"."+column]
	if !ok {
		return false, "", false
	}
	return v[0] == '1', v[1:], true
}

func (s *keepingSource) KeepLayout(ctx context.Context, table, column string, arrowLayout bool, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	flag := "0"
	if arrowLayout {
		flag = "1"
	}
	s.kept[table+"."+column] = flag + why
}

// A decision kept by the source serves another cache (another process)
// without a sample, with the same layout and the same EXPLAIN text.
func TestStringLayoutKept(t *testing.T) {
	src := &keepingSource{samplerSource: samplerSource{asked: map[string]int{}}, kept: map[string]string{}}
	plans := make([]string, 2)
	for i := range plans {
		x := &Executor{Dev: strDev{}, Source: src, Cache: NewColumnCache()}
		root := project(scanOf("s", "unique", "few"), nil, gpu.Col(0, dictT), gpu.Col(1, dictT))
		if err := x.ChooseStringLayouts(context.Background(), root); err != nil {
			t.Fatal(err)
		}
		if s := root.Input.(*Scan); s.Types[0].Kind != gpu.Str || s.Types[1].Kind != gpu.Dict {
			t.Fatalf("pass %d: types %v", i, s.Types)
		}
		plans[i] = Explain(root, "host")
	}
	if src.samples != 2 {
		t.Errorf("%d samples, want 2 (the first cache's only)", src.samples)
	}
	if plans[0] != plans[1] {
		t.Errorf("the kept decision explains otherwise:\n%s\n%s", plans[0], plans[1])
	}
}
