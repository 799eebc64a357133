package translate

import (
	"encoding/binary"
	"fmt"
	"math/big"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// exprConv converts Substrait expressions over a relation's input into
// kernel IR expressions over a stream's source columns: input field i is
// replaced by in[i], so that chains of Filter and Project fuse into one
// pipeline.
type exprConv struct {
	in []*gpu.Expr
}

func (c exprConv) convert(e expr.Expression) (*gpu.Expr, error) {
	switch x := e.(type) {
	case *expr.FieldReference:
		return c.fieldRef(x)
	case expr.Literal:
		return literal(x)
	case *expr.ScalarFunction:
		return c.scalar(x)
	case *expr.SingularOrList:
		return c.inList(x)
	case *expr.Cast:
		if x.FailureBehavior == types.BehaviorReturnNil {
			return nil, unsupported("TRY_CAST (cast returning null on failure)")
		}
		if err := refuseTemporalCast(x); err != nil {
			return nil, err
		}
		arg, err := c.convert(x.Input)
		if err != nil {
			return nil, err
		}
		t, err := gpuType(x.Type)
		if err != nil {
			return nil, err
		}
		return cast(arg, t)
	case *expr.IfThen:
		t, err := gpuType(x.GetType())
		if err != nil {
			return nil, err
		}
		// substrait-go types an IfThen by one branch; a CASE is null where
		// any branch it takes is (CASE WHEN pmc = 0 THEN NULL ELSE amc
		// END over counts, TPC-DS q90).
		t = t.WithNullable(t.Nullable || caseNullable(x))
		var args []*gpu.Expr
		for i := 0; i < x.NIfs(); i++ {
			p := x.IfPair(i)
			cond, err := c.convert(p.If)
			if err != nil {
				return nil, err
			}
			then, err := c.convert(p.Then)
			if err != nil {
				return nil, err
			}
			if then, err = caseBranch(then, t); err != nil {
				return nil, err
			}
			args = append(args, cond, then)
		}
		var els *gpu.Expr
		if x.Else() != nil {
			var err error
			if els, err = c.convert(x.Else()); err != nil {
				return nil, err
			}
			if els, err = caseBranch(els, t); err != nil {
				return nil, err
			}
		} else {
			els = gpu.Const(t.WithNullable(true), gpu.Value{Null: true})
		}
		for i := 1; i < len(args); i += 2 {
			t.Nullable = t.Nullable || args[i].Type.Nullable
		}
		return gpu.Call(gpu.OpCase, t.WithNullable(t.Nullable || els.Type.Nullable), append(args, els)...), nil
	}
	return nil, unsupported(fmt.Sprintf("expression %T (%s)", e, e))
}

func (c exprConv) fieldRef(f *expr.FieldReference) (*gpu.Expr, error) {
	if f.Root != expr.RootReference {
		return nil, unsupported(fmt.Sprintf("field reference %s (outer or expression-based)", f))
	}
	seg, ok := f.Reference.(*expr.StructFieldRef)
	if !ok {
		return nil, unsupported(fmt.Sprintf("field reference %s (not a direct struct field)", f))
	}
	if seg.Child != nil {
		return nil, unsupported(fmt.Sprintf("nested field reference %s", f))
	}
	i := int(seg.Field)
	if i < 0 || i >= len(c.in) {
		return nil, fmt.Errorf("field reference %d out of range: the input has %d columns", i, len(c.in))
	}
	return c.in[i], nil
}

// literal converts a Substrait literal through its protobuf form, which is
// the one stable shape across substrait-go's generic literal types.
func literal(l expr.Literal) (*gpu.Expr, error) {
	t, err := gpuType(l.GetType())
	if err != nil {
		return nil, err
	}
	p, err := substrait.LiteralProto(l)
	if err != nil {
		return nil, err
	}
	v := gpu.Value{}
	switch x := p.LiteralType.(type) {
	case *proto.Expression_Literal_Null:
		v.Null = true
		t.Nullable = true
	case *proto.Expression_Literal_Boolean:
		if x.Boolean {
			v.I64 = 1
		}
	case *proto.Expression_Literal_I8:
		v.I64 = int64(x.I8)
	case *proto.Expression_Literal_I16:
		v.I64 = int64(x.I16)
	case *proto.Expression_Literal_I32:
		v.I64 = int64(x.I32)
	case *proto.Expression_Literal_I64:
		v.I64 = x.I64
	case *proto.Expression_Literal_Fp32:
		v.F64 = float64(x.Fp32)
	case *proto.Expression_Literal_Fp64:
		v.F64 = x.Fp64
	case *proto.Expression_Literal_Date:
		v.I64 = int64(x.Date)
	case *proto.Expression_Literal_Decimal_:
		if len(x.Decimal.Value) != 16 {
			return nil, fmt.Errorf("decimal literal: %d bytes, want 16", len(x.Decimal.Value))
		}
		n := decimalBytes(x.Decimal.Value)
		if t.Kind == gpu.Decimal64 {
			v.I64 = n.Int64()
		} else {
			v.I128 = n
		}
	default:
		return nil, unsupported(fmt.Sprintf("literal %s", l))
	}
	return gpu.Const(t, v), nil
}

// literalProto is a literal's protobuf form, or an empty literal (of no
// kind, which every reader refuses) where it has none.
func literalProto(l expr.Literal) *proto.Expression_Literal {
	p, err := substrait.LiteralProto(l)
	if err != nil {
		return &proto.Expression_Literal{}
	}
	return p
}

// decimalBytes reads Substrait's 16-byte little-endian two's complement.
func decimalBytes(b []byte) *big.Int {
	lo := binary.LittleEndian.Uint64(b[:8])
	hi := int64(binary.LittleEndian.Uint64(b[8:]))
	n := new(big.Int).SetInt64(hi)
	n.Lsh(n, 64)
	return n.Add(n, new(big.Int).SetUint64(lo))
}

func (c exprConv) args(f *expr.ScalarFunction) ([]*gpu.Expr, error) {
	out := make([]*gpu.Expr, 0, f.NArgs())
	for i := 0; i < f.NArgs(); i++ {
		a, ok := f.Arg(i).(expr.Expression)
		if !ok {
			return nil, unsupported(fmt.Sprintf("function %s: non-value argument %d", f.Name(), i))
		}
		g, err := c.convert(a)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

var comparisonOps = map[substrait.Func]gpu.Op{
	substrait.FnEqual: gpu.OpEq, substrait.FnNotEqual: gpu.OpNe,
	substrait.FnLt: gpu.OpLt, substrait.FnLte: gpu.OpLe,
	substrait.FnGt: gpu.OpGt, substrait.FnGte: gpu.OpGe,
}

var arithmeticOps = map[substrait.Func]gpu.Op{
	substrait.FnAdd: gpu.OpAdd, substrait.FnSubtract: gpu.OpSub, substrait.FnMultiply: gpu.OpMul,
}

func (c exprConv) scalar(f *expr.ScalarFunction) (*gpu.Expr, error) {
	fn, err := substrait.Resolve(f.ID())
	if err != nil {
		return nil, err
	}
	if g, ok, err := c.temporalScalar(fn, f); ok { // fn_temporal.go: timestamp and interval results
		return g, err
	}
	if g, ok, err := c.corpusScalar(fn, f); ok { // fn_sign_makedate.go: sign, make_date
		return g, err
	}
	if g, ok, err := c.numericScalar(fn, f); ok { // fn_num.go: reads its own options
		return g, err
	}
	if g, ok, err := c.stringScalar(fn, f); ok {
		return g, err
	}
	if g, ok, err := c.datetimeScalar(fn, f); ok {
		return g, err
	}
	if err := checkOptions(f); err != nil {
		return nil, err
	}
	out, err := gpuType(f.GetType())
	if err != nil {
		return nil, err
	}
	// Functions whose arguments are read as constants (string patterns,
	// substring positions, extract's component, timestamp literals) before
	// they would be converted as values.
	switch fn {
	case substrait.FnEqual, substrait.FnNotEqual, substrait.FnLt, substrait.FnLte, substrait.FnGt, substrait.FnGte:
		if g, ok, err := c.stringCompare(comparisonOps[fn], f, out); ok {
			return g, err
		}
		if g, ok, err := c.timestampCompare(comparisonOps[fn], f, out); ok {
			return g, err
		}
	case substrait.FnLike, substrait.FnContains, substrait.FnStartsWith, substrait.FnEndsWith:
		return c.match(fn, f, out)
	case substrait.FnSubstring:
		return c.substring(f, out)
	case substrait.FnExtract:
		return c.extract(f, out)
	}
	args, err := c.args(f)
	if err != nil {
		return nil, err
	}
	arity := func(n int) error {
		if len(args) != n {
			return fmt.Errorf("function %s: %d arguments, want %d", fn, len(args), n)
		}
		return nil
	}
	switch fn {
	case substrait.FnAnd, substrait.FnOr:
		op := gpu.OpAnd
		if fn == substrait.FnOr {
			op = gpu.OpOr
		}
		return gpu.Call(op, out, args...), nil
	case substrait.FnNot:
		if err := arity(1); err != nil {
			return nil, err
		}
		return gpu.Call(gpu.OpNot, out, args...), nil
	case substrait.FnIsNull, substrait.FnIsNotNull:
		if err := arity(1); err != nil {
			return nil, err
		}
		op := gpu.OpIsNull
		if fn == substrait.FnIsNotNull {
			op = gpu.OpIsNotNull
		}
		return gpu.Call(op, out.WithNullable(false), args...), nil
	case substrait.FnEqual, substrait.FnNotEqual, substrait.FnLt, substrait.FnLte, substrait.FnGt, substrait.FnGte:
		if err := arity(2); err != nil {
			return nil, err
		}
		return compare(comparisonOps[fn], out, args[0], args[1])
	case substrait.FnBetween:
		if err := arity(3); err != nil {
			return nil, err
		}
		lo, err := compare(gpu.OpGe, out, args[0], args[1])
		if err != nil {
			return nil, err
		}
		hi, err := compare(gpu.OpLe, out, args[0], args[2])
		if err != nil {
			return nil, err
		}
		return gpu.Call(gpu.OpAnd, out, lo, hi), nil
	case substrait.FnNegate:
		if err := arity(1); err != nil {
			return nil, err
		}
		a, err := cast(args[0], out)
		if err != nil {
			return nil, err
		}
		return gpu.Call(gpu.OpNeg, out, a), nil
	case substrait.FnAdd, substrait.FnSubtract, substrait.FnMultiply:
		if err := arity(2); err != nil {
			return nil, err
		}
		return arithmetic(arithmeticOps[fn], out, args[0], args[1])
	case substrait.FnDivide:
		if err := arity(2); err != nil {
			return nil, err
		}
		if !out.Kind.IsFloat() {
			return nil, unsupported(fmt.Sprintf("divide returning %s (only floating-point division runs on the device yet)", out))
		}
		return arithmetic(gpu.OpDiv, out, args[0], args[1])
	}
	return nil, unsupported(fmt.Sprintf("function %s", fn))
}

// checkOptions refuses function options rigel would otherwise ignore.
func checkOptions(f *expr.ScalarFunction) error {
	// GetOptions, not ToProto: substrait-go v8.1.1's ToProto panics on an
	// argument whose type is interval_compound (TypeToProto lacks it).
	for _, o := range f.GetOptions() {
		prefs := o.GetPreference()
		if len(prefs) == 0 {
			continue
		}
		switch o.GetName() {
		case "overflow":
			if prefs[0] == "ERROR" {
				continue
			}
		case "rounding":
			// Decimal results round half away from zero (casts); float
			// arithmetic is IEEE, which rounds half to even.
			if prefs[0] == "TIE_AWAY_FROM_ZERO" || (prefs[0] == "TIE_TO_EVEN" && isFloatType(f.GetType())) {
				continue
			}
		case "case_sensitivity":
			if prefs[0] == "CASE_SENSITIVE" {
				continue
			}
		case "negative_start":
			if prefs[0] == "WRAP_FROM_END" { // DuckDB's substring (strings.go)
				continue
			}
		case "on_domain_error", "on_division_by_zero":
			if prefs[0] == "NAN" || prefs[0] == "INFINITY" || prefs[0] == "IEEE" {
				continue
			}
		}
		return unsupported(fmt.Sprintf("function %s option %s=%s", f.Name(), o.GetName(), prefs[0]))
	}
	return nil
}

func isFloatType(t types.Type) bool {
	g, err := gpuType(t)
	return err == nil && g.Kind.IsFloat()
}

// compare unifies the argument types and builds a comparison.
func compare(op gpu.Op, out gpu.Type, a, b *gpu.Expr) (*gpu.Expr, error) {
	ct, err := commonType(a.Type, b.Type)
	if err != nil {
		return nil, err
	}
	if a, err = cast(a, ct.WithNullable(a.Type.Nullable)); err != nil {
		return nil, err
	}
	if b, err = cast(b, ct.WithNullable(b.Type.Nullable)); err != nil {
		return nil, err
	}
	out.Kind = gpu.Bool
	return gpu.Call(op, out, a, b), nil
}

// commonType is the type two comparison operands are compared in.
func commonType(a, b gpu.Type) (gpu.Type, error) {
	switch {
	case a.Kind == b.Kind && !isDecimal(a):
		return a, nil
	case a.Kind.IsFloat() || b.Kind.IsFloat():
		if (a.Kind.IsFloat() || a.Kind.IsInteger()) && (b.Kind.IsFloat() || b.Kind.IsInteger()) && a.Kind != gpu.Date32 && b.Kind != gpu.Date32 {
			return gpu.Type{Kind: gpu.Float64}, nil
		}
	case isInt(a) && isInt(b):
		return gpu.Type{Kind: widerInt(a.Kind, b.Kind)}, nil
	default:
		da, okA := asDecimal(a)
		db, okB := asDecimal(b)
		if okA && okB {
			scale := max(da.Scale, db.Scale)
			digits := max(da.Precision-da.Scale, db.Precision-db.Scale)
			return decimalType(min(digits+scale, 38), scale, false), nil
		}
	}
	return gpu.Type{}, unsupported(fmt.Sprintf("comparison of %s with %s", a, b))
}

// arithmetic builds a binary arithmetic operation whose result type is the
// plan's, casting the arguments as the IR requires (same kind; decimal
// add/sub at the result scale; decimal mul scales adding up to the result's).
func arithmetic(op gpu.Op, out gpu.Type, a, b *gpu.Expr) (*gpu.Expr, error) {
	var err error
	switch {
	case out.Kind.IsFloat():
		ft := gpu.Type{Kind: out.Kind}
		if a, err = cast(a, ft.WithNullable(a.Type.Nullable)); err != nil {
			return nil, err
		}
		if b, err = cast(b, ft.WithNullable(b.Type.Nullable)); err != nil {
			return nil, err
		}
		return gpu.Call(op, out, a, b), nil
	case isInt(out):
		if !isInt(a.Type) || !isInt(b.Type) {
			return nil, unsupported(fmt.Sprintf("%s of %s and %s giving %s", op, a.Type, b.Type, out))
		}
		k := widerInt(a.Type.Kind, b.Type.Kind)
		if a, err = cast(a, gpu.Type{Kind: k, Nullable: a.Type.Nullable}); err != nil {
			return nil, err
		}
		if b, err = cast(b, gpu.Type{Kind: k, Nullable: b.Type.Nullable}); err != nil {
			return nil, err
		}
		return gpu.Call(op, out, a, b), nil
	case isDecimal(out):
		da, okA := asDecimal(a.Type)
		db, okB := asDecimal(b.Type)
		if !okA || !okB {
			return nil, unsupported(fmt.Sprintf("%s of %s and %s giving %s", op, a.Type, b.Type, out))
		}
		if op == gpu.OpMul {
			return decimalMul(out, a, b, da, db)
		}
		// Add/Sub: both operands at the result scale.
		da = decimalType(min(da.Precision-da.Scale+out.Scale, 38), out.Scale, a.Type.Nullable)
		db = decimalType(min(db.Precision-db.Scale+out.Scale, 38), out.Scale, b.Type.Nullable)
		if a, b, err = sameDecimalKind(a, b, da, db); err != nil {
			return nil, err
		}
		return gpu.Call(op, out, a, b), nil
	}
	return nil, unsupported(fmt.Sprintf("%s giving %s", op, out))
}

func decimalMul(out gpu.Type, a, b *gpu.Expr, da, db gpu.Type) (*gpu.Expr, error) {
	a, b, err := sameDecimalKind(a, b, da, db)
	if err != nil {
		return nil, err
	}
	if da.Scale+db.Scale == out.Scale {
		return gpu.Call(gpu.OpMul, out, a, b), nil
	}
	// The exact product has scale s1+s2; reach the plan's scale by a cast.
	exact := decimalType(38, da.Scale+db.Scale, out.Nullable)
	if exact.Scale > 38 {
		return nil, unsupported(fmt.Sprintf("decimal multiply with scale %d", exact.Scale))
	}
	return cast(gpu.Call(gpu.OpMul, exact, a, b), out)
}

// sameDecimalKind casts both operands to their decimal types, widening the
// 64-bit one to 128 bits when the other is 128.
func sameDecimalKind(a, b *gpu.Expr, da, db gpu.Type) (*gpu.Expr, *gpu.Expr, error) {
	if da.Kind != db.Kind {
		if da.Kind == gpu.Decimal64 {
			da.Kind = gpu.Decimal128
		} else {
			db.Kind = gpu.Decimal128
		}
	}
	var err error
	if a, err = cast(a, da); err != nil {
		return nil, nil, err
	}
	if b, err = cast(b, db); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

// cast converts e to t, or returns e when it already has t's representation.
// Literals are folded here so that kernels see constants, not casts.
func cast(e *gpu.Expr, t gpu.Type) (*gpu.Expr, error) {
	t.Nullable = t.Nullable || e.Type.Nullable
	from := e.Type
	if from.Kind == t.Kind && from.Scale == t.Scale && (!isDecimal(t) || from.Precision <= t.Precision) {
		// Same representation: wider precision and nullability need no work,
		// and the IR checks overflow against each operation's result type.
		return e, nil
	}
	if !castable(from, t) {
		return nil, unsupported(fmt.Sprintf("cast from %s to %s", from, t))
	}
	if e.Op == gpu.OpConst {
		if v, ok := foldCast(e.Const, from, t); ok {
			return gpu.Const(t, v), nil
		}
	}
	return gpu.Call(gpu.OpCast, t, e), nil
}

// caseNullable reports whether a branch of x may be null: a nullable
// THEN or ELSE, or no ELSE. A branch without a type (an outer reference a
// hostile plan put there) counts as nullable; converting it fails after.
func caseNullable(x *expr.IfThen) bool {
	required := func(e expr.Expression) bool {
		if e == nil {
			return false
		}
		t := e.GetType()
		return t != nil && t.GetNullability() == types.NullabilityRequired
	}
	if !required(x.Else()) {
		return true
	}
	for i := 0; i < x.NIfs(); i++ {
		if !required(x.IfPair(i).Then) {
			return true
		}
	}
	return false
}

// caseBranch is e as a branch of a CASE of type t. A CASE's branches have
// its type, precision included, where cast leaves a decimal whose
// precision only widens as it is: DuckDB types CASE and COALESCE of a
// DECIMAL(7,2) column and 0 as DECIMAL(12,2) (TPC-DS q40, q80).
func caseBranch(e *gpu.Expr, t gpu.Type) (*gpu.Expr, error) {
	v, err := cast(e, t)
	if err != nil {
		return nil, err
	}
	if v.Type.Kind == t.Kind && v.Type.Precision != t.Precision {
		return gpu.Call(gpu.OpCast, t.WithNullable(v.Type.Nullable), v), nil
	}
	return v, nil
}

func castable(from, to gpu.Type) bool {
	num := func(t gpu.Type) bool { return isInt(t) || isDecimal(t) || t.Kind.IsFloat() }
	switch {
	case from.Kind.IsFloat() && isInt(to):
		return true // rounded half to even (gpu.OpCast)
	case num(from) && num(to):
		return !(from.Kind.IsFloat() && !to.Kind.IsFloat()) // float -> decimal is not in the IR yet
	case from.Kind == to.Kind:
		return true
	}
	return false
}

// foldCast evaluates casts of literals that are exact: integer/decimal to a
// decimal of larger or equal scale, integer widening, to float.
func foldCast(v gpu.Value, from, to gpu.Type) (gpu.Value, bool) {
	if v.Null {
		return v, true
	}
	n, ok := exactValue(v, from)
	if !ok {
		return v, false
	}
	switch {
	case isDecimal(to) || isInt(to):
		fromScale := int32(0)
		if isDecimal(from) {
			fromScale = from.Scale
		}
		if to.Scale < fromScale {
			return v, false
		}
		n = new(big.Int).Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(to.Scale-fromScale)), nil))
		limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(to.Precision)), nil)
		if isInt(to) {
			limit = new(big.Int).Lsh(big.NewInt(1), uint(to.Kind.Width()*8-1))
			if n.Cmp(limit) >= 0 || n.Cmp(new(big.Int).Neg(limit)) < 0 {
				return v, false
			}
			return gpu.Value{I64: n.Int64()}, true
		}
		if new(big.Int).Abs(n).Cmp(limit) >= 0 {
			return v, false
		}
		if to.Kind == gpu.Decimal64 {
			return gpu.Value{I64: n.Int64()}, true
		}
		return gpu.Value{I128: n}, true
	}
	return v, false
}

func exactValue(v gpu.Value, t gpu.Type) (*big.Int, bool) {
	switch {
	case t.Kind == gpu.Decimal128:
		if v.I128 == nil {
			return nil, false
		}
		return v.I128, true
	case isInt(t) || t.Kind == gpu.Decimal64:
		return big.NewInt(v.I64), true
	}
	return nil, false
}
