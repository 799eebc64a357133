package duckdbbridge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/extensions"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	pbext "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
)

// URNs of the standard Substrait extension files (substrait-go v8.1.1 reads
// functions by URN; the proto it uses, substrait-protobuf v0.85, has no URIs).
const (
	urnArithmetic    = "extension:io.substrait:functions_arithmetic"
	urnArithmeticDec = "extension:io.substrait:functions_arithmetic_decimal"
	urnComparison    = "extension:io.substrait:functions_comparison"
	urnBoolean       = "extension:io.substrait:functions_boolean"
	urnDatetime      = "extension:io.substrait:functions_datetime"
	urnString        = "extension:io.substrait:functions_string"
	urnAggGeneric    = "extension:io.substrait:functions_aggregate_generic"
)

// funcRef names one Substrait function variant: the extension URN, the
// compound name with its signature key ("add:i32_i32"), and the options the
// DuckDB function's behaviour corresponds to.
type funcRef struct {
	urn     string
	name    string
	options map[string]string
}

// extRegistry hands out anchors for the extension URNs and functions a plan
// uses, and checks every function against substrait-go's collection of the
// standard extensions, so that a wrong signature key is caught when the plan
// is produced rather than by a consumer.
type extRegistry struct {
	coll       *extensions.Collection
	urnAnchors map[string]uint32
	urns       []*pbext.SimpleExtensionURN
	funcs      map[string]uint32 // urn + "#" + name
	decls      []*pbext.SimpleExtensionDeclaration
}

func newExtRegistry() (*extRegistry, error) {
	// The standard extensions and rigel's own (substrait/rigel_ext.go).
	c, err := substrait.Collection()
	if err != nil {
		return nil, fmt.Errorf("duckdb plan: loading the Substrait extensions: %w", err)
	}
	return &extRegistry{coll: c, urnAnchors: map[string]uint32{}, funcs: map[string]uint32{}}, nil
}

// scalar returns the anchor and options of a scalar function.
func (r *extRegistry) scalar(f funcRef) (uint32, []*pb.FunctionOption, error) {
	v, ok := r.coll.GetScalarFunc(extensions.ID{URN: f.urn, Name: f.name})
	if !ok {
		return 0, nil, unsupported("Substrait function %s (%s)", f.name, f.urn)
	}
	opts, err := functionOptions(f, v.Options())
	if err != nil {
		return 0, nil, err
	}
	return r.anchor(f), opts, nil
}

// aggregate returns the anchor and options of an aggregate function.
func (r *extRegistry) aggregate(f funcRef) (uint32, []*pb.FunctionOption, error) {
	v, ok := r.coll.GetAggregateFunc(extensions.ID{URN: f.urn, Name: f.name})
	if !ok {
		return 0, nil, unsupported("Substrait aggregate %s (%s)", f.name, f.urn)
	}
	opts, err := functionOptions(f, v.Options())
	if err != nil {
		return 0, nil, err
	}
	return r.anchor(f), opts, nil
}

func (r *extRegistry) anchor(f funcRef) uint32 {
	key := f.urn + "#" + f.name
	if a, ok := r.funcs[key]; ok {
		return a
	}
	ua, ok := r.urnAnchors[f.urn]
	if !ok {
		ua = uint32(len(r.urns) + 1)
		r.urnAnchors[f.urn] = ua
		r.urns = append(r.urns, &pbext.SimpleExtensionURN{ExtensionUrnAnchor: ua, Urn: f.urn})
	}
	a := uint32(len(r.decls) + 1)
	r.funcs[key] = a
	r.decls = append(r.decls, &pbext.SimpleExtensionDeclaration{
		MappingType: &pbext.SimpleExtensionDeclaration_ExtensionFunction_{
			ExtensionFunction: &pbext.SimpleExtensionDeclaration_ExtensionFunction{
				ExtensionUrnReference: ua, FunctionAnchor: a, Name: f.name,
			},
		},
	})
	return a
}

