package translate

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/physical"
)

// Catalog tells the translator the stored types of the tables a plan reads
// (physical.TableSource is one). A plan from another producer may declare a
// column with a type other than the table's: Isthmus's TPC-H schema has
// INTEGER keys where the DuckDB tables hold BIGINT.
type Catalog interface {
	TableSchema(ctx context.Context, table string) (*arrow.Schema, error)
}

// scanStream returns the stream of a scan whose Types are the plan's
// declared types. Where the table stores another type, the scan reads the
// stored one and the stream casts it to the declared type. skip(i) marks
// columns the translator already found unusable (they are never read).
func (t *translator) scanStream(scan *physical.Scan, skip func(i int) bool) (*stream, error) {
	if t.tables == nil {
		return identity(scan), nil
	}
	schema, err := t.tables.TableSchema(context.Background(), scan.Table)
	if err != nil {
		return nil, fmt.Errorf("ReadRel %s: %w", scan.Table, err)
	}
	declared := append([]gpu.Type(nil), scan.Types...)
	for i, name := range scan.Columns {
		if skip(i) {
			continue
		}
		f, ok := fieldNamed(schema, name)
		if !ok {
			return nil, fmt.Errorf("ReadRel %s: the table has no column %s", scan.Table, name)
		}
		stored, err := gpu.TypeOf(f.Type, f.Nullable)
		if err != nil {
			// The device cannot read the stored type: the scan reports it
			// when (and only if) the column is read.
			continue
		}
		if sameRepresentation(stored, declared[i]) {
			continue
		}
		if !losslessOrChecked(stored, declared[i]) {
			return nil, fmt.Errorf("ReadRel %s column %s: the plan declares %s but the table holds %s, and that cast could change values", scan.Table, name, declared[i], stored)
		}
		// Nullability stays the declared one unless the table may hold
		// nulls the plan says it cannot: then the stored one is truer.
		scan.Types[i] = stored.WithNullable(stored.Nullable || declared[i].Nullable)
	}
	s := identity(scan)
	for i := range s.exprs {
		if skip(i) || sameRepresentation(scan.Types[i], declared[i]) {
			continue
		}
		if s.exprs[i], err = cast(s.exprs[i], declared[i]); err != nil {
			return nil, fmt.Errorf("ReadRel %s column %s: %w", scan.Table, scan.Columns[i], err)
		}
	}
	return s, nil
}

// fieldNamed finds a column by name: exactly, else ignoring case (Isthmus
// writes upper-case names; DuckDB matches names case-insensitively).
func fieldNamed(s *arrow.Schema, name string) (arrow.Field, bool) {
	if i := s.FieldIndices(name); len(i) > 0 {
		return s.Field(i[0]), true
	}
	for _, f := range s.Fields() {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return arrow.Field{}, false
}

// sameRepresentation: the device holds both types alike (precision and
// nullability differences need no work).
func sameRepresentation(a, b gpu.Type) bool {
	return a.Kind == b.Kind && a.Scale == b.Scale
}

// losslessOrChecked reports whether the device's cast from stored to
// declared either keeps every value or fails with ErrOverflow: integer
// narrowing and decimal precision checks raise ErrOverflow, but decimal
// scale reduction rounds and exact-to-float conversion may round, so those
// are refused.
func losslessOrChecked(stored, declared gpu.Type) bool {
	switch {
	case isInt(stored) && (isInt(declared) || isDecimal(declared)):
		return true
	case isDecimal(stored) && isDecimal(declared):
		return declared.Scale >= stored.Scale
	case isDecimal(stored) && isInt(declared):
		return stored.Scale == 0
	case stored.Kind == gpu.Float32 && declared.Kind == gpu.Float64:
		return true
	}
	return false
}
