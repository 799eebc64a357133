package physical

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Common subtrees. DuckDB's Substrait plans repeat a subtree wherever the
// query reads one result twice: a CTE referenced twice (TPC-DS q04 reads
// its year_total six times), or the duplicate-eliminated input of a
// decorrelated subquery (q16 and q94 filter all of catalog_sales or
// web_sales three times, once for the query and once for each EXISTS).
// DuckDB itself computes such a result once. ShareCommonSubtrees makes
// equal subtrees one node, and a run runs a node that several parents
// share once and hands its columns to each (run.node): outputs live until
// the run ends either way, so sharing only removes work.
//
// Two nodes are equal when they are of one type, their children are
// (already) one node, and every other field holds equal data, compared
// by reflection over the whole struct so that a field added later takes
// part without anyone remembering to list it. The comparison errs toward
// "different": a pointer to a type outside this module counts by its
// address, and a node holding a function or a channel, or a fallback
// whose SQL draws random values, is never shared.

// ShareCommonSubtrees rewrites root in place so that equal subtrees are
// one node with several parents, and returns it. Plans whose parts run a
// segment or a partition at a time (Chunked, PartitionedJoin) are left as
// they are: their rewrites move nodes between a body run per part and
// the run around it, where one node would stand for two different inputs.
func ShareCommonSubtrees(root Node) Node {
	s := &sharer{canon: map[string]Node{}, keyOf: map[Node]string{}, ids: map[Node]int{}, nodes: map[uintptr]Node{}}
	partwise := false
	walkPlan(root, func(n Node) {
		switch n.(type) {
		case *Chunked, *PartitionedJoin, *PartitionSlot:
			partwise = true
		}
		s.nodes[reflect.ValueOf(n).Pointer()] = n
	})
	if partwise {
		return root
	}
	return s.share(root)
}

type sharer struct {
	canon map[string]Node // a key's first node
	keyOf map[Node]string // a node's key
	ids   map[Node]int    // a canonical node's number, which keys of its parents hold
	nodes map[uintptr]Node
}

// share makes n's children their canonical nodes, then returns n's own
// canonical node (n itself when no equal node came before it).
func (s *sharer) share(n Node) Node {
	if _, done := s.keyOf[n]; done {
		return s.canonical(n)
	}
	for _, ch := range n.Children() {
		if c := s.share(ch); c != ch {
			replaceChild(n, ch, c) // a parent that refuses keeps its equal copy
		}
	}
	key, ok := s.key(n)
	if !ok {
		key = "unshared#" + strconv.Itoa(len(s.ids))
	}
	s.keyOf[n] = key
	if c, seen := s.canon[key]; seen {
		return c
	}
	s.canon[key] = n
	s.ids[n] = len(s.ids)
	return n
}

func (s *sharer) canonical(n Node) Node { return s.canon[s.keyOf[n]] }

// replaceChild puts new, a node equal to old, where old is among parent's
// children. It is setChild, and also for a ProbePipeline with a fold, whose
// folded join (fold.node) reads the same children: the other side as it
// is, the folded side's filter pipeline's input.
func replaceChild(parent, old, new Node) bool {
	p, ok := parent.(*ProbePipeline)
	if !ok || p.fold == nil {
		return setChild(parent, old, new)
	}
	f := p.fold
	sides := [2]*Node{&p.Join.Left, &p.Join.Right}
	folded := [2]*Node{&f.node.Join.Left, &f.node.Join.Right}
	switch {
	case *sides[1-f.side] == old:
		*sides[1-f.side], *folded[1-f.side] = new, new
	case *sides[f.side] == old:
		pre, ok := new.(*Pipeline)
		if !ok || old != Node(f.pre) {
			return false
		}
		*sides[f.side], f.pre, *folded[f.side] = pre, pre, pre.Input
	default:
		return false
	}
	return true
}

