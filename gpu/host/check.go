package host

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
)

// Type checking of the IR, done once per Run before any row is touched, so
// that evaluation can rely on well-typed trees and ill-typed input is a
// clear error rather than a panic. Declared nullability of intermediate
// expressions is not enforced (validity is tracked from the data); a null
// reaching an output column declared non-nullable is reported at run time.

func isIntClass(k gpu.Kind) bool { return k.IsInteger() } // ints, dates, decimals

func isDecimal(k gpu.Kind) bool { return k == gpu.Decimal64 || k == gpu.Decimal128 }

// scaleOf is the decimal scale; plain integers have scale 0.
func scaleOf(t gpu.Type) int32 {
	if isDecimal(t.Kind) {
		return t.Scale
	}
	return 0
}

func checkType(t gpu.Type) error {
	switch t.Kind {
	case gpu.Bool, gpu.Int8, gpu.Int16, gpu.Int32, gpu.Int64, gpu.Float32, gpu.Float64, gpu.Date32, gpu.Dict, gpu.Str:
		return nil
	case gpu.Decimal64, gpu.Decimal128:
		maxP := int32(18)
		if t.Kind == gpu.Decimal128 {
			maxP = 38
		}
		if t.Precision < 1 || t.Precision > maxP || t.Scale < 0 || t.Scale > t.Precision {
			return fmt.Errorf("invalid type %s: precision must be 1..%d and scale 0..precision", t, maxP)
		}
		return nil
	}
	return fmt.Errorf("invalid type kind %d", uint8(t.Kind))
}

func sameType(a, b gpu.Type) bool {
	return a.Kind == b.Kind && a.Precision == b.Precision && a.Scale == b.Scale
}

// checker validates expressions and resolves the dictionary of Dict-typed
// ones (codes only mean something together with their dictionary).
type checker struct {
	ctx    context.Context // the run's (rowDictionary evaluates rows)
	inputs []gpu.Type
	dicts  []*array.String // per input column, nil unless Dict
	// tabs holds the tables of the string operations (strings.go).
	tabs map[*gpu.Expr]*strTab
	// cols and n: the input columns, for the row-wise string functions
	// whose result dictionary is built from every row (eval_strrow.go).
	cols []*column
	n    int
}

