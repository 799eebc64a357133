package substrait

import (
	"errors"
	"fmt"

	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	pb "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ErrTooLarge marks a plan refused for its size or shape before any work
// on it: it exceeds one of the budgets below. The plan may be well formed;
// it asks more than one query may.
var ErrTooLarge = errors.New("substrait plan exceeds a budget")

// Budgets of one plan, checked by Load before anything else reads the
// plan (checkBudgets). A plan comes from anyone (Flight SQL, the C ABI, a
// file); substrait-go, the type fixer, the translator and the fallback SQL
// writer recurse over it, clone shared subplans at every use and re-derive
// schemas relation by relation, so a small request could ask for
// exponential memory or cubic time. The budgets keep any plan to a couple
// of seconds of CPU on its way to a result or a refusal (shapes at each
// budget's edge: translate's TestHostileShapesStayCheap; figures in
// bench/results/), and each is at least 20 times what the largest of the
// repository's plans (TPC-H from four producers) needs: 35 relations,
// 242 expression nodes, relations 20 deep, expressions 13 deep, a schema
// work of 5,133 (TestBudgetsLeaveRoomForRealPlans).
const (
	// MaxRelations bounds the relations of a plan once its shared subplans
	// (ReferenceRel) are inlined at every use and its ExpandRels are
	// written out (one copy of the input per duplicate). Loading costs up
	// to 150 µs a relation.
	MaxRelations = 10_000
	// MaxExpressions bounds its expression nodes (the elements of a list
	// or struct literal counted one by one) after the same inlining.
	// Loading, translating and writing SQL cost up to 20 µs a node; an IN
	// list longer than this belongs in a table joined to the query.
	MaxExpressions = 100_000
	// MaxColumns bounds the columns of a relation or a table schema.
	MaxColumns = 100_000
	// MaxInlinedBytes bounds the plan's size after the same inlining, as
	// estimated from its messages and payload: a 1 MB string literal in a
	// subplan referenced a thousand times is a gigabyte once cloned.
	MaxInlinedBytes = 64 << 20
	// MaxRelationDepth bounds the nesting of relations (subqueries
	// included): every stage recurses along it.
	MaxRelationDepth = 500
	// MaxExpressionDepth bounds the nesting of one expression; DuckDB's
	// own max_expression_depth is 1000 too, so a deeper expression could
	// not fall back either.
	MaxExpressionDepth = 1_000
	// MaxSchemaWork bounds the work of deriving every relation's schema:
	// substrait-go recomputes a relation's output type from its whole
	// subtree at each use, about 2.5 µs a relation and 0.3 µs a column
	// (a chain of n filters over w columns costs about (8+w)·n²/2 units
	// of 0.3 µs), and the stages after it do the same. It is the sum, over
	// the relations, of 8 plus the output columns of every relation
	// beneath and including each.
	MaxSchemaWork = 3_000_000
	// MaxExtensionDeclarations bounds the plan's declared functions and
	// types: placing a function declared without an extension re-reads
	// every declaration.
	MaxExtensionDeclarations = 10_000
)

// relationCost is what deriving a relation's schema costs beyond its
// columns, in columns (see MaxSchemaWork).
const relationCost = 8

// planSize is what a part of a plan holds once inlined (saturating sums).
type planSize struct {
	rels, exprs, bytes uint64
	// relHeight is the longest chain of nested relations at or below;
	// exprChain the longest chain of nested expressions that ends at the
	// top of this part without crossing a relation, exprDepth the longest
	// anywhere in it.
	relHeight, exprChain, exprDepth int
	// cols is the sum of the output widths of the relations at or below;
	// work the sum of cols over those relations (see MaxSchemaWork).
	cols, work uint64
}

func satAdd(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return ^uint64(0)
}

func satMul(a, b uint64) uint64 {
	if a != 0 && b > ^uint64(0)/a {
		return ^uint64(0)
	}
	return a * b
}

// add folds a child's size into s: sums add, depths take the deepest.
func (s *planSize) add(c planSize) {
	s.rels, s.exprs, s.bytes = satAdd(s.rels, c.rels), satAdd(s.exprs, c.exprs), satAdd(s.bytes, c.bytes)
	s.cols, s.work = satAdd(s.cols, c.cols), satAdd(s.work, c.work)
	s.relHeight, s.exprChain, s.exprDepth = max(s.relHeight, c.relHeight), max(s.exprChain, c.exprChain), max(s.exprDepth, c.exprDepth)
}

// times is s repeated n times (ExpandRel's copies of its input).
func (s planSize) times(n uint64) planSize {
	s.rels, s.exprs, s.bytes = satMul(s.rels, n), satMul(s.exprs, n), satMul(s.bytes, n)
	s.cols, s.work = satMul(s.cols, n), satMul(s.work, n)
	return s
}

// budgetChecker measures a plan against the budgets in one pass over its
// messages: a shared subplan is measured once and its size added at every
// reference, so the pass is linear in the plan however much it expands.
type budgetChecker struct {
	p *proto.Plan
	// subplans: the inlined size and width of plan.relations[i], once
	// measured; measuring marks the ones under way (a cycle).
	subplans  map[int32]subplanSize
	measuring map[int32]bool
	// widths: the output width of each relation measured so far, where
	// it is exactly what substrait-go will derive (width).
	widths map[*proto.Rel]int
	// within is the subplan being measured (-1: the root's tree), for
	// messages; located says whether the error on its way up names its
	// relation yet (an expression's budget is found below it).
	within  int32
	located bool
}

type subplanSize struct {
	size       planSize
	width      int
	widthKnown bool
}

// checkBudgets refuses a plan that exceeds a budget, with an error naming
// the budget and the relation where the plan passed it.
func checkBudgets(p *proto.Plan) error {
	_, err := measurePlan(p)
	return err
}

// measurePlan is the inlined size of p's root trees, or the first budget p
// exceeds.
func measurePlan(p *proto.Plan) (planSize, error) {
	var total planSize
	if n := len(p.Extensions); n > MaxExtensionDeclarations {
		return total, fmt.Errorf("%w: extensions: %d declarations (budget substrait.MaxExtensionDeclarations = %d)", ErrTooLarge, n, MaxExtensionDeclarations)
	}
	if n := len(p.Relations); n > MaxRelations {
		return total, fmt.Errorf("%w: relations: %d entries (budget substrait.MaxRelations = %d)", ErrTooLarge, n, MaxRelations)
	}
	c := &budgetChecker{p: p, subplans: map[int32]subplanSize{}, measuring: map[int32]bool{}, widths: map[*proto.Rel]int{}, within: -1}
	for i, r := range p.Relations {
		var err error
		switch {
		case r.GetRoot() != nil:
			var s planSize
			s, err = c.measure(r.GetRoot().ProtoReflect())
			total.add(s)
		case r.GetRel() != nil:
			// A subplan costs the type fixer a pass even where nothing
			// refers to it.
			_, err = c.subplan(int32(i))
		}
		if err != nil {
			return total, fmt.Errorf("relations[%d]: %w", i, err)
		}
	}
	return total, nil
}

// subplan measures plan.relations[i] (a shared subplan) once.
func (c *budgetChecker) subplan(i int32) (subplanSize, error) {
	if s, ok := c.subplans[i]; ok {
		return s, nil
	}
	if i < 0 || int(i) >= len(c.p.Relations) {
		return subplanSize{}, fmt.Errorf("%w: ReferenceRel: subtree ordinal %d, the plan has %d relations", ErrMalformed, i, len(c.p.Relations))
	}
	sub := c.p.Relations[i].GetRel()
	if sub == nil {
		return subplanSize{}, fmt.Errorf("%w: ReferenceRel: relations[%d] is not a subplan (rel) but a root", ErrMalformed, i)
	}
	if c.measuring[i] {
		return subplanSize{}, fmt.Errorf("%w: ReferenceRel: relations[%d] refers to itself", ErrMalformed, i)
	}
	c.measuring[i] = true
	outer := c.within
	c.within = i
	s, err := c.measure(sub.ProtoReflect())
	c.within = outer
	delete(c.measuring, i)
	if err != nil {
		return subplanSize{}, err
	}
	w, known := c.widths[sub]
	out := subplanSize{size: s, width: w, widthKnown: known}
	c.subplans[i] = out
	return out, nil
}

// opaque messages hold no relation or expression: they count by their
// encoded size, unvisited.
var opaque = map[protoreflect.FullName]bool{}

func init() {
	for _, m := range []pb.Message{&proto.Type{}, &proto.NamedStruct{}, &proto.RelCommon{}} {
		opaque[m.ProtoReflect().Descriptor().FullName()] = true
	}
	opaque["google.protobuf.Any"] = true
	opaque["substrait.extensions.AdvancedExtension"] = true
}

// measure returns the inlined size of m and everything inside it, or the
// first budget it exceeds: the sums are checked as they grow, so that a
// plan far over a budget is refused after reading just past it.
func (c *budgetChecker) measure(m protoreflect.Message) (planSize, error) {
	var s planSize
	switch x := m.Interface().(type) {
	case *proto.Rel:
		if ref := x.GetReference(); ref != nil {
			sub, err := c.subplan(ref.SubtreeOrdinal)
			if err != nil {
				return s, err
			}
			if sub.widthKnown {
				c.widths[x] = sub.width
			}
			return sub.size, nil
		}
	case *proto.NamedStruct:
		if n := max(len(x.Names), len(x.GetStruct().GetTypes())); n > MaxColumns {
			return s, fmt.Errorf("%w: a schema of %d columns (budget substrait.MaxColumns = %d)", ErrTooLarge, n, MaxColumns)
		}
	}
	if opaque[m.Descriptor().FullName()] {
		s.bytes = uint64(pb.Size(m.Interface()))
		return s, nil
	}
	s.bytes = 8
	// copies: ExpandRel's input is written out once per duplicate.
	copies := uint64(1)
	if x, ok := m.Interface().(*proto.ExpandRel); ok {
		for _, f := range x.Fields {
			copies = max(copies, uint64(len(f.GetSwitchingField().GetDuplicates())))
		}
	}
	_, inLiteral := m.Interface().(*proto.Expression_Literal)
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		child := func(cm protoreflect.Message) bool {
			var cs planSize
			if cs, err = c.measure(cm); err != nil {
				return false
			}
			if copies > 1 && fd.Name() == "input" {
				cs = cs.times(copies)
			}
			if _, lit := cm.Interface().(*proto.Expression_Literal); lit && inLiteral {
				cs.exprs = satAdd(cs.exprs, 1) // an element of a list, map or struct literal
			}
			s.add(cs)
			err = s.withinSums()
			return err == nil
		}
		switch {
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if fd.MapValue().Message() != nil {
					return child(mv.Message())
				}
				s.bytes = satAdd(s.bytes, scalarBytes(mv)+scalarBytes(k.Value()))
				return true
			})
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len() && err == nil; i++ {
				child(l.Get(i).Message())
			}
		case fd.IsList():
			s.bytes = satAdd(s.bytes, satMul(uint64(v.List().Len()), 8))
		case fd.Message() != nil:
			child(v.Message())
		default:
			s.bytes = satAdd(s.bytes, scalarBytes(v))
		}
		return err == nil
	})
	switch x := m.Interface().(type) {
	case *proto.Rel:
		if err == nil {
			s.rels = satAdd(s.rels, 1)
			s.relHeight++
			s.exprChain = 0 // an expression inside a relation starts a new chain
			err = c.withinRelation(x, &s)
		}
		if err != nil && !c.located {
			// The first relation above the budget's excess names it.
			c.located = true
			err = fmt.Errorf("%s: %w", c.relLabel(x), err)
		}
	case *proto.Expression_Subquery_Scalar:
		// substrait-go types a scalar subquery by its only column, and
		// panics on a subquery of more or fewer.
		if w, ok := c.widths[x.Input]; ok && w != 1 && err == nil {
			err = fmt.Errorf("%w: a scalar subquery of %d columns (it must give exactly one)", ErrMalformed, w)
		}
	case *proto.Expression:
		s.exprs = satAdd(s.exprs, 1)
		s.exprChain++
		s.exprDepth = max(s.exprDepth, s.exprChain)
		if err == nil && s.exprChain > MaxExpressionDepth {
			err = fmt.Errorf("%w: an expression nested %d deep (budget substrait.MaxExpressionDepth = %d)", ErrTooLarge, s.exprChain, MaxExpressionDepth)
		}
	}
	if err == nil {
		err = s.withinSums()
	}
	return s, err
}

