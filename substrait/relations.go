package substrait

import (
	"errors"
	"fmt"
	"strings"

	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	extpb "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
	pb "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
)

// ErrRefusedRel marks a relation rigel refuses by design (a write, a DDL
// statement, an extension relation whose meaning only its producer knows),
// as opposed to a malformed plan or a feature still missing.
var ErrRefusedRel = errors.New("relation refused by rigel")

// rewriteRelations brings the relations that substrait-go v8.1.1 cannot load
// (its RelFromProto answers a bare "not implemented" for them) to forms it
// can, keeping their meaning exactly, and refuses the rest with an error
// naming the relation and why:
//
//   - ReferenceRel (a shared subplan, plan.relations[i].rel): the subplan is
//     inlined at each reference, so it runs once per use;
//   - HashJoinRel, MergeJoinRel, NestedLoopJoinRel: physical forms of the
//     logical JoinRel; they become a JoinRel whose condition is the AND of
//     the key comparisons (equal, or is_not_distinct_from), with the same
//     type, post-join filter and emit;
//   - ExpandRel: N copies of each input row, copy i taking duplicate i of
//     every switching field: a UNION ALL of N projections of the input;
//   - ConsistentPartitionWindowRel: a projection appending one window
//     function per WindowRelFunction, with the relation's partitions and
//     sorts;
//   - a LocalFiles item in delimiter-separated text (CSV), whose format
//     substrait-go drops when loading, carries its options as an extension
//     format (anypb of the same message) for the fallback writer;
//   - Write, DDL, Update, Exchange and the extension relations are refused.
//
// p is not modified; a plan with none of these comes back as is.
func rewriteRelations(p *proto.Plan) (*proto.Plan, error) {
	if !hasSpecialRel(p.ProtoReflect()) {
		return p, nil
	}
	p = pb.Clone(p).(*proto.Plan)
	rw := &relRewriter{p: p, inlining: map[int32]bool{}}
	for i, r := range p.Relations {
		var err error
		if root := r.GetRoot(); root != nil && root.Input != nil {
			err = rw.walk(root.Input.ProtoReflect())
		}
		if err != nil {
			return nil, fmt.Errorf("relations[%d]: %w", i, err)
		}
	}
	return p, nil
}

// hasSpecialRel says whether any relation of m needs rewriteRelations.
func hasSpecialRel(m protoreflect.Message) bool {
	found := false
	visit(m, func(r *proto.Rel) {
		switch x := r.RelType.(type) {
		case *proto.Rel_Read:
			for _, it := range x.Read.GetLocalFiles().GetItems() {
				if it.GetText() != nil {
					found = true
				}
			}
		case *proto.Rel_Filter, *proto.Rel_Fetch, *proto.Rel_Aggregate, *proto.Rel_Sort, *proto.Rel_Join,
			*proto.Rel_Project, *proto.Rel_Set, *proto.Rel_Cross:
		default:
			found = true
		}
	})
	return found
}

// visit calls f on every Rel inside m, children before parents.
func visit(m protoreflect.Message, f func(*proto.Rel)) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind {
			return true
		}
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				visit(l.Get(i).Message(), f)
			}
		case fd.IsMap():
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				if fd.MapValue().Kind() == protoreflect.MessageKind {
					visit(mv.Message(), f)
				}
				return true
			})
		default:
			visit(v.Message(), f)
		}
		return true
	})
	if r, ok := m.Interface().(*proto.Rel); ok {
		f(r)
	}
}

type relRewriter struct {
	p *proto.Plan
	// inlining holds the subplans being inlined, to refuse a reference cycle.
	inlining map[int32]bool
	// fnAnchors are the function anchors added for join key comparisons.
	fnAnchors map[string]uint32
}

// walk rewrites every relation inside m, children first (a rewrite counts
// its inputs' columns, which needs them in loadable form).
func (rw *relRewriter) walk(m protoreflect.Message) error {
	var err error
	visit(m, func(r *proto.Rel) {
		if err == nil {
			err = rw.rel(r)
		}
	})
	return err
}

