// Package substrait decodes Substrait plans (binary protobuf or JSON) with
// substrait-go, resolves their extension functions against rigel's function
// catalogue, and rejects malformed plans with errors that name the relation
// and the field at fault. It knows nothing of GPUs.
package substrait

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/plan"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	pb "google.golang.org/protobuf/proto"
)

// ErrMalformed marks a plan that cannot be decoded or does not hold together.
var ErrMalformed = errors.New("malformed substrait plan")

// Plan is a decoded, loaded plan: its root relation and output names.
type Plan struct {
	Root  plan.Rel
	Names []string
	Proto *proto.Plan
	// Notes say where rigel departed from the plan's declarations (a
	// decimal result re-typed by the extension's rule, decimal_derive.go),
	// for EXPLAIN and the result.
	Notes []string
}

// DecodeJSON parses a plan in protobuf JSON form. Lines starting with "//"
// before the JSON object are skipped: some producers' files carry them.
func DecodeJSON(data []byte) (*proto.Plan, error) {
	var kept [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte("//")) {
			continue
		}
		kept = append(kept, line)
	}
	var p proto.Plan
	// Unknown fields are skipped, as binary protobuf decoding does: plans
	// from older or newer producers carry fields this version does not know
	// (Isthmus still writes the deprecated extensionUris beside the URNs).
	opts := protojson.UnmarshalOptions{DiscardUnknown: true}
	if err := opts.Unmarshal(bytes.Join(kept, []byte("\n")), &p); err != nil {
		return nil, fmt.Errorf("%w: JSON: %v", ErrMalformed, err)
	}
	return &p, nil
}

// DecodeBinary parses a plan in protobuf binary form.
func DecodeBinary(data []byte) (*proto.Plan, error) {
	var p proto.Plan
	if err := pb.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%w: protobuf: %v", ErrMalformed, err)
	}
	return &p, nil
}

// Decode accepts either form: JSON when the first non-space byte is '{' or
// '/', binary otherwise.
func Decode(data []byte) (*proto.Plan, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%w: empty input", ErrMalformed)
	}
	if trimmed[0] == '{' || trimmed[0] == '/' {
		return DecodeJSON(data)
	}
	return DecodeBinary(data)
}

// Load turns a decoded plan into substrait-go's typed relations and checks
// that every function it calls is in rigel's catalogue.
//
// plan.FromProto in substrait-go v8.1.1 never installs a subquery converter,
// so plans with subqueries fail there; the registry is built here with one.
func Load(p *proto.Plan) (out *Plan, err error) {
	// substrait-go panics on some malformed input (an undeclared function
	// whose signature does not parse, for one): that is the plan's fault, so
	// it becomes an error, never a crash.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%w: %v", ErrMalformed, firstLine(fmt.Sprint(r)))
		}
	}()
	if p == nil {
		return nil, fmt.Errorf("%w: no plan", ErrMalformed)
	}
	// Before anything reads the plan: its size once inlined (limits.go).
	if err := checkBudgets(p); err != nil {
		return nil, err
	}
	// The standard extensions and rigel's own (rigel_ext.go).
	coll, err := Collection()
	if err != nil {
		return nil, fmt.Errorf("loading the extension collection: %w", err)
	}
	// Calls of functions of the wrong kind, before the type fixer below
	// hands them to substrait-go (invariants.go).
	if err := checkFunctionReferences(p, coll); err != nil {
		return nil, err
	}
	// Relations substrait-go cannot load, in forms it can (relations.go).
	if p, err = rewriteRelations(p); err != nil {
		return nil, err
	}
	// Other producers' ways of declaring functions (aliases.go).
	if p, err = normalizeExtensions(p, coll); err != nil {
		return nil, err
	}
	// Decimal results as the extensions derive them (decimal_derive.go).
	p, notes := deriveDecimals(p, coll)
	extSet, err := extensions.GetExtensionSet(p, coll)
	if err != nil {
		return nil, fmt.Errorf("%w: extensions: %v", ErrMalformed, err)
	}
	reg := expr.NewExtensionRegistry(extSet, coll)
	reg.SetSubqueryConverter(&plan.ExpressionConverter{ExtensionRegistry: reg})

	var root *proto.RelRoot
	for i, r := range p.Relations {
		if rr := r.GetRoot(); rr != nil {
			if root != nil {
				return nil, fmt.Errorf("%w: relations[%d]: a second root relation (rigel runs plans with one root)", ErrMalformed, i)
			}
			root = rr
		}
	}
	if root == nil {
		return nil, fmt.Errorf("%w: relations: no root relation", ErrMalformed)
	}
	if root.Input == nil {
		return nil, fmt.Errorf("%w: root: field input is not set", ErrMalformed)
	}
	rel, err := plan.RelFromProto(root.Input, reg)
	if err != nil {
		return nil, fmt.Errorf("%w: root.input: %v", ErrMalformed, err)
	}
	if err := checkDeclared(rel, "root", coll); err != nil {
		return nil, err
	}
	if err := checkInvariants(rel, "root", coll); err != nil {
		return nil, err
	}
	out = &Plan{Root: rel, Names: root.Names, Proto: p, Notes: notes}
	if n := len(rel.RecordType().Types()); len(out.Names) != 0 && len(out.Names) < n {
		return nil, fmt.Errorf("%w: root.names: %d names for %d output columns", ErrMalformed, len(out.Names), n)
	}
	return out, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// RelName is the short name of a relation for messages ("ReadRel", ...).
func RelName(r plan.Rel) string {
	s := fmt.Sprintf("%T", r)
	s = strings.TrimPrefix(s, "*plan.")
	return s
}
