package gpu

import (
	"errors"
	"testing"
)

func s(v string) RowValue { return RowValue{S: v} }
func n(v int64) RowValue  { return RowValue{I: v} }

// Expectations by hand from functions_string.yaml, its test cases, and ICU's
// regular expression rules.
func TestEvalRow(t *testing.T) {
	null := RowValue{Null: true}
	cases := []struct {
		kind StrFuncKind
		args []RowValue
		want RowValue
	}{
		{StrRowConcat, []RowValue{s("ab"), null}, null},
		{StrRowConcatIgnoreNulls, []RowValue{null, null}, s("")},
		{StrRowConcatWS, []RowValue{s(","), null, s("a"), s("b")}, s("a,b")},
		{StrRowConcatWS, []RowValue{null, s("a")}, null},
		{StrRowContainsFold, []RowValue{s("😊a😊b😊😊"), s("A😊B")}, n(1)},
		{StrRowStartsWithASCII, []RowValue{s("Éa"), s("éA")}, n(0)},
		{StrRowLpad, []RowValue{s("abcdef"), n(20), s("aabb")}, s("aabbaabbaabbaaabcdef")},
		{StrRowRpad, []RowValue{s("abcdef"), n(4), s(" ")}, s("abcd")},
		{StrRowLpad, []RowValue{s("abcdef"), n(-1), s(" ")}, s("")},
		{StrRowTrim, []RowValue{s("abcdefcbaa"), s("abc")}, s("def")},
		{StrRowReplace, []RowValue{s("abc"), s(""), s("x")}, s("abc")},
		{StrRowReverse, []RowValue{s("😔😄a")}, s("a😄😔")},
		{StrRowSubstringLeft, []RowValue{s("abcdefg"), n(-1), n(3)}, s("a")},
		{StrRowSubstring, []RowValue{s("abcdefg"), n(-2), n(1)}, s("f")},
		{StrRowBitLength, []RowValue{s("😄")}, n(32)},
		{StrRowRegexpCount, []RowValue{s("foobarboopzoo"), s("o{1}")}, n(6)},
		{StrRowRegexpCount, []RowValue{s("abcdefc"), s("(.*)c?")}, n(2)}, // ICU keeps the empty match at the end
		{StrRowRegexpCount, []RowValue{s("a\rb"), s("a.b")}, n(0)},       // '.' stops at every line terminator
		{StrRowRegexpCount, []RowValue{s("a\u2003b"), s(`\s`)}, n(1)},    // ICU's \s is White_Space
		{StrRowRegexpMatch, []RowValue{s("abc def"), s(`(\S+) (\S+)`), n(1), n(1), n(2)}, s("def")},
		{StrRowRegexpMatch, []RowValue{s("abcabc"), s("b"), n(3), n(1), n(0)}, s("b")},
		{StrRowRegexpReplace, []RowValue{s("abc"), s("(.*)c"), s(`\1e`)}, s("abe")},
		{StrRowRegexpReplace, []RowValue{s("abab"), s("b"), s("X"), n(1), n(2)}, s("abaX")},
		{StrRowRegexpReplace, []RowValue{s("abab"), s("^a"), s("X"), n(3), n(0)}, s("abXb")}, // a search region starts at position
		{StrRowStrpos, []RowValue{s("😊a😊b"), s("😊b")}, n(3)},
		{StrRowStrpos, []RowValue{s("abc"), s("x")}, n(0)},
		{StrRowStrposFold, []RowValue{s("xÉTÉ"), s("été")}, n(2)},
		{StrRowCountSubstring, []RowValue{s("aaaa"), s("aa")}, n(2)}, // non-overlapping
		{StrRowCountSubstringASCII, []RowValue{s("AbAB"), s("ab")}, n(2)},
		{StrRowSwapcase, []RowValue{s("aBcÉé1")}, s("AbCéÉ1")},
		{StrRowSwapcaseASCII, []RowValue{s("aBcÉé1")}, s("AbCÉé1")},
		{StrRowCapitalize, []RowValue{s("été x")}, s("Été x")},
		{StrRowCapitalize, []RowValue{s("")}, s("")},
		{StrRowReplaceSlice, []RowValue{s("abcdef"), n(2), n(3), s("XY")}, s("aXYef")},
		{StrRowReplaceSlice, []RowValue{s("abc"), n(2), n(0), s("X")}, s("aXbc")},
		{StrRowReplaceSlice, []RowValue{s("abc"), n(2), n(10), s("X")}, s("aX")},
		{StrRowReplaceSlice, []RowValue{s("abc"), n(0), n(1), s("X")}, null},
		{StrRowReplaceSlice, []RowValue{s("abc"), n(1), n(-1), s("X")}, null},
		{StrRowCenter, []RowValue{s("ab"), n(5), s("*")}, s("*ab**")},
		{StrRowCenterLeft, []RowValue{s("ab"), n(5), s("*")}, s("**ab*")},
		{StrRowCoalesce, []RowValue{null, s("x"), s("y")}, s("x")},
		{StrRowCoalesce, []RowValue{null, null}, null},
		// Lookaround runs on regexp2; its offsets count code points.
		{StrRowRegexpMatch, []RowValue{s("é100 dollars"), s(`\d+(?= dollars)`)}, s("100")},
		{StrRowRegexpReplace, []RowValue{s("éUSD100"), s(`(?<=USD)\d{3}`), s("9"), n(1), n(1)}, s("éUSD9")},
		{StrRowRegexpCount, []RowValue{s("JPY100JPY100"), s(`\d{3}(?<!USD\d{3})`)}, n(2)},
		{StrRowRegexpCount, []RowValue{s("abcdefc"), s(`(.*)c?(?=)`)}, n(2)},
		{StrRowRegexpCount, []RowValue{s("a\rb"), s(`a.b(?=)`)}, n(0)},
		{StrRowRegexpCount, []RowValue{s("a\u2003b"), s(`\s(?=b)`)}, n(1)},
	}
	for _, c := range cases {
		f := &StrFunc{Kind: c.kind}
		got, err := f.EvalRow(c.args)
		if err != nil || got != c.want {
			t.Errorf("%s%v = %+v, %v; want %+v", f.RowName(), c.args, got, err, c.want)
		}
	}
}

