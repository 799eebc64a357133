package planmutate

import (
	"fmt"
	"math"
	"strings"

	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	extpb "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
	pb "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MaxMutations is the most mutations one call of Mutate applies.
const MaxMutations = 16

// Mutate changes p in place by mutations that ops chooses, and says what
// it did, one line per mutation. Each mutation reads its kind and its
// targets from the next bytes of ops (zero once ops runs out), so the
// same p and ops always give the same plan, and a fuzzer that changes,
// grows or shrinks ops explores and minimises plans.
func Mutate(p *proto.Plan, ops []byte) []string {
	c := &chooser{b: ops}
	var done []string
	for len(done) < MaxMutations && !c.done() {
		k := c.intn(len(mutations))
		m := mutations[k]
		ix := index(p)
		if what := m.apply(p, ix, c); what != "" {
			done = append(done, m.name+": "+what)
		}
	}
	return done
}

// Kinds is the number of mutation kinds: ops[0] % Kinds picks the first.
func Kinds() int { return len(mutations) }

// chooser reads choices from the fuzzer's bytes.
type chooser struct {
	b []byte
	i int
}

func (c *chooser) done() bool { return c.i >= len(c.b) }

func (c *chooser) byte() byte {
	if c.i >= len(c.b) {
		return 0
	}
	v := c.b[c.i]
	c.i++
	return v
}

// intn picks a number below n (one byte, two when n is larger than 256).
func (c *chooser) intn(n int) int {
	if n <= 1 {
		return 0
	}
	v := int(c.byte())
	if n > 256 {
		v = v<<8 | int(c.byte())
	}
	return v % n
}

// planIndex lists the parts of a plan that mutations pick from, in a
// fixed order (fields by number, lists by position).
type planIndex struct {
	all      []protoreflect.Message
	byName   map[protoreflect.FullName][]protoreflect.Message
	rels     []*proto.Rel
	exprs    []*proto.Expression
	fields   []*proto.Expression_ReferenceSegment_StructField
	anchors  []*uint32 // function references of calls
	withEnum []protoreflect.Message
}

func index(p *proto.Plan) *planIndex {
	ix := &planIndex{byName: map[protoreflect.FullName][]protoreflect.Message{}}
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		ix.all = append(ix.all, m)
		ix.byName[m.Descriptor().FullName()] = append(ix.byName[m.Descriptor().FullName()], m)
		switch x := m.Interface().(type) {
		case *proto.Rel:
			ix.rels = append(ix.rels, x)
		case *proto.Expression:
			ix.exprs = append(ix.exprs, x)
		case *proto.Expression_ReferenceSegment_StructField:
			ix.fields = append(ix.fields, x)
		case *proto.Expression_ScalarFunction:
			ix.anchors = append(ix.anchors, &x.FunctionReference)
		case *proto.AggregateFunction:
			ix.anchors = append(ix.anchors, &x.FunctionReference)
		case *proto.Expression_WindowFunction:
			ix.anchors = append(ix.anchors, &x.FunctionReference)
		case *proto.ConsistentPartitionWindowRel_WindowRelFunction:
			ix.anchors = append(ix.anchors, &x.FunctionReference)
		}
		fds := m.Descriptor().Fields()
		hasEnum := false
		for i := 0; i < fds.Len(); i++ {
			fd := fds.Get(i)
			if fd.Kind() == protoreflect.EnumKind && !fd.IsList() {
				hasEnum = true
			}
			if !m.Has(fd) || fd.Message() == nil || fd.IsMap() {
				continue
			}
			if fd.IsList() {
				l := m.Get(fd).List()
				for j := 0; j < l.Len(); j++ {
					walk(l.Get(j).Message())
				}
				continue
			}
			walk(m.Get(fd).Message())
		}
		if hasEnum {
			ix.withEnum = append(ix.withEnum, m)
		}
	}
	walk(p.ProtoReflect())
	return ix
}

type mutation struct {
	name  string
	apply func(p *proto.Plan, ix *planIndex, c *chooser) string
}