// withinSums checks the sums that only grow as more of the plan is read.
func (s planSize) withinSums() error {
	switch {
	case s.rels > MaxRelations:
		return fmt.Errorf("%w: more than %d relations once shared subplans are inlined (budget substrait.MaxRelations)", ErrTooLarge, MaxRelations)
	case s.exprs > MaxExpressions:
		return fmt.Errorf("%w: more than %d expression nodes once shared subplans are inlined (budget substrait.MaxExpressions; an IN list this long belongs in a table joined to the query)", ErrTooLarge, MaxExpressions)
	case s.bytes > MaxInlinedBytes:
		return fmt.Errorf("%w: more than %d bytes once shared subplans are inlined (budget substrait.MaxInlinedBytes)", ErrTooLarge, MaxInlinedBytes)
	case s.work > MaxSchemaWork:
		return fmt.Errorf("%w: deriving its relations' schemas takes more than %d steps, relations being this deep and wide (budget substrait.MaxSchemaWork)", ErrTooLarge, MaxSchemaWork)
	}
	return nil
}

// withinRelation counts relation r's columns into s, the size of its
// subtree, and checks them.
func (c *budgetChecker) withinRelation(r *proto.Rel, s *planSize) error {
	if j := r.GetJoin(); j != nil {
		// Before its columns are counted: a join type substrait-go cannot
		// type (relations.go).
		if _, err := joinType("JoinRel", j.Type.String()); err != nil {
			c.located = true
			return err
		}
	}
	w, err := c.width(r)
	if err != nil {
		return err
	}
	s.cols = satAdd(s.cols, uint64(w)+relationCost)
	s.work = satAdd(s.work, s.cols)
	switch {
	case s.relHeight > MaxRelationDepth:
		return fmt.Errorf("%w: relations nested %d deep (budget substrait.MaxRelationDepth = %d)", ErrTooLarge, s.relHeight, MaxRelationDepth)
	case w > MaxColumns:
		return fmt.Errorf("%w: %d output columns (budget substrait.MaxColumns = %d)", ErrTooLarge, w, MaxColumns)
	}
	return nil
}

