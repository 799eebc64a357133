package substrait

import (
	"fmt"
	"sort"
	"strings"

	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	extpb "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
	"google.golang.org/protobuf/encoding/protowire"
	pb "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Other producers declare their extension functions in forms substrait-go
// v8.1.1 (spec 0.87: URNs only) does not read. normalizeExtensions rewrites
// them, on a copy of the plan, into URN declarations with compound names:
//
//   - extension URIs (spec before 0.74; ibis-substrait 4.0.1 writes only
//     these): the plan's old extension_uris (field 1) and each
//     declaration's old extension_uri_reference (field 1) survive binary
//     decoding as unknown fields; a URI naming a standard file
//     (.../functions_X.yaml) becomes the URN extension:io.substrait:functions_X.
//   - no extension at all (DataFusion 55 writes bare names such as
//     "multiply" with the URN reference u32::MAX, "none"): the function is
//     looked up by name among the standard extensions and the variant that
//     accepts the argument types of its first call is taken (its URN and
//     compound name "multiply:dec_dec").
//   - names that differ from the standard ones are renamed per alias below.
//
// A plan that already declares everything by URN is returned unchanged.
func normalizeExtensions(p *proto.Plan, coll *extensions.Collection) (*proto.Plan, error) {
	urns := map[uint32]string{}
	for _, u := range p.ExtensionUrns {
		urns[u.ExtensionUrnAnchor] = u.Urn
	}
	resolves := func(ref uint32) bool {
		u, ok := urns[ref]
		return ok && coll.URNLoaded(u)
	}
	needs := false
	for _, d := range p.Extensions {
		if ref, ok := urnRef(d); ok && !resolves(ref) {
			needs = true
		}
		if f := d.GetExtensionFunction(); f != nil && functionAliases[baseName(f.Name)].to != "" {
			needs = true
		}
	}
	// The type fixer below parses every relation: only plans that declare
	// functions otherwise or leave output types out pay for it.
	needs = needs || missingOutputTypes(p)
	if !needs && !missingRelCommon(p, false) && !readProjections(p, false) && !fixLiterals(p, false) {
		return p, nil
	}
	p = pb.Clone(p).(*proto.Plan)
	missingRelCommon(p, true)
	readProjections(p, true)
	fixLiterals(p, true)
	if !needs {
		return p, nil
	}
	uris := oldExtensionURIs(p)
	nextAnchor := uint32(1)
	for a := range urns {
		nextAnchor = max(nextAnchor, a+1)
	}
	anchorOf := func(urn string) uint32 {
		for _, u := range p.ExtensionUrns {
			if u.Urn == urn {
				return u.ExtensionUrnAnchor
			}
		}
		p.ExtensionUrns = append(p.ExtensionUrns, &extpb.SimpleExtensionURN{ExtensionUrnAnchor: nextAnchor, Urn: urn})
		nextAnchor++
		return nextAnchor - 1
	}
	// Functions with no usable extension, by anchor: placed by argument
	// types once the plan can be parsed.
	unplaced := map[uint32]*extpb.SimpleExtensionDeclaration_ExtensionFunction{}
	for _, d := range p.Extensions {
		ref, ok := urnRef(d)
		if !ok || resolves(ref) {
			if f := d.GetExtensionFunction(); f != nil {
				if al := functionAliases[baseName(f.Name)]; al.to != "" {
					unplaced[f.FunctionAnchor] = f // renamed: its variant is looked up again
				}
			}
			continue
		}
		if uri, ok := uris[oldURIReference(d)]; ok {
			urn, err := urnOfURI(uri, coll)
			if err != nil {
				return nil, err
			}
			setURNRef(d, anchorOf(urn))
			if f := d.GetExtensionFunction(); f != nil && (functionAliases[baseName(f.Name)].to != "" || unknownVariant(coll, urn, f.Name)) {
				unplaced[f.FunctionAnchor] = f
			}
			continue
		}
		f := d.GetExtensionFunction()
		if f == nil {
			return nil, fmt.Errorf("%w: extension type declaration %v names no extension", ErrMalformed, d)
		}
		unplaced[f.FunctionAnchor] = f
	}
	if err := renameAliases(p, unplaced); err != nil {
		return nil, err
	}
	dropNullEscape(p)
	// Parse once with a stand-in URN so that substrait-go types every
	// argument, then place each function by the types of its first call.
	// Start each unplaced function at any standard variant of its name
	// (so that the extension set resolves), then fix the plan bottom-up:
	// each function is placed by the argument types of its first call.
	for _, f := range unplaced {
		f.Name = baseName(f.Name)
		v, err := placeFunction(coll, f.Name, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		f.ExtensionUrnReference = anchorOf(v.URN())
		f.Name = v.CompoundName()
	}
	fx := &typeFixer{p: p, coll: coll, unplaced: unplaced, anchorOf: anchorOf}
	if err := fx.plan(); err != nil {
		return nil, err
	}
	return p, nil
}

// unknownVariant says whether a compound name names no variant of the
// extension: ibis-substrait 4.0.1 writes extract(YEAR, date) as
// "extract:date", a signature from before the component became an enum
// ("extract:req_date"). Such a function is placed again by the types of its
// first call, as an undeclared one is.
func unknownVariant(coll *extensions.Collection, urn, name string) bool {
	if !strings.Contains(name, ":") {
		return false
	}
	id := extensions.ID{URN: urn, Name: name}
	_, s := coll.GetScalarFunc(id)
	_, a := coll.GetAggregateFunc(id)
	_, w := coll.GetWindowFunc(id)
	return !s && !a && !w
}

// alias is a function another producer names differently: to is the
// standard name; enumArg, when set, means the first argument is a string
// literal that the standard function takes as an enum option, upper-cased.
type alias struct {
	to      string
	enumArg bool
}

var functionAliases = map[string]alias{
	// DataFusion writes EXTRACT(YEAR FROM d) as date_part('year', d); the
	// standard extract takes the component as the enum YEAR.
	"date_part": {to: "extract", enumArg: true},
}

// renameAliases renames aliased functions and rewrites their calls'
// arguments where the alias says so.
func renameAliases(p *proto.Plan, fns map[uint32]*extpb.SimpleExtensionDeclaration_ExtensionFunction) error {
	enumFns := map[uint32]bool{}
	for anchor, f := range fns {
		if al := functionAliases[baseName(f.Name)]; al.to != "" {
			f.Name = al.to
			enumFns[anchor] = al.enumArg
		}
	}
	var bad error
	for _, r := range p.Relations {
		eachScalarFunction(r, func(sf *proto.Expression_ScalarFunction) {
			if !enumFns[sf.FunctionReference] || len(sf.Arguments) == 0 || bad != nil {
				return
			}
			lit := sf.Arguments[0].GetValue().GetLiteral()
			s, ok := lit.GetLiteralType().(*proto.Expression_Literal_String_)
			if !ok {
				if v, isVC := lit.GetLiteralType().(*proto.Expression_Literal_VarChar_); isVC {
					s = &proto.Expression_Literal_String_{String_: v.VarChar.GetValue()}
				} else {
					bad = fmt.Errorf("%w: date_part whose first argument is not a string literal", ErrMalformed)
					return
				}
			}
			sf.Arguments[0] = &proto.FunctionArgument{ArgType: &proto.FunctionArgument_Enum{Enum: strings.ToUpper(s.String_)}}
		})
	}
	return bad
}

// missingRelCommon reports whether a relation of the plan lacks its common
// field (ibis-substrait omits it on AggregateRel, and substrait-go v8.1.1
// dereferences it without a check); with fill it sets each missing one to
// the default, a direct emit.
func missingRelCommon(p *proto.Plan, fill bool) bool {
	found := false
	for _, r := range p.Relations {
		walkProto(r.ProtoReflect(), func(m protoreflect.Message) {
			fd := m.Descriptor().Fields().ByName("common")
			if fd == nil || fd.Message() == nil || fd.Message().FullName() != "substrait.RelCommon" || m.Has(fd) {
				return
			}
			found = true
			if fill {
				c := &proto.RelCommon{EmitKind: &proto.RelCommon_Direct_{Direct: &proto.RelCommon_Direct{}}}
				m.Set(fd, protoreflect.ValueOfMessage(c.ProtoReflect()))
			}
		})
	}
	return found
}

// readProjections reports whether a ReadRel of the plan prunes columns with
// a projection mask (DataFusion does); with fill it rewrites each such mask
// of top-level fields as the equivalent emit. substrait-go v8.1.1 leaves the
// mask out of the ReadRel's output schema, so the expressions above it
// would read the wrong columns' types; an emit it applies. Missing common
// fields must be filled first.
func readProjections(p *proto.Plan, fill bool) bool {
	found := false
	for _, r := range p.Relations {
		walkProto(r.ProtoReflect(), func(m protoreflect.Message) {
			read, ok := m.Interface().(*proto.ReadRel)
			if !ok || read.Projection == nil {
				return
			}
			sel := read.Projection.GetSelect()
			var fields []int32
			for _, it := range sel.GetStructItems() {
				if it.GetChild() != nil {
					return // nested masks stay (the translator refuses them)
				}
				fields = append(fields, it.GetField())
			}
			found = true
			if !fill {
				return
			}
			if emit := read.Common.GetEmit(); emit != nil {
				mapped := make([]int32, len(emit.OutputMapping))
				for i, j := range emit.OutputMapping {
					if int(j) >= len(fields) {
						return // out of range: substrait-go reports it
					}
					mapped[i] = fields[j]
				}
				fields = mapped
			}
			if read.Common == nil {
				read.Common = &proto.RelCommon{}
			}
			read.Common.EmitKind = &proto.RelCommon_Emit_{Emit: &proto.RelCommon_Emit{OutputMapping: fields}}
			read.Projection = nil
		})
	}
	return found
}

// missingOutputTypes reports whether a function call of the plan lacks its
// output type (required by the spec; DataFusion and ibis-substrait leave
// some out, and substrait-go needs them).
func missingOutputTypes(p *proto.Plan) bool {
	found := false
	for _, r := range p.Relations {
		walkProto(r.ProtoReflect(), func(m protoreflect.Message) {
			switch x := m.Interface().(type) {
			case *proto.Expression_ScalarFunction:
				found = found || x.OutputType == nil
			case *proto.AggregateFunction:
				found = found || x.OutputType == nil
			}
		})
	}
	return found
}

// walkProto calls f on m and every message inside it, depth first.
func walkProto(m protoreflect.Message, f func(protoreflect.Message)) {
	f(m)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			// Substrait plans hold no maps of messages.
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := range l.Len() {
				walkProto(l.Get(i).Message(), f)
			}
		case fd.Message() != nil:
			walkProto(v.Message(), f)
		}
		return true
	})
}

