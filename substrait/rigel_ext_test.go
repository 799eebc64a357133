package substrait

import (
	"errors"
	"strings"
	"testing"

	"github.com/substrait-io/substrait-go/v8/extensions"
)

// rigelPlan is a plan projecting fn(s, s) over a table of one string column,
// fn declared in extension urn.
func rigelPlan(urn, fn string) string {
	str := `{"string": {"nullability": "NULLABILITY_NULLABLE"}}`
	col := `{"value": {"selection": {"directReference": {"structField": {"field": 0}}, "rootReference": {}}}}`
	return `{
 "extensionUrns": [{"extensionUrnAnchor": 1, "urn": "` + urn + `"}],
 "extensions": [{"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": 1, "name": "` + fn + `"}}],
 "relations": [{"root": {"names": ["s", "m"], "input": {"project": {
  "input": {"read": {"namedTable": {"names": ["t"]},
   "baseSchema": {"names": ["s"], "struct": {"types": [` + str + `], "nullability": "NULLABILITY_REQUIRED"}}}},
  "expressions": [{"scalarFunction": {"functionReference": 1,
   "outputType": {"bool": {"nullability": "NULLABILITY_NULLABLE"}},
   "arguments": [` + col + `, ` + col + `]}}]}}}}]
}`
}

// The collection holds the standard extensions and rigel's, whose every
// function the YAML declares loads with its variants.
func TestRigelCollection(t *testing.T) {
	c, err := Collection()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"regexp_matches:str_str", "date_trunc:str_date", "date_trunc:str_pts",
		"date_diff:str_date_date", "date_diff:str_pts_pts", "strftime:date_str", "strftime:pts_str",
		"add:date_any", "add:pts_any", "add:date_i32", "subtract:date_any", "subtract:pts_any", "subtract:date_date",
		"ceil:dec", "floor:dec", "round:dec"} {
		if _, ok := c.GetScalarFunc(extensions.ID{URN: RigelURN, Name: n}); !ok {
			t.Errorf("rigel's extension has no scalar %s", n)
		}
	}
	for _, n := range []string{"min:str", "max:str", "min:any", "max:any"} {
		if _, ok := c.GetAggregateFunc(extensions.ID{URN: RigelURN, Name: n}); !ok {
			t.Errorf("rigel's extension has no aggregate %s", n)
		}
	}
	if _, ok := c.GetScalarFunc(extensions.ID{URN: "extension:io.substrait:functions_arithmetic", Name: "add:i64_i64"}); !ok {
		t.Error("the standard extensions are missing from the collection")
	}
	if !strings.Contains(string(RigelYAML()), "urn: "+RigelURN) {
		t.Errorf("the embedded YAML does not declare %s", RigelURN)
	}
}

// A plan calling a function of rigel's extension loads; rigel's catalogue
// does not resolve it (translate refuses it by name and falls back); a
// variant the YAML does not declare makes the plan malformed.
func TestRigelFunctionPlans(t *testing.T) {
	p, err := Decode([]byte(rigelPlan(RigelURN, "regexp_matches:str_str")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); err != nil {
		t.Fatalf("plan with rigel's regexp_matches: %v", err)
	}
	_, err = Resolve(extensions.ID{URN: RigelURN, Name: "regexp_matches:str_str"})
	if !errors.Is(err, ErrNotImplemented) || !strings.Contains(err.Error(), "regexp_matches") {
		t.Errorf("Resolve(regexp_matches) = %v, want ErrNotImplemented naming it", err)
	}
	for _, bad := range [][2]string{
		{RigelURN, "regexp_matches:str_i64"},
		{RigelURN, "regexp_like:str_str"},
		{"extension:io.substrait:functions_string", "regexp_matches:str_str"},
	} {
		p, err := Decode([]byte(rigelPlan(bad[0], bad[1])))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); !errors.Is(err, ErrUnknownFunction) && !errors.Is(err, ErrMalformed) {
			t.Errorf("%s from %s: got %v, want ErrUnknownFunction or ErrMalformed", bad[1], bad[0], err)
		}
	}
}

// Other producers' simple names mean standard functions: placing one never
// picks a variant of rigel's extension (min of strings has none there).
func TestPlaceFunctionSkipsRigel(t *testing.T) {
	c, err := Collection()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"min", "max", "add", "subtract", "regexp_matches", "strftime"} {
		v, err := placeFunction(c, name, nil)
		if err == nil && v.URN() == RigelURN {
			t.Errorf("placeFunction(%s) picked rigel's %s", name, v.CompoundName())
		}
	}
}
