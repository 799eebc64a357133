package translate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/expr"
)

// String functions evaluated row by row (gpu.OpStrRow, gpu/ir_strrow.go):
// the functions of functions_string.yaml whose arguments are columns, or
// which the dictionary tables (strings.go) do not cover. A string literal
// argument cannot be an IR value (gpu.Value holds no string): it goes into
// the node's StrFunc.List and the argument is a Dict constant whose code
// indexes that list.

func hasDict(ts []gpu.Type) bool {
	for _, t := range ts {
		if t.Kind == gpu.Dict {
			return true
		}
	}
	return false
}

// rowKinds maps the functions that always run row by row to their kind.
var rowKinds = map[substrait.Func]gpu.StrFuncKind{
	substrait.FnConcat: gpu.StrRowConcat, substrait.FnConcatWS: gpu.StrRowConcatWS,
	substrait.FnUpper: gpu.StrRowUpper, substrait.FnLower: gpu.StrRowLower,
	substrait.FnCharLength: gpu.StrRowCharLength, substrait.FnBitLength: gpu.StrRowBitLength,
	substrait.FnOctetLength: gpu.StrRowOctetLength, substrait.FnLeft: gpu.StrRowLeft,
	substrait.FnRight: gpu.StrRowRight, substrait.FnLpad: gpu.StrRowLpad, substrait.FnRpad: gpu.StrRowRpad,
	substrait.FnLtrim: gpu.StrRowLtrim, substrait.FnRtrim: gpu.StrRowRtrim, substrait.FnTrim: gpu.StrRowTrim,
	substrait.FnRepeat: gpu.StrRowRepeat, substrait.FnReplace: gpu.StrRowReplace,
	substrait.FnReverse: gpu.StrRowReverse, substrait.FnRegexpCount: gpu.StrRowRegexpCount,
	substrait.FnRegexpMatch: gpu.StrRowRegexpMatch, substrait.FnRegexpRepl: gpu.StrRowRegexpReplace,
	substrait.FnStrpos: gpu.StrRowStrpos, substrait.FnCountSubstr: gpu.StrRowCountSubstring,
	substrait.FnSwapcase: gpu.StrRowSwapcase, substrait.FnCapitalize: gpu.StrRowCapitalize,
	substrait.FnReplaceSlice: gpu.StrRowReplaceSlice, substrait.FnCenter: gpu.StrRowCenter,
	// coalesce of strings with a literal among them (fn_num.go hands it on)
	substrait.FnCoalesce: gpu.StrRowCoalesce,
}

// optionKinds: the kind an option value selects, per function.
var optionKinds = map[substrait.Func]map[string]map[string]gpu.StrFuncKind{
	substrait.FnStrpos: {"case_sensitivity": {"CASE_SENSITIVE": gpu.StrRowStrpos,
		"CASE_INSENSITIVE": gpu.StrRowStrposFold, "CASE_INSENSITIVE_ASCII": gpu.StrRowStrposASCII}},
	substrait.FnCountSubstr: {"case_sensitivity": {"CASE_SENSITIVE": gpu.StrRowCountSubstring,
		"CASE_INSENSITIVE": gpu.StrRowCountSubstringFold, "CASE_INSENSITIVE_ASCII": gpu.StrRowCountSubstringASCII}},
	substrait.FnSwapcase:   {"char_set": {"UTF8": gpu.StrRowSwapcase, "ASCII_ONLY": gpu.StrRowSwapcaseASCII}},
	substrait.FnCapitalize: {"char_set": {"UTF8": gpu.StrRowCapitalize, "ASCII_ONLY": gpu.StrRowCapitalizeASCII}},
	substrait.FnCenter:     {"padding": {"RIGHT": gpu.StrRowCenter, "LEFT": gpu.StrRowCenterLeft}},
}

// options reads a call's options (name -> first preference, upper case).
func options(f *expr.ScalarFunction) map[string]string {
	out := map[string]string{}
	for _, o := range f.GetOptions() { // not ToProto: it panics on interval_compound arguments
		if p := o.GetPreference(); len(p) > 0 {
			out[o.GetName()] = strings.ToUpper(p[0])
		}
	}
	return out
}

