package cuda

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rigel-db/rigel/gpu"
)

// The CUDA device's answers to the translator (gpu.Refuser): what its code
// generator and aggregate planner refuse, found by running them on the
// one operation (its arguments as input columns, constants kept), so that
// the answer is theirs and no list here can drift from them.

func (d *Device) RefuseExpr(e *gpu.Expr) error {
	if e == nil || e.Op == gpu.OpCol || e.Op == gpu.OpConst {
		return nil
	}
	if e.Op == gpu.OpStrRow { // evaluated on the host over its arguments (rowstrings.go)
		switch e.Type.Kind {
		case gpu.Dict, gpu.Bool, gpu.Int32, gpu.Int64:
			return nil
		}
		return fmt.Errorf("row function %s giving %s: %w", e, e.Type, gpu.ErrUnsupported)
	}
	// The answer depends on the operation, the types and which arguments
	// are constants: asked once each (generating a kernel's source takes
	// about 20 µs, a plan has hundreds of operations).
	key := refusalKey(e)
	if err, ok := d.refusals.Load(key); ok {
		if err == nil {
			return nil
		}
		return err.(error)
	}
	err := refuseOne(e)
	if err == nil {
		d.refusals.Store(key, nil)
	} else {
		d.refusals.Store(key, err)
	}
	return err
}

// refusalKey names what RefuseExpr's answer depends on.
func refusalKey(e *gpu.Expr) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d:%s", e.Op, e.Type)
	if e.Str != nil {
		b.WriteString(":" + e.Str.String())
	}
	for _, a := range e.Args {
		if a.Op == gpu.OpConst {
			fmt.Fprintf(&b, ",%s=%v", a.Type, a.Const)
		} else {
			fmt.Fprintf(&b, ",%s", a.Type)
		}
	}
	return b.String()
}

// refuseOne generates the one operation's kernel.
func refuseOne(e *gpu.Expr) error {
	one := *e
	one.Args = make([]*gpu.Expr, len(e.Args))
	var inputs []gpu.Type
	for i, a := range e.Args {
		if a.Op == gpu.OpConst {
			one.Args[i] = a
			continue
		}
		one.Args[i] = gpu.Col(len(inputs), a.Type)
		inputs = append(inputs, a.Type)
	}
	p := &gpu.Pipeline{Inputs: inputs, Project: []*gpu.Expr{&one}, Sink: gpu.SinkMaterialize}
	if _, err := pipelineSource(p, make([]int, len(inputs))); errors.Is(err, gpu.ErrUnsupported) {
		return err
	}
	return nil // another error is this stand-alone form's, not the operation's
}

func (d *Device) RefuseAgg(a gpu.Agg, arg gpu.Type) error {
	if a.Kind == gpu.AggCountStar {
		return nil
	}
	a.Arg = 0
	p := &gpu.Pipeline{Inputs: []gpu.Type{arg}, Project: []*gpu.Expr{gpu.Col(0, arg)}, Sink: gpu.SinkAggregate, Aggs: []gpu.Agg{a}}
	if _, err := planAggregate(p, []int{0}); errors.Is(err, gpu.ErrUnsupported) {
		return err
	}
	return nil
}