// What ICU and RE2 would answer differently is refused, never run.
func TestEvalRowRefusals(t *testing.T) {
	cases := []struct {
		kind StrFuncKind
		args []RowValue
	}{
		{StrRowRegexpCount, []RowValue{s("100 dollars"), s(`(?<n>\d)+(?= dollars)`)}}, // named group on regexp2
		{StrRowRegexpCount, []RowValue{s("100 dollars"), s(`\Q1\E(?= dollars)`)}},
		{StrRowRegexpCount, []RowValue{s("100 dollars"), s(`\p{Greek}(?= dollars)`)}},
		{StrRowRegexpCount, []RowValue{s("ab"), s(`\bab`)}},
		{StrRowRegexpCount, []RowValue{s("é"), s(`\w`)}},      // ICU's \w is Unicode
		{StrRowRegexpCount, []RowValue{s("abc\n"), s(`c$`)}},  // ICU's $ matches before a final newline
		{StrRowRegexpCount, []RowValue{s("aaa"), s(`a++`)}},   // possessive
		{StrRowRegexpCount, []RowValue{s("abc"), s(`^(x)?`)}}, // anchored and matching empty
		{StrRowRegexpReplace, []RowValue{s("abc"), s("b"), s("$1")}},
		{StrRowRegexpReplace, []RowValue{s("abab"), s("b"), s("X")}}, // occurrence 0, two matches
		{StrRowSubstringPositive, []RowValue{s("abc"), n(0), n(1)}},
		{StrRowCountSubstring, []RowValue{s("abc"), s("")}},
		{StrRowCenter, []RowValue{s("abcdef"), n(3), s("*")}},
	}
	for _, c := range cases {
		f := &StrFunc{Kind: c.kind}
		got, err := f.EvalRow(c.args)
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s%v = %+v, %v; want ErrUnsupported", f.RowName(), c.args, got, err)
		}
	}
	if _, err := (&StrFunc{Kind: StrRowRepeat}).EvalRow([]RowValue{s("ab"), n(1 << 40)}); err == nil || errors.Is(err, ErrUnsupported) {
		t.Errorf("repeat 2^40 times: %v, want a plain error", err)
	}
}

// upper and lower with full_unicode follow Unicode's full case mapping,
// which maps some code points to several and lowers a final sigma.
func TestFullCaseMapping(t *testing.T) {
	for _, c := range []struct {
		kind     StrFuncKind
		in, want string
	}{
		{StrRowUpperFull, "straße", "STRASSE"},
		{StrRowUpperFull, "ŉ ǰ ﬃ", "ʼN J̌ FFI"},
		{StrRowUpperFull, "ᾳ", "ΑΙ"},
		{StrRowLowerFull, "ΟΔΟΣ ΣΑΣ", "οδος σας"},
		{StrRowLowerFull, "İ", "i̇"},
		{StrRowUpperFull, "abc", "ABC"},
		{StrRowLowerFull, "ÀB", "àb"},
	} {
		f := &StrFunc{Kind: c.kind}
		got, err := f.EvalRow([]RowValue{{S: c.in}})
		if err != nil || got.S != c.want {
			t.Errorf("%s(%q) = %q, %v; want %q", f.RowName(), c.in, got.S, err, c.want)
		}
	}
}
