package substrait

import (
	"time"

	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// fixLiterals rewrites, in place, what producers write that substrait-go
// or rigel read otherwise, and reports whether it found any (with fix
// false it only looks):
//
//   - Isthmus (Calcite) writes DATE '1998-09-02' as a cast of a fixedchar
//     literal to date: the cast of a string literal in YYYY-MM-DD form
//     becomes the date literal it denotes.
//   - Isthmus 0.81 writes LIKE '%BRASS' with the pattern as a cast of a
//     fixedchar literal to varchar(n): a cast of a string literal to
//     string, or to a varchar long enough to hold it, becomes that literal.
//   - substrait-go v8.1.1 reads a FetchRel's offset and count only in their
//     deprecated integer fields: DataFusion writes count_expr (an integer
//     literal) and no offset, ibis-substrait leaves offset 0 out. A missing
//     offset becomes 0, a missing count -1 (all rows), and an expression
//     that is an integer literal its value (null: the default).
func fixLiterals(p *proto.Plan, fix bool) bool {
	found := false
	for _, r := range p.Relations {
		walkProto(r.ProtoReflect(), func(m protoreflect.Message) {
			switch x := m.Interface().(type) {
			case *proto.Expression:
				c := x.GetCast()
				if c == nil {
					return
				}
				if l, ok := stringCast(c); ok {
					found = true
					if fix {
						x.RexType = &proto.Expression_Literal_{Literal: l}
					}
					return
				}
				if c.GetType().GetDate() == nil {
					return
				}
				d, ok := dateOfString(c.GetInput().GetLiteral())
				if !ok {
					return
				}
				found = true
				if fix {
					d.Nullable = c.GetType().GetDate().GetNullability() == proto.Type_NULLABILITY_NULLABLE
					x.RexType = &proto.Expression_Literal_{Literal: d}
				}
			case *proto.FetchRel:
				off, okOff := fetchNumber(x.OffsetMode == nil, x.GetOffsetExpr(), 0)
				cnt, okCnt := fetchNumber(x.CountMode == nil, x.GetCountExpr(), -1)
				if okOff {
					found = true
					if fix {
						x.OffsetMode = &proto.FetchRel_Offset{Offset: off}
					}
				}
				if okCnt {
					found = true
					if fix {
						x.CountMode = &proto.FetchRel_Count{Count: cnt}
					}
				}
			}
		})
	}
	return found
}

// dateOfString returns the date literal a string literal (string, varchar
// or fixedchar) in YYYY-MM-DD form denotes.
func dateOfString(l *proto.Expression_Literal) (*proto.Expression_Literal, bool) {
	var s string
	switch x := l.GetLiteralType().(type) {
	case *proto.Expression_Literal_String_:
		s = x.String_
	case *proto.Expression_Literal_VarChar_:
		s = x.VarChar.GetValue()
	case *proto.Expression_Literal_FixedChar:
		s = x.FixedChar
	default:
		return nil, false
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return nil, false
	}
	days := t.Unix() / 86400
	return &proto.Expression_Literal{LiteralType: &proto.Expression_Literal_Date{Date: int32(days)}, Nullable: l.GetNullable()}, true
}

// fetchNumber returns the integer a FetchRel field should hold when it is
// missing (def) or an integer literal expression, and whether it is one of
// those (any other expression stays, for substrait-go to refuse).
func fetchNumber(missing bool, e *proto.Expression, def int64) (int64, bool) {
	if missing {
		return def, true
	}
	if e == nil {
		return 0, false
	}
	switch l := e.GetLiteral().GetLiteralType().(type) {
	case *proto.Expression_Literal_I64:
		return l.I64, true
	case *proto.Expression_Literal_I32:
		return int64(l.I32), true
	case *proto.Expression_Literal_Null:
		return def, true
	}
	return 0, false
}

// stringCast folds a cast of a string literal to string or varchar(n)
// (when the value fits: a longer one would be truncated) into a literal.
func stringCast(c *proto.Expression_Cast) (*proto.Expression_Literal, bool) {
	lit := c.GetInput().GetLiteral()
	var v string
	switch x := lit.GetLiteralType().(type) {
	case *proto.Expression_Literal_String_:
		v = x.String_
	case *proto.Expression_Literal_VarChar_:
		v = x.VarChar.GetValue()
	case *proto.Expression_Literal_FixedChar:
		v = x.FixedChar
	default:
		return nil, false
	}
	t := c.GetType()
	switch {
	case t.GetString_() != nil:
		return &proto.Expression_Literal{LiteralType: &proto.Expression_Literal_String_{String_: v},
			Nullable: t.GetString_().GetNullability() == proto.Type_NULLABILITY_NULLABLE}, true
	case t.GetVarchar() != nil && len([]rune(v)) <= int(t.GetVarchar().GetLength()):
		return &proto.Expression_Literal{LiteralType: &proto.Expression_Literal_VarChar_{VarChar: &proto.Expression_Literal_VarChar{Value: v, Length: uint32(t.GetVarchar().GetLength())}},
			Nullable: t.GetVarchar().GetNullability() == proto.Type_NULLABILITY_NULLABLE}, true
	}
	return nil, false
}