// functionOptions keeps the wanted options that the variant declares (a
// variant without, say, an overflow option has one fixed behaviour) and
// checks their values against the declared ones.
func functionOptions(f funcRef, declared map[string]extensions.Option) ([]*pb.FunctionOption, error) {
	names := make([]string, 0, len(f.options))
	for n := range f.options {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []*pb.FunctionOption
	for _, n := range names {
		d, ok := declared[n]
		if !ok {
			continue
		}
		if !slices.Contains(d.Values, f.options[n]) {
			return nil, fmt.Errorf("duckdb plan: option %s=%s is not one of %v for %s", n, f.options[n], d.Values, f.name)
		}
		out = append(out, &pb.FunctionOption{Name: n, Preference: []string{f.options[n]}})
	}
	return out, nil
}

// DuckDB's behaviour expressed as Substrait options.
var (
	// Integer and decimal arithmetic raise an error on overflow in DuckDB.
	optIntArith = map[string]string{"overflow": "ERROR"}
	// Float arithmetic is IEEE: round to nearest even, x/0 is ±inf or NaN.
	optFloatArith = map[string]string{"rounding": "TIE_TO_EVEN", "on_division_by_zero": "IEEE", "on_domain_error": "NAN"}
	// Integer // and % truncate toward zero and give NULL on division by zero.
	optIntDiv = map[string]string{"overflow": "ERROR", "on_division_by_zero": "NULL", "division_type": "TRUNCATE"}
)

// numericKind classifies a signature key for arithmetic.
func numericKind(k string) string {
	switch k {
	case "i8", "i16", "i32", "i64":
		return "int"
	case "fp32", "fp64":
		return "float"
	case "dec":
		return "dec"
	}
	return ""
}

// arithmeticRef maps a binary arithmetic operator over two arguments of one
// numeric kind.
func arithmeticRef(op, duckName string, args []colType) (funcRef, error) {
	k0, k1 := sigKey(args[0].duck), sigKey(args[1].duck)
	kind := numericKind(k0)
	if kind == "" || numericKind(k1) != kind || (kind != "dec" && k0 != k1) {
		return funcRef{}, unsupportedFunc(duckName, args)
	}
	switch kind {
	case "int":
		return funcRef{urnArithmetic, op + ":" + k0 + "_" + k1, optIntArith}, nil
	case "float":
		return funcRef{urnArithmetic, op + ":" + k0 + "_" + k1, optFloatArith}, nil
	}
	return funcRef{urnArithmeticDec, op + ":dec_dec", optIntArith}, nil
}

// scalarRef maps a DuckDB scalar function (by its name in the plan and its
// argument types) to a Substrait function. Names that Substrait spells
// differently are translated here (SUBSTRAIT-NOTES.md).
func scalarRef(name string, args []colType) (funcRef, error) {
	keys := make([]string, len(args))
	for i, a := range args {
		keys[i] = sigKey(a.duck)
	}
	allStr := len(args) > 0
	for _, k := range keys {
		allStr = allStr && k == "str"
	}
	// rigel's extension first: its + and - of dates would otherwise be
	// refused as arithmetic; it declares no variant a standard one has.
	if f, ok := rigelScalarRef(name, keys); ok {
		return f, nil
	}
	switch {
	case name == "+" && len(args) == 2:
		return arithmeticRef("add", name, args)
	case name == "-" && len(args) == 2:
		return arithmeticRef("subtract", name, args)
	case name == "*" && len(args) == 2:
		return arithmeticRef("multiply", name, args)
	case name == "/" && len(args) == 2 && numericKind(keys[0]) == "float" && keys[0] == keys[1]:
		return funcRef{urnArithmetic, "divide:" + keys[0] + "_" + keys[1], optFloatArith}, nil
	case name == "//" && len(args) == 2 && numericKind(keys[0]) == "int" && keys[0] == keys[1]:
		return funcRef{urnArithmetic, "divide:" + keys[0] + "_" + keys[1], optIntDiv}, nil
	case name == "%" && len(args) == 2 && numericKind(keys[0]) == "int" && keys[0] == keys[1]:
		return funcRef{urnArithmetic, "modulus:" + keys[0] + "_" + keys[1], optIntDiv}, nil
	case name == "-" && len(args) == 1 && numericKind(keys[0]) == "int":
		return funcRef{urnArithmetic, "negate:" + keys[0], optIntArith}, nil
	case name == "-" && len(args) == 1 && numericKind(keys[0]) == "float":
		return funcRef{urnArithmetic, "negate:" + keys[0], nil}, nil
	case name == "abs" && len(args) == 1 && numericKind(keys[0]) == "dec":
		return funcRef{urnArithmeticDec, "abs:dec", nil}, nil
	case name == "abs" && len(args) == 1 && numericKind(keys[0]) != "":
		return funcRef{urnArithmetic, "abs:" + keys[0], optIntArith}, nil
	case (name == "~~" || name == "!~~") && len(args) == 2 && allStr:
		return funcRef{urnString, "like:str_str", map[string]string{"case_sensitivity": "CASE_SENSITIVE"}}, nil
	case (name == "~~*" || name == "!~~*") && len(args) == 2 && allStr:
		return funcRef{urnString, "like:str_str", map[string]string{"case_sensitivity": "CASE_INSENSITIVE"}}, nil
	case name == "prefix" && len(args) == 2 && allStr:
		return funcRef{urnString, "starts_with:str_str", map[string]string{"case_sensitivity": "CASE_SENSITIVE"}}, nil
	case name == "suffix" && len(args) == 2 && allStr:
		return funcRef{urnString, "ends_with:str_str", map[string]string{"case_sensitivity": "CASE_SENSITIVE"}}, nil
	case name == "contains" && len(args) == 2 && allStr:
		return funcRef{urnString, "contains:str_str", map[string]string{"case_sensitivity": "CASE_SENSITIVE"}}, nil
	case (name == "length" || name == "len" || name == "char_length" || name == "character_length") && len(args) == 1 && allStr:
		return funcRef{urnString, "char_length:str", nil}, nil
	case (name == "strlen" || name == "octet_length") && len(args) == 1 && allStr:
		return funcRef{urnString, "octet_length:str", nil}, nil
	case (name == "lower" || name == "lcase") && len(args) == 1 && allStr:
		return funcRef{urnString, "lower:str", map[string]string{"char_set": "UTF8"}}, nil
	case (name == "upper" || name == "ucase") && len(args) == 1 && allStr:
		return funcRef{urnString, "upper:str", map[string]string{"char_set": "UTF8"}}, nil
	case name == "||" && len(args) >= 2 && allStr:
		// || is NULL when an argument is NULL.
		return funcRef{urnString, "concat:str", map[string]string{"null_handling": "ACCEPT_NULLS"}}, nil
	case name == "concat" && len(args) >= 1 && allStr:
		// DuckDB's concat() skips NULL arguments.
		return funcRef{urnString, "concat:str", map[string]string{"null_handling": "IGNORE_NULLS"}}, nil
	}
	if f, ok := mathStringRef(name, keys); ok {
		return f, nil
	}
	return funcRef{}, unsupportedFunc(name, args)
}

// aggregateRef maps a DuckDB aggregate function to a Substrait aggregate.
func aggregateRef(name string, args []colType) (funcRef, error) {
	// count_star: count(*) of an aggregate; count with no argument: the
	// same inside a window (count(*) OVER ...).
	if (name == "count_star" || name == "count") && len(args) == 0 {
		// The zero-argument variant's compound name is "count:" (what
		// Isthmus writes too); the bare "count" is ambiguous with count:any.
		return funcRef{urnAggGeneric, "count:", nil}, nil
	}
	if len(args) != 1 {
		return funcRef{}, unsupportedFunc(name, args)
	}
	// An unsigned argument is read as its widened type (min and max of the
	// widened values are the same values; producer_unsigned.go).
	k := widenedKey(args[0].duck)
	kind := numericKind(k)
	switch name {
	case "count":
		return funcRef{urnAggGeneric, "count:any", nil}, nil
	case "first", "any_value", "arbitrary":
		return funcRef{urnAggGeneric, "any_value:any", nil}, nil
	case "sum", "sum_no_overflow", "avg", "mean":
		// sum_no_overflow is DuckDB's sum after statistics proved that the
		// sum cannot overflow its int64 accumulator: the same function.
		op := strings.TrimSuffix(name, "_no_overflow")
		if op == "mean" {
			op = "avg"
		}
		switch kind {
		case "int":
			return funcRef{urnArithmetic, op + ":" + k, optIntArith}, nil
		case "float":
			return funcRef{urnArithmetic, op + ":" + k, nil}, nil
		case "dec":
			return funcRef{urnArithmeticDec, op + ":dec", optIntArith}, nil
		}
	case "min", "max":
		switch {
		case kind == "int" || kind == "float":
			return funcRef{urnArithmetic, name + ":" + k, nil}, nil
		case kind == "dec":
			return funcRef{urnArithmeticDec, name + ":dec", nil}, nil
		case k == "date" || k == "time" || k == "pts" || k == "ptstz":
			return funcRef{urnDatetime, name + ":" + k, nil}, nil
		}
		// No standard min/max of strings or compound intervals.
		if f, ok := rigelAggregateRef(name, k); ok {
			return f, nil
		}
	case "stddev", "stddev_samp", "stddev_pop", "var_samp", "var_pop", "variance":
		// DuckDB computes them over DOUBLE; stddev and variance are the
		// sample statistics.
		if k == "fp64" {
			op, dist := "std_dev", "SAMPLE"
			if strings.HasPrefix(name, "var") {
				op = "variance"
			}
			if strings.HasSuffix(name, "_pop") {
				dist = "POPULATION"
			}
			return funcRef{urnArithmetic, op + ":fp64", map[string]string{"distribution": dist, "rounding": "TIE_TO_EVEN"}}, nil
		}
	case "bool_and", "bool_or":
		if k == "bool" {
			return funcRef{urnBoolean, name + ":bool", nil}, nil
		}
	}
	return funcRef{}, unsupportedFunc(name, args)
}

// extractPart maps DuckDB's date part functions (year(x), or date_part with a
// constant part name) to the component of Substrait's extract, and whether
// that component takes the ONE/ZERO indexing argument.
func extractPart(part string) (component string, indexed bool, ok bool) {
	switch strings.ToLower(part) {
	case "year", "years":
		return "YEAR", false, true
	case "quarter", "quarters":
		return "QUARTER", true, true
	case "month", "months":
		return "MONTH", true, true
	case "day", "days", "dayofmonth":
		return "DAY", true, true
	case "dayofyear", "doy":
		return "DAY_OF_YEAR", true, true
	case "hour", "hours":
		return "HOUR", false, true
	case "minute", "minutes":
		return "MINUTE", false, true
	case "second", "seconds":
		return "SECOND", false, true
	}
	return "", false, false
}

func unsupportedFunc(name string, args []colType) error {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = a.duck.String()
	}
	return unsupported("function %s(%s)", name, strings.Join(ts, ", "))
}
