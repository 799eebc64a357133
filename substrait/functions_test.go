package substrait

import (
	"errors"
	"testing"

	"github.com/substrait-io/substrait-go/v8/extensions"
)

func TestResolve(t *testing.T) {
	cases := []struct {
		urn, name string
		want      Func
	}{
		{"extension:io.substrait:functions_arithmetic", "add:i64_i64", FnAdd},
		{"extension:io.substrait:functions_arithmetic_decimal", "multiply:dec_dec", FnMultiply},
		{"extension:io.substrait:functions_comparison", "lte:any_any", FnLte},
		{"extension:io.substrait:functions_aggregate_generic", "count:", FnCount},
		{"https://github.com/substrait-io/substrait/blob/main/extensions/functions_boolean.yaml", "and:bool", FnAnd},
		{"extension:io.substrait:functions_string", "like:str_str", FnLike},
		{"extension:io.substrait:functions_string", "substring:str_i32_i32", FnSubstring},
		{"extension:io.substrait:functions_datetime", "extract:req_req_date", FnExtract},
	}
	for _, c := range cases {
		got, err := Resolve(extensions.ID{URN: c.urn, Name: c.name})
		if err != nil || got != c.want {
			t.Errorf("Resolve(%s, %s) = %v, %v; want %v", c.urn, c.name, got, err, c.want)
		}
	}
	_, err := Resolve(extensions.ID{URN: "extension:io.substrait:functions_string", Name: "string_split:str_str"})
	if !errors.Is(err, ErrNotImplemented) {
		t.Errorf("string_split: got %v, want ErrNotImplemented", err)
	}
	// A name from the wrong extension file does not resolve.
	_, err = Resolve(extensions.ID{URN: "extension:io.substrait:functions_string", Name: "add:i64_i64"})
	if !errors.Is(err, ErrNotImplemented) {
		t.Errorf("add from functions_string: got %v, want ErrNotImplemented", err)
	}
}