var mutations = []mutation{
	{"field reference", fieldReference},
	{"function anchor", functionAnchor},
	{"extension declaration", extensionDeclaration},
	{"oneof", switchOneof},
	{"scalar", setScalar},
	{"enum", setEnum},
	{"drop field", dropField},
	{"list", editList},
	{"same-type clone", cloneSameType},
	{"duplicate input", duplicateInput},
	{"swap sides", swapSides},
	{"nest relations", nestRelations},
	{"nest expression", nestExpression},
	{"shared subplan", sharedSubplan},
	{"IN list", inList},
	{"fetch", fetch},
	{"emit", emit},
}

func pick[T any](c *chooser, xs []T) (T, bool) {
	var zero T
	if len(xs) == 0 {
		return zero, false
	}
	return xs[c.intn(len(xs))], true
}

// fieldReference points a field reference out of range, negative, or at
// a neighbouring field.
func fieldReference(_ *proto.Plan, ix *planIndex, c *chooser) string {
	f, ok := pick(c, ix.fields)
	if !ok {
		return ""
	}
	old := f.Field
	f.Field = []int32{-1, 0, old + 1, old - 1, 1 << 20, math.MaxInt32, int32(c.byte())}[c.intn(7)]
	return fmt.Sprintf("field %d -> %d", old, f.Field)
}

// functionAnchor points a call at another declared function, at an
// undeclared anchor, or at anchor 0.
func functionAnchor(p *proto.Plan, ix *planIndex, c *chooser) string {
	a, ok := pick(c, ix.anchors)
	if !ok {
		return ""
	}
	old := *a
	var declared []uint32
	for _, d := range p.Extensions {
		if f := d.GetExtensionFunction(); f != nil {
			declared = append(declared, f.FunctionAnchor)
		}
	}
	switch c.intn(4) {
	case 0:
		*a = 0
	case 1:
		*a = 9999
	case 2:
		*a = old + 1
	default:
		if d, ok := pick(c, declared); ok {
			*a = d
		}
	}
	return fmt.Sprintf("anchor %d -> %d", old, *a)
}

var functionNames = []string{"and:bool", "equal:any_any", "sum:dec", "count:", "substring:str_i32_i32",
	"multiply:dec_dec", "add:i64_i64", "no_such_function", "", "extract:req_date", "like:str_str", "and"}

// extensionDeclaration renames, re-points, duplicates or deletes a
// declared extension (function or type).
func extensionDeclaration(p *proto.Plan, _ *planIndex, c *chooser) string {
	d, ok := pick(c, p.Extensions)
	if !ok {
		return ""
	}
	f := d.GetExtensionFunction()
	switch c.intn(5) {
	case 0:
		if f == nil {
			return ""
		}
		old := f.Name
		f.Name = functionNames[c.intn(len(functionNames))]
		return fmt.Sprintf("rename %q -> %q", old, f.Name)
	case 1:
		if f == nil {
			return ""
		}
		old := f.ExtensionUrnReference
		f.ExtensionUrnReference = []uint32{0, 9999, math.MaxUint32, old + 1}[c.intn(4)]
		return fmt.Sprintf("extension reference %d -> %d", old, f.ExtensionUrnReference)
	case 2:
		p.Extensions = append(p.Extensions, pb.Clone(d).(*extpb.SimpleExtensionDeclaration))
		return "duplicate a declaration"
	case 3:
		for i, x := range p.Extensions {
			if x == d {
				p.Extensions = append(p.Extensions[:i], p.Extensions[i+1:]...)
				break
			}
		}
		return "delete a declaration"
	default:
		if u, ok := pick(c, p.ExtensionUrns); ok {
			u.Urn = []string{"", "extension:io.substrait:functions_arithmetic", "urn:nothing", "extension:io.substrait:functions_boolean"}[c.intn(4)]
			return fmt.Sprintf("urn -> %q", u.Urn)
		}
	}
	return ""
}