// dropNullEscape removes the third argument of like calls where it is a
// null literal: DataFusion writes LIKE without ESCAPE as like(s, pattern,
// NULL); the standard like takes two arguments (an escape character that
// is not null stays, and the function then matches no standard variant).
func dropNullEscape(p *proto.Plan) {
	names := map[uint32]string{}
	for _, d := range p.Extensions {
		if f := d.GetExtensionFunction(); f != nil {
			names[f.FunctionAnchor] = baseName(f.Name)
		}
	}
	for _, r := range p.Relations {
		eachScalarFunction(r, func(sf *proto.Expression_ScalarFunction) {
			if names[sf.FunctionReference] != "like" || len(sf.Arguments) != 3 {
				return
			}
			if lit := sf.Arguments[2].GetValue().GetLiteral(); lit != nil && lit.GetNull() != nil {
				sf.Arguments = sf.Arguments[:2]
			}
		})
	}
}

// eachScalarFunction calls f on every scalar function call in m.
func eachScalarFunction(m pb.Message, f func(*proto.Expression_ScalarFunction)) {
	walkProto(m.ProtoReflect(), func(m protoreflect.Message) {
		if sf, ok := m.Interface().(*proto.Expression_ScalarFunction); ok {
			f(sf)
		}
	})
}

// placeFunction finds the standard variant of a function named name that
// accepts args (nil entries: enum arguments, which any variant with an enum
// there takes): scalar and aggregate variants of every standard extension,
// in URN then compound-name order, the first that matches. With args nil
// it returns the first of all.
func placeFunction(coll *extensions.Collection, name string, args []types.Type) (extensions.FunctionVariant, error) {
	var cands []extensions.FunctionVariant
	// rigel's own extension is left out: another producer's name means
	// the standard function, never a DuckDB one of the same name.
	for _, v := range coll.GetAllScalarFunctions() {
		if v.Name() == name && v.URN() != RigelURN {
			cands = append(cands, v)
		}
	}
	for _, v := range coll.GetAllAggregateFunctions() {
		if v.Name() == name && v.URN() != RigelURN {
			cands = append(cands, v)
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].URN() != cands[j].URN() {
			return cands[i].URN() < cands[j].URN()
		}
		return cands[i].CompoundName() < cands[j].CompoundName()
	})
	if len(cands) == 0 {
		return nil, fmt.Errorf("no standard extension declares a function %q", name)
	}
	// Variants rigel implements first: where several fit (count is in
	// functions_aggregate_generic and functions_aggregate_decimal_output),
	// the one rigel runs is the useful declaration.
	sort.SliceStable(cands, func(i, j int) bool {
		_, ei := Resolve(extensions.ID{URN: cands[i].URN(), Name: cands[i].CompoundName()})
		_, ej := Resolve(extensions.ID{URN: cands[j].URN(), Name: cands[j].CompoundName()})
		return ei == nil && ej != nil
	})
	if args == nil {
		return cands[0], nil
	}
	hasEnum := false
	var sig []string
	for _, a := range args {
		if a == nil {
			hasEnum = true
			sig = append(sig, "enum")
			continue
		}
		sig = append(sig, a.ShortString())
	}
	for _, c := range cands {
		if !hasEnum {
			if ok, err := c.Match(args); err == nil && ok {
				return c, nil
			}
			continue
		}
		if len(args) < c.MinArgumentCount() || (c.MaxArgumentCount() >= 0 && len(args) > c.MaxArgumentCount()) {
			continue
		}
		ok := true
		for i, a := range args {
			if a == nil {
				continue
			}
			if m, err := c.MatchAt(a, i); err != nil || !m {
				ok = false
				break
			}
		}
		if ok {
			return c, nil
		}
	}
	// No variant accepts these exact types (DataFusion compares decimals
	// of different precisions, and passes substring's positions as i64
	// where the standard says i32): the declaration then names the first
	// variant of the same arity. rigel types every call from its
	// arguments, not from the declaration, and checks them itself.
	for _, c := range cands {
		if len(args) >= c.MinArgumentCount() && (c.MaxArgumentCount() < 0 || len(args) <= c.MaxArgumentCount()) {
			return c, nil
		}
	}
	return nil, fmt.Errorf("no standard variant of %s accepts (%s)", name, strings.Join(sig, ", "))
}

