package gpu

import "fmt"

// Row-wise string functions (OpStrRow).
//
// Why a second kind of string operation. OpStrPred and OpStrMap evaluate a
// function once per entry of ONE dictionary and look codes up in the table:
// that needs every other argument to be a constant, known when the table is
// built. A function whose string arguments are several columns (concat of
// two columns, like(name, pattern_column)), or whose numeric arguments are
// columns (lpad(s, width_column, '*')), has no such table: its result
// depends on the combination of arguments of each row. OpStrRow is that
// operation.
//
// Design:
//   - Expr{Op: OpStrRow, Str: &StrFunc{Kind: StrRow...}, Args: ...}: Args
//     are values of any kind the function takes: Dict (strings, each with
//     its own dictionary), integers (positions, counts, lengths) and Bool.
//     Str.Kind names the function (the StrRow* kinds below). A string
//     literal argument is a Dict constant (OpConst, not null) whose I64
//     indexes Str.List, the node's literal strings: gpu.Value holds no
//     string, and a literal has no dictionary. Str.Pattern is reserved for
//     regexp flags (none is implemented: devices refuse a non-empty one).
//   - The semantics of one row live here in package gpu (EvalRow in
//     strrow_semantics.go), shared by every device, as the dictionary tables'
//     are (strfunc.go): one definition of what the function means.
//   - The result is Bool, an integer kind, or Dict. A Dict result needs a
//     dictionary, which for OpStrRow depends on every row's combination of
//     arguments. The host device builds it before the pipeline's rows are
//     evaluated: it evaluates the function over all input rows (ignoring
//     per-row errors, which are raised only for rows the pipeline really
//     evaluates), sorts the distinct results into the new dictionary, and
//     then each evaluated row looks its result string up in it. The
//     dictionary may hold strings of rows the filter drops; that is allowed
//     (a dictionary lists possible values, not only used ones).
//   - Null handling is per function (RowNullIn): most functions give null
//     when any argument is null; concat with IGNORE_NULLS and concat_ws skip
//     null strings.
//   - A row function whose only non-constant argument is its first string
//     is a function of that string: the translator then emits it as an
//     OpStrMap/OpStrPred whose Str has the StrRow kind (constants in
//     Str.List, see strrow_tables.go), which every device, CUDA included,
//     runs through the dictionary tables. OpStrRow is for the rest.
//   - The CUDA code generator does not emit OpStrRow. The CUDA device
//     evaluates such a function on the host over its downloaded arguments
//     (gpu/cuda's rowstrings.go, through EvalRows in strrow_arrow.go),
//     after the pipeline's filter where that has no row function, and
//     uploads the results, which the pipeline reads as input columns. A
//     device-side string layout (offsets + bytes) would let kernels run
//     these functions themselves; it comes with plain-layout strings.
const (
	// OpStrRow: the row-wise string function Str of Args (see above).
	OpStrRow Op = 128 + iota
)

// Row-wise string function kinds (StrFunc.Kind of an OpStrRow). Argument
// lists are those of Substrait's functions_string.yaml; "s" is a string
// (Dict), "n" an integer. Lengths and positions count code points.
const (
	StrRowConcat              StrFuncKind = 128 + iota // concat(s...): null if any is null (ACCEPT_NULLS)
	StrRowConcatIgnoreNulls                            // concat(s...) skipping nulls (IGNORE_NULLS)
	StrRowConcatWS                                     // concat_ws(sep, s...): null if sep is null; null strings skipped
	StrRowLike                                         // like(s, pattern)
	StrRowContains                                     // contains(s, sub)
	StrRowStartsWith                                   // starts_with(s, prefix)
	StrRowEndsWith                                     // ends_with(s, suffix)
	StrRowContainsFold                                 // contains, case-insensitive (Unicode simple folding)
	StrRowStartsWithFold                               // starts_with, case-insensitive
	StrRowEndsWithFold                                 // ends_with, case-insensitive
	StrRowContainsASCII                                // contains, ASCII letters case-insensitive
	StrRowStartsWithASCII                              // starts_with, ASCII letters case-insensitive
	StrRowEndsWithASCII                                // ends_with, ASCII letters case-insensitive
	StrRowSubstring                                    // substring(s, start[, length]), WRAP_FROM_END (gpu.Substring)
	StrRowSubstringLeft                                // substring(s, start[, length]), LEFT_OF_BEGINNING
	StrRowSubstringPositive                            // substring without negative_start: a row with start <= 0 or length < 0 is refused
	StrRowUpperFull                                    // upper(s), full_unicode: Unicode's full case mapping
	StrRowLowerFull                                    // lower(s), full_unicode: Unicode's full case mapping
	StrRowUpper                                        // upper(s), Unicode
	StrRowLower                                        // lower(s), Unicode
	StrRowUpperASCII                                   // upper(s), ASCII letters only
	StrRowLowerASCII                                   // lower(s), ASCII letters only
	StrRowCharLength                                   // char_length(s): code points
	StrRowBitLength                                    // bit_length(s): 8 * bytes
	StrRowOctetLength                                  // octet_length(s): bytes
	StrRowLeft                                         // left(s, n)
	StrRowRight                                        // right(s, n)
	StrRowLpad                                         // lpad(s, n[, chars])
	StrRowRpad                                         // rpad(s, n[, chars])
	StrRowLtrim                                        // ltrim(s[, chars])
	StrRowRtrim                                        // rtrim(s[, chars])
	StrRowTrim                                         // trim(s[, chars])
	StrRowRepeat                                       // repeat(s, n)
	StrRowReplace                                      // replace(s, from, to)
	StrRowReverse                                      // reverse(s): code points reversed
	StrRowRegexpCount                                  // regexp_count_substring(s, re[, position])
	StrRowRegexpMatch                                  // regexp_match_substring(s, re[, position, occurrence, group])
	StrRowRegexpReplace                                // regexp_replace(s, re, repl[, position, occurrence])
	StrRowStrpos                                       // strpos(s, sub): code point position of the first occurrence, 0 if none
	StrRowStrposFold                                   // strpos, case-insensitive
	StrRowStrposASCII                                  // strpos, ASCII letters case-insensitive
	StrRowCountSubstring                               // count_substring(s, sub): non-overlapping occurrences
	StrRowCountSubstringFold                           // count_substring, case-insensitive
	StrRowCountSubstringASCII                          // count_substring, ASCII letters case-insensitive
	StrRowSwapcase                                     // swapcase(s), Unicode
	StrRowSwapcaseASCII                                // swapcase(s), ASCII letters only
	StrRowCapitalize                                   // capitalize(s): the first code point upper-cased, Unicode
	StrRowCapitalizeASCII                              // capitalize(s), ASCII letters only
	StrRowReplaceSlice                                 // replace_slice(s, start, length, repl)
	StrRowCenter                                       // center(s, n, char): extra padding on the right
	StrRowCenterLeft                                   // center(s, n, char): extra padding on the left
	StrRowCoalesce                                     // coalesce(s...): the first string that is not null
	strRowEnd
)