// switchOneof sets a oneof (a relation's, expression's, literal's or
// type's kind) to another of its members, fresh.
func switchOneof(_ *proto.Plan, ix *planIndex, c *chooser) string {
	var with []protoreflect.Message
	for _, m := range ix.all {
		if m.Descriptor().Oneofs().Len() > 0 {
			with = append(with, m)
		}
	}
	m, ok := pick(c, with)
	if !ok {
		return ""
	}
	od := m.Descriptor().Oneofs().Get(c.intn(m.Descriptor().Oneofs().Len()))
	fd := od.Fields().Get(c.intn(od.Fields().Len()))
	m.Set(fd, freshValue(m, fd, c))
	return fmt.Sprintf("%s.%s = %s", m.Descriptor().Name(), od.Name(), fd.Name())
}

// freshValue is a value for field fd of m: an interesting scalar, or a
// new message (a copy of another of the same type in the plan, or empty).
func freshValue(m protoreflect.Message, fd protoreflect.FieldDescriptor, c *chooser) protoreflect.Value {
	if fd.Message() != nil {
		return protoreflect.ValueOfMessage(m.NewField(fd).Message())
	}
	return interesting(fd, m.Get(fd), c)
}

// interesting is a value of fd's kind that breaks assumptions: bounds,
// zero, negative, off by one, an unknown enum number, an empty or long
// string, a short or long byte string.
func interesting(fd protoreflect.FieldDescriptor, cur protoreflect.Value, c *chooser) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(!cur.Bool())
	case protoreflect.EnumKind:
		n := protoreflect.EnumNumber(c.intn(fd.Enum().Values().Len() + 2))
		return protoreflect.ValueOfEnum(n)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		v := int32(cur.Int())
		return protoreflect.ValueOfInt32([]int32{-1, 0, 1, 2, 38, 39, v + 1, v - 1, math.MaxInt32, math.MinInt32, int32(c.byte())}[c.intn(11)])
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		v := cur.Int()
		return protoreflect.ValueOfInt64([]int64{-1, 0, 1, v + 1, v - 1, math.MaxInt64, math.MinInt64, 1 << 40, int64(c.byte())}[c.intn(9)])
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		v := uint32(cur.Uint())
		return protoreflect.ValueOfUint32([]uint32{0, 1, 2, v + 1, v - 1, math.MaxUint32, uint32(c.byte())}[c.intn(7)])
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		v := cur.Uint()
		return protoreflect.ValueOfUint64([]uint64{0, 1, v + 1, v - 1, math.MaxUint64}[c.intn(5)])
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32([]float32{0, float32(math.NaN()), float32(math.Inf(1)), -1}[c.intn(4)])
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64([]float64{0, math.NaN(), math.Inf(-1), math.MaxFloat64, -0.5}[c.intn(5)])
	case protoreflect.StringKind:
		return protoreflect.ValueOfString([]string{"", "x", "lineitem", "l_orderkey", "1995-13-45", strings.Repeat("é", 300), "%_\\"}[c.intn(7)])
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([][]byte{nil, {1}, make([]byte, 15), make([]byte, 17), {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}}[c.intn(5)])
	}
	return cur
}

// fieldsWhere lists m's fields, in declaration order, for which keep holds.
func fieldsWhere(m protoreflect.Message, keep func(protoreflect.FieldDescriptor) bool) []protoreflect.FieldDescriptor {
	var out []protoreflect.FieldDescriptor
	fds := m.Descriptor().Fields()
	for i := 0; i < fds.Len(); i++ {
		if fd := fds.Get(i); keep(fd) {
			out = append(out, fd)
		}
	}
	return out
}

// setScalar sets a scalar field of some message to an interesting value.
func setScalar(_ *proto.Plan, ix *planIndex, c *chooser) string {
	m, ok := pick(c, ix.all)
	if !ok {
		return ""
	}
	fd, ok := pick(c, fieldsWhere(m, func(fd protoreflect.FieldDescriptor) bool {
		return fd.Message() == nil && !fd.IsList() && !fd.IsMap() && fd.Kind() != protoreflect.EnumKind
	}))
	if !ok {
		return ""
	}
	m.Set(fd, interesting(fd, m.Get(fd), c))
	return fmt.Sprintf("%s.%s", m.Descriptor().Name(), fd.Name())
}

