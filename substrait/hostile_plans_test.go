package substrait_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rigel-db/rigel/internal/planmutate"
	"github.com/rigel-db/rigel/substrait"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// plan decodes one of the repository's plans.
func plan(t *testing.T, file string) *proto.Plan {
	return planmutate.RepoPlan(t, "..", file)
}

// loadFails loads p, which must fail within a few seconds with an error
// that is want and contains every one of the phrases.
func loadFails(t *testing.T, p *proto.Plan, want error, phrases ...string) {
	t.Helper()
	var err error
	start := time.Now()
	if werr := planmutate.Within(20*time.Second, func() { _, err = substrait.Load(p) }); werr != nil {
		t.Fatalf("loading: %v", werr)
	}
	if err == nil {
		t.Fatal("the plan loaded")
	}
	if !errors.Is(err, want) {
		t.Fatalf("error %q is not %q", err, want)
	}
	for _, s := range phrases {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("error %q does not say %q", err, s)
		}
	}
	t.Logf("refused in %v: %v", time.Since(start).Round(time.Millisecond), err)
}

// A 1.6 KB plan of shared subplans that double at each level (the plan
// bomb that ran the CLI out of memory) is refused before any subplan is
// copied, naming the budget and where the plan passed it.
func TestSharedSubplanBombRefused(t *testing.T) {
	p := plan(t, "isthmus-tpch/q06.json")
	planmutate.SharedSubplanBomb(p, 64)
	loadFails(t, p, substrait.ErrTooLarge, "substrait.MaxRelations", "SetRel in the subplan relations[")
}

// ExpandRel copies its input once per duplicate: three nested expands of
// 1,000 duplicates each would be a billion relations.
func TestNestedExpandRefused(t *testing.T) {
	p := plan(t, "isthmus-tpch/q06.json")
	root := planmutate.RootOf(p)
	for range 3 {
		dups := make([]*proto.Expression, 1000)
		for i := range dups {
			dups[i] = planmutate.BoolLiteral(i%2 == 0)
		}
		root.Input = &proto.Rel{RelType: &proto.Rel_Expand{Expand: &proto.ExpandRel{Input: root.Input,
			Fields: []*proto.ExpandRel_ExpandField{{FieldType: &proto.ExpandRel_ExpandField_SwitchingField{
				SwitchingField: &proto.ExpandRel_SwitchingField{Duplicates: dups}}}}}}}
	}
	loadFails(t, p, substrait.ErrTooLarge, "ExpandRel", "budget substrait.Max")
}

// A 1 MB string in a subplan referenced 100 times is 100 MB once inlined.
func TestInlinedBytesRefused(t *testing.T) {
	p := plan(t, "isthmus-tpch/q06.json")
	root := planmutate.RootOf(p)
	big := &proto.Expression{RexType: &proto.Expression_Literal_{Literal: &proto.Expression_Literal{
		LiteralType: &proto.Expression_Literal_String_{String_: strings.Repeat("x", 1<<20)}}}}
	sub := int32(len(p.Relations))
	p.Relations = append(p.Relations, &proto.PlanRel{RelType: &proto.PlanRel_Rel{Rel: &proto.Rel{RelType: &proto.Rel_Project{
		Project: &proto.ProjectRel{Input: root.Input, Expressions: []*proto.Expression{big}}}}}})
	union := &proto.SetRel{Op: proto.SetRel_SET_OP_UNION_ALL}
	for range 100 {
		union.Inputs = append(union.Inputs, planmutate.Reference(sub))
	}
	root.Input = &proto.Rel{RelType: &proto.Rel_Set{Set: union}}
	loadFails(t, p, substrait.ErrTooLarge, "substrait.MaxInlinedBytes", "SetRel")
}

// 4,900 nested filters (which ran past 120 s) and an expression 1,001
// casts deep are refused by the depth budgets, at once.
func TestDeepNestingRefused(t *testing.T) {
	p := plan(t, "isthmus-tpch/q06.json")
	root := planmutate.RootOf(p)
	root.Input = planmutate.Nest(root.Input, planmutate.NestFilter, 4900)
	loadFails(t, p, substrait.ErrTooLarge, "FilterRel", fmt.Sprintf("budget substrait.MaxRelationDepth = %d", substrait.MaxRelationDepth))

	p = plan(t, "isthmus-tpch/q06.json")
	root = planmutate.RootOf(p)
	root.Input = &proto.Rel{RelType: &proto.Rel_Filter{Filter: &proto.FilterRel{Input: root.Input,
		Condition: planmutate.NestExpression(planmutate.BoolLiteral(true), substrait.MaxExpressionDepth+1)}}}
	loadFails(t, p, substrait.ErrTooLarge, "FilterRel: ", "budget substrait.MaxExpressionDepth")
}

