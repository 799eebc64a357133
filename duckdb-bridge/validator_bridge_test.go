package duckdbbridge

import (
	"strings"
	"testing"

	"github.com/rigel-db/rigel/substrait"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The newest substrait-validator on PyPI (0.1.4) implements Substrait
// 0.57, which names extension files by URI: Plan.extension_uris (field 1:
// anchor 1, uri 2) and extension_uri_reference (field 1 of each extension
// declaration). Substrait 0.85, which rigel's proto is, replaced them by
// URNs and removed the URI fields from the proto. To let that validator
// check our plans, legacyURIPlan adds the old fields next to the new ones
// as raw protobuf: each URN becomes a URI naming the standard YAML file of
// the spec version that substrait-go ships. The validator does not read
// those files (testdata/validate.py says why) and reports the URN fields
// themselves as unknown fields (warnings).

const legacyURIPrefix = "https://github.com/substrait-io/substrait/raw/v0.87.0/extensions/"

// legacyURI is the URI of the standard extension file a URN names, or of
// rigel's own extension YAML in its repository.
func legacyURI(urn string) string {
	if urn == substrait.RigelURN {
		return substrait.RigelURI
	}
	return legacyURIPrefix + strings.TrimPrefix(urn, "extension:io.substrait:") + ".yaml"
}

func legacyURIPlan(t *testing.T, p *pb.Plan) *pb.Plan {
	t.Helper()
	q := proto.Clone(p).(*pb.Plan)
	var uris []byte
	for _, u := range q.ExtensionUrns {
		var m []byte
		m = protowire.AppendTag(m, 1, protowire.VarintType)
		m = protowire.AppendVarint(m, uint64(u.ExtensionUrnAnchor))
		m = protowire.AppendTag(m, 2, protowire.BytesType)
		m = protowire.AppendString(m, legacyURI(u.Urn))
		uris = protowire.AppendTag(uris, 1, protowire.BytesType)
		uris = protowire.AppendBytes(uris, m)
	}
	q.ProtoReflect().SetUnknown(uris)
	ref := func(m proto.Message, anchor uint32) {
		b := protowire.AppendTag(nil, 1, protowire.VarintType)
		m.ProtoReflect().SetUnknown(protowire.AppendVarint(b, uint64(anchor)))
	}
	for _, d := range q.Extensions {
		switch {
		case d.GetExtensionFunction() != nil:
			ref(d.GetExtensionFunction(), d.GetExtensionFunction().ExtensionUrnReference)
		case d.GetExtensionType() != nil:
			ref(d.GetExtensionType(), d.GetExtensionType().ExtensionUrnReference)
		case d.GetExtensionTypeVariation() != nil:
			ref(d.GetExtensionTypeVariation(), d.GetExtensionTypeVariation().ExtensionUrnReference)
		}
	}
	walkMessages(q.ProtoReflect(), func(m protoreflect.Message) {
		agg, ok := m.Interface().(*pb.AggregateRel)
		if !ok {
			return
		}
		for _, g := range agg.Groupings {
			for _, r := range g.ExpressionReferences {
				g.GroupingExpressions = append(g.GroupingExpressions, agg.GroupingExpressions[r])
			}
			g.ExpressionReferences = nil
		}
		agg.GroupingExpressions = nil
	})
	return q
}
