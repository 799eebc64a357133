package translate

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/physical"
	"github.com/rigel-db/rigel/substrait"
)

type noSource struct{}

func (noSource) TableSchema(context.Context, string) (*arrow.Schema, error) {
	return nil, errors.New("no tables")
}
func (noSource) ScanColumns(context.Context, string, []string) (array.RecordReader, error) {
	return nil, errors.New("no tables")
}
func (noSource) ID() string { return "translate test" }

// A string function whose only column argument is its first string takes
// the dictionary-table form (OpStrMap/OpStrPred), which every device runs;
// with a column in another argument it runs row by row (OpStrRow).
func TestStringFunctionForms(t *testing.T) {
	b := plan.NewBuilderDefault()
	reg := b.GetExprBuilder().Reg
	str := func(s string) expr.Literal { return expr.NewPrimitiveLiteral(s, false) }
	vt, err := b.VirtualTable([]string{"s", "n"},
		expr.StructLiteralValue{str("abc"), expr.NewPrimitiveLiteral[int32](5, false)},
		expr.StructLiteralValue{str("bb"), expr.NewPrimitiveLiteral[int32](1, false)})
	if err != nil {
		t.Fatal(err)
	}
	col := func(i int32) types.FuncArg {
		r, err := b.RootFieldRef(vt, i)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	call := func(name string, args ...types.FuncArg) expr.Expression {
		f, err := expr.NewScalarFunc(reg, extensions.ID{URN: "extension:io.substrait:functions_string", Name: name}, nil, args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return f
	}
	i32 := func(v int32) types.FuncArg { return expr.NewPrimitiveLiteral(v, false) }
	proj, err := b.ProjectRemap(vt, []int32{2, 3, 4},
		call("lpad:str_i32_str", col(0), i32(5), str("*")),
		call("lpad:str_i32_str", col(0), col(1), str("*")),
		call("regexp_replace:str_str_str_i64_i64", col(0), str("b+"), str("<\\0>"),
			expr.NewPrimitiveLiteral[int64](1, false), expr.NewPrimitiveLiteral[int64](1, false)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.Plan(proj, []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	pb, err := p.ToProto()
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := substrait.Load(pb)
	if err != nil {
		t.Fatal(err)
	}
	root, err := Translate(loaded)
	if err != nil {
		t.Fatal(err)
	}
	pipe, ok := root.(*physical.Pipeline)
	if !ok {
		t.Fatalf("root is %T, want a pipeline", root)
	}
	wantOps := []gpu.Op{gpu.OpStrMap, gpu.OpStrRow, gpu.OpStrMap}
	for i, e := range pipe.Pipe.Project {
		if e.Op != wantOps[i] {
			t.Errorf("project %d is %s, want op %s", i, e, wantOps[i])
		}
	}
	x := &physical.Executor{Dev: host.New(), Source: noSource{}, Cache: physical.NewColumnCache()}
	rec, _, err := x.Run(context.Background(), root, []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	want := [][]string{{"**abc", "**abc", "a<b>c"}, {"***bb", "b", "<bb>"}}
	for r, row := range want {
		for c, w := range row {
			if got := rec.Column(c).(*array.String).Value(r); got != w {
				t.Errorf("row %d column %d = %q, want %q", r, c, got, w)
			}
		}
	}
}

// A timestamp rides as an Int64 inside a plan; a plan returning one gets
// its Arrow type back at the root (physical.Retype), never integers. A
// split plan (the engine's) is still refused: its root may run on DuckDB.
func TestTimestampOutputRetyped(t *testing.T) {
	b := plan.NewBuilderDefault()
	ts, err := expr.NewLiteral(types.Timestamp(1483191015000000), false)
	if err != nil {
		t.Fatal(err)
	}
	vt, err := b.VirtualTable([]string{"t"}, expr.StructLiteralValue{ts})
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.Plan(vt, []string{"t"})
	if err != nil {
		t.Fatal(err)
	}
	pb, err := p.ToProto()
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := substrait.Load(pb)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TranslateWith(loaded, Options{Split: true}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("split Translate of a plan returning a timestamp: %v, want ErrUnsupported", err)
	}
	root, err := Translate(loaded)
	if err != nil {
		t.Fatal(err)
	}
	x := &physical.Executor{Dev: host.New(), Source: noSource{}, Cache: physical.NewColumnCache()}
	rec, _, err := x.Run(context.Background(), root, []string{"t"})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	a, ok := rec.Column(0).(*array.Timestamp)
	if !ok || a.DataType().(*arrow.TimestampType).Unit != arrow.Microsecond || a.Value(0) != 1483191015000000 {
		t.Fatalf("result %s %v, want timestamp[us] 1483191015000000", rec.Column(0).DataType(), rec.Column(0))
	}
}

// Options select the variant: strpos and count_substring case-insensitive,
// center padding on the left; an option value rigel lacks is refused.
func TestStringFunctionOptions(t *testing.T) {
	b := plan.NewBuilderDefault()
	reg := b.GetExprBuilder().Reg
	vt, err := b.VirtualTable([]string{"s"},
		expr.StructLiteralValue{expr.NewPrimitiveLiteral("aBcb", false)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.RootFieldRef(vt, 0)
	if err != nil {
		t.Fatal(err)
	}
	lit := func(v string) types.FuncArg { return expr.NewPrimitiveLiteral(v, false) }
	opt := func(name, v string) []*types.FunctionOption {
		return []*types.FunctionOption{{Name: name, Preference: []string{v}}}
	}
	call := func(name string, o []*types.FunctionOption, args ...types.FuncArg) expr.Expression {
		f, err := expr.NewScalarFunc(reg, extensions.ID{URN: "extension:io.substrait:functions_string", Name: name}, o, args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return f
	}
	run := func(e expr.Expression) (arrow.Array, error) {
		proj, err := b.ProjectRemap(vt, []int32{1}, e)
		if err != nil {
			t.Fatal(err)
		}
		p, err := b.Plan(proj, []string{"r"})
		if err != nil {
			t.Fatal(err)
		}
		pb, err := p.ToProto()
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := substrait.Load(pb)
		if err != nil {
			t.Fatal(err)
		}
		root, err := Translate(loaded)
		if err != nil {
			return nil, err
		}
		x := &physical.Executor{Dev: host.New(), Source: noSource{}, Cache: physical.NewColumnCache()}
		rec, _, err := x.Run(context.Background(), root, []string{"r"})
		if err != nil {
			return nil, err
		}
		a := rec.Column(0)
		a.Retain()
		rec.Release()
		return a, nil
	}
	for _, c := range []struct {
		e    expr.Expression
		want string
	}{
		{call("strpos:str_str", nil, s, lit("b")), "4"},
		{call("strpos:str_str", opt("case_sensitivity", "CASE_INSENSITIVE"), s, lit("b")), "2"},
		{call("count_substring:str_str", opt("case_sensitivity", "CASE_INSENSITIVE_ASCII"), s, lit("B")), "2"},
		{call("center:str_i32_str", opt("padding", "LEFT"), s, expr.NewPrimitiveLiteral[int32](7, false), lit("*")), "**aBcb*"},
		{call("swapcase:str", nil, s), "AbCB"},
	} {
		a, err := run(c.e)
		if err != nil {
			t.Errorf("%s: %v", c.e, err)
			continue
		}
		got := a.ValueStr(0)
		a.Release()
		if got != c.want {
			t.Errorf("%s = %s, want %s", c.e, got, c.want)
		}
	}
	if _, err := run(call("swapcase:str", opt("char_set", "EBCDIC"), s)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("swapcase with char_set EBCDIC: %v, want ErrUnsupported", err)
	}
}