func (rw *relRewriter) rel(r *proto.Rel) error {
	switch x := r.RelType.(type) {
	case *proto.Rel_Reference:
		return rw.reference(r, x.Reference)
	case *proto.Rel_HashJoin:
		j := x.HashJoin
		return rw.keyJoin(r, "HashJoinRel", j.Common, j.Left, j.Right, j.LeftKeys, j.RightKeys, j.Keys, j.PostJoinFilter,
			proto.HashJoinRel_JoinType_name[int32(j.Type)])
	case *proto.Rel_MergeJoin:
		j := x.MergeJoin
		return rw.keyJoin(r, "MergeJoinRel", j.Common, j.Left, j.Right, j.LeftKeys, j.RightKeys, j.Keys, j.PostJoinFilter,
			proto.MergeJoinRel_JoinType_name[int32(j.Type)])
	case *proto.Rel_NestedLoopJoin:
		j := x.NestedLoopJoin
		t, err := joinType("NestedLoopJoinRel", proto.NestedLoopJoinRel_JoinType_name[int32(j.Type)])
		if err != nil {
			return err
		}
		cond := j.Expression
		if cond == nil {
			// The spec: a nested loop join without an expression keeps
			// every pair.
			cond = &proto.Expression{RexType: &proto.Expression_Literal_{Literal: &proto.Expression_Literal{
				LiteralType: &proto.Expression_Literal_Boolean{Boolean: true}}}}
		}
		r.RelType = &proto.Rel_Join{Join: &proto.JoinRel{Common: j.Common, Left: j.Left, Right: j.Right,
			Expression: cond, Type: t, AdvancedExtension: j.AdvancedExtension}}
		return nil
	case *proto.Rel_Expand:
		return expand(r, x.Expand)
	case *proto.Rel_Window:
		return window(r, x.Window)
	case *proto.Rel_Read:
		return textFiles(x.Read)
	case *proto.Rel_ExtensionSingle:
		return refuseExtension("ExtensionSingleRel", x.ExtensionSingle.Detail)
	case *proto.Rel_ExtensionMulti:
		return refuseExtension("ExtensionMultiRel", x.ExtensionMulti.Detail)
	case *proto.Rel_ExtensionLeaf:
		return refuseExtension("ExtensionLeafRel", x.ExtensionLeaf.Detail)
	case *proto.Rel_Write:
		w := x.Write
		return fmt.Errorf("WriteRel (%s of %s): %w: rigel runs read-only queries; a plan that writes data is for the database that holds it",
			strings.TrimPrefix(w.Op.String(), "WRITE_OP_"), writeTarget(w.GetNamedTable().GetNames(), w.GetExtensionTable()), ErrRefusedRel)
	case *proto.Rel_Ddl:
		d := x.Ddl
		return fmt.Errorf("DdlRel (%s %s %s): %w: rigel runs read-only queries; DDL is for the database that holds the tables",
			strings.TrimPrefix(d.Op.String(), "DDL_OP_"), strings.TrimPrefix(d.Object.String(), "DDL_OBJECT_"),
			writeTarget(d.GetNamedObject().GetNames(), d.GetExtensionObject()), ErrRefusedRel)
	case *proto.Rel_Update:
		return fmt.Errorf("UpdateRel (of %s): %w: rigel runs read-only queries; a plan that changes data is for the database that holds it",
			writeTarget(x.Update.GetNamedTable().GetNames(), nil), ErrRefusedRel)
	case *proto.Rel_Exchange:
		return fmt.Errorf("ExchangeRel: %w: it distributes rows among the workers of a distributed engine; rigel runs a plan in one process, so the plan is for the distributed engine (drop the exchange to run it here)", ErrRefusedRel)
	}
	return nil
}

func writeTarget(names []string, ext interface{ GetDetail() *anypb.Any }) string {
	if len(names) > 0 {
		return "table " + strings.Join(names, ".")
	}
	if ext != nil && ext.GetDetail() != nil {
		return "extension object " + ext.GetDetail().GetTypeUrl()
	}
	return "an unnamed object"
}

func refuseExtension(rel string, detail *anypb.Any) error {
	what := "no detail"
	if detail != nil {
		what = "extension " + detail.GetTypeUrl()
	}
	return fmt.Errorf("%s (%s): %w: an extension relation means what its producer defines, and rigel knows no extension relation", rel, what, ErrRefusedRel)
}

