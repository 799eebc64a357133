package translate

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rigel-db/rigel/fallback"
	"github.com/rigel-db/rigel/internal/planmutate"
	"github.com/rigel-db/rigel/physical"
	"github.com/rigel-db/rigel/substrait"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	pb "google.golang.org/protobuf/proto"
)

// protoPlan decodes one of the repository's plans.
func protoPlan(t *testing.T, file string) *proto.Plan {
	return planmutate.RepoPlan(t, "..", file)
}

func mustLoad(t *testing.T, p *proto.Plan) *substrait.Plan {
	t.Helper()
	l, err := substrait.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func fallbacks(root physical.Node) []*physical.Fallback {
	var out []*physical.Fallback
	var walk func(n physical.Node)
	walk = func(n physical.Node) {
		if f, ok := n.(*physical.Fallback); ok {
			out = append(out, f)
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(root)
	return out
}

// A chain of 40 fetches, each over the one below, is translated once per
// relation, into as many device slices. When a fetch inside a plan fell
// back, the fallback's writer asked again for the inputs of every relation
// that failed, which translated the lowest one 2^n times (40 fetches never
// finished).
func TestFetchChainTranslatesOnce(t *testing.T) {
	p := protoPlan(t, "isthmus-tpch/q06.json")
	root := planmutate.RootOf(p)
	root.Input = planmutate.Nest(root.Input, planmutate.NestFetch, 40)
	l := mustLoad(t, p)
	var node physical.Node
	var err error
	if werr := planmutate.Within(20*time.Second, func() { node, err = TranslateWith(l, Options{Split: true}) }); werr != nil {
		t.Fatal(werr)
	}
	if err != nil {
		t.Fatal(err)
	}
	plan := physical.Explain(node, "host")
	if fs := fallbacks(node); len(fs) != 0 || strings.Count(plan, "Slice offset 0 count 10") != 40 {
		t.Fatalf("%d fallbacks, want none and 40 slices:\n%s", len(fs), plan)
	}
}

// An IN list runs on the device up to MaxDeviceInList numbers or
// MaxDeviceStrInList strings; a longer one (an 8.7 MB list kept the host
// device busy for minutes) is ErrUnsupported with the reason, and a split
// plan hands its filter to DuckDB.
func TestLongINListFallsBack(t *testing.T) {
	for _, c := range []struct {
		field   int32
		strings bool
		limit   int
		name    string
	}{{0, false, MaxDeviceInList, "translate.MaxDeviceInList"}, {1, true, MaxDeviceStrInList, "translate.MaxDeviceStrInList"}} {
		withList := func(n int) *substrait.Plan {
			return mustLoad(t, tableOf(&proto.Rel{RelType: &proto.Rel_Filter{Filter: &proto.FilterRel{Input: readAS(),
				Condition: planmutate.InList(planmutate.Field(c.field), n, c.strings)}}}))
		}
		if _, err := Translate(withList(c.limit)); err != nil {
			t.Fatalf("strings %v: %d options: %v", c.strings, c.limit, err)
		}
		_, err := Translate(withList(c.limit + 1))
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.name) {
			t.Fatalf("strings %v: %d options: got %v, want ErrUnsupported naming %s", c.strings, c.limit+1, err, c.name)
		}
		node, err := TranslateWith(withList(c.limit+1), Options{Split: true})
		if err != nil {
			t.Fatal(err)
		}
		fs := fallbacks(node)
		if len(fs) != 1 || !strings.Contains(fs[0].SQL, " IN (") {
			t.Fatalf("strings %v: want one fallback holding the IN list:\n%s", c.strings, physical.Explain(node, "host"))
		}
	}
}

// readAS reads table t of a BIGINT a and a VARCHAR s.
func readAS() *proto.Rel {
	nullable := proto.Type_NULLABILITY_NULLABLE
	return &proto.Rel{RelType: &proto.Rel_Read{Read: &proto.ReadRel{
		BaseSchema: &proto.NamedStruct{Names: []string{"a", "s"}, Struct: &proto.Type_Struct{Types: []*proto.Type{
			{Kind: &proto.Type_I64_{I64: &proto.Type_I64{Nullability: nullable}}},
			{Kind: &proto.Type_String_{String_: &proto.Type_String{Nullability: nullable}}}}}},
		ReadType: &proto.ReadRel_NamedTable_{NamedTable: &proto.ReadRel_NamedTable{Names: []string{"t"}}}}}}
}

// tableOf is a plan whose root is r, giving columns a and s.
func tableOf(r *proto.Rel) *proto.Plan {
	return &proto.Plan{Relations: []*proto.PlanRel{{RelType: &proto.PlanRel_Root{Root: &proto.RelRoot{Input: r, Names: []string{"a", "s"}}}}}}
}

// The type fixer (DataFusion's plans declare functions without
// extensions) derives each relation's schema once, from its inputs'
// schemas: it loaded the whole subtree again at every relation (195
// projections inside DataFusion's Q18 took 7 s, 470 filters 30 s).
func TestTypeFixerDerivesEachSchemaOnce(t *testing.T) {
	p := protoPlan(t, "datafusion-55.0.0-tpch/q18.pb")
	reads := planmutate.All[*proto.ReadRel](p)
	var read *proto.Rel
	for _, r := range planmutate.All[*proto.Rel](p) {
		if r.GetRead() == reads[0] {
			read = r
		}
	}
	// Projections that each add a column and keep only the input's: the
	// widths stay, the depth is near the budget.
	width := len(reads[0].GetProjection().GetSelect().GetStructItems())
	if width == 0 {
		width = len(reads[0].BaseSchema.Struct.Types)
	}
	keep := make([]int32, width)
	for i := range keep {
		keep[i] = int32(i)
	}
	r := &proto.Rel{RelType: read.RelType}
	for range substrait.MaxRelationDepth - 30 {
		r = &proto.Rel{RelType: &proto.Rel_Project{Project: &proto.ProjectRel{Input: r, Expressions: []*proto.Expression{planmutate.BoolLiteral(true)},
			Common: &proto.RelCommon{EmitKind: &proto.RelCommon_Emit_{Emit: &proto.RelCommon_Emit{OutputMapping: keep}}}}}}
	}
	read.RelType = r.RelType
	start := time.Now()
	if err := planmutate.Within(5*time.Second, func() { mustLoad(t, p) }); err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded in %v", time.Since(start).Round(time.Millisecond))
}

// Plans at the edge of each budget (substrait/limits.go) or of the
// device's IN-list budget are accepted or refused within seconds through
// every stage a plan meets before it runs: decoding, loading, translating
// (whole and split) and writing the fallback SQL. The times logged are
// the figures of bench/results/fuzz-*.md.
func TestHostileShapesStayCheap(t *testing.T) {
	base := protoPlan(t, "isthmus-tpch/q06.json")
	with := func(f func(p *proto.Plan, root *proto.RelRoot)) *proto.Plan {
		p := pb.Clone(base).(*proto.Plan)
		f(p, planmutate.RootOf(p))
		return p
	}
	nest := func(k planmutate.Nesting, n int) *proto.Plan {
		return with(func(_ *proto.Plan, root *proto.RelRoot) {
			root.Input = planmutate.Nest(root.Input, k, n)
			if k == planmutate.NestProject {
				for i := range n {
					root.Names = append(root.Names, fmt.Sprint("p", i))
				}
			}
		})
	}
	filter := func(cond *proto.Expression) *proto.Plan {
		return with(func(_ *proto.Plan, root *proto.RelRoot) {
			root.Input = &proto.Rel{RelType: &proto.Rel_Filter{Filter: &proto.FilterRel{Input: root.Input, Condition: cond}}}
		})
	}
	depth := substrait.MaxRelationDepth - 10 // the plan's own relations
	shapes := []struct {
		name string
		plan *proto.Plan
	}{
		{fmt.Sprintf("%d filters", depth), nest(planmutate.NestFilter, depth)},
		{"4900 filters", nest(planmutate.NestFilter, 4900)},
		{fmt.Sprintf("%d fetches", depth), nest(planmutate.NestFetch, depth)},
		{fmt.Sprintf("%d sorts", depth), nest(planmutate.NestSort, depth)},
		{"250 projections", nest(planmutate.NestProject, 250)},
		{"unions 12 deep", nest(planmutate.NestUnion, 12)},
		{"shared subplans 10 deep", with(func(p *proto.Plan, _ *proto.RelRoot) { planmutate.SharedSubplanBomb(p, 10) })},
		{"shared subplans 64 deep", with(func(p *proto.Plan, _ *proto.RelRoot) { planmutate.SharedSubplanBomb(p, 64) })},
		{"IN list of 99,000 numbers", filter(planmutate.InList(planmutate.Field(0), 99_000, false))},
		{"IN list of 99,000 strings", tableOf(&proto.Rel{RelType: &proto.Rel_Filter{Filter: &proto.FilterRel{Input: readAS(),
			Condition: planmutate.InList(planmutate.Field(1), 99_000, true)}}})},
		{"IN list of 1,000,000 numbers", filter(planmutate.InList(planmutate.Field(0), 1_000_000, false))},
		{"999 nested casts", filter(planmutate.NestExpression(planmutate.BoolLiteral(true), 999))},
		{"a 15 MB string literal", with(func(_ *proto.Plan, root *proto.RelRoot) {
			root.Input = &proto.Rel{RelType: &proto.Rel_Project{Project: &proto.ProjectRel{Input: root.Input, Expressions: []*proto.Expression{{
				RexType: &proto.Expression_Literal_{Literal: &proto.Expression_Literal{LiteralType: &proto.Expression_Literal_String_{String_: strings.Repeat("x", 15<<20)}}}}}}}}
			root.Names = append(root.Names, "big")
		})},
	}
	for _, s := range shapes {
		if t.Failed() {
			break
		}
		data, err := pb.Marshal(s.plan)
		if err != nil {
			t.Fatal(err)
		}
		var outcome string
		start := time.Now()
		werr := planmutate.Within(10*time.Second, func() { outcome = throughEveryStage(data) })
		if werr != nil {
			t.Errorf("%s: %v", s.name, werr)
			continue
		}
		t.Logf("%-30s %9d bytes %6d ms  %s", s.name, len(data), time.Since(start).Milliseconds(), outcome)
	}
}

// throughEveryStage decodes, loads, translates (whole and split) and
// writes the fallback SQL of a plan, and says how far it got.
func throughEveryStage(data []byte) string {
	p, err := substrait.Decode(data)
	if err != nil {
		return "decode: " + firstLine(err)
	}
	l, err := substrait.Load(p)
	if err != nil {
		return "load: " + firstLine(err)
	}
	_, errWhole := Translate(l)
	_, errSplit := TranslateWith(l, Options{Split: true})
	_, _, errSQL := fallback.PlanSQLArrow(l.Root, l.Names)
	return fmt.Sprintf("loaded; device: %s; split: %s; SQL: %s", firstLine(errWhole), firstLine(errSplit), firstLine(errSQL))
}

func firstLine(err error) string {
	if err == nil {
		return "ok"
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