func baseName(n string) string {
	if i := strings.IndexByte(n, ':'); i >= 0 {
		return n[:i]
	}
	return n
}

// urnRef is a declaration's URN reference.
func urnRef(d *extpb.SimpleExtensionDeclaration) (uint32, bool) {
	switch {
	case d.GetExtensionFunction() != nil:
		return d.GetExtensionFunction().ExtensionUrnReference, true
	case d.GetExtensionType() != nil:
		return d.GetExtensionType().ExtensionUrnReference, true
	case d.GetExtensionTypeVariation() != nil:
		return d.GetExtensionTypeVariation().ExtensionUrnReference, true
	}
	return 0, false
}

func setURNRef(d *extpb.SimpleExtensionDeclaration, ref uint32) {
	switch {
	case d.GetExtensionFunction() != nil:
		d.GetExtensionFunction().ExtensionUrnReference = ref
	case d.GetExtensionType() != nil:
		d.GetExtensionType().ExtensionUrnReference = ref
	case d.GetExtensionTypeVariation() != nil:
		d.GetExtensionTypeVariation().ExtensionUrnReference = ref
	}
}

// oldExtensionURIs reads the plan's extension_uris (field 1, removed from
// the spec's proto) from its unknown fields: anchor -> URI.
func oldExtensionURIs(p *proto.Plan) map[uint32]string {
	out := map[uint32]string{}
	eachField(p.ProtoReflect().GetUnknown(), func(num protowire.Number, typ protowire.Type, b []byte, _ uint64) {
		if num != 1 || typ != protowire.BytesType {
			return
		}
		var anchor uint32
		var uri string
		eachField(b, func(num protowire.Number, typ protowire.Type, b []byte, v uint64) {
			switch {
			case num == 1 && typ == protowire.VarintType:
				anchor = uint32(v)
			case num == 2 && typ == protowire.BytesType:
				uri = string(b)
			}
		})
		out[anchor] = uri
	})
	return out
}