// Relations deep and wide enough that deriving their schemas would take
// minutes (each projection adds a column to all below it) are refused by
// the schema work budget, though within the depth budget.
func TestSchemaWorkRefused(t *testing.T) {
	p := plan(t, "isthmus-tpch/q06.json")
	root := planmutate.RootOf(p)
	root.Input = planmutate.Nest(root.Input, planmutate.NestProject, 400)
	loadFails(t, p, substrait.ErrTooLarge, "ProjectRel", "budget substrait.MaxSchemaWork")
}

// An IN list of more options than the expression budget (the 8.7 MB one
// had a million) and a table of more columns than the column budget.
func TestLongListsRefused(t *testing.T) {
	p := plan(t, "isthmus-tpch/q06.json")
	root := planmutate.RootOf(p)
	root.Input = &proto.Rel{RelType: &proto.Rel_Filter{Filter: &proto.FilterRel{Input: root.Input,
		Condition: planmutate.InList(planmutate.Field(0), substrait.MaxExpressions+1, false)}}}
	loadFails(t, p, substrait.ErrTooLarge, "FilterRel: ", "budget substrait.MaxExpressions")

	n := substrait.MaxColumns + 1
	names := make([]string, n)
	ts := make([]*proto.Type, n)
	for i := range names {
		names[i] = fmt.Sprint("c", i)
		ts[i] = &proto.Type{Kind: &proto.Type_I64_{I64: &proto.Type_I64{Nullability: proto.Type_NULLABILITY_NULLABLE}}}
	}
	wide := &proto.Plan{Relations: []*proto.PlanRel{{RelType: &proto.PlanRel_Root{Root: &proto.RelRoot{Input: &proto.Rel{RelType: &proto.Rel_Read{Read: &proto.ReadRel{
		BaseSchema: &proto.NamedStruct{Names: names, Struct: &proto.Type_Struct{Types: ts}},
		ReadType:   &proto.ReadRel_NamedTable_{NamedTable: &proto.ReadRel_NamedTable{Names: []string{"t"}}}}}}}}}}}
	loadFails(t, wide, substrait.ErrTooLarge, "ReadRel: ", "budget substrait.MaxColumns")
}

// A reference cycle is malformed, found before inlining.
func TestReferenceCycleRefused(t *testing.T) {
	p := plan(t, "isthmus-tpch/q06.json")
	root := planmutate.RootOf(p)
	sub := int32(len(p.Relations))
	p.Relations = append(p.Relations, &proto.PlanRel{RelType: &proto.PlanRel_Rel{Rel: &proto.Rel{RelType: &proto.Rel_Filter{
		Filter: &proto.FilterRel{Input: planmutate.Reference(sub), Condition: planmutate.BoolLiteral(true)}}}}})
	root.Input = planmutate.Reference(sub)
	loadFails(t, p, substrait.ErrMalformed, fmt.Sprintf("relations[%d] refers to itself", sub))
}