// stringScalar converts the string functions that run row by row; ok is
// false for a call the dictionary-table path (strings.go) handles.
func (c exprConv) stringScalar(fn substrait.Func, f *expr.ScalarFunction) (g *gpu.Expr, ok bool, err error) {
	kind, isRow := rowKinds[fn]
	opts := options(f)
	switch fn {
	case substrait.FnLike, substrait.FnContains, substrait.FnStartsWith, substrait.FnEndsWith:
		if f.NArgs() != 2 {
			return nil, false, nil // like's escape form: strings.go refuses it
		}
		cs := opts["case_sensitivity"]
		if cs == "" || cs == "CASE_SENSITIVE" {
			if pe, err := valueArg(f, 1); err == nil {
				if _, _, lit := stringLiteral(pe); lit {
					return nil, false, nil // a constant pattern: a dictionary table
				}
			}
		}
		kind, isRow = matchRowKind(fn, cs)
		if !isRow {
			return nil, true, unsupported(fmt.Sprintf("function %s option case_sensitivity=%s", fn, cs))
		}
		delete(opts, "case_sensitivity")
	case substrait.FnSubstring:
		ns := opts["negative_start"]
		constant := true
		for i := 1; i < f.NArgs(); i++ {
			if a, err := valueArg(f, i); err == nil {
				if _, _, lit := intLiteral(a); !lit {
					constant = false
				}
			}
		}
		if constant && ns != "LEFT_OF_BEGINNING" {
			return nil, false, nil
		}
		switch ns {
		case "WRAP_FROM_END":
			kind, isRow = gpu.StrRowSubstring, true
		case "LEFT_OF_BEGINNING":
			kind, isRow = gpu.StrRowSubstringLeft, true
		case "":
			// Unspecified: rows with positions <= 0 are refused (gpu).
			kind, isRow = gpu.StrRowSubstringPositive, true
		default:
			return nil, true, unsupported(fmt.Sprintf("function substring option negative_start=%s", ns))
		}
		delete(opts, "negative_start")
	case substrait.FnConcat:
		switch opts["null_handling"] {
		case "", "ACCEPT_NULLS":
		case "IGNORE_NULLS":
			kind = gpu.StrRowConcatIgnoreNulls
		}
		if nh := opts["null_handling"]; nh == "" || nh == "ACCEPT_NULLS" || nh == "IGNORE_NULLS" {
			delete(opts, "null_handling")
		}
	case substrait.FnUpper, substrait.FnLower:
		if opts["char_set"] == "ASCII_ONLY" {
			kind = map[substrait.Func]gpu.StrFuncKind{substrait.FnUpper: gpu.StrRowUpperASCII, substrait.FnLower: gpu.StrRowLowerASCII}[fn]
			delete(opts, "char_set")
		} else if opts["char_set"] == "UTF8" {
			delete(opts, "char_set") // Go's simple Unicode case mapping
		}
		// full_unicode (an option of the test cases, not of the YAML):
		// Unicode's full case mapping.
		if opts["full_unicode"] == "TRUE" && kind == rowKinds[fn] {
			kind = map[substrait.Func]gpu.StrFuncKind{substrait.FnUpper: gpu.StrRowUpperFull, substrait.FnLower: gpu.StrRowLowerFull}[fn]
			delete(opts, "full_unicode")
		}
	case substrait.FnLtrim, substrait.FnRtrim, substrait.FnTrim:
		// spaces_only=FALSE: the characters argument is used, which is
		// what the functions do; TRUE is refused below.
		if opts["spaces_only"] == "FALSE" {
			delete(opts, "spaces_only")
		}
	case substrait.FnRegexpCount, substrait.FnRegexpMatch, substrait.FnRegexpRepl:
		for name, def := range map[string]string{"case_sensitivity": "CASE_SENSITIVE", "multiline": "MULTILINE_DISABLED", "dotall": "DOTALL_DISABLED"} {
			if v, ok := opts[name]; ok && v == def {
				delete(opts, name)
			}
		}
		// lookaround (an option of the test cases, not of the YAML): a
		// pattern with lookaround is refused by gpu's ICU-to-RE2 rewrite.
		delete(opts, "lookaround")
	}
	for name, kinds := range optionKinds[fn] {
		if k, ok := kinds[opts[name]]; ok {
			kind = k
			delete(opts, name)
		}
	}
	if !isRow {
		return nil, false, nil
	}
	for name, v := range opts {
		if name == "overflow" && v == "ERROR" {
			continue
		}
		return nil, true, unsupported(fmt.Sprintf("function %s option %s=%s", fn, name, v))
	}
	out, err := gpuType(f.GetType())
	if err != nil {
		return nil, true, err
	}
	sf := &gpu.StrFunc{Kind: kind}
	isString, err := sf.RowArgs(f.NArgs())
	if err != nil {
		return nil, true, fmt.Errorf("function %s: %w", fn, err)
	}
	args := make([]*gpu.Expr, f.NArgs())
	nullable := false
	for i := range args {
		a, err := valueArg(f, i)
		if err != nil {
			return nil, true, err
		}
		if isString(i) {
			if s, null, lit := stringLiteral(a); lit {
				if null {
					args[i] = gpu.Const(gpu.Type{Kind: gpu.Dict, Nullable: true}, gpu.Value{Null: true})
				} else {
					args[i] = gpu.Const(gpu.Type{Kind: gpu.Dict}, gpu.Value{I64: int64(len(sf.List))})
					sf.List = append(sf.List, s)
				}
			} else if args[i], err = c.dictArg(a, string(fn)); err != nil {
				return nil, true, err
			}
		} else {
			x, err := c.convert(a)
			if err != nil {
				return nil, true, err
			}
			if !isInt(x.Type) {
				return nil, true, unsupported(fmt.Sprintf("function %s: argument %d is %s, not an integer", fn, i, x.Type))
			}
			if args[i], err = cast(x, gpu.Type{Kind: gpu.Int64, Nullable: x.Type.Nullable}); err != nil {
				return nil, true, err
			}
		}
		nullable = nullable || args[i].Type.Nullable
	}
	switch {
	case sf.RowResultString():
		if out.Kind != gpu.Dict {
			return nil, true, unsupported(fmt.Sprintf("function %s giving %s", fn, out))
		}
	case sf.RowBool():
		if out.Kind != gpu.Bool {
			return nil, true, unsupported(fmt.Sprintf("function %s giving %s", fn, out))
		}
	default:
		if !isInt(out) {
			return nil, true, unsupported(fmt.Sprintf("function %s giving %s", fn, out))
		}
	}
	if nullable && sf.RowNullIn() {
		out.Nullable = true
	}
	if g := tableForm(sf, out, args); g != nil {
		return g, true, nil
	}
	return gpu.RowCall(sf, out, args...), true, nil
}

