package duckdbbridge

import (
	"fmt"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// expressionGet converts a VALUES list into a ReadRel over a VirtualTable:
// one row of expressions per VALUES row. DuckDB folds the values into
// constants over a LOGICAL_DUMMY_SCAN; VALUES that read columns of an outer
// query (LATERAL) are refused.
//
// Each column is nullable when any of its values is; the literals of such a
// column are marked nullable, because Substrait wants every row of a
// VirtualTable to have the base schema's types, nullability included.
func (p *producer) expressionGet(n *duckNode) (*pb.Rel, []colType, error) {
	if len(n.Children) != 1 || n.Children[0].Type != "LOGICAL_DUMMY_SCAN" {
		return nil, nil, unsupported("LOGICAL_EXPRESSION_GET over another operator than a dummy scan (VALUES that read columns)")
	}
	if len(n.ExprTypes) == 0 || len(n.ExprRows) == 0 {
		return nil, nil, fmt.Errorf("duckdb plan: LOGICAL_EXPRESSION_GET with %d columns and %d rows", len(n.ExprTypes), len(n.ExprRows))
	}
	out := make([]colType, len(n.ExprTypes))
	for j, t := range n.ExprTypes {
		out[j] = colType{duck: t}
	}
	rows := make([]*pb.Expression_Nested_Struct, len(n.ExprRows))
	for i, row := range n.ExprRows {
		if len(row) != len(out) {
			return nil, nil, fmt.Errorf("duckdb plan: VALUES row %d has %d values, want %d", i+1, len(row), len(out))
		}
		es, ts, err := p.exprs(row, nil)
		if err != nil {
			return nil, nil, err
		}
		for j, e := range es {
			if e.GetLiteral() == nil {
				return nil, nil, unsupported("VALUES row with a computed value (column %d)", j+1)
			}
			if !sameType(ts[j].duck, out[j].duck) {
				return nil, nil, fmt.Errorf("duckdb plan: VALUES row %d column %d is %s, want %s", i+1, j+1, ts[j].duck, out[j].duck)
			}
			out[j].nullable = out[j].nullable || ts[j].nullable
		}
		rows[i] = &pb.Expression_Nested_Struct{Fields: es}
	}
	base := &pb.NamedStruct{Struct: &pb.Type_Struct{Nullability: pb.Type_NULLABILITY_REQUIRED}}
	for j, c := range out {
		t, err := substraitType(c)
		if err != nil {
			return nil, nil, fmt.Errorf("VALUES column %d: %w", j+1, err)
		}
		base.Names = append(base.Names, fmt.Sprintf("col%d", j))
		base.Struct.Types = append(base.Struct.Types, t)
		for _, r := range rows {
			if c.nullable {
				r.Fields[j].GetLiteral().Nullable = true
			}
		}
	}
	return &pb.Rel{RelType: &pb.Rel_Read{Read: &pb.ReadRel{
		Common:     emit(nil, 0),
		BaseSchema: base,
		ReadType:   &pb.ReadRel_VirtualTable_{VirtualTable: &pb.ReadRel_VirtualTable{Expressions: rows}},
	}}}, out, nil
}
