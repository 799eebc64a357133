package substrait

import (
	"fmt"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// TypeProto is types.TypeToProto without its panic: substrait-go v8.1.1
// panics ("unimplemented type") on types its own parser makes, such as a
// *types.IntervalCompoundType (it handles only the value form), which a
// DuckDB INTERVAL column becomes. Callers get an error naming the type and
// refuse or fall back instead of crashing.
func TypeProto(t types.Type) (p *proto.Type, err error) {
	if t == nil {
		return nil, fmt.Errorf("a missing type")
	}
	if c, ok := t.(*types.IntervalCompoundType); ok && c != nil {
		t = *c
	}
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("type %s cannot be converted (%v): %w", t, r, ErrNotImplemented)
		}
	}()
	return types.TypeToProto(t), nil
}

// LiteralProto is l.ToProtoLiteral without its panics: substrait-go
// v8.1.1 loads literals that it cannot write back (a user-defined literal
// without a value, for one) and panics when asked; its writer of a
// non-empty map stores through nil pointers, and its writer of a null
// panics on an interval_compound type. Those two are written here, and
// lists and structs element by element so that a map inside one is too.
// Load checks every literal of a plan with it (invariants.go); the stages
// after it read literals through it.
func LiteralProto(l expr.Literal) (p *proto.Expression_Literal, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("a literal (%T) that cannot be read (%v): %w", l, r, ErrMalformed)
		}
	}()
	elements := func(ls []expr.Literal) ([]*proto.Expression_Literal, error) {
		out := make([]*proto.Expression_Literal, len(ls))
		for i, e := range ls {
			p, err := LiteralProto(e)
			if err != nil {
				return nil, err
			}
			out[i] = p
		}
		return out, nil
	}
	// of is a literal of type t, its value to be set.
	of := func(t types.Type) *proto.Expression_Literal {
		return &proto.Expression_Literal{Nullable: t.GetNullability() == types.NullabilityNullable, TypeVariationReference: t.GetTypeVariationReference()}
	}
	switch x := l.(type) {
	case *expr.NullLiteral:
		t, err := TypeProto(x.Type)
		if err != nil {
			return nil, err
		}
		lit := of(x.Type)
		lit.Nullable, lit.LiteralType = true, &proto.Expression_Literal_Null{Null: t}
		return lit, nil
	case *expr.MapLiteral:
		if len(x.Value) == 0 {
			break
		}
		kv := make([]*proto.Expression_Literal_Map_KeyValue, len(x.Value))
		for i, v := range x.Value {
			k, err := LiteralProto(v.Key)
			if err != nil {
				return nil, err
			}
			val, err := LiteralProto(v.Value)
			if err != nil {
				return nil, err
			}
			kv[i] = &proto.Expression_Literal_Map_KeyValue{Key: k, Value: val}
		}
		lit := of(x.Type)
		lit.LiteralType = &proto.Expression_Literal_Map_{Map: &proto.Expression_Literal_Map{KeyValues: kv}}
		return lit, nil
	case *expr.NestedLiteral[expr.ListLiteralValue]:
		if len(x.Value) == 0 {
			break
		}
		vals, err := elements(x.Value)
		if err != nil {
			return nil, err
		}
		lit := of(x.Type)
		lit.LiteralType = &proto.Expression_Literal_List_{List: &proto.Expression_Literal_List{Values: vals}}
		return lit, nil
	case *expr.NestedLiteral[expr.StructLiteralValue]:
		fields, err := elements(x.Value)
		if err != nil {
			return nil, err
		}
		lit := of(x.Type)
		lit.LiteralType = &proto.Expression_Literal_Struct_{Struct: &proto.Expression_Literal_Struct{Fields: fields}}
		return lit, nil
	}
	return l.ToProtoLiteral(), nil
}
