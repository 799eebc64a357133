package cuda

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

var tStr = gpu.Type{Kind: gpu.Str}

// strRowFuncs are the per-row predicates the tests generate code for.
func strRowFuncs() []*gpu.StrFunc {
	var fs []*gpu.StrFunc
	for _, p := range []string{"%special%requests%", "%", "", "_", "%%", "forest%", "%BRASS", "%green%", "a_c",
		"%_é", "é_%", "%aa%aab%", "%aab", "a%%b", "%日%😀%", "__", "%b_", "%_%_%", "%Customer%Complaints%", "ab\"\\%"} {
		fs = append(fs, &gpu.StrFunc{Kind: gpu.StrLike, Pattern: p})
	}
	for _, p := range []string{"", "a", "aab", "é", "a%_b"} {
		fs = append(fs, &gpu.StrFunc{Kind: gpu.StrContains, Pattern: p},
			&gpu.StrFunc{Kind: gpu.StrStartsWith, Pattern: p}, &gpu.StrFunc{Kind: gpu.StrEndsWith, Pattern: p})
		for _, op := range []gpu.Op{gpu.OpEq, gpu.OpNe, gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe} {
			fs = append(fs, &gpu.StrFunc{Kind: gpu.StrCompare, Op: op, Pattern: p})
		}
	}
	return append(fs, &gpu.StrFunc{Kind: gpu.StrIn, List: []string{"MAIL", "SHIP", "", "é"}},
		&gpu.StrFunc{Kind: gpu.StrIn, List: nil})
}

// strRowSamples: per-row predicates in a filter and projections, over a
// nullable and a non-nullable Str column, in both sinks (Q13's shape: NOT
// LIKE over o_comment, grouped by o_custkey).
func strRowSamples() []samplePipeline {
	ns, nb := nul(tStr), nul(tBool)
	var preds []*gpu.Expr
	for i, f := range strRowFuncs() {
		col, t := gpu.Col(0, ns), nb
		if i%2 == 1 {
			col, t = gpu.Col(1, tStr), tBool
		}
		preds = append(preds, gpu.StrCall(f, t, col))
	}
	notLike := call(gpu.OpNot, nb, gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrLike, Pattern: "%special%requests%"}, nb, gpu.Col(0, ns)))
	inputs := []gpu.Type{ns, tStr, tI64}
	return []samplePipeline{
		{"strrow_materialize", &gpu.Pipeline{Inputs: inputs, Filter: call(gpu.OpOr, nb, preds[0], preds[1]),
			Project: append([]*gpu.Expr{gpu.Col(2, tI64)}, preds...), Sink: gpu.SinkMaterialize}, []int{0, 0, 0}},
		{"strrow_aggregate", &gpu.Pipeline{Inputs: inputs, Filter: notLike,
			Project: []*gpu.Expr{gpu.Col(2, tI64), preds[2]}, Sink: gpu.SinkAggregate, Keys: []int{0, 1},
			Aggs: []gpu.Agg{{Kind: gpu.AggCountStar, Type: tI64}}}, []int{0, 0, 0}},
	}
}

func TestNVRTCCompilesStrRowKernels(t *testing.T) {
	skipNoNVRTC(t)
	for _, s := range strRowSamples() {
		src, err := pipelineSource(s.p, s.dictLen)
		if err != nil {
			t.Fatalf("%s: generate: %v", s.name, err)
		}
		compileClean(t, s.name, src)
	}
}

// Str values are refused everywhere but as a string predicate's argument
// and a bare projection (gpu.CheckStrUses).
func TestStrRowRefusals(t *testing.T) {
	x := gpu.Col(0, tStr)
	bad := []*gpu.Pipeline{
		{Inputs: []gpu.Type{tStr}, Project: []*gpu.Expr{x}, Sink: gpu.SinkAggregate, Aggs: []gpu.Agg{{Kind: gpu.AggMin, Arg: 0, Type: tStr}}},
		{Inputs: []gpu.Type{tStr}, Project: []*gpu.Expr{call(gpu.OpIsNull, tBool, x)}, Sink: gpu.SinkMaterialize},
		{Inputs: []gpu.Type{tStr}, Project: []*gpu.Expr{gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrSubstring, From: 1}, tDict, x)}, Sink: gpu.SinkMaterialize},
	}
	for _, p := range bad {
		if _, err := buildStrTables(p, []*column{{t: tStr}}); err == nil {
			t.Errorf("%s: accepted", p)
		}
	}
}