// key is n's type and fields, its children (and any node a field points
// to) by their canonical node's number; false when n must not be shared.
func (s *sharer) key(n Node) (string, bool) {
	if f, ok := n.(*Fallback); ok && drawsRandom(f.SQL) {
		return "", false
	}
	v := reflect.ValueOf(n)
	var b strings.Builder
	b.WriteString(v.Type().String())
	ok := s.dump(&b, v.Elem(), n, map[uintptr]bool{})
	return b.String(), ok
}

// drawsRandom reports whether a fallback's SQL may give another answer
// each time it runs.
func drawsRandom(sql string) bool {
	l := strings.ToLower(sql)
	for _, f := range []string{"random", "uuid", "nextval", "setseed"} {
		if strings.Contains(l, f) {
			return true
		}
	}
	return false
}

const modulePath = "github.com/rigel-db/rigel/"

// dump writes v's data to b. self is the node being keyed (a field may
// point back to it); open holds the pointers being dumped (a cycle is
// written as a reference, not followed).
func (s *sharer) dump(b *strings.Builder, v reflect.Value, self Node, open map[uintptr]bool) bool {
	switch v.Kind() {
	case reflect.Invalid:
		b.WriteString("<nil>")
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		b.WriteString("f" + strconv.FormatUint(math.Float64bits(v.Float()), 16))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		fmt.Fprintf(b, "c%x,%x", math.Float64bits(real(c)), math.Float64bits(imag(c)))
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		if !v.IsNil() {
			return false
		}
		b.WriteString("<nil>")
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("<nil>")
			return true
		}
		b.WriteString(v.Elem().Type().String() + ":")
		return s.dump(b, v.Elem(), self, open)
	case reflect.Pointer:
		return s.dumpPointer(b, v, self, open)
	case reflect.Struct:
		if pkg := v.Type().PkgPath(); pkg == "sync" || pkg == "sync/atomic" {
			return true // a lock, not data
		}
		b.WriteByte('{')
		for i := range v.NumField() {
			b.WriteString(v.Type().Field(i).Name + ":")
			if !s.dump(b, v.Field(i), self, open) {
				return false
			}
			b.WriteByte(' ')
		}
		b.WriteByte('}')
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			b.WriteString("<nil>")
			return true
		}
		b.WriteString("[" + strconv.Itoa(v.Len()) + ":")
		for i := range v.Len() {
			if !s.dump(b, v.Index(i), self, open) {
				return false
			}
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case reflect.Map:
		entries := make([]string, 0, v.Len())
		it := v.MapRange()
		for it.Next() {
			var e strings.Builder
			if !s.dump(&e, it.Key(), self, open) {
				return false
			}
			e.WriteString("=>")
			if !s.dump(&e, it.Value(), self, open) {
				return false
			}
			entries = append(entries, e.String())
		}
		slices.Sort(entries)
		b.WriteString("map[" + strings.Join(entries, ",") + "]")
	default:
		return false
	}
	return true
}

// dumpPointer writes a pointer: a plan node by its canonical key, data
// of this module by its contents, anything else by its address.
func (s *sharer) dumpPointer(b *strings.Builder, v reflect.Value, self Node, open map[uintptr]bool) bool {
	if v.IsNil() {
		b.WriteString("<nil>")
		return true
	}
	addr := v.Pointer()
	if n, ok := s.nodes[addr]; ok {
		if n == self {
			b.WriteString("<self>")
			return true
		}
		if _, keyed := s.keyOf[n]; !keyed {
			s.share(n) // a node a field points to that is not a child
		}
		b.WriteString("<node #" + strconv.Itoa(s.ids[s.canonical(n)]) + ">")
		return true
	}
	if !strings.HasPrefix(v.Type().Elem().PkgPath(), modulePath) && v.Type().Elem().PkgPath() != "" {
		fmt.Fprintf(b, "<%s@%x>", v.Type(), addr)
		return true
	}
	if open[addr] {
		fmt.Fprintf(b, "<cycle@%x>", addr)
		return true
	}
	open[addr] = true
	defer delete(open, addr)
	b.WriteByte('&')
	return s.dump(b, v.Elem(), self, open)
}