// reference inlines plan.relations[ordinal] (a PlanRel holding a rel).
func (rw *relRewriter) reference(r *proto.Rel, ref *proto.ReferenceRel) error {
	i := ref.SubtreeOrdinal
	if i < 0 || int(i) >= len(rw.p.Relations) {
		return fmt.Errorf("%w: ReferenceRel: subtree ordinal %d, the plan has %d relations", ErrMalformed, i, len(rw.p.Relations))
	}
	sub := rw.p.Relations[i].GetRel()
	if sub == nil {
		return fmt.Errorf("%w: ReferenceRel: relations[%d] is not a subplan (rel) but a root", ErrMalformed, i)
	}
	if rw.inlining[i] {
		return fmt.Errorf("%w: ReferenceRel: relations[%d] refers to itself", ErrMalformed, i)
	}
	rw.inlining[i] = true
	defer delete(rw.inlining, i)
	c := pb.Clone(sub).(*proto.Rel)
	if err := rw.walk(c.ProtoReflect()); err != nil {
		return fmt.Errorf("ReferenceRel to relations[%d]: %w", i, err)
	}
	r.RelType = c.RelType
	return nil
}

// joinType is the JoinRel type of a join's type name. Types whose columns
// substrait-go v8.1.1 does not derive are refused (for a JoinRel, by
// checkBudgets): it panics on the right semi, anti and single joins, and
// gives the mark joins no columns at all.
func joinType(rel, name string) (proto.JoinRel_JoinType, error) {
	v, ok := proto.JoinRel_JoinType_value[name]
	if !ok || v == 0 {
		return 0, fmt.Errorf("%w: %s: join type %q", ErrMalformed, rel, name)
	}
	switch t := proto.JoinRel_JoinType(v); t {
	case proto.JoinRel_JOIN_TYPE_RIGHT_SEMI, proto.JoinRel_JOIN_TYPE_RIGHT_ANTI, proto.JoinRel_JOIN_TYPE_RIGHT_SINGLE:
		return 0, fmt.Errorf("%w: %s: join type %s cannot be loaded (substrait-go v8.1.1 does not derive its columns); the same join with the inputs swapped is a LEFT one",
			ErrMalformed, rel, strings.TrimPrefix(name, "JOIN_TYPE_"))
	case proto.JoinRel_JOIN_TYPE_LEFT_MARK, proto.JoinRel_JOIN_TYPE_RIGHT_MARK:
		return 0, fmt.Errorf("%w: %s: join type %s cannot be loaded (substrait-go v8.1.1 gives it no columns)",
			ErrMalformed, rel, strings.TrimPrefix(name, "JOIN_TYPE_"))
	}
	return proto.JoinRel_JoinType(v), nil
}

