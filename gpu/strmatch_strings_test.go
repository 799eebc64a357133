package gpu

import (
	"math/rand"
	"strings"
	"testing"
)

// The matcher must agree with the dictionary path's StrFunc.Match (Like
// for LIKE) on every string: random strings and patterns over an alphabet
// rich in the cases that break naive matchers (multi-byte code points next
// to '_', repeated letters for overlapping needles, '%%', empty strings).
func TestStrMatcherLikeRandom(t *testing.T) {
	alphabet := []string{"a", "b", "aa", "é", "日", "😀", "ab", "_", "%"}
	strAlpha := []string{"a", "b", "é", "日", "😀", " "}
	rng := rand.New(rand.NewSource(1))
	gen := func(alpha []string, max int) string {
		var b strings.Builder
		for k := rng.Intn(max + 1); k > 0; k-- {
			b.WriteString(alpha[rng.Intn(len(alpha))])
		}
		return b.String()
	}
	strs := make([]string, 300)
	for i := range strs {
		strs[i] = gen(strAlpha, 9)
	}
	strs = append(strs, "", "a", "aab", "aaab", "é", "éé", "日本")
	checked := 0
	for k := 0; k < 600; k++ {
		p := gen(alphabet, 6)
		f := &StrFunc{Kind: StrLike, Pattern: p}
		m, err := NewStrMatcher(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range strs {
			if got, want := m.Match([]byte(s)), f.Match(s); got != want {
				t.Fatalf("%q LIKE %q: matcher %v, Like %v", s, p, got, want)
			}
			checked++
		}
	}
	t.Logf("%d (string, pattern) pairs agree", checked)
}

func TestStrMatcherLikeAdversarial(t *testing.T) {
	cases := []struct {
		s, p string
		want bool
	}{
		{"", "", true},
		{"", "%", true},
		{"", "%%", true},
		{"", "_", false},
		{"a", "", false},
		{"é", "_", true},    // one code point of two bytes
		{"é", "__", false},  // not two
		{"日x", "_x", true},  // '_' before ASCII after a 3-byte code point
		{"x日", "x_", true},  // '_' at the end
		{"x日", "%_", true},  // suffix '_' walks back over the whole code point
		{"日日", "%_日", true}, // suffix with '_' before a multi-byte literal
		{"aab", "%aa%aab%", false},
		{"aaab", "%aa%aab%", false},
		{"aaaab", "%aa%aab%", true},
		{"aaab", "%aab", true},
		{"ab", "a%%b", true},
		{"special requests", "%special%requests%", true},
		{"requests special", "%special%requests%", false},
		{"xspecialrequestsx", "%special%requests%", true},
		{"abc", "a_c", true},
		{"aéc", "a_c", true},
		{"a日c", "a__c", false},
		{"abcabc", "%bc", true},
		{"abca", "%bc", false},
		{"😀😀", "%😀_", true},
		{"a😀", "%_😀", true},
		{"😀", "%_😀", false},
	}
	for _, c := range cases {
		f := &StrFunc{Kind: StrLike, Pattern: c.p}
		m, err := NewStrMatcher(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Match([]byte(c.s)); got != c.want {
			t.Errorf("%q LIKE %q: matcher %v, want %v", c.s, c.p, got, c.want)
		}
		if Like(c.s, c.p) != c.want {
			t.Errorf("%q LIKE %q: Like disagrees with the expected %v", c.s, c.p, c.want)
		}
	}
}

// The other supported kinds against StrFunc.Match.
func TestStrMatcherOtherKinds(t *testing.T) {
	strs := []string{"", "a", "ab", "abc", "b", "é", "éa", "ab\x00", "Brand#45", "Brand#4", "MEDIUM POLISHED TIN", "a_b", "a%b", "axb"}
	pats := []string{"", "a", "ab", "b", "é", "Brand#45", "MEDIUM POLISHED", "a_b", "%", "a%b"}
	var funcs []*StrFunc
	for _, p := range pats {
		funcs = append(funcs, &StrFunc{Kind: StrContains, Pattern: p}, &StrFunc{Kind: StrStartsWith, Pattern: p},
			&StrFunc{Kind: StrEndsWith, Pattern: p})
		for _, op := range []Op{OpEq, OpNe, OpLt, OpLe, OpGt, OpGe} {
			funcs = append(funcs, &StrFunc{Kind: StrCompare, Op: op, Pattern: p})
		}
	}
	funcs = append(funcs, &StrFunc{Kind: StrIn, List: []string{"a", "é", ""}}, &StrFunc{Kind: StrIn, List: nil})
	for _, f := range funcs {
		m, err := NewStrMatcher(f)
		if err != nil {
			t.Fatal(err)
		}
		lp, isPlan := LikePlanOf(f) // what the CUDA code generator emits
		for _, s := range strs {
			if got, want := m.Match([]byte(s)), f.Match(s); got != want {
				t.Errorf("%q %s: matcher %v, StrFunc %v", s, f, got, want)
			}
			if isPlan && lp.Match([]byte(s)) != f.Match(s) {
				t.Errorf("%q %s: LikePlanOf's plan %v, StrFunc %v", s, f, lp.Match([]byte(s)), f.Match(s))
			}
		}
	}
}

func TestStrMatcherRefusesOtherFunctions(t *testing.T) {
	if _, err := NewStrMatcher(&StrFunc{Kind: StrSubstring, From: 1}); err == nil {
		t.Fatal("substring accepted as a per-row predicate")
	}
	if StrPredOnStr(&StrFunc{Kind: StrCompare, Op: OpAdd}) {
		t.Fatal("a comparison with operator + accepted")
	}
	long := make([]byte, MaxStrPredBytes+1)
	if StrPredOnStr(&StrFunc{Kind: StrLike, Pattern: string(long)}) {
		t.Fatal("a pattern longer than MaxStrPredBytes accepted")
	}
}
