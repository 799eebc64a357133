package duckdbbridge

import (
	"fmt"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// delimSource is the delim side of a LOGICAL_DELIM_JOIN: its rel, its
// columns, and the duplicate-eliminated expressions over them.
type delimSource struct {
	rel   *pb.Rel
	in    []colType
	exprs []*duckExpr
}

// joinKind is how one DuckDB join type maps onto Substrait: the JoinRel
// type, whether the right child's columns are part of the output, and
// which sides may be padded with nulls.
type joinKind struct {
	typ                     pb.JoinRel_JoinType
	outputsRight            bool
	nullLeft, nullRightSide bool
}

var joinKinds = map[string]joinKind{
	"INNER":  {pb.JoinRel_JOIN_TYPE_INNER, true, false, false},
	"LEFT":   {pb.JoinRel_JOIN_TYPE_LEFT, true, false, true},
	"RIGHT":  {pb.JoinRel_JOIN_TYPE_RIGHT, true, true, false},
	"FULL":   {pb.JoinRel_JOIN_TYPE_OUTER, true, true, true},
	"OUTER":  {pb.JoinRel_JOIN_TYPE_OUTER, true, true, true},
	"SEMI":   {pb.JoinRel_JOIN_TYPE_LEFT_SEMI, false, false, false},
	"ANTI":   {pb.JoinRel_JOIN_TYPE_LEFT_ANTI, false, false, false},
	"SINGLE": {pb.JoinRel_JOIN_TYPE_LEFT_SINGLE, true, false, true},
}

// join converts LOGICAL_COMPARISON_JOIN, LOGICAL_DELIM_JOIN and
// LOGICAL_ANY_JOIN into a JoinRel.
//
// A delim join (a flattened correlated subquery) becomes an ordinary
// JoinRel, as in DuckDB's own Substrait extension: each LOGICAL_DELIM_GET
// under its other side becomes the delim side's subplan under an
// AggregateRel grouping on the duplicate-eliminated columns (their distinct
// values, which is what DELIM_GET returns). The delim side is converted
// once more for each DELIM_GET; the extension's saved/loaded computation
// hints, which let a consumer share that work, are not emitted.
func (p *producer) join(n *duckNode) (*pb.Rel, []colType, error) {
	if len(n.Children) != 2 {
		return nil, nil, fmt.Errorf("duckdb plan: %s has %d children, want 2", n.Type, len(n.Children))
	}
	kind, ok := joinKinds[n.JoinType]
	if !ok && n.JoinType != "MARK" {
		return nil, nil, unsupported("%s (%s)", n.Type, n.JoinType)
	}
	var rels [2]*pb.Rel
	var types [2][]colType
	var err error
	if n.Type == "LOGICAL_DELIM_JOIN" {
		side := 0
		if n.DelimFlipped {
			side = 1
		}
		if len(n.DuplicateEliminatedColumns) == 0 {
			return nil, nil, fmt.Errorf("duckdb plan: LOGICAL_DELIM_JOIN without duplicate-eliminated columns")
		}
		if rels[side], types[side], err = p.rel(n.Children[side]); err != nil {
			return nil, nil, err
		}
		p.delims = append(p.delims, delimSource{rels[side], types[side], n.DuplicateEliminatedColumns})
		rels[1-side], types[1-side], err = p.rel(n.Children[1-side])
		p.delims = p.delims[:len(p.delims)-1]
		if err != nil {
			return nil, nil, err
		}
	} else {
		for i := range rels {
			if rels[i], types[i], err = p.rel(n.Children[i]); err != nil {
				return nil, nil, err
			}
		}
	}
	lt, rt := types[0], types[1]
	if n.JoinType == "MARK" {
		if n.Type == "LOGICAL_ANY_JOIN" {
			return nil, nil, unsupported("%s (MARK)", n.Type)
		}
		return p.markJoin(n, rels, lt, rt)
	}
	joined := append(append([]colType{}, lt...), rt...)

	var cond *pb.Expression
	switch n.Type {
	case "LOGICAL_ANY_JOIN":
		if n.Condition == nil {
			return nil, nil, fmt.Errorf("duckdb plan: LOGICAL_ANY_JOIN without a condition")
		}
		if cond, _, err = p.expr(n.Condition, joined); err != nil {
			return nil, nil, err
		}
	default:
		if n.Predicate != nil {
			return nil, nil, unsupported("%s with an extra predicate", n.Type)
		}
		if cond, err = p.joinConditions(n.Conditions, lt, rt); err != nil {
			return nil, nil, err
		}
	}

	// Substrait's output: the left columns, then the right ones for the
	// types that keep them, nullable on a side the join may pad.
	var direct []colType
	for _, c := range lt {
		c.nullable = c.nullable || kind.nullLeft
		direct = append(direct, c)
	}
	var mapping []int32
	out := []colType{}
	left, err := projectionMap(n.LeftProjectionMap, len(lt))
	if err != nil {
		return nil, nil, err
	}
	for _, i := range left {
		mapping = append(mapping, int32(i))
		out = append(out, direct[i])
	}
	if kind.outputsRight {
		for _, c := range rt {
			c.nullable = c.nullable || kind.nullRightSide
			direct = append(direct, c)
		}
		right, err := projectionMap(n.RightProjectionMap, len(rt))
		if err != nil {
			return nil, nil, err
		}
		for _, i := range right {
			mapping = append(mapping, int32(len(lt)+i))
			out = append(out, direct[len(lt)+i])
		}
	}
	return &pb.Rel{RelType: &pb.Rel_Join{Join: &pb.JoinRel{
		Common: emit(mapping, len(direct)), Left: rels[0], Right: rels[1],
		Expression: cond, Type: kind.typ,
	}}}, out, nil
}

// projectionMap returns the child columns a join outputs: those of its
// projection map, or all of them when the map is empty.
func projectionMap(m []uint64, n int) ([]int, error) {
	out := make([]int, 0, n)
	if len(m) == 0 {
		for i := 0; i < n; i++ {
			out = append(out, i)
		}
		return out, nil
	}
	for _, c := range m {
		if c >= uint64(n) {
			return nil, fmt.Errorf("duckdb plan: join projection map index %d is out of range (%d columns)", c, n)
		}
		out = append(out, int(c))
	}
	return out, nil
}

// joinConditions ANDs a comparison join's conditions into one expression
// over the left columns then the right ones.
func (p *producer) joinConditions(conds []duckJoinCondition, lt, rt []colType) (*pb.Expression, error) {
	if len(conds) == 0 {
		return nil, fmt.Errorf("duckdb plan: comparison join without conditions")
	}
	var es []*pb.Expression
	nullable := false
	for _, c := range conds {
		l, ltyp, err := p.expr(c.Left, lt)
		if err != nil {
			return nil, err
		}
		r, rtyp, err := p.expr(c.Right, rt)
		if err != nil {
			return nil, err
		}
		shiftFields(r, len(lt))
		e, et, err := p.compare(c.Comparison, l, r, ltyp, rtyp)
		if err != nil {
			return nil, err
		}
		es = append(es, e)
		nullable = nullable || et.nullable
	}
	if len(es) == 1 {
		return es[0], nil
	}
	e, _, err := p.call(funcRef{urnBoolean, "and:bool", nil}, boolType(nullable), valueArgs(es...)...)
	return e, err
}

// shiftFields adds k to every reference to a field of the input record in
// e: it moves an expression over the right input of a join onto the joined
// record (left columns, then right). Only the first segment of a reference
// names an input field; deeper segments are inside that field's value.
func shiftFields(e *pb.Expression, k int) {
	walkMessages(e.ProtoReflect(), func(m protoreflect.Message) {
		ref, ok := m.Interface().(*pb.Expression_FieldReference)
		if !ok || ref.GetRootReference() == nil {
			return
		}
		if sf := ref.GetDirectReference().GetStructField(); sf != nil {
			sf.Field += int32(k)
		}
	})
}

// walkMessages calls fn on m and every message nested in it, parents first.
func walkMessages(m protoreflect.Message, fn func(protoreflect.Message)) {
	fn(m)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				walkMessages(v.List().Get(i).Message(), fn)
			}
		case fd.Message() != nil:
			walkMessages(v.Message(), fn)
		}
		return true
	})
}