func (c *checker) check(e *gpu.Expr) (*array.String, error) {
	if e == nil {
		return nil, fmt.Errorf("nil expression")
	}
	if err := checkType(e.Type); err != nil {
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("ill-typed expression %s: %s", e, fmt.Sprintf(format, a...))
	}
	nargs := func(n int) error {
		if len(e.Args) != n {
			return bad("%s takes %d argument(s), got %d", e.Op, n, len(e.Args))
		}
		return nil
	}
	if e.Op != gpu.OpCol && e.Op != gpu.OpConst {
		for _, a := range e.Args {
			if a == nil {
				return nil, bad("nil argument")
			}
		}
	}
	// Check arguments first (their dictionaries are needed below).
	argDicts := make([]*array.String, len(e.Args))
	if e.Op != gpu.OpCol && e.Op != gpu.OpConst {
		for i, a := range e.Args {
			d, err := c.check(a)
			if err != nil {
				return nil, err
			}
			argDicts[i] = d
		}
	}
	if err := checkStrUse(e); err != nil { // strcol_strings.go
		return nil, err
	}
	k := e.Type.Kind
	switch e.Op {
	case gpu.OpCol:
		if e.Col < 0 || e.Col >= len(c.inputs) {
			return nil, bad("column %d does not exist (%d inputs)", e.Col, len(c.inputs))
		}
		if !sameType(e.Type, c.inputs[e.Col]) {
			return nil, bad("column %d is %s, the expression says %s", e.Col, c.inputs[e.Col], e.Type)
		}
		return c.dicts[e.Col], nil
	case gpu.OpConst:
		return nil, checkConst(e)
	case gpu.OpAdd, gpu.OpSub, gpu.OpMul, gpu.OpDiv:
		if err := nargs(2); err != nil {
			return nil, err
		}
		a, b := e.Args[0].Type, e.Args[1].Type
		if a.Kind != b.Kind {
			return nil, bad("arguments are %s and %s (the translator must cast to one kind)", a, b)
		}
		if a.Kind.IsFloat() {
			if !k.IsFloat() {
				return nil, bad("float arithmetic must give a float, not %s", e.Type)
			}
			return nil, nil
		}
		if e.Op == gpu.OpDiv {
			return nil, fmt.Errorf("%s: integer/decimal division: %w", e, gpu.ErrUnsupported)
		}
		if !isIntClass(a.Kind) || !isIntClass(k) || (e.Op == gpu.OpMul && a.Kind == gpu.Date32) {
			return nil, bad("%s is not defined on %s giving %s", e.Op, a, e.Type)
		}
		want := scaleOf(a)
		if e.Op == gpu.OpMul {
			want = scaleOf(a) + scaleOf(b)
		} else if scaleOf(a) != scaleOf(b) {
			return nil, bad("%s needs equal scales, got %s and %s", e.Op, a, b)
		}
		if scaleOf(e.Type) != want {
			return nil, bad("result scale must be %d", want)
		}
		return nil, nil
	case gpu.OpNeg:
		if err := nargs(1); err != nil {
			return nil, err
		}
		a := e.Args[0].Type
		if a.Kind.IsFloat() && k.IsFloat() {
			return nil, nil
		}
		if !isIntClass(a.Kind) || !isIntClass(k) || scaleOf(a) != scaleOf(e.Type) {
			return nil, bad("neg of %s cannot give %s", a, e.Type)
		}
		return nil, nil
	case gpu.OpEq, gpu.OpNe, gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe:
		if err := nargs(2); err != nil {
			return nil, err
		}
		a, b := e.Args[0].Type, e.Args[1].Type
		if k != gpu.Bool {
			return nil, bad("a comparison gives bool")
		}
		if a.Kind != b.Kind || scaleOf(a) != scaleOf(b) {
			return nil, bad("compared values are %s and %s (same kind and scale needed)", a, b)
		}
		if a.Kind == gpu.Dict {
			if _, err := sameDict(argDicts[0], argDicts[1]); err != nil {
				// Two dictionaries: compared through the order of the
				// right one (evalCompareDicts).
				if c.tabs == nil {
					c.tabs = map[*gpu.Expr]*strTab{}
				}
				c.tabs[e] = &strTab{cross: gpu.DictOrderMap(argDicts[0], argDicts[1])}
			}
		}
		return nil, nil
	case gpu.OpAnd, gpu.OpOr:
		if len(e.Args) == 0 {
			return nil, bad("needs at least one argument")
		}
		for _, a := range e.Args {
			if a.Type.Kind != gpu.Bool {
				return nil, bad("argument %s is %s, not bool", a, a.Type)
			}
		}
		if k != gpu.Bool {
			return nil, bad("gives bool")
		}
		return nil, nil
	case gpu.OpNot:
		if err := nargs(1); err != nil {
			return nil, err
		}
		if e.Args[0].Type.Kind != gpu.Bool || k != gpu.Bool {
			return nil, bad("not takes and gives bool")
		}
		return nil, nil
	case gpu.OpIsNull, gpu.OpIsNotNull:
		if err := nargs(1); err != nil {
			return nil, err
		}
		if k != gpu.Bool {
			return nil, bad("gives bool")
		}
		return nil, nil
	case gpu.OpCast:
		if err := nargs(1); err != nil {
			return nil, err
		}
		from := e.Args[0].Type
		switch {
		case isIntClass(from.Kind) && isIntClass(k):
		case isIntClass(from.Kind) && k.IsFloat():
		case from.Kind.IsFloat() && k.IsFloat():
		case from.Kind.IsFloat() && isPlainInt(k):
		case from.Kind == k && (k == gpu.Bool || k == gpu.Dict):
		default:
			return nil, fmt.Errorf("cast %s to %s: %w", from, e.Type, gpu.ErrUnsupported)
		}
		return argDicts[0], nil
	case gpu.OpCase:
		if len(e.Args)%2 != 1 {
			return nil, bad("case needs cond/value pairs and an else (odd argument count), got %d", len(e.Args))
		}
		var dict *array.String
		mixed := false
		for i, a := range e.Args {
			if !gpu.IsCaseValue(i, len(e.Args)) {
				if a.Type.Kind != gpu.Bool {
					return nil, bad("condition %s is %s, not bool", a, a.Type)
				}
				continue
			}
			if !sameType(a.Type, e.Type) {
				return nil, bad("branch %s is %s, the case is %s", a, a.Type, e.Type)
			}
			d, err := sameDict(dict, argDicts[i])
			if err != nil {
				mixed = true
				continue
			}
			dict = d
		}
		if mixed {
			return c.mergeCaseDicts(e, argDicts), nil // strings.go
		}
		return dict, nil
	case gpu.OpStrPred, gpu.OpStrMap:
		return c.checkStr(e, argDicts[0])
	case gpu.OpYear, gpu.OpMonth, gpu.OpDay:
		return nil, checkDatePart(e)
	case gpu.OpStrRow:
		return c.checkStrRow(e, argDicts)
	case gpu.OpTimePart, gpu.OpAddMonths, gpu.OpAddDayInterval:
		return nil, checkTemporal(e)
	case gpu.OpAddMonthsTs:
		return nil, checkTemporalTs(e)
	case gpu.OpMakeDate: // eval_datetime.go
		return nil, checkMakeDate(e)
	case gpu.OpAvgDivide: // eval_avg.go
		return nil, checkAvgDivide(e)
	case gpu.OpStatMoments: // agg_stats.go
		return nil, checkStatMoments(e)
	}
	if ok, err := checkNum(e); ok {
		return nil, err
	}
	return nil, fmt.Errorf("expression %s: unknown operator %s: %w", e, e.Op, gpu.ErrUnsupported)
}

