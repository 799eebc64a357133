package substrait

import (
	"fmt"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	extpb "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// typeFixer completes a plan bottom-up, relation by relation: each function
// call's arguments are typed by substrait-go against the input's schema;
// a function declared without an extension (DataFusion) is placed by the
// types of its first call; a call without an output type gets the one its
// variant's declaration derives from the argument types.
type typeFixer struct {
	p        *proto.Plan
	coll     *extensions.Collection
	unplaced map[uint32]*extpb.SimpleExtensionDeclaration_ExtensionFunction
	placed   map[uint32]bool
	anchorOf func(urn string) uint32
	extSet   extensions.Set
	reg      expr.ExtensionRegistry
	// derive, when set, re-types declared decimal results by the YAML
	// (decimal_derive.go) and nothing else is rewritten.
	derive *decimalDeriver
	// schemas: the output type of each relation fixed so far.
	schemas map[*proto.Rel]*types.RecordType
}

func (f *typeFixer) plan() error {
	f.placed = map[uint32]bool{}
	if err := f.rebuild(); err != nil {
		return err
	}
	for i, r := range f.p.Relations {
		in := r.GetRel()
		if root := r.GetRoot(); root != nil {
			in = root.Input
		}
		if in == nil {
			continue
		}
		if err := f.rel(in); err != nil {
			return fmt.Errorf("%w: relations[%d]: %v", ErrMalformed, i, err)
		}
	}
	return nil
}

// rebuild re-reads the declarations (after a function was placed).
func (f *typeFixer) rebuild() error {
	set, err := extensions.GetExtensionSet(f.p, f.coll)
	if err != nil {
		return fmt.Errorf("%w: extensions: %v", ErrMalformed, err)
	}
	f.extSet = set
	f.reg = expr.NewExtensionRegistry(set, f.coll)
	f.reg.SetSubqueryConverter(&plan.ExpressionConverter{ExtensionRegistry: f.reg})
	return nil
}

// schema is the output type of a (fixed) relation. It is derived from
// the relation alone, its inputs standing in as tables of their (known)
// columns: substrait-go would read the whole subtree again, and again for
// every relation above it (a chain of 200 projections took 7 s).
func (f *typeFixer) schema(r *proto.Rel) (*types.RecordType, error) {
	if s, ok := f.schemas[r]; ok {
		return s, nil
	}
	shallow, err := f.overStandIns(r)
	if err != nil {
		// An input type without a protobuf form: read the subtree.
		shallow = r
	}
	rel, err := plan.RelFromProto(shallow, f.reg)
	if err != nil {
		return nil, err
	}
	rt := rel.RecordType()
	if f.schemas == nil {
		f.schemas = map[*proto.Rel]*types.RecordType{}
	}
	f.schemas[r] = &rt
	return &rt, nil
}

var relMessage = (&proto.Rel{}).ProtoReflect().Descriptor().FullName()

// overStandIns is r with each input replaced by a named table of the
// input's columns; the rest of r (its expressions, their subqueries, its
// emit) is shared, not copied.
func (f *typeFixer) overStandIns(r *proto.Rel) (*proto.Rel, error) {
	m := r.ProtoReflect()
	kind := m.WhichOneof(m.Descriptor().Oneofs().ByName("rel_type"))
	if kind == nil || kind.Message() == nil {
		return r, nil
	}
	inner := m.Get(kind).Message()
	shallow := inner.New()
	var err error
	standIn := func(in protoreflect.Message) protoreflect.Value {
		var s *types.RecordType
		if s, err = f.schema(in.Interface().(*proto.Rel)); err != nil {
			return protoreflect.Value{}
		}
		var t *proto.Rel
		if t, err = standInTable(s); err != nil {
			return protoreflect.Value{}
		}
		return protoreflect.ValueOfMessage(t.ProtoReflect())
	}
	inner.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() == nil || fd.Message().FullName() != relMessage:
			shallow.Set(fd, v)
		case fd.IsList():
			l := shallow.Mutable(fd).List()
			for i := 0; i < v.List().Len() && err == nil; i++ {
				if x := standIn(v.List().Get(i).Message()); err == nil {
					l.Append(x)
				}
			}
		default:
			if x := standIn(v.Message()); err == nil {
				shallow.Set(fd, x)
			}
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	out := &proto.Rel{}
	out.ProtoReflect().Set(kind, protoreflect.ValueOfMessage(shallow))
	return out, nil
}

// standInTable is a read of a table of the given columns.
func standInTable(s *types.RecordType) (*proto.Rel, error) {
	ns := &proto.NamedStruct{Struct: &proto.Type_Struct{Nullability: proto.Type_NULLABILITY_REQUIRED}}
	for i, t := range s.Types() {
		p, err := TypeProto(t)
		if err != nil {
			return nil, err
		}
		ns.Struct.Types = append(ns.Struct.Types, p)
		ns.Names = append(ns.Names, fmt.Sprintf("c%d", i))
		ns.Names = append(ns.Names, nestedNames(p)...)
	}
	return &proto.Rel{RelType: &proto.Rel_Read{Read: &proto.ReadRel{BaseSchema: ns,
		ReadType: &proto.ReadRel_NamedTable_{NamedTable: &proto.ReadRel_NamedTable{Names: []string{"rigel_stand_in"}}}}}}, nil
}

// nestedNames names the fields of the structs inside t, depth first, as a
// NamedStruct lists them after t's own name.
func nestedNames(t *proto.Type) []string {
	st := t.GetStruct()
	if st == nil {
		return nil
	}
	var out []string
	for i, ft := range st.Types {
		out = append(out, fmt.Sprintf("f%d", i))
		out = append(out, nestedNames(ft)...)
	}
	return out
}

func (f *typeFixer) rel(r *proto.Rel) error {
	if r == nil {
		return nil
	}
	// fixOver fixes the relation's input(s) and returns the schema its
	// expressions read.
	fixOver := func(ins ...*proto.Rel) (*types.RecordType, error) {
		var all []types.Type
		for _, in := range ins {
			if err := f.rel(in); err != nil {
				return nil, err
			}
			s, err := f.schema(in)
			if err != nil {
				return nil, err
			}
			all = append(all, s.Types()...)
		}
		return types.NewRecordTypeFromTypes(all), nil
	}
	switch x := r.RelType.(type) {
	case *proto.Rel_Read:
		if x.Read.BaseSchema == nil {
			return nil
		}
		ns := types.NewNamedStructFromProto(x.Read.BaseSchema)
		s := types.NewRecordTypeFromStruct(ns.Struct)
		return f.exprs(s, x.Read.Filter, x.Read.BestEffortFilter)
	case *proto.Rel_Filter:
		s, err := fixOver(x.Filter.Input)
		if err != nil {
			return err
		}
		return f.exprs(s, x.Filter.Condition)
	case *proto.Rel_Project:
		s, err := fixOver(x.Project.Input)
		if err != nil {
			return err
		}
		return f.exprs(s, x.Project.Expressions...)
	case *proto.Rel_Aggregate:
		s, err := fixOver(x.Aggregate.Input)
		if err != nil {
			return err
		}
		if err := f.exprs(s, x.Aggregate.GroupingExpressions...); err != nil {
			return err
		}
		for _, g := range x.Aggregate.Groupings {
			if err := f.exprs(s, g.GroupingExpressions...); err != nil { //nolint:staticcheck // old producers write these
				return err
			}
		}
		for _, m := range x.Aggregate.Measures {
			if err := f.aggregate(s, m.Measure); err != nil {
				return err
			}
			if err := f.exprs(s, m.Filter); err != nil {
				return err
			}
		}
		return nil
	case *proto.Rel_Sort:
		s, err := fixOver(x.Sort.Input)
		if err != nil {
			return err
		}
		for _, sf := range x.Sort.Sorts {
			if err := f.exprs(s, sf.Expr); err != nil {
				return err
			}
		}
		return nil
	case *proto.Rel_Join:
		s, err := fixOver(x.Join.Left, x.Join.Right)
		if err != nil {
			return err
		}
		return f.exprs(s, x.Join.Expression, x.Join.PostJoinFilter)
	case *proto.Rel_Cross:
		_, err := fixOver(x.Cross.Left, x.Cross.Right)
		return err
	case *proto.Rel_Fetch:
		_, err := fixOver(x.Fetch.Input)
		return err
	case *proto.Rel_Set:
		for _, in := range x.Set.Inputs {
			if err := f.rel(in); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f *typeFixer) exprs(s *types.RecordType, es ...*proto.Expression) error {
	for _, e := range es {
		if err := f.expr(s, e); err != nil {
			return err
		}
	}
	return nil
}

func (f *typeFixer) expr(s *types.RecordType, e *proto.Expression) error {
	if e == nil {
		return nil
	}
	switch x := e.RexType.(type) {
	case *proto.Expression_ScalarFunction_:
		sf := x.ScalarFunction
		args, err := f.args(s, sf.Arguments)
		if err != nil {
			return err
		}
		if f.derive == nil {
			f.dateComparison(sf, args)
		}
		return f.complete(sf.FunctionReference, args, &sf.OutputType)
	case *proto.Expression_Cast_:
		return f.expr(s, x.Cast.Input)
	case *proto.Expression_IfThen_:
		for _, c := range x.IfThen.Ifs {
			if err := f.exprs(s, c.If, c.Then); err != nil {
				return err
			}
		}
		if err := f.expr(s, x.IfThen.Else); err != nil || f.derive == nil {
			return err
		}
		return f.derive.unifyIfThen(f, s, x.IfThen)
	case *proto.Expression_SingularOrList_:
		if err := f.expr(s, x.SingularOrList.Value); err != nil {
			return err
		}
		return f.exprs(s, x.SingularOrList.Options...)
	case *proto.Expression_Subquery_:
		switch q := x.Subquery.SubqueryType.(type) {
		case *proto.Expression_Subquery_Scalar_:
			return f.rel(q.Scalar.Input)
		case *proto.Expression_Subquery_InPredicate_:
			if err := f.exprs(s, q.InPredicate.Needles...); err != nil {
				return err
			}
			return f.rel(q.InPredicate.Haystack)
		case *proto.Expression_Subquery_SetPredicate_:
			return f.rel(q.SetPredicate.Tuples)
		case *proto.Expression_Subquery_SetComparison_:
			if err := f.expr(s, q.SetComparison.Left); err != nil {
				return err
			}
			return f.rel(q.SetComparison.Right)
		}
	}
	return nil
}

// args fixes a call's value arguments and returns their types (nil for
// an enum or type argument).
func (f *typeFixer) args(s *types.RecordType, args []*proto.FunctionArgument) ([]types.Type, error) {
	out := make([]types.Type, len(args))
	for i, a := range args {
		v := a.GetValue()
		if v == nil {
			continue
		}
		if err := f.expr(s, v); err != nil {
			return nil, err
		}
		e, err := expr.ExprFromProto(v, s, f.reg)
		if err != nil {
			return nil, err
		}
		out[i] = e.GetType()
	}
	return out, nil
}

func (f *typeFixer) aggregate(s *types.RecordType, a *proto.AggregateFunction) error {
	if a == nil {
		return nil
	}
	args, err := f.args(s, a.Arguments)
	if err != nil {
		return err
	}
	return f.complete(a.FunctionReference, args, &a.OutputType)
}

// complete places an unplaced function by its first call's argument types
// and fills a missing output type.
func (f *typeFixer) complete(anchor uint32, args []types.Type, out **proto.Type) error {
	if fn, ok := f.unplaced[anchor]; ok && !f.placed[anchor] {
		v, err := placeFunction(f.coll, baseName(fn.Name), args)
		if err != nil {
			return err
		}
		fn.ExtensionUrnReference = f.anchorOf(v.URN())
		fn.Name = v.CompoundName()
		f.placed[anchor] = true
		if err := f.rebuild(); err != nil {
			return err
		}
	}
	if *out != nil {
		if f.derive != nil {
			return f.derive.check(f, anchor, args, out)
		}
		return nil
	}
	id, ok := f.extSet.DecodeFunc(anchor)
	if !ok {
		return fmt.Errorf("function anchor %d is not declared", anchor)
	}
	v, ok := f.variant(id)
	if !ok {
		return fmt.Errorf("function %s (%s) has no output type and no standard declaration to derive it from", id.Name, id.URN)
	}
	var vals []types.Type
	for _, a := range args {
		if a != nil {
			vals = append(vals, a)
		}
	}
	t, err := v.ResolveType(vals, f.extSet)
	if err != nil {
		return fmt.Errorf("function %s: output type: %v", id.Name, err)
	}
	p, err := TypeProto(t)
	if err != nil {
		return fmt.Errorf("function %s: output type: %v", id.Name, err)
	}
	*out = p
	return nil
}

// variant is the declaration of a scalar or aggregate function of the
// extension collection.
func (f *typeFixer) variant(id extensions.ID) (extensions.FunctionVariant, bool) {
	if sv, ok := f.coll.GetScalarFunc(id); ok {
		return sv, true
	}
	if av, ok := f.coll.GetAggregateFunc(id); ok {
		return av, true
	}
	return nil, false
}

var comparisons = map[string]bool{"equal": true, "not_equal": true, "lt": true, "lte": true, "gt": true, "gte": true, "between": true}

// dateComparison turns the string literals a comparison holds against a
// date into dates: ibis-substrait writes l_shipdate <= '1998-09-02' with
// the string literal as it was in the SQL (its parse_sql leaves the
// implicit cast out), where the comparison functions take two dates.
func (f *typeFixer) dateComparison(sf *proto.Expression_ScalarFunction, args []types.Type) {
	id, ok := f.extSet.DecodeFunc(sf.FunctionReference)
	if !ok || !comparisons[baseName(id.Name)] {
		return
	}
	hasDate := false
	for _, t := range args {
		if _, ok := t.(*types.DateType); ok {
			hasDate = true
		}
	}
	if !hasDate {
		return
	}
	for i, a := range sf.Arguments {
		if d, ok := dateOfString(a.GetValue().GetLiteral()); ok {
			sf.Arguments[i] = &proto.FunctionArgument{ArgType: &proto.FunctionArgument_Value{Value: &proto.Expression{RexType: &proto.Expression_Literal_{Literal: d}}}}
			args[i] = &types.DateType{Nullability: types.NullabilityRequired}
			if d.Nullable {
				args[i] = &types.DateType{Nullability: types.NullabilityNullable}
			}
		}
	}
}