// delimGet returns the distinct values of the innermost delim join's
// duplicate-eliminated columns: its delim side under an AggregateRel that
// groups on them.
func (p *producer) delimGet(n *duckNode) (*pb.Rel, []colType, error) {
	if len(p.delims) == 0 {
		return nil, nil, fmt.Errorf("duckdb plan: LOGICAL_DELIM_GET outside the delim side of a LOGICAL_DELIM_JOIN")
	}
	d := p.delims[len(p.delims)-1]
	groups, out, err := p.exprs(d.exprs, d.in)
	if err != nil {
		return nil, nil, err
	}
	if err := checkTypes("LOGICAL_DELIM_GET", n.ChunkTypes, out); err != nil {
		return nil, nil, err
	}
	return groupBy(proto.Clone(d.rel).(*pb.Rel), groups), out, nil
}

// checkTypes checks the column types an operator declares against those
// of the subplan that produces its rows.
func checkTypes(op string, want []duckType, got []colType) error {
	if len(want) != len(got) {
		return fmt.Errorf("duckdb plan: %s has %d columns, its source %d", op, len(want), len(got))
	}
	for i := range want {
		if !sameType(want[i], got[i].duck) {
			return fmt.Errorf("duckdb plan: %s column %d has type %s, its source %s", op, i, want[i], got[i].duck)
		}
	}
	return nil
}

func (p *producer) crossProduct(n *duckNode) (*pb.Rel, []colType, error) {
	if len(n.Children) != 2 {
		return nil, nil, fmt.Errorf("duckdb plan: LOGICAL_CROSS_PRODUCT has %d children, want 2", len(n.Children))
	}
	l, lt, err := p.rel(n.Children[0])
	if err != nil {
		return nil, nil, err
	}
	r, rt, err := p.rel(n.Children[1])
	if err != nil {
		return nil, nil, err
	}
	return &pb.Rel{RelType: &pb.Rel_Cross{Cross: &pb.CrossRel{Common: emit(nil, 0), Left: l, Right: r}}},
		append(append([]colType{}, lt...), rt...), nil
}
