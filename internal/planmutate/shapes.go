// Package planmutate changes decoded Substrait plans the way a hostile or
// careless client would: wrong field references, function anchors and
// types, inputs duplicated or swapped, required fields dropped, deep
// nesting, shared subplans, huge IN lists and fetch counts. The fuzz
// targets of translate/ and fallback/ drive Mutate with the fuzzer's bytes;
// the budget tests build the large shapes (shapes.go) directly.
package planmutate

import (
	"strconv"

	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	pb "google.golang.org/protobuf/proto"
)

// Nesting is a kind of relation that can wrap another.
type Nesting int

const (
	NestFilter  Nesting = iota // FilterRel with the condition true
	NestProject                // ProjectRel appending the literal true
	NestFetch                  // FetchRel of 10 rows
	NestSort                   // SortRel on the first column
	NestUnion                  // SetRel UNION ALL of the input with itself
	nestings
)

func (n Nesting) String() string {
	return [...]string{"filter", "project", "fetch", "sort", "union"}[n]
}

// Nest wraps r in n relations of kind k.
func Nest(r *proto.Rel, k Nesting, n int) *proto.Rel {
	for range n {
		switch k {
		case NestFilter:
			r = &proto.Rel{RelType: &proto.Rel_Filter{Filter: &proto.FilterRel{Input: r, Condition: BoolLiteral(true)}}}
		case NestProject:
			r = &proto.Rel{RelType: &proto.Rel_Project{Project: &proto.ProjectRel{Input: r, Expressions: []*proto.Expression{BoolLiteral(true)}}}}
		case NestFetch:
			r = &proto.Rel{RelType: &proto.Rel_Fetch{Fetch: &proto.FetchRel{Input: r,
				OffsetMode: &proto.FetchRel_Offset{}, CountMode: &proto.FetchRel_Count{Count: 10}}}}
		case NestSort:
			r = &proto.Rel{RelType: &proto.Rel_Sort{Sort: &proto.SortRel{Input: r, Sorts: []*proto.SortField{{
				Expr: Field(0), SortKind: &proto.SortField_Direction{Direction: proto.SortField_SORT_DIRECTION_ASC_NULLS_FIRST}}}}}}
		case NestUnion:
			r = &proto.Rel{RelType: &proto.Rel_Set{Set: &proto.SetRel{Op: proto.SetRel_SET_OP_UNION_ALL,
				Inputs: []*proto.Rel{r, pb.Clone(r).(*proto.Rel)}}}}
		}
	}
	return r
}

// NestExpression wraps e in n casts to a nullable boolean.
func NestExpression(e *proto.Expression, n int) *proto.Expression {
	for range n {
		e = &proto.Expression{RexType: &proto.Expression_Cast_{Cast: &proto.Expression_Cast{
			Type: boolType(), Input: e, FailureBehavior: proto.Expression_Cast_FAILURE_BEHAVIOR_THROW_EXCEPTION}}}
	}
	return e
}

// InList is value IN (0, 1, ..., n-1) over 64-bit integer literals, or
// over the strings "0", "1", ... when strings is set.
func InList(value *proto.Expression, n int, strings bool) *proto.Expression {
	opts := make([]*proto.Expression, n)
	for i := range opts {
		l := &proto.Expression_Literal{LiteralType: &proto.Expression_Literal_I64{I64: int64(i)}}
		if strings {
			l = &proto.Expression_Literal{LiteralType: &proto.Expression_Literal_String_{String_: strconv.Itoa(i)}}
		}
		opts[i] = &proto.Expression{RexType: &proto.Expression_Literal_{Literal: l}}
	}
	return &proto.Expression{RexType: &proto.Expression_SingularOrList_{SingularOrList: &proto.Expression_SingularOrList{
		Value: value, Options: opts}}}
}

// SharedSubplanBomb makes p's root a tree of shared subplans that doubles
// at each of levels: relations[k] is the UNION ALL of two references to
// relations[k-1], the first holding the old root input. The plan grows by
// a few bytes a level; inlined, by twice the relations a level.
func SharedSubplanBomb(p *proto.Plan, levels int) {
	root := RootOf(p)
	if root == nil || root.Input == nil {
		return
	}
	base := len(p.Relations)
	p.Relations = append(p.Relations, &proto.PlanRel{RelType: &proto.PlanRel_Rel{Rel: root.Input}})
	for k := 1; k <= levels; k++ {
		prev := int32(base + k - 1)
		p.Relations = append(p.Relations, &proto.PlanRel{RelType: &proto.PlanRel_Rel{Rel: &proto.Rel{RelType: &proto.Rel_Set{Set: &proto.SetRel{
			Op: proto.SetRel_SET_OP_UNION_ALL, Inputs: []*proto.Rel{Reference(prev), Reference(prev)}}}}}})
	}
	root.Input = Reference(int32(base + levels))
}

// RootOf is the plan's first root relation, or nil.
func RootOf(p *proto.Plan) *proto.RelRoot {
	for _, r := range p.GetRelations() {
		if root := r.GetRoot(); root != nil {
			return root
		}
	}
	return nil
}

// Reference is a ReferenceRel to plan.relations[i].
func Reference(i int32) *proto.Rel {
	return &proto.Rel{RelType: &proto.Rel_Reference{Reference: &proto.ReferenceRel{SubtreeOrdinal: i}}}
}

// Field is a reference to top-level field i of the input.
func Field(i int32) *proto.Expression {
	return &proto.Expression{RexType: &proto.Expression_Selection{Selection: &proto.Expression_FieldReference{
		ReferenceType: &proto.Expression_FieldReference_DirectReference{DirectReference: &proto.Expression_ReferenceSegment{
			ReferenceType: &proto.Expression_ReferenceSegment_StructField_{StructField: &proto.Expression_ReferenceSegment_StructField{Field: i}}}},
		RootType: &proto.Expression_FieldReference_RootReference_{RootReference: &proto.Expression_FieldReference_RootReference{}}}}}
}

// BoolLiteral is a boolean literal.
func BoolLiteral(b bool) *proto.Expression {
	return &proto.Expression{RexType: &proto.Expression_Literal_{Literal: &proto.Expression_Literal{
		LiteralType: &proto.Expression_Literal_Boolean{Boolean: b}}}}
}

func boolType() *proto.Type {
	return &proto.Type{Kind: &proto.Type_Bool{Bool: &proto.Type_Boolean{Nullability: proto.Type_NULLABILITY_NULLABLE}}}
}

// All lists the messages of type T in p, in order (fields by number,
// lists by position).
func All[T pb.Message](p *proto.Plan) []T {
	var out []T
	for _, m := range index(p).all {
		if x, ok := m.Interface().(T); ok {
			out = append(out, x)
		}
	}
	return out
}