// setEnum sets an enum field (join type, set operation, sort direction,
// nullability, phase...) to another or an unknown value.
func setEnum(_ *proto.Plan, ix *planIndex, c *chooser) string {
	m, ok := pick(c, ix.withEnum)
	if !ok {
		return ""
	}
	fd, _ := pick(c, fieldsWhere(m, func(fd protoreflect.FieldDescriptor) bool {
		return fd.Kind() == protoreflect.EnumKind && !fd.IsList()
	}))
	m.Set(fd, interesting(fd, m.Get(fd), c))
	return fmt.Sprintf("%s.%s = %d", m.Descriptor().Name(), fd.Name(), m.Get(fd).Enum())
}

// dropField clears a set field: an input, a condition, a schema, a type.
func dropField(_ *proto.Plan, ix *planIndex, c *chooser) string {
	m, ok := pick(c, ix.all)
	if !ok {
		return ""
	}
	fd, ok := pick(c, fieldsWhere(m, m.Has))
	if !ok {
		return ""
	}
	m.Clear(fd)
	return fmt.Sprintf("%s.%s", m.Descriptor().Name(), fd.Name())
}

// editList deletes, duplicates, swaps or empties elements of a repeated
// field: arguments, expressions, inputs, measures, sort keys, names.
func editList(_ *proto.Plan, ix *planIndex, c *chooser) string {
	type list struct {
		m  protoreflect.Message
		fd protoreflect.FieldDescriptor
	}
	var lists []list
	for _, m := range ix.all {
		for _, fd := range fieldsWhere(m, func(fd protoreflect.FieldDescriptor) bool { return fd.IsList() && m.Has(fd) }) {
			lists = append(lists, list{m, fd})
		}
	}
	l, ok := pick(c, lists)
	if !ok {
		return ""
	}
	v := l.m.Mutable(l.fd).List()
	what := fmt.Sprintf("%s.%s", l.m.Descriptor().Name(), l.fd.Name())
	n := v.Len()
	i := c.intn(n)
	switch c.intn(4) {
	case 0: // delete element i
		for j := i; j+1 < n; j++ {
			v.Set(j, v.Get(j+1))
		}
		v.Truncate(n - 1)
		return what + ": delete one"
	case 1: // duplicate element i at the end
		e := v.Get(i)
		if l.fd.Message() != nil {
			e = protoreflect.ValueOfMessage(pb.Clone(e.Message().Interface()).ProtoReflect())
		}
		v.Append(e)
		return what + ": duplicate one"
	case 2: // swap element i with the first
		a, b := v.Get(0), v.Get(i)
		v.Set(0, b)
		v.Set(i, a)
		return what + ": swap two"
	default:
		v.Truncate(0)
		return what + ": empty"
	}
}

// cloneSameType replaces a message with a copy of another of the same
// type elsewhere in the plan: an expression of another type or schema, a
// relation with other columns, another literal or type.
func cloneSameType(_ *proto.Plan, ix *planIndex, c *chooser) string {
	var kinds []protoreflect.FullName
	seen := map[protoreflect.FullName]bool{}
	for _, m := range ix.all {
		name := m.Descriptor().FullName()
		if len(ix.byName[name]) > 1 && !seen[name] {
			seen[name] = true
			kinds = append(kinds, name)
		}
	}
	k, ok := pick(c, kinds)
	if !ok {
		return ""
	}
	ms := ix.byName[k]
	dst, src := ms[c.intn(len(ms))], ms[c.intn(len(ms))]
	if dst == src {
		return ""
	}
	copied := pb.Clone(src.Interface())
	pb.Reset(dst.Interface())
	pb.Merge(dst.Interface(), copied)
	return string(k.Name())
}