// keyJoin turns a HashJoinRel or MergeJoinRel into the JoinRel it stands
// for. Its keys refer to fields of each side; in the JoinRel's condition
// the right side's fields follow the left's.
func (rw *relRewriter) keyJoin(r *proto.Rel, rel string, common *proto.RelCommon, left, right *proto.Rel,
	lkeys, rkeys []*proto.Expression_FieldReference, keys []*proto.ComparisonJoinKey, post *proto.Expression, typ string) error {
	t, err := joinType(rel, typ)
	if err != nil {
		return err
	}
	if left == nil || right == nil {
		return fmt.Errorf("%w: %s without both inputs", ErrMalformed, rel)
	}
	if len(keys) == 0 {
		// The deprecated form: left_keys[i] = right_keys[i].
		if len(lkeys) != len(rkeys) {
			return fmt.Errorf("%w: %s: %d left keys and %d right keys", ErrMalformed, rel, len(lkeys), len(rkeys))
		}
		for i := range lkeys {
			keys = append(keys, &proto.ComparisonJoinKey{Left: lkeys[i], Right: rkeys[i]})
		}
	}
	if len(keys) == 0 {
		return fmt.Errorf("%w: %s without keys", ErrMalformed, rel)
	}
	nLeft, err := arity(left)
	if err != nil {
		return fmt.Errorf("%s left input: %w", rel, err)
	}
	var cond *proto.Expression
	for i, k := range keys {
		fn := "equal:any_any"
		switch c := k.GetComparison().GetInnerType().(type) {
		case nil:
		case *proto.ComparisonJoinKey_ComparisonType_Simple:
			switch c.Simple {
			case proto.ComparisonJoinKey_SIMPLE_COMPARISON_TYPE_EQ, proto.ComparisonJoinKey_SIMPLE_COMPARISON_TYPE_UNSPECIFIED:
			case proto.ComparisonJoinKey_SIMPLE_COMPARISON_TYPE_IS_NOT_DISTINCT_FROM:
				fn = "is_not_distinct_from:any_any"
			default:
				// MIGHT_EQUAL lets the join keep pairs that are not equal
				// (a bloom filter's answer): no exact logical join.
				return fmt.Errorf("%s key %d: comparison %s: %w: it keeps pairs that may differ, which no exact join reproduces",
					rel, i, c.Simple, ErrRefusedRel)
			}
		case *proto.ComparisonJoinKey_ComparisonType_CustomFunctionReference:
			// A declared binary function of the two keys.
			l, rr, err := keyRefs(rel, i, k, nLeft)
			if err != nil {
				return err
			}
			cond = andExpr(rw, cond, call(c.CustomFunctionReference, boolType(), l, rr))
			continue
		}
		l, rr, err := keyRefs(rel, i, k, nLeft)
		if err != nil {
			return err
		}
		cond = andExpr(rw, cond, call(rw.anchor("extension:io.substrait:functions_comparison", fn), boolType(), l, rr))
	}
	r.RelType = &proto.Rel_Join{Join: &proto.JoinRel{Common: common, Left: left, Right: right, Expression: cond,
		PostJoinFilter: post, Type: t}}
	return nil
}

// keyRefs gives a join key's two fields as references into the joined row.
func keyRefs(rel string, i int, k *proto.ComparisonJoinKey, nLeft int) (*proto.Expression, *proto.Expression, error) {
	field := func(side string, f *proto.Expression_FieldReference, shift int) (*proto.Expression, error) {
		sf := f.GetDirectReference().GetStructField()
		if sf == nil || f.GetRootReference() == nil || sf.Child != nil {
			return nil, fmt.Errorf("%s key %d: the %s key is not a top-level field of its input: %w", rel, i, side,
				fmt.Errorf("a nested or outer key: %w", ErrRefusedRel))
		}
		return &proto.Expression{RexType: &proto.Expression_Selection{Selection: &proto.Expression_FieldReference{
			ReferenceType: &proto.Expression_FieldReference_DirectReference{DirectReference: &proto.Expression_ReferenceSegment{
				ReferenceType: &proto.Expression_ReferenceSegment_StructField_{StructField: &proto.Expression_ReferenceSegment_StructField{Field: sf.Field + int32(shift)}}}},
			RootType: &proto.Expression_FieldReference_RootReference_{RootReference: &proto.Expression_FieldReference_RootReference{}}}}}, nil
	}
	if k.Left == nil || k.Right == nil {
		return nil, nil, fmt.Errorf("%w: %s key %d without both sides", ErrMalformed, rel, i)
	}
	l, err := field("left", k.Left, 0)
	if err != nil {
		return nil, nil, err
	}
	r, err := field("right", k.Right, nLeft)
	return l, r, err
}

func boolType() *proto.Type {
	return &proto.Type{Kind: &proto.Type_Bool{Bool: &proto.Type_Boolean{Nullability: proto.Type_NULLABILITY_NULLABLE}}}
}

func call(anchor uint32, out *proto.Type, args ...*proto.Expression) *proto.Expression {
	fa := make([]*proto.FunctionArgument, len(args))
	for i, a := range args {
		fa[i] = &proto.FunctionArgument{ArgType: &proto.FunctionArgument_Value{Value: a}}
	}
	return &proto.Expression{RexType: &proto.Expression_ScalarFunction_{ScalarFunction: &proto.Expression_ScalarFunction{
		FunctionReference: anchor, Arguments: fa, OutputType: out}}}
}