func checkConst(e *gpu.Expr) error {
	v := e.Const
	if v.Null {
		return nil
	}
	t := e.Type
	switch t.Kind {
	case gpu.Decimal128:
		if v.I128 == nil {
			return fmt.Errorf("literal of type %s has no I128 value", t)
		}
		w, ok := fromBig(v.I128)
		if !ok || !fitsPrecision(w, t.Precision) {
			return fmt.Errorf("literal %s does not fit %s: %w", v.I128, t, gpu.ErrOverflow)
		}
	case gpu.Float32, gpu.Float64:
	case gpu.Dict:
		if v.I64 < 0 || v.I64 > 1<<31-1 {
			return fmt.Errorf("literal dict code %d out of range", v.I64)
		}
	default:
		b := boundsOf(t)
		if v.I64 < b.lo || v.I64 > b.hi {
			return fmt.Errorf("literal %d does not fit %s: %w", v.I64, t, gpu.ErrOverflow)
		}
	}
	return nil
}

// sameDict unifies the dictionaries of two Dict values: codes from
// different dictionaries cannot be compared or mixed.
func sameDict(a, b *array.String) (*array.String, error) {
	if a == nil {
		return b, nil
	}
	if b == nil || gpu.SameDictionary(a, b) {
		return a, nil
	}
	return nil, fmt.Errorf("dict values from two different dictionaries (%d and %d strings): %w", a.Len(), b.Len(), gpu.ErrUnsupported)
}

// bounds is the int64 range of a type stored as int64.
type bounds struct{ lo, hi int64 }

func boundsOf(t gpu.Type) bounds {
	switch t.Kind {
	case gpu.Bool:
		return bounds{0, 1}
	case gpu.Int8:
		return bounds{-1 << 7, 1<<7 - 1}
	case gpu.Int16:
		return bounds{-1 << 15, 1<<15 - 1}
	case gpu.Int32, gpu.Date32, gpu.Dict:
		return bounds{-1 << 31, 1<<31 - 1}
	case gpu.Decimal64:
		if t.Precision >= 1 && t.Precision <= 18 {
			m := int64(pow10[t.Precision].lo) - 1
			return bounds{-m, m}
		}
	}
	return bounds{-1 << 63, 1<<63 - 1}
}