// twoInputs returns pointers to a relation's left and right inputs, or
// nil when it has no such pair.
func twoInputs(r *proto.Rel) (**proto.Rel, **proto.Rel) {
	switch x := r.RelType.(type) {
	case *proto.Rel_Join:
		return &x.Join.Left, &x.Join.Right
	case *proto.Rel_Cross:
		return &x.Cross.Left, &x.Cross.Right
	case *proto.Rel_HashJoin:
		return &x.HashJoin.Left, &x.HashJoin.Right
	case *proto.Rel_MergeJoin:
		return &x.MergeJoin.Left, &x.MergeJoin.Right
	case *proto.Rel_NestedLoopJoin:
		return &x.NestedLoopJoin.Left, &x.NestedLoopJoin.Right
	case *proto.Rel_Set:
		if len(x.Set.Inputs) >= 2 {
			return &x.Set.Inputs[0], &x.Set.Inputs[1]
		}
	}
	return nil, nil
}

func binaryRels(ix *planIndex) []*proto.Rel {
	var out []*proto.Rel
	for _, r := range ix.rels {
		if l, _ := twoInputs(r); l != nil {
			out = append(out, r)
		}
	}
	return out
}

// duplicateInput makes one input of a join, cross product or set
// operation a copy of the other (a self-join).
func duplicateInput(_ *proto.Plan, ix *planIndex, c *chooser) string {
	r, ok := pick(c, binaryRels(ix))
	if !ok {
		return ""
	}
	l, rr := twoInputs(r)
	if c.intn(2) == 0 {
		*rr = pb.Clone(*l).(*proto.Rel)
		return RelKind(r) + ": right := left"
	}
	*l = pb.Clone(*rr).(*proto.Rel)
	return RelKind(r) + ": left := right"
}

// swapSides swaps a two-input relation's inputs (its conditions keep
// their field numbers).
func swapSides(_ *proto.Plan, ix *planIndex, c *chooser) string {
	r, ok := pick(c, binaryRels(ix))
	if !ok {
		return ""
	}
	l, rr := twoInputs(r)
	*l, *rr = *rr, *l
	return RelKind(r)
}

// nestRelations wraps a relation in filters, projections, fetches or
// sorts, up to about 1,300 deep (past the depth budget).
func nestRelations(_ *proto.Plan, ix *planIndex, c *chooser) string {
	r, ok := pick(c, ix.rels)
	if !ok {
		return ""
	}
	k := Nesting(c.intn(int(NestUnion))) // a union doubles at each level
	n := 1 + int(c.byte())
	if c.intn(4) == 0 {
		n *= 5
	}
	r.RelType = Nest(&proto.Rel{RelType: r.RelType}, k, n).RelType
	return fmt.Sprintf("%d %s", n, k)
}

// nestExpression wraps an expression in casts, up to about 1,300 deep.
func nestExpression(_ *proto.Plan, ix *planIndex, c *chooser) string {
	e, ok := pick(c, ix.exprs)
	if !ok {
		return ""
	}
	n := 1 + int(c.byte())
	if c.intn(4) == 0 {
		n *= 5
	}
	e.RexType = NestExpression(&proto.Expression{RexType: e.RexType}, n).RexType
	return fmt.Sprintf("%d casts", n)
}

// sharedSubplan moves a relation into plan.relations and refers to it
// (once, or from a second place too: inside the subplan, that is a
// cycle), points a reference out of range, or makes the root a bomb of
// doubling references.
func sharedSubplan(p *proto.Plan, ix *planIndex, c *chooser) string {
	r, ok := pick(c, ix.rels)
	if !ok {
		return ""
	}
	switch c.intn(4) {
	case 0:
		levels := 1 + c.intn(48)
		SharedSubplanBomb(p, levels)
		return fmt.Sprintf("bomb of %d levels", levels)
	case 1:
		i := []int32{-1, int32(len(p.Relations)), 0, math.MaxInt32}[c.intn(4)]
		r.RelType = Reference(i).RelType
		return fmt.Sprintf("reference to relations[%d]", i)
	}
	i := int32(len(p.Relations))
	p.Relations = append(p.Relations, &proto.PlanRel{RelType: &proto.PlanRel_Rel{Rel: &proto.Rel{RelType: r.RelType}}})
	r.RelType = Reference(i).RelType
	what := fmt.Sprintf("relations[%d] shared", i)
	if other, ok := pick(c, ix.rels); ok && other != r && c.intn(2) == 0 {
		other.RelType = Reference(i).RelType
		what += ", used twice"
	}
	return what
}