// relLabel names relation r for a message.
func (c *budgetChecker) relLabel(r *proto.Rel) string {
	what := RelTypeName(r)
	if c.within >= 0 {
		what += fmt.Sprintf(" in the subplan relations[%d]", c.within)
	}
	return what
}

// width is r's number of output columns from its inputs' widths measured
// before it, kept where it is exactly what substrait-go will derive. It is
// 0 where it cannot be told (the budget is an estimate), and an error
// where r's emit picks a column r does not have: substrait-go panics on
// that wherever the relation's columns are asked for.
func (c *budgetChecker) width(r *proto.Rel) (int, error) {
	w, err := relWidth(r, func(in *proto.Rel) (int, error) {
		if w, ok := c.widths[in]; ok {
			return w, nil
		}
		return 0, errUnknownWidth
	})
	switch {
	case errors.Is(err, errBadEmit):
		return 0, err
	case err != nil:
		return 0, nil
	}
	if a := r.GetAggregate(); a != nil && len(a.Groupings) > 1 {
		return w, nil // substrait-go and the spec count grouping sets' columns differently
	}
	c.widths[r] = w
	return w, nil
}

var errUnknownWidth = errors.New("an input of unknown width")

func scalarBytes(v protoreflect.Value) uint64 {
	switch x := v.Interface().(type) {
	case string:
		return uint64(len(x))
	case []byte:
		return uint64(len(x))
	}
	return 8
}

// RelTypeName is the message name of a relation's kind ("FilterRel", ...).
func RelTypeName(r *proto.Rel) string {
	m := r.ProtoReflect()
	if od := m.Descriptor().Oneofs().ByName("rel_type"); od != nil {
		if fd := m.WhichOneof(od); fd != nil && fd.Message() != nil {
			return string(fd.Message().Name())
		}
	}
	return "Rel without a type"
}