func andExpr(rw *relRewriter, a, b *proto.Expression) *proto.Expression {
	if a == nil {
		return b
	}
	return call(rw.anchor("extension:io.substrait:functions_boolean", "and:bool"), boolType(), a, b)
}

// anchor declares the function urn#name in the plan (once) and returns its
// anchor.
func (rw *relRewriter) anchor(urn, name string) uint32 {
	key := urn + "#" + name
	if a, ok := rw.fnAnchors[key]; ok {
		return a
	}
	if rw.fnAnchors == nil {
		rw.fnAnchors = map[string]uint32{}
	}
	var urnAnchor uint32
	maxURN := uint32(0)
	for _, u := range rw.p.ExtensionUrns {
		if u.Urn == urn {
			urnAnchor = u.ExtensionUrnAnchor
		}
		maxURN = max(maxURN, u.ExtensionUrnAnchor)
	}
	// Anchors of the old URI form must not collide either.
	for a := range oldExtensionURIs(rw.p) {
		maxURN = max(maxURN, a)
	}
	if urnAnchor == 0 {
		urnAnchor = maxURN + 1
		rw.p.ExtensionUrns = append(rw.p.ExtensionUrns, &extpb.SimpleExtensionURN{ExtensionUrnAnchor: urnAnchor, Urn: urn})
	}
	maxFn := uint32(0)
	for _, d := range rw.p.Extensions {
		switch {
		case d.GetExtensionFunction() != nil:
			maxFn = max(maxFn, d.GetExtensionFunction().FunctionAnchor)
		}
	}
	a := maxFn + 1
	rw.p.Extensions = append(rw.p.Extensions, &extpb.SimpleExtensionDeclaration{
		MappingType: &extpb.SimpleExtensionDeclaration_ExtensionFunction_{ExtensionFunction: &extpb.SimpleExtensionDeclaration_ExtensionFunction{
			ExtensionUrnReference: urnAnchor, FunctionAnchor: a, Name: name}}})
	rw.fnAnchors[key] = a
	return a
}

// expand writes an ExpandRel as the UNION ALL of one projection per copy.
func expand(r *proto.Rel, x *proto.ExpandRel) error {
	if x.Input == nil {
		return fmt.Errorf("%w: ExpandRel without an input", ErrMalformed)
	}
	if len(x.Fields) == 0 {
		return fmt.Errorf("%w: ExpandRel without fields", ErrMalformed)
	}
	copies := -1
	for i, f := range x.Fields {
		if sw := f.GetSwitchingField(); sw != nil {
			if copies >= 0 && len(sw.Duplicates) != copies {
				return fmt.Errorf("%w: ExpandRel field %d: %d duplicates, an earlier switching field has %d", ErrMalformed, i, len(sw.Duplicates), copies)
			}
			copies = len(sw.Duplicates)
		} else if f.GetConsistentField() == nil {
			return fmt.Errorf("%w: ExpandRel field %d is neither switching nor consistent", ErrMalformed, i)
		}
	}
	if copies < 0 {
		copies = 1 // only consistent fields: each row once
	}
	if copies == 0 {
		return fmt.Errorf("%w: ExpandRel: a switching field without duplicates", ErrMalformed)
	}
	n, err := arity(x.Input)
	if err != nil {
		return fmt.Errorf("ExpandRel input: %w", err)
	}
	emit := make([]int32, len(x.Fields))
	for i := range emit {
		emit[i] = int32(n + i)
	}
	inputs := make([]*proto.Rel, copies)
	for c := range inputs {
		exprs := make([]*proto.Expression, len(x.Fields))
		for i, f := range x.Fields {
			if sw := f.GetSwitchingField(); sw != nil {
				exprs[i] = sw.Duplicates[c]
			} else {
				exprs[i] = f.GetConsistentField()
			}
		}
		in := x.Input
		if c > 0 {
			in = pb.Clone(x.Input).(*proto.Rel)
		}
		inputs[c] = &proto.Rel{RelType: &proto.Rel_Project{Project: &proto.ProjectRel{
			Common: &proto.RelCommon{EmitKind: &proto.RelCommon_Emit_{Emit: &proto.RelCommon_Emit{OutputMapping: append([]int32(nil), emit...)}}},
			Input:  in, Expressions: exprs}}}
	}
	common := x.Common
	if common == nil {
		common = &proto.RelCommon{EmitKind: &proto.RelCommon_Direct_{Direct: &proto.RelCommon_Direct{}}}
	}
	if copies == 1 {
		p := inputs[0].GetProject()
		if m := common.GetEmit(); m != nil {
			// The expand's emit picks among its own fields.
			out := make([]int32, len(m.OutputMapping))
			for i, j := range m.OutputMapping {
				out[i] = int32(n) + j
			}
			p.Common = &proto.RelCommon{EmitKind: &proto.RelCommon_Emit_{Emit: &proto.RelCommon_Emit{OutputMapping: out}}}
		}
		r.RelType = inputs[0].RelType
		return nil
	}
	r.RelType = &proto.Rel_Set{Set: &proto.SetRel{Common: common, Inputs: inputs, Op: proto.SetRel_SET_OP_UNION_ALL}}
	return nil
}

