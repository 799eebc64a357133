package substrait

// String functions of functions_string.yaml that run row by row
// (gpu.OpStrRow) or through dictionary tables (translate/fn_strrow.go).
const (
	FnConcat       Func = "concat"
	FnConcatWS     Func = "concat_ws"
	FnUpper        Func = "upper"
	FnLower        Func = "lower"
	FnCharLength   Func = "char_length"
	FnBitLength    Func = "bit_length"
	FnOctetLength  Func = "octet_length"
	FnLeft         Func = "left"
	FnRight        Func = "right"
	FnLpad         Func = "lpad"
	FnRpad         Func = "rpad"
	FnLtrim        Func = "ltrim"
	FnRtrim        Func = "rtrim"
	FnTrim         Func = "trim"
	FnRepeat       Func = "repeat"
	FnReplace      Func = "replace"
	FnReverse      Func = "reverse"
	FnRegexpCount  Func = "regexp_count_substring"
	FnRegexpMatch  Func = "regexp_match_substring"
	FnRegexpRepl   Func = "regexp_replace"
	FnStrpos       Func = "strpos"
	FnCountSubstr  Func = "count_substring"
	FnSwapcase     Func = "swapcase"
	FnCapitalize   Func = "capitalize"
	FnReplaceSlice Func = "replace_slice"
	FnCenter       Func = "center"
)

func init() {
	catalogue["functions_string"] = append(catalogue["functions_string"],
		FnConcat, FnConcatWS, FnUpper, FnLower, FnCharLength, FnBitLength, FnOctetLength,
		FnLeft, FnRight, FnLpad, FnRpad, FnLtrim, FnRtrim, FnTrim, FnRepeat, FnReplace,
		FnReverse, FnRegexpCount, FnRegexpMatch, FnRegexpRepl,
		FnStrpos, FnCountSubstr, FnSwapcase, FnCapitalize, FnReplaceSlice, FnCenter)
	// Date arithmetic with intervals (translate/datetime.go).
	catalogue["functions_datetime"] = append(catalogue["functions_datetime"], FnAdd, FnSubtract)
}
