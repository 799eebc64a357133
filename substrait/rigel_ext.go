package substrait

import (
	"bytes"
	_ "embed"
	"fmt"
	"path"
	"sync"

	spec "github.com/substrait-io/substrait"
	"github.com/substrait-io/substrait-go/v8/extensions"
)

// RigelURN is the URN of rigel's own extension YAML (extensions/
// functions_rigel.yaml): DuckDB functions that have no standard Substrait
// counterpart of the same meaning. substrait-go v8.1.1 wants URNs of the
// form extension:<owner>:<id>.
const RigelURN = "extension:io.rigel:functions_rigel"

// RigelURI is where the YAML lives in the repository, for consumers that
// still resolve extensions by URI (the Substrait validator's plans).
const RigelURI = "https://github.com/rigel-db/rigel/blob/main/substrait/extensions/functions_rigel.yaml"

//go:embed extensions/functions_rigel.yaml
var rigelYAML []byte

// RigelYAML is the text of rigel's extension YAML.
func RigelYAML() []byte { return bytes.Clone(rigelYAML) }

var (
	collOnce sync.Once
	coll     *extensions.Collection
	collErr  error
)

// Collection is substrait-go's standard extensions plus rigel's: the
// collection plans are loaded and produced with. It is a collection of its
// own, not substrait-go's shared default one, so that resolving other
// producers' simple function names (aliases.go) still sees the standard
// files only.
func Collection() (*extensions.Collection, error) {
	collOnce.Do(func() { coll, collErr = loadCollection() })
	return coll, collErr
}

// loadCollection loads the standard YAMLs the way substrait-go's default
// collection does (same files, same URIs, unknown.yaml left out as there)
// and then rigel's.
func loadCollection() (*extensions.Collection, error) {
	fsys := spec.GetSubstraitExtensionsFS()
	entries, err := fsys.ReadDir("extensions")
	if err != nil {
		return nil, err
	}
	c := &extensions.Collection{}
	for _, ent := range entries {
		if ent.IsDir() || path.Ext(ent.Name()) != ".yaml" || ent.Name() == "unknown.yaml" {
			continue
		}
		f, err := fsys.Open(path.Join("extensions", ent.Name()))
		if err != nil {
			return nil, err
		}
		err = c.Load(extensions.SubstraitDefaultURIPrefix+ent.Name(), f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("standard extension %s: %w", ent.Name(), err)
		}
	}
	if err := c.Load(RigelURI, bytes.NewReader(rigelYAML)); err != nil {
		return nil, fmt.Errorf("rigel extension YAML: %w", err)
	}
	return c, nil
}