// window writes a ConsistentPartitionWindowRel as a projection of window
// functions that all share its partitions and sorts.
func window(r *proto.Rel, x *proto.ConsistentPartitionWindowRel) error {
	if x.Input == nil {
		return fmt.Errorf("%w: ConsistentPartitionWindowRel without an input", ErrMalformed)
	}
	exprs := make([]*proto.Expression, len(x.WindowFunctions))
	for i, f := range x.WindowFunctions {
		exprs[i] = &proto.Expression{RexType: &proto.Expression_WindowFunction_{WindowFunction: &proto.Expression_WindowFunction{
			FunctionReference: f.FunctionReference, Arguments: f.Arguments, Options: f.Options, OutputType: f.OutputType,
			Phase: f.Phase, Sorts: x.Sorts, Invocation: f.Invocation, Partitions: x.PartitionExpressions,
			BoundsType: f.BoundsType, LowerBound: f.LowerBound, UpperBound: f.UpperBound}}}
	}
	r.RelType = &proto.Rel_Project{Project: &proto.ProjectRel{Common: x.Common, Input: x.Input, Expressions: exprs,
		AdvancedExtension: x.AdvancedExtension}}
	return nil
}

// TextFileFormatURL is the type URL under which a LocalFiles item in
// delimiter-separated text keeps its options once loaded (see textFiles).
var TextFileFormatURL = "type.googleapis.com/" + string((&proto.ReadRel_LocalFiles_FileOrFiles_DelimiterSeparatedTextReadOptions{}).ProtoReflect().Descriptor().FullName())

// textFiles keeps the CSV options of LocalFiles items: substrait-go v8.1.1
// drops the text format when loading a plan, which would leave the file's
// format unknown.
func textFiles(x *proto.ReadRel) error {
	for i, it := range x.GetLocalFiles().GetItems() {
		t := it.GetText()
		if t == nil {
			continue
		}
		a, err := anypb.New(t)
		if err != nil {
			return fmt.Errorf("ReadRel local file %d: %v", i, err)
		}
		it.FileFormat = &proto.ReadRel_LocalFiles_FileOrFiles_Extension{Extension: a}
	}
	return nil
}

// arity is the number of output columns of r: what the key rewrites need
// to place the right side's fields after the left's.
func arity(r *proto.Rel) (int, error) {
	return relWidth(r, arity)
}

// errBadEmit: an emit picks a column its relation does not have.
var errBadEmit = fmt.Errorf("%w: emit picks a column the relation does not have", ErrMalformed)

