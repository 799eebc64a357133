package cuda

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// TestStrMatchWords: the matcher words the interpreter reads
// (encodeStrMatch), read back as program.cu reads them (strMatchWords), agree
// with gpu.StrMatcher on strings that make matchers trip: repeated
// letters, multi-byte code points, empty strings, a NUL byte.
func TestStrMatchWords(t *testing.T) {
	var fs []*gpu.StrFunc
	for _, p := range []string{"%", "", "_", "%%", "a%", "%a", "%a%", "_a%", "%_é", "é_%", "%aa%aab%", "%aab",
		"a%%b", "%日%😀%", "__", "%b_", "%special%requests%", "a_b_c", "%_%_%", "%_a_%b"} {
		fs = append(fs, &gpu.StrFunc{Kind: gpu.StrLike, Pattern: p})
	}
	for _, p := range []string{"", "a", "ab", "é", "aab", "日", "a_%"} {
		fs = append(fs, &gpu.StrFunc{Kind: gpu.StrContains, Pattern: p},
			&gpu.StrFunc{Kind: gpu.StrStartsWith, Pattern: p}, &gpu.StrFunc{Kind: gpu.StrEndsWith, Pattern: p})
		for op := range strMatchCmpFlags {
			fs = append(fs, &gpu.StrFunc{Kind: gpu.StrCompare, Op: op, Pattern: p})
		}
	}
	fs = append(fs, &gpu.StrFunc{Kind: gpu.StrIn, List: []string{"a", "é", "", "aab"}}, &gpu.StrFunc{Kind: gpu.StrIn, List: []string{"b"}})

	rng := rand.New(rand.NewSource(5))
	alpha := []string{"a", "b", "a", "é", "日", "😀", " ", "c", "_", "%"}
	strs := []string{"", "a", "aab", "aaab", "é", "日本", "special requests", "ab\x00c", "a_b_c"}
	for len(strs) < 400 {
		var b strings.Builder
		for k := rng.Intn(12); k > 0; k-- {
			b.WriteString(alpha[rng.Intn(len(alpha))])
		}
		strs = append(strs, b.String())
	}
	for _, f := range fs {
		w, err := encodeStrMatch(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		// As the checker reads them: from the packed constants, with the
		// padding after the words.
		var words []uint16
		for _, k := range strMatchConsts(w) {
			for _, x := range k {
				words = append(words, uint16(x), uint16(x>>16), uint16(x>>32), uint16(x>>48))
			}
		}
		m, err := gpu.NewStrMatcher(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, s := range strs {
			got, err := strMatchWords(words, []byte(s))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if want := m.Match([]byte(s)); got != want {
				t.Fatalf("%s on %q: words say %v, StrMatcher %v", f, s, got, want)
			}
		}
	}
	// A predicate the interpreter does not read (a row function) is refused.
	if _, err := encodeStrMatch(&gpu.StrFunc{Kind: gpu.StrRowConcat}); err == nil {
		t.Fatal("concat encoded as a matcher")
	}
}
