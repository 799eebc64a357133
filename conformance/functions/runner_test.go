package functions

import (
	"context"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu/host"
	"github.com/substrait-io/substrait-go/v8/testcases/parser"
)

// runLine parses one case line (spec syntax) and runs it on the host device.
func runLine(t *testing.T, kind, include, line string) Result {
	t.Helper()
	text := "### SUBSTRAIT_" + kind + "_TEST: v1.0\n### SUBSTRAIT_INCLUDE: '" + include + "'\n\n# group\n" + line + "\n"
	tf, err := parser.ParseTestCasesFromString(text)
	if err != nil {
		t.Fatalf("parse %q: %v", line, err)
	}
	c := &Case{ID: "inline.test#001", File: "inline/inline.test", Text: caseText(tf.TestCases[0]), TC: tf.TestCases[0]}
	return NewRunner(host.New()).Run(context.Background(), c)
}

// The harness must be able to fail: wrong values, types, nullability,
// errors and options each give the outcome they should.
func TestRunnerOutcomes(t *testing.T) {
	const arith = "/extensions/functions_arithmetic.yaml"
	tests := []struct {
		kind, include, line string
		want                Outcome
		reason              string // substring of Reason
	}{
		{"SCALAR", arith, "add(1::i8, 2::i8) = 3::i8", Pass, ""},
		{"SCALAR", arith, "add(1::i8, 2::i8) = 4::i8", Fail, "wrong value"},
		{"SCALAR", arith, "add(1::i8, 2::i8) = 3::i16", Fail, "wrong result type"},
		{"SCALAR", arith, "add(1::i8, 2::i8) = 3::i8?", Fail, "nullability"},
		{"SCALAR", arith, "add(1::i8, null::i8?) = 3::i8?", Fail, "wrong value"},
		{"SCALAR", arith, "add(1::i8, null::i8?) = null::i8?", Pass, ""},
		{"SCALAR", arith, "add(1::i8, 2::i8) [overflow:ERROR] = <!ERROR>", Fail, "value where an error"},
		{"SCALAR", arith, "add(120::i8, 10::i8) [overflow:ERROR] = 130::i16", Fail, "error where a value"},
		{"SCALAR", arith, "add(120::i8, 10::i8) [overflow:SILENT] = <!UNDEFINED>", Pass, "undefined"},
		{"SCALAR", arith, "divide(5::i8, 0::i8) [on_division_by_zero:NAN] = null::i8?", Unsupported, "on_division_by_zero=NAN"},
		{"SCALAR", arith, "add(1.5::fp64, 1.25::fp64) = 2.75::fp64", Pass, ""},
		{"SCALAR", arith, "add(1.5::fp64, 1.25::fp64) = 2.7500001::fp64", Fail, "wrong value"},
		{"SCALAR", arith, "radians(180::fp64) = 3.141592653589793::fp64", Unsupported, "catalogue: inline/radians"},
		{"SCALAR", "/extensions/functions_arithmetic_decimal.yaml",
			"add(-1.25::dec<3,2>, -2.50::dec<3,2>) = -3.75::dec<4,2>", Pass, ""},
		{"SCALAR", "/extensions/functions_arithmetic_decimal.yaml",
			"add(-1.25::dec<3,2>, -2.50::dec<3,2>) = -3.74::dec<4,2>", Fail, "wrong value"},
		{"AGGREGATE", arith, "sum((1, 2, null)::i32) = 3::i64?", Pass, ""},
		{"AGGREGATE", arith, "sum((1, 2, null)::i32) = 4::i64?", Fail, "wrong value"},
		{"AGGREGATE", arith, "max(()::i32) = 1::i32?", Fail, "wrong value"},
		{"AGGREGATE", arith, "((1, 5), (2, 6)) max(col1::i32) = 6::i32?", Pass, ""},
	}
	for _, tt := range tests {
		r := runLine(t, tt.kind, tt.include, tt.line)
		if r.Outcome != tt.want || !strings.Contains(r.Reason, tt.reason) {
			t.Errorf("%s: got %s (%s: %s), want %s (%q)", tt.line, r.Outcome, r.Reason, r.Detail, tt.want, tt.reason)
		}
	}
}

func TestDecimalBytes(t *testing.T) {
	// -2 in 16 bytes little-endian two's complement.
	b := make([]byte, 16)
	for i := range b {
		b[i] = 0xff
	}
	b[0] = 0xfe
	if got := decimalBytes(b).String(); got != "-2" {
		t.Errorf("decimalBytes(-2) = %s", got)
	}
	if got := decimalText(decimalBytes(b), 3); got != "-0.002" {
		t.Errorf("decimalText = %s, want -0.002", got)
	}
}

func TestBaselineRoundTrip(t *testing.T) {
	c1 := &Case{ID: "a/x.test#002", Text: "f(1) = 1"}
	c2 := &Case{ID: "a/x.test#001", Text: "f(2) = 2"}
	data := FormatBaseline([]Result{{Case: c1, Outcome: Pass}, {Case: c2, Outcome: Pass}, {Case: &Case{ID: "a/x.test#003"}, Outcome: Fail}})
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if got := lines[len(lines)-2]; !strings.HasPrefix(got, "a/x.test#001\t") {
		t.Errorf("baseline not sorted: %q", data)
	}
	path := t.TempDir() + "/b.txt"
	if err := writeFile(path, data); err != nil {
		t.Fatal(err)
	}
	ids, err := ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || !ids["a/x.test#001"] || !ids["a/x.test#002"] || ids["a/x.test#003"] {
		t.Errorf("read back %v", ids)
	}
	if err := writeFile(path, []byte("not-an-id\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBaseline(path); err == nil {
		t.Error("a malformed baseline line was accepted")
	}
}