// relWidth is the number of output columns of r given its inputs' (in).
func relWidth(r *proto.Rel, in func(*proto.Rel) (int, error)) (int, error) {
	withEmit := func(c *proto.RelCommon, direct int, err error) (int, error) {
		if err != nil {
			return 0, err
		}
		if m := c.GetEmit(); m != nil {
			for _, j := range m.OutputMapping {
				if j < 0 || int(j) >= direct {
					return 0, fmt.Errorf("%w: column %d of %d", errBadEmit, j, direct)
				}
			}
			return len(m.OutputMapping), nil
		}
		return direct, nil
	}
	// joined is the width of a join of the given type (a JoinRel's, or the
	// same name's of a physical join).
	joined := func(c *proto.RelCommon, left, right *proto.Rel, typ string) (int, error) {
		l, err := in(left)
		if err != nil {
			return 0, err
		}
		rr, err := in(right)
		switch typ {
		case "JOIN_TYPE_LEFT_SEMI", "JOIN_TYPE_LEFT_ANTI":
			return withEmit(c, l, err)
		case "JOIN_TYPE_RIGHT_SEMI", "JOIN_TYPE_RIGHT_ANTI":
			return withEmit(c, rr, err)
		case "JOIN_TYPE_LEFT_MARK":
			return withEmit(c, l+1, err)
		case "JOIN_TYPE_RIGHT_MARK":
			return withEmit(c, rr+1, err)
		}
		return withEmit(c, l+rr, err)
	}
	switch x := r.RelType.(type) {
	case *proto.Rel_Read:
		if m := x.Read.GetProjection().GetSelect(); m != nil {
			return withEmit(x.Read.Common, len(m.StructItems), nil)
		}
		return withEmit(x.Read.Common, len(x.Read.GetBaseSchema().GetStruct().GetTypes()), nil)
	case *proto.Rel_Filter:
		n, err := in(x.Filter.Input)
		return withEmit(x.Filter.Common, n, err)
	case *proto.Rel_Fetch:
		n, err := in(x.Fetch.Input)
		return withEmit(x.Fetch.Common, n, err)
	case *proto.Rel_Sort:
		n, err := in(x.Sort.Input)
		return withEmit(x.Sort.Common, n, err)
	case *proto.Rel_Project:
		n, err := in(x.Project.Input)
		return withEmit(x.Project.Common, n+len(x.Project.Expressions), err)
	case *proto.Rel_Window:
		n, err := in(x.Window.Input)
		return withEmit(x.Window.Common, n+len(x.Window.WindowFunctions), err)
	case *proto.Rel_Expand:
		return withEmit(x.Expand.Common, len(x.Expand.Fields), nil)
	case *proto.Rel_Aggregate:
		a := x.Aggregate
		n := len(a.GroupingExpressions)
		if len(a.GroupingExpressions) == 0 {
			for _, g := range a.Groupings {
				n += len(g.GroupingExpressions) //nolint:staticcheck // the deprecated form
			}
		}
		n += len(a.Measures)
		if len(a.Groupings) > 1 {
			// The grouping set's ordinal follows, counted differently by
			// substrait-go and the spec: the emit is not checked.
			n++
			if m := a.Common.GetEmit(); m != nil {
				return len(m.OutputMapping), nil
			}
			return n, nil
		}
		return withEmit(a.Common, n, nil)
	case *proto.Rel_Join:
		return joined(x.Join.Common, x.Join.Left, x.Join.Right, x.Join.Type.String())
	case *proto.Rel_HashJoin:
		return joined(x.HashJoin.Common, x.HashJoin.Left, x.HashJoin.Right, x.HashJoin.Type.String())
	case *proto.Rel_MergeJoin:
		return joined(x.MergeJoin.Common, x.MergeJoin.Left, x.MergeJoin.Right, x.MergeJoin.Type.String())
	case *proto.Rel_NestedLoopJoin:
		return joined(x.NestedLoopJoin.Common, x.NestedLoopJoin.Left, x.NestedLoopJoin.Right, x.NestedLoopJoin.Type.String())
	case *proto.Rel_Cross:
		l, err := in(x.Cross.Left)
		if err != nil {
			return 0, err
		}
		rr, err := in(x.Cross.Right)
		return withEmit(x.Cross.Common, l+rr, err)
	case *proto.Rel_Set:
		if len(x.Set.Inputs) == 0 {
			return 0, fmt.Errorf("%w: SetRel without inputs", ErrMalformed)
		}
		n, err := in(x.Set.Inputs[0])
		return withEmit(x.Set.Common, n, err)
	}
	return 0, fmt.Errorf("%w: cannot count the columns of %T here", ErrMalformed, r.RelType)
}