// The emitted matcher, compiled as C by the host compiler and run on random
// and adversarial strings, must agree with gpu.StrFunc.Match (the
// dictionary path's semantics) on every one: this checks the generated
// logic itself without a GPU (NVRTC only checks that it compiles).
func TestStrRowCodeAgreesWithStrFunc(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("SKIP: no C compiler: %v", err)
	}
	funcs := strRowFuncs()
	var src strings.Builder
	src.WriteString("#include <stdio.h>\n#include <stdbool.h>\n#include <stdlib.h>\ntypedef unsigned char uint8_t;\n")
	src.WriteString("static int min(int a, int b) { return a < b ? a : b; }\n")
	for k, f := range funcs {
		fmt.Fprintf(&src, "static int pred%d(const uint8_t *s, const int len) {\n  int r = 0;\n", k)
		g := newExprGen(nil, nil, &src, "  ")
		if err := g.strRowBody(f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		src.WriteString("  return r;\n}\n")
	}
	src.WriteString("typedef int (*predfn)(const uint8_t *, const int);\nstatic predfn preds[] = {")
	for k := range funcs {
		fmt.Fprintf(&src, "pred%d, ", k)
	}
	src.WriteString("};\n")
	// stdin: uint32 length + bytes per string; stdout: one line per
	// string, one 0/1 per predicate.
	src.WriteString(`int main(void) {
  unsigned char hdr[4];
  while (fread(hdr, 1, 4, stdin) == 4) {
    int n = hdr[0] | hdr[1] << 8 | hdr[2] << 16 | hdr[3] << 24;
    uint8_t *s = malloc(n + 1);
    if (n > 0 && fread(s, 1, n, stdin) != (size_t)n) return 2;
    for (size_t k = 0; k < sizeof(preds) / sizeof(preds[0]); k++) putchar('0' + preds[k](s, n));
    putchar('\n');
    free(s);
  }
  return 0;
}
`)
	dir := t.TempDir()
	cfile, bin := filepath.Join(dir, "m.c"), filepath.Join(dir, "m")
	if err := os.WriteFile(cfile, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-O1", "-Wall", "-Werror", "-Wno-unused-variable", "-o", bin, cfile).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s\n%s", err, out, numbered(src.String()))
	}
	rng := rand.New(rand.NewSource(5))
	alpha := []string{"a", "b", "a", "é", "日", "😀", " ", "_", "%", "MAIL", "special", "requests"}
	strs := []string{"", "a", "aab", "aaab", "aaaab", "é", "éé", "日本", "MAIL", "SHIP", "MAI", "MAILS",
		"special requests", "requests special", "forest green", "PROMO BRASS", "a_c", "abc", "aéc", "a%_b", "ab\"\\x"}
	for len(strs) < 2000 {
		var b strings.Builder
		for k := rng.Intn(10); k > 0; k-- {
			b.WriteString(alpha[rng.Intn(len(alpha))])
		}
		strs = append(strs, b.String())
	}
	var in []byte
	for _, s := range strs {
		in = binary.LittleEndian.AppendUint32(in, uint32(len(s)))
		in = append(in, s...)
	}
	cmd := exec.Command(bin)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	row := 0
	for ; sc.Scan(); row++ {
		line := sc.Text()
		for k, f := range funcs {
			if got, want := line[k] == '1', f.Match(strs[row]); got != want {
				t.Errorf("%q %s: generated code %v, StrFunc %v", strs[row], f, got, want)
			}
		}
	}
	if row != len(strs) {
		t.Fatalf("%d result lines for %d strings", row, len(strs))
	}
}