var strRowNames = map[StrFuncKind]string{
	StrRowConcat: "concat", StrRowConcatIgnoreNulls: "concat_ignore_nulls", StrRowConcatWS: "concat_ws",
	StrRowLike: "like", StrRowContains: "contains", StrRowStartsWith: "starts_with", StrRowEndsWith: "ends_with",
	StrRowContainsFold: "contains_ci", StrRowStartsWithFold: "starts_with_ci", StrRowEndsWithFold: "ends_with_ci",
	StrRowContainsASCII: "contains_ci_ascii", StrRowStartsWithASCII: "starts_with_ci_ascii", StrRowEndsWithASCII: "ends_with_ci_ascii",
	StrRowSubstring: "substring", StrRowSubstringLeft: "substring_left_of_beginning",
	StrRowSubstringPositive: "substring", StrRowUpperFull: "upper_full_unicode", StrRowLowerFull: "lower_full_unicode",
	StrRowUpper: "upper", StrRowLower: "lower", StrRowUpperASCII: "upper_ascii", StrRowLowerASCII: "lower_ascii",
	StrRowCharLength: "char_length", StrRowBitLength: "bit_length", StrRowOctetLength: "octet_length",
	StrRowLeft: "left", StrRowRight: "right", StrRowLpad: "lpad", StrRowRpad: "rpad",
	StrRowLtrim: "ltrim", StrRowRtrim: "rtrim", StrRowTrim: "trim", StrRowRepeat: "repeat",
	StrRowReplace: "replace", StrRowReverse: "reverse",
	StrRowRegexpCount: "regexp_count_substring", StrRowRegexpMatch: "regexp_match_substring",
	StrRowRegexpReplace: "regexp_replace",
	StrRowStrpos:        "strpos", StrRowStrposFold: "strpos_ci", StrRowStrposASCII: "strpos_ci_ascii",
	StrRowCountSubstring: "count_substring", StrRowCountSubstringFold: "count_substring_ci",
	StrRowCountSubstringASCII: "count_substring_ci_ascii", StrRowSwapcase: "swapcase",
	StrRowSwapcaseASCII: "swapcase_ascii", StrRowCapitalize: "capitalize", StrRowCapitalizeASCII: "capitalize_ascii",
	StrRowReplaceSlice: "replace_slice", StrRowCenter: "center", StrRowCenterLeft: "center_pad_left",
	StrRowCoalesce: "coalesce",
}

func init() { opNames[OpStrRow] = "str_row" }

// IsRowFunc reports whether f is a row-wise string function (OpStrRow).
func (f *StrFunc) IsRowFunc() bool { return f != nil && f.Kind >= StrRowConcat && f.Kind < strRowEnd }

// RowName is the name of a row-wise string function, with its regexp flags.
func (f *StrFunc) RowName() string {
	n, ok := strRowNames[f.Kind]
	if !ok {
		return fmt.Sprintf("strrow(%d)", f.Kind)
	}
	if f.Pattern != "" {
		n += "[" + f.Pattern + "]"
	}
	return n
}

// RowCall returns the row-wise string function f of args, of type t.
func RowCall(f *StrFunc, t Type, args ...*Expr) *Expr {
	return &Expr{Op: OpStrRow, Type: t, Args: args, Str: f}
}