// inList replaces an expression with field IN (0, 1, ...) of a length
// around the device's IN-list budget, or far past it.
func inList(_ *proto.Plan, ix *planIndex, c *chooser) string {
	e, ok := pick(c, ix.exprs)
	if !ok {
		return ""
	}
	n := []int{1, 2, 255, 256, 257, 4000}[c.intn(6)]
	strs := c.intn(2) == 1
	e.RexType = InList(Field(int32(c.intn(4))), n, strs).RexType
	return fmt.Sprintf("%d options (strings %v)", n, strs)
}

// fetch sets a fetch's count and offset to extremes, or wraps a relation
// in such a fetch.
func fetch(_ *proto.Plan, ix *planIndex, c *chooser) string {
	var fetches []*proto.FetchRel
	for _, r := range ix.rels {
		if f := r.GetFetch(); f != nil {
			fetches = append(fetches, f)
		}
	}
	f, ok := pick(c, fetches)
	if !ok || c.intn(3) == 0 {
		r, ok := pick(c, ix.rels)
		if !ok {
			return ""
		}
		f = &proto.FetchRel{Input: &proto.Rel{RelType: r.RelType}}
		r.RelType = &proto.Rel_Fetch{Fetch: f}
	}
	counts := []int64{-1, 0, 1, math.MaxInt64, math.MinInt64, -2}
	f.CountMode = &proto.FetchRel_Count{Count: counts[c.intn(len(counts))]}
	f.OffsetMode = &proto.FetchRel_Offset{Offset: counts[c.intn(len(counts))]}
	if c.intn(4) == 0 {
		f.CountMode = &proto.FetchRel_CountExpr{CountExpr: &proto.Expression{RexType: &proto.Expression_Literal_{Literal: &proto.Expression_Literal{
			LiteralType: &proto.Expression_Literal_I64{I64: counts[c.intn(len(counts))]}}}}}
	}
	return fmt.Sprintf("count %v offset %v", f.CountMode, f.OffsetMode)
}

// emit gives a relation an output mapping that is out of range, negative,
// repeated or empty.
func emit(_ *proto.Plan, ix *planIndex, c *chooser) string {
	r, ok := pick(c, ix.rels)
	if !ok {
		return ""
	}
	m := r.ProtoReflect()
	od := m.Descriptor().Oneofs().ByName("rel_type")
	fd := m.WhichOneof(od)
	if fd == nil {
		return ""
	}
	inner := m.Get(fd).Message()
	cfd := inner.Descriptor().Fields().ByName("common")
	if cfd == nil {
		return ""
	}
	maps := [][]int32{{-1}, {0, 0, 0}, {}, {int32(c.byte())}, {1 << 20}, {1, 0}}
	mapping := maps[c.intn(len(maps))]
	common := &proto.RelCommon{EmitKind: &proto.RelCommon_Emit_{Emit: &proto.RelCommon_Emit{OutputMapping: mapping}}}
	inner.Set(cfd, protoreflect.ValueOfMessage(common.ProtoReflect()))
	return fmt.Sprintf("%s emit %v", RelKind(r), mapping)
}

// RelKind names a relation's kind ("join", "filter", ...).
func RelKind(r *proto.Rel) string {
	m := r.ProtoReflect()
	if fd := m.WhichOneof(m.Descriptor().Oneofs().ByName("rel_type")); fd != nil {
		return string(fd.Name())
	}
	return "empty"
}
