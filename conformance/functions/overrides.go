package functions

import (
	"fmt"

	"github.com/substrait-io/substrait-go/v8/testcases/parser"
)

// override replaces the expectation of a case whose upstream expected
// result is wrong in the pinned spec data and fixed in a later spec
// release. It applies only while the case still reads exactly as Text:
// when the data moves, a stale override is reported, never applied to a
// different case.
type override struct {
	ID   string // case ID
	Text string // the case as the pinned data writes it (caseText)
	// Fixed is the corrected case line in the spec's test syntax; only its
	// result is used.
	Fixed string
	// Include is the extension file of the test file (its SUBSTRAIT_INCLUDE).
	Include string
	Why     string
}

var overrides = []override{
	{
		ID:      "arithmetic_decimal/sum_decimal.test#003",
		Text:    "sum((2.5, 0.0, 5.0, -2.5, -7.5)::decimal<2,1>) = -2.50::decimal?<38,2>",
		Fixed:   "sum((2.5, 0, 5.0, -2.5, -7.5)::dec<2, 1>) = -2.5::dec?<38, 1>",
		Include: "/extensions/functions_arithmetic_decimal.yaml",
		Why: "functions_arithmetic_decimal.yaml declares sum(DECIMAL<P,S>) -> DECIMAL?<38,S>, so the " +
			"scale is 1, not 2; fixed upstream after v0.87.0 (substrait spec PR 1048)",
	},
}

// applyOverrides swaps in the corrected expectations. It returns the
// overrides that matched no case (stale) for the caller to report.
func applyOverrides(s *Suite) (stale []string, err error) {
	byID := map[string]*Case{}
	for _, c := range s.Cases {
		byID[c.ID] = c
	}
	for _, o := range overrides {
		c := byID[o.ID]
		if c == nil || c.Text != o.Text {
			stale = append(stale, fmt.Sprintf("%s (%s)", o.ID, o.Text))
			continue
		}
		fixed, err := parseOverride(o, c.TC.FuncType)
		if err != nil {
			return nil, fmt.Errorf("override %s: %w", o.ID, err)
		}
		want, err := expectedOf(fixed)
		if err != nil {
			return nil, fmt.Errorf("override %s: %w", o.ID, err)
		}
		c.want = &want
		c.Override = o.Why
	}
	return stale, nil
}

func parseOverride(o override, ft parser.TestFuncType) (*parser.TestCase, error) {
	kind := "SCALAR"
	if ft == parser.AggregateFuncType {
		kind = "AGGREGATE"
	}
	text := fmt.Sprintf("### SUBSTRAIT_%s_TEST: v1.0\n### SUBSTRAIT_INCLUDE: '%s'\n\n# override\n%s\n", kind, o.Include, o.Fixed)
	tf, err := parser.ParseTestCasesFromString(text)
	if err != nil {
		return nil, err
	}
	if len(tf.TestCases) != 1 {
		return nil, fmt.Errorf("fixed line gives %d cases, want 1", len(tf.TestCases))
	}
	return tf.TestCases[0], nil
}
