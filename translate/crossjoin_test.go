package translate

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/physical"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// joins lists the plan's joins.
func joins(n physical.Node) []*physical.Join {
	var out []*physical.Join
	if j, ok := n.(*physical.Join); ok {
		out = append(out, j)
	}
	for _, c := range n.Children() {
		out = append(out, joins(c)...)
	}
	return out
}

// Isthmus writes Q3's joins as a Filter over Cross(Cross(customer, orders),
// lineitem): they become two hash joins on the equalities, no cross product.
func TestFilterOverCrossBecomesKeyedJoins(t *testing.T) {
	for q, want := range map[string]int{"q03": 2, "q19": 1} {
		root, err := Translate(loadIsthmus(t, q))
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		js := joins(root)
		if len(js) != want {
			t.Fatalf("%s: %d joins, want %d:\n%s", q, len(js), want, physical.Explain(root, "x"))
		}
		for _, j := range js {
			if j.Type != physical.JoinInner || len(j.LeftKeys) == 0 {
				t.Fatalf("%s: join %s, want an inner join with keys:\n%s", q, j.Describe(), physical.Explain(root, "x"))
			}
		}
	}
}

// fakeCatalog stores each table the plan reads with the plan's declared
// types, changed by alter.
type fakeCatalog map[string]*arrow.Schema

func catalogOf(t *testing.T, p *substrait.Plan, alter func(gpu.Type) gpu.Type) fakeCatalog {
	c := fakeCatalog{}
	var walk func(r plan.Rel)
	walk = func(r plan.Rel) {
		if rd, ok := r.(*plan.NamedTableReadRel); ok {
			base := rd.BaseSchema()
			var fields []arrow.Field
			for i, ft := range base.Struct.Types {
				gt, err := gpuType(ft)
				if err != nil {
					t.Fatal(err)
				}
				gt = alter(gt)
				fields = append(fields, arrow.Field{Name: base.Names[i], Type: gpu.ArrowType(gt), Nullable: gt.Nullable})
			}
			c[strings.Join(rd.Names(), ".")] = arrow.NewSchema(fields, nil)
		}
		for _, in := range r.GetInputs() {
			walk(in)
		}
	}
	walk(p.Root)
	return c
}

func (c fakeCatalog) TableSchema(_ context.Context, table string) (*arrow.Schema, error) {
	if s, ok := c[table]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("no table %s", table)
}

// scans lists the plan's scans.
func scans(n physical.Node) []*physical.Scan {
	var out []*physical.Scan
	if s, ok := n.(*physical.Scan); ok {
		out = append(out, s)
	}
	for _, c := range n.Children() {
		out = append(out, scans(c)...)
	}
	return out
}

// Isthmus declares INTEGER keys; the tables hold BIGINT: the scans read
// BIGINT and the plan casts to the declared INTEGER (range-checked).
func TestReadCastsDeclaredTypeFromStoredType(t *testing.T) {
	p := loadIsthmus(t, "q03")
	widen := func(g gpu.Type) gpu.Type {
		if g.Kind == gpu.Int32 {
			g.Kind = gpu.Int64
		}
		return g
	}
	root, err := TranslateWith(p, Options{Tables: catalogOf(t, p, widen)})
	if err != nil {
		t.Fatal(err)
	}
	ints := 0
	for _, s := range scans(root) {
		for i, ty := range s.Types {
			if ty.Kind == gpu.Int32 {
				t.Fatalf("scan %s reads %s as int32; the table holds int64", s.Table, s.Columns[i])
			}
			if ty.Kind == gpu.Int64 {
				ints++
			}
		}
	}
	if ints == 0 {
		t.Fatalf("no int64 column read:\n%s", physical.Explain(root, "x"))
	}
	if !strings.Contains(physical.Explain(root, "x"), "cast") {
		t.Fatalf("no cast to the declared int32:\n%s", physical.Explain(root, "x"))
	}
	// Without a catalog the declared types are read as they are.
	root, err = Translate(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scans(root) {
		for _, ty := range s.Types {
			if ty.Kind == gpu.Int64 {
				t.Fatalf("Translate without a catalog read int64 in %s", s.Table)
			}
		}
	}
}

// A stored decimal with more places than declared would be rounded on
// read: refused with an error that names the column.
func TestReadCastRefusesRounding(t *testing.T) {
	p := loadIsthmus(t, "q06")
	finer := func(g gpu.Type) gpu.Type {
		if g.Kind == gpu.Decimal64 || g.Kind == gpu.Decimal128 {
			g.Scale++
		}
		return g
	}
	_, err := TranslateWith(p, Options{Tables: catalogOf(t, p, finer)})
	if err == nil || !strings.Contains(err.Error(), "could change values") {
		t.Fatalf("got %v, want an error saying the cast could change values", err)
	}
}