// tableForm is the dictionary-table form of a row function whose only
// non-constant argument is its first string (gpu/strrow_tables.go): it
// runs on every device. Nil when the call has no such form.
func tableForm(sf *gpu.StrFunc, out gpu.Type, args []*gpu.Expr) *gpu.Expr {
	if len(args) == 0 || args[0].Type.Kind != gpu.Dict || args[0].Op == gpu.OpConst || !sf.RowNullIn() {
		return nil
	}
	if !sf.RowResultString() && !sf.RowBool() {
		return nil // an integer result has no table op
	}
	t := &gpu.StrFunc{Kind: sf.Kind}
	for _, a := range args[1:] {
		if a.Op != gpu.OpConst || a.Const.Null {
			return nil
		}
		if a.Type.Kind == gpu.Dict {
			t.List = append(t.List, sf.List[a.Const.I64])
		} else {
			t.List = append(t.List, strconv.FormatInt(a.Const.I64, 10))
		}
	}
	if t.Check() != nil {
		return nil
	}
	return gpu.StrCall(t, out.WithNullable(out.Nullable || args[0].Type.Nullable), args[0])
}

func matchRowKind(fn substrait.Func, cs string) (gpu.StrFuncKind, bool) {
	type key struct {
		fn substrait.Func
		cs string
	}
	k, ok := map[key]gpu.StrFuncKind{
		{substrait.FnLike, ""}: gpu.StrRowLike, {substrait.FnLike, "CASE_SENSITIVE"}: gpu.StrRowLike,
		{substrait.FnContains, ""}: gpu.StrRowContains, {substrait.FnContains, "CASE_SENSITIVE"}: gpu.StrRowContains,
		{substrait.FnContains, "CASE_INSENSITIVE"}: gpu.StrRowContainsFold, {substrait.FnContains, "CASE_INSENSITIVE_ASCII"}: gpu.StrRowContainsASCII,
		{substrait.FnStartsWith, ""}: gpu.StrRowStartsWith, {substrait.FnStartsWith, "CASE_SENSITIVE"}: gpu.StrRowStartsWith,
		{substrait.FnStartsWith, "CASE_INSENSITIVE"}: gpu.StrRowStartsWithFold, {substrait.FnStartsWith, "CASE_INSENSITIVE_ASCII"}: gpu.StrRowStartsWithASCII,
		{substrait.FnEndsWith, ""}: gpu.StrRowEndsWith, {substrait.FnEndsWith, "CASE_SENSITIVE"}: gpu.StrRowEndsWith,
		{substrait.FnEndsWith, "CASE_INSENSITIVE"}: gpu.StrRowEndsWithFold, {substrait.FnEndsWith, "CASE_INSENSITIVE_ASCII"}: gpu.StrRowEndsWithASCII,
	}[key{fn, cs}]
	return k, ok
}
