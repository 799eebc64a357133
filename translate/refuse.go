package translate

import (
	"fmt"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/physical"
)

// Device capabilities in translation (Options.Device): after each relation
// is translated, the operations and aggregates it added are put to the
// device (those of the relations below were asked about with them). A
// refusal fails the relation as any unsupported construct does, so that
// with Split it runs on DuckDB over its inputs on the device, instead of
// the device refusing it while running, its inputs' work thrown away and
// the whole query sent to DuckDB (make_date on the CUDA device:
// conformance's TestRefusedSubtreeCudaPlans). A refused variance of
// integers or decimals is computed from exact sums instead (agg_stats.go).

// refused is the first new operation or aggregate of s the device refuses.
func (t *translator) refused(s *stream) error {
	if t.device == nil {
		return nil
	}
	if t.checked == nil {
		t.checked = map[any]bool{}
	}
	if err := t.refusedExpr(s.filter); err != nil {
		return err
	}
	for _, e := range s.exprs {
		if err := t.refusedExpr(e); err != nil {
			return err
		}
	}
	return t.refusedNode(s.src)
}

func (t *translator) refusedExpr(e *gpu.Expr) error {
	if e == nil || t.checked[e] {
		return nil
	}
	t.checked[e] = true
	for _, a := range e.Args {
		if err := t.refusedExpr(a); err != nil {
			return err
		}
	}
	if err := t.device.RefuseExpr(e); err != nil {
		return fmt.Errorf("the device refuses %s: %w", e.Op, err)
	}
	return nil
}

func (t *translator) refusedNode(n physical.Node) error {
	if n == nil || t.checked[n] {
		return nil
	}
	t.checked[n] = true
	switch x := n.(type) {
	case *physical.Pipeline:
		p := x.Pipe
		if err := t.refusedExpr(p.Filter); err != nil {
			return err
		}
		for _, e := range p.Project {
			if err := t.refusedExpr(e); err != nil {
				return err
			}
		}
		for _, a := range p.Aggs {
			var arg gpu.Type
			if a.Kind != gpu.AggCountStar && a.Arg >= 0 && a.Arg < len(p.Project) {
				arg = p.Project[a.Arg].Type
			}
			if err := t.device.RefuseAgg(a, arg); err != nil {
				return fmt.Errorf("the device refuses aggregate %s: %w", a.Kind, err)
			}
		}
	case *physical.Join:
		if err := t.refusedExpr(x.Residual); err != nil {
			return err
		}
	}
	for _, c := range n.Children() {
		if err := t.refusedNode(c); err != nil {
			return err
		}
	}
	return nil
}