// oldURIReference reads a declaration's extension_uri_reference (field 1
// of each declaration kind, removed from the spec's proto).
func oldURIReference(d *extpb.SimpleExtensionDeclaration) uint32 {
	var m pb.Message
	switch {
	case d.GetExtensionFunction() != nil:
		m = d.GetExtensionFunction()
	case d.GetExtensionType() != nil:
		m = d.GetExtensionType()
	case d.GetExtensionTypeVariation() != nil:
		m = d.GetExtensionTypeVariation()
	default:
		return 0
	}
	var ref uint32
	eachField(m.ProtoReflect().GetUnknown(), func(num protowire.Number, typ protowire.Type, _ []byte, v uint64) {
		if num == 1 && typ == protowire.VarintType {
			ref = uint32(v)
		}
	})
	return ref
}

// eachField calls f on each field of a protobuf wire encoding: its number,
// wire type, bytes (length-delimited) or value (varint). It stops at the
// first malformed field.
func eachField(b []byte, f func(protowire.Number, protowire.Type, []byte, uint64)) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return
			}
			f(num, typ, nil, v)
			b = b[n:]
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return
			}
			f(num, typ, v, 0)
			b = b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return
			}
			b = b[n:]
		}
	}
}

// urnOfURI maps a standard extension file's URI to its URN.
func urnOfURI(uri string, coll *extensions.Collection) (string, error) {
	file := uri[strings.LastIndexByte(uri, '/')+1:]
	file = strings.TrimSuffix(strings.TrimSuffix(file, ".yaml"), ".yml")
	urn := extensions.SubstraitDefaultURNPrefix + file
	if !coll.URNLoaded(urn) {
		return "", fmt.Errorf("%w: extension URI %q is not a standard extension file rigel knows", ErrMalformed, uri)
	}
	return urn, nil
}