// Plans that substrait-go loads but cannot type (its RecordType, GetType,
// String or Equals panic on them later, in the translator or the fallback
// SQL writer: the fuzzer's findings) are refused by Load, naming the
// relation or the field.
func TestUntypablePlansRefused(t *testing.T) {
	t.Run("right semi join", func(t *testing.T) {
		p := plan(t, "datafusion-55.0.0-tpch/q03.pb")
		joins := planmutate.All[*proto.JoinRel](p)
		if len(joins) == 0 {
			t.Fatal("no JoinRel in the plan")
		}
		joins[0].Type = proto.JoinRel_JOIN_TYPE_RIGHT_SEMI
		loadFails(t, p, substrait.ErrMalformed, "JoinRel: join type", "with the inputs swapped")
	})
	t.Run("scalar subquery of two columns", func(t *testing.T) {
		p := plan(t, "isthmus-tpch/q22.json")
		subs := planmutate.All[*proto.Expression_Subquery_Scalar](p)
		if len(subs) == 0 {
			t.Fatal("no scalar subquery in the plan")
		}
		subs[0].Input = planmutate.Nest(subs[0].Input, planmutate.NestProject, 1)
		loadFails(t, p, substrait.ErrMalformed, "a scalar subquery of 2 columns")
	})
	t.Run("emit of a column the relation does not have", func(t *testing.T) {
		p := plan(t, "isthmus-tpch/q11.json")
		sub := planmutate.All[*proto.Expression_Subquery_Scalar](p)[0]
		sub.Input = &proto.Rel{RelType: &proto.Rel_Project{Project: &proto.ProjectRel{Input: sub.Input,
			Common: &proto.RelCommon{EmitKind: &proto.RelCommon_Emit_{Emit: &proto.RelCommon_Emit{OutputMapping: []int32{-1}}}}}}}
		loadFails(t, p, substrait.ErrMalformed, "ProjectRel: malformed substrait plan: emit picks a column the relation does not have: column -1 of 1")
	})
	t.Run("call with an argument missing", func(t *testing.T) {
		p := plan(t, "isthmus-tpch/q06.json")
		calls := planmutate.All[*proto.Expression_ScalarFunction](p)
		for _, c := range calls {
			if len(c.Arguments) == 2 {
				c.Arguments = c.Arguments[:1]
				break
			}
		}
		loadFails(t, p, substrait.ErrMalformed, "called with 1 arguments, declared with 2")
	})
	// Isthmus's Q18 with a measure pointing at a scalar function (the
	// nil dereference in fallback/sqlfuncs.go), or at no function.
	t.Run("aggregate naming a scalar function", func(t *testing.T) {
		p := plan(t, "isthmus-tpch/q18.json")
		planmutate.All[*proto.AggregateFunction](p)[0].FunctionReference = 1 // and:bool
		loadFails(t, p, substrait.ErrMalformed, "measures[0].measure: function reference 1 names and:bool, which is not an aggregate function")
	})
	t.Run("undeclared function reference", func(t *testing.T) {
		p := plan(t, "isthmus-tpch/q18.json")
		planmutate.All[*proto.Expression_ScalarFunction](p)[0].FunctionReference = 17
		loadFails(t, p, substrait.ErrMalformed, "scalar_function: function reference 17 is not declared")
	})
	t.Run("masked field reference", func(t *testing.T) {
		p := plan(t, "isthmus-tpch/q06.json")
		ref := planmutate.All[*proto.Expression_FieldReference](p)[0]
		ref.ReferenceType = &proto.Expression_FieldReference_MaskedReference{MaskedReference: &proto.Expression_MaskExpression{
			Select: &proto.Expression_MaskExpression_StructSelect{StructItems: []*proto.Expression_MaskExpression_StructItem{{Field: 0}}}}}
		loadFails(t, p, substrait.ErrMalformed, "a field reference that is not a direct one")
	})
	t.Run("user-defined literal without a value", func(t *testing.T) {
		p := plan(t, "isthmus-tpch/q06.json")
		planmutate.All[*proto.Expression_Literal](p)[0].LiteralType = &proto.Expression_Literal_UserDefined_{UserDefined: &proto.Expression_Literal_UserDefined{}}
		loadFails(t, p, substrait.ErrMalformed)
	})
}

// A fetch's offset is 0 or more and its count -1 (every row) or 0 or
// more: the fallback's SQL read a count of -2 as no limit at all.
func TestFetchBoundsChecked(t *testing.T) {
	for _, c := range []struct{ offset, count int64 }{{-5, 10}, {0, -2}} {
		p := plan(t, "isthmus-tpch/q06.json")
		root := planmutate.RootOf(p)
		root.Input = &proto.Rel{RelType: &proto.Rel_Fetch{Fetch: &proto.FetchRel{Input: root.Input,
			OffsetMode: &proto.FetchRel_Offset{Offset: c.offset}, CountMode: &proto.FetchRel_Count{Count: c.count}}}}
		loadFails(t, p, substrait.ErrMalformed, fmt.Sprintf("FetchRel: offset %d and count %d", c.offset, c.count))
	}
}
