package physical

import (
	"context"
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

// Union appends its inputs' rows (UNION ALL). The inputs have equal column
// kinds; an output column is nullable when it is in any input.
type Union struct {
	Inputs []Node
}

func (u *Union) Children() []Node { return u.Inputs }

func (u *Union) OutputTypes() []gpu.Type {
	out := append([]gpu.Type(nil), u.Inputs[0].OutputTypes()...)
	for _, in := range u.Inputs[1:] {
		for i, t := range in.OutputTypes() {
			out[i] = out[i].WithNullable(out[i].Nullable || t.Nullable)
		}
	}
	return out
}

func (u *Union) Describe() string { return fmt.Sprintf("Union all of %d inputs", len(u.Inputs)) }

func (r *run) union(ctx context.Context, ins [][]gpu.Column) ([]gpu.Column, error) {
	var rows int64
	var types []gpu.Type
	for _, in := range ins {
		rows += int64(rowCount(in))
		for i, c := range in {
			if i == len(types) {
				types = append(types, c.Type())
			}
			types[i].Nullable = types[i].Nullable || c.Type().Nullable
		}
	}
	if err := r.checkRows(fmt.Sprintf("a union of %d rows", rows), rows, types); err != nil {
		return nil, err
	}
	out, err := r.x.Dev.Concat(ctx, ins)
	if err != nil {
		return nil, err
	}
	return r.keep(out), nil
}
