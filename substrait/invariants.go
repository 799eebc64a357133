package substrait

import (
	"fmt"
	"strings"
	"sync"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/plan"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// checkInvariants refuses a loaded plan that substrait-go accepted but
// cannot handle: its String, Equals or ToProtoLiteral panic on what is
// checked here, wherever a later stage asks (the translator, the fallback
// SQL writer, EXPLAIN), and a fetch of a negative offset or count would be
// read as no limit. Found by fuzzing (translate's and fallback's Fuzz
// targets); each error names the relation.
func checkInvariants(r plan.Rel, path string, coll *extensions.Collection) error {
	path += "/" + RelName(r)
	// Inputs first: a check below may ask an input for its columns.
	for i, in := range r.GetInputs() {
		if err := checkInvariants(in, fmt.Sprintf("%s[%d]", path, i), coll); err != nil {
			return err
		}
	}
	if f, ok := r.(*plan.FetchRel); ok {
		// The spec's count is -1 for all rows or a number of rows.
		if f.Offset() < 0 || f.Count() < -1 {
			return fmt.Errorf("%w: %s: offset %d and count %d (an offset of 0 or more, a count of -1 for every row or 0 or more)", ErrMalformed, path, f.Offset(), f.Count())
		}
	}
	if a, ok := r.(*plan.AggregateRel); ok {
		for i, m := range a.Measures() {
			if f := m.Measure(); f != nil && !resolved(f.Name) {
				return fmt.Errorf("%w: %s: measure %d calls a function that its extension declaration does not resolve to (no such function at that URN)", ErrMalformed, path, i)
			}
		}
	}
	for _, e := range relExpressions(r) {
		if e == nil {
			continue
		}
		err := walkExpr(e, func(e expr.Expression) error {
			if f, ok := e.(*expr.ScalarFunction); ok && !resolved(f.Name) {
				return fmt.Errorf("%w: %s: a call of a function that its extension declaration does not resolve to (no such function at that URN)", ErrMalformed, path)
			}
			if f, ok := e.(*expr.WindowFunction); ok && !resolved(f.Name) {
				return fmt.Errorf("%w: %s: a window call of a function that its extension declaration does not resolve to (no such function at that URN)", ErrMalformed, path)
			}
			if f, ok := e.(*expr.ScalarFunction); ok {
				// substrait-go compares calls argument by argument
				// without checking their counts (Equals indexes past
				// the shorter call's arguments).
				if v, ok := coll.GetScalarFunc(f.ID()); ok {
					if err := checkArity(f.ID(), f.NArgs(), v.Args(), v.Variadic()); err != nil {
						return fmt.Errorf("%w: %s: %v", ErrMalformed, path, err)
					}
				}
			}
			if l, ok := e.(expr.Literal); ok {
				if _, err := LiteralProto(l); err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
			}
			if f, ok := e.(*expr.FieldReference); ok {
				// substrait-go prints (and so reports) only direct
				// references; a masked one panics in String.
				if _, direct := f.Reference.(expr.ReferenceSegment); !direct {
					return fmt.Errorf("%w: %s: a field reference that is not a direct one (%T) cannot be loaded", ErrMalformed, path, f.Reference)
				}
			}
			return checkSubquery(e, path, coll)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// resolved reports whether a loaded call has its function: substrait-go
// loads a call whose declaration names a function that the declaration's
// URN does not declare (a renamed one: "count:" under the decimal
// arithmetic extension) without one, and its Name then dereferences nil
// (translate's FuzzMutatedPlanTranslate).
func resolved(name func() string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	name()
	return true
}

// checkSubquery checks the relation inside a subquery expression (the
// column count of a scalar one is checked before loading, limits.go).
func checkSubquery(e expr.Expression, path string, coll *extensions.Collection) error {
	var in plan.Rel
	switch x := e.(type) {
	case *plan.ScalarSubquery:
		in = x.Input
	case *plan.InPredicateSubquery:
		in = x.Haystack
	case *plan.SetPredicateSubquery:
		in = x.Tuples
	case *plan.SetComparisonSubquery:
		in = x.Right
	default:
		return nil
	}
	if in == nil {
		return fmt.Errorf("%w: %s: a subquery without its relation", ErrMalformed, path)
	}
	return checkInvariants(in, path+"/subquery", coll)
}

// checkArity checks a call's number of arguments (values, enums and
// types) against its declaration.
func checkArity(id extensions.ID, n int, params extensions.FuncParameterList, variadic *extensions.VariadicBehavior) error {
	if variadic == nil {
		if n != len(params) {
			return fmt.Errorf("function %s called with %d arguments, declared with %d", id.Name, n, len(params))
		}
		return nil
	}
	fixed := max(len(params)-1, 0) // the last parameter repeats
	if n < fixed || !variadic.IsValidArgumentCount(n-fixed) {
		return fmt.Errorf("function %s called with %d arguments, declared with %d and %d to %d more", id.Name, n, fixed, variadic.Min, variadic.Max)
	}
	return nil
}

// relExpressions lists the expressions a relation holds itself.
func relExpressions(r plan.Rel) []expr.Expression {
	var out []expr.Expression
	type filtered interface {
		Filter() expr.Expression
		BestEffortFilter() expr.Expression
	}
	if f, ok := r.(filtered); ok {
		out = append(out, f.Filter(), f.BestEffortFilter())
	}
	switch x := r.(type) {
	case *plan.VirtualTableReadRel:
		for _, row := range x.Values() {
			for _, e := range row {
				out = append(out, e)
			}
		}
	case *plan.FilterRel:
		out = append(out, x.Condition())
	case *plan.ProjectRel:
		out = append(out, x.Expressions()...)
	case *plan.AggregateRel:
		out = append(out, x.GroupingExpressions()...)
		for _, m := range x.Measures() {
			if a := m.Measure(); a != nil {
				for i := 0; i < a.NArgs(); i++ {
					if e, ok := a.Arg(i).(expr.Expression); ok {
						out = append(out, e)
					}
				}
			}
			out = append(out, m.Filter())
		}
	case *plan.SortRel:
		for _, s := range x.Sorts() {
			out = append(out, s.Expr)
		}
	case *plan.JoinRel:
		out = append(out, x.Expr(), x.PostJoinFilter())
	}
	return out
}

// checkFunctionReferences checks, before anything reads the plan's
// calls, that every call names a declared function of its kind (by the
// declared name: other producers' URNs resolve only later). substrait-go
// loads a call whose reference names no function of its kind (Isthmus's
// Q18 with a measure pointing at and:bool) as a function without a
// declaration, whose name then panics wherever it is asked, and panics
// itself parsing a name it does not know as a signature: a name no
// extension of the collection declares is an unknown function here.
func checkFunctionReferences(p *proto.Plan, coll *extensions.Collection) error {
	declared := map[uint32]string{}
	for _, d := range p.Extensions {
		if f := d.GetExtensionFunction(); f != nil {
			declared[f.FunctionAnchor] = f.Name
		}
	}
	kinds := functionKinds(coll)
	var path []string
	var err error
	check := func(anchor uint32, want functionKind, ok func(functionKind) bool) {
		name, isDeclared := declared[anchor]
		if !isDeclared {
			err = fmt.Errorf("%w: %s: function reference %d is not declared", ErrMalformed, strings.Join(path, "."), anchor)
			return
		}
		base := baseName(name)
		if al := functionAliases[base]; al.to != "" {
			base = al.to
		}
		switch k := kinds[base]; {
		case k == 0:
			err = fmt.Errorf("%s: function reference %d: %w %q: no extension rigel knows declares a function of that name", strings.Join(path, "."), anchor, ErrUnknownFunction, name)
		case !ok(k):
			err = fmt.Errorf("%w: %s: function reference %d names %s, which is not %s function", ErrMalformed, strings.Join(path, "."), anchor, name, want)
		}
	}
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *proto.Expression_ScalarFunction:
			check(x.FunctionReference, scalarKind, func(k functionKind) bool { return k&scalarKind != 0 })
		case *proto.AggregateFunction:
			check(x.FunctionReference, aggregateKind, func(k functionKind) bool { return k&aggregateKind != 0 })
		case *proto.Expression_WindowFunction:
			check(x.FunctionReference, windowKind, func(k functionKind) bool { return k&(windowKind|aggregateKind) != 0 })
		case *proto.ConsistentPartitionWindowRel_WindowRelFunction:
			check(x.FunctionReference, windowKind, func(k functionKind) bool { return k&(windowKind|aggregateKind) != 0 })
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case err != nil || fd.Message() == nil || fd.IsMap():
			case fd.IsList():
				l := v.List()
				for i := 0; i < l.Len() && err == nil; i++ {
					path = append(path, fmt.Sprintf("%s[%d]", fd.Name(), i))
					walk(l.Get(i).Message())
					path = path[:len(path)-1]
				}
			default:
				path = append(path, string(fd.Name()))
				walk(v.Message())
				path = path[:len(path)-1]
			}
			return err == nil
		})
	}
	for i, r := range p.Relations {
		path = []string{fmt.Sprintf("relations[%d]", i)}
		if walk(r.ProtoReflect()); err != nil {
			return err
		}
	}
	return nil
}

// functionKind says what a function name is in the collection: scalar,
// aggregate, window, or several.
type functionKind uint8

const (
	scalarKind functionKind = 1 << iota
	aggregateKind
	windowKind
)

func (k functionKind) String() string {
	switch k {
	case scalarKind:
		return "a scalar"
	case aggregateKind:
		return "an aggregate"
	}
	return "a window or aggregate"
}

var kindsOnce struct {
	sync.Once
	kinds map[string]functionKind
}

// functionKinds maps each function name of the collection to its kinds.
func functionKinds(coll *extensions.Collection) map[string]functionKind {
	kindsOnce.Do(func() {
		k := map[string]functionKind{}
		for _, v := range coll.GetAllScalarFunctions() {
			k[v.Name()] |= scalarKind
		}
		for _, v := range coll.GetAllAggregateFunctions() {
			k[v.Name()] |= aggregateKind
		}
		for _, v := range coll.GetAllWindowFunctions() {
			k[v.Name()] |= windowKind
		}
		kindsOnce.kinds = k
	})
	return kindsOnce.kinds
}
