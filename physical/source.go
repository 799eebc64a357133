package physical

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// TableSource is where scans get table data: a host database (DuckDB through
// duckdb-bridge), a folder of files, or Arrow tables registered in Go.
type TableSource interface {
	// TableSchema returns the table's columns (names as stored, Arrow types,
	// nullability). Names are matched case-insensitively; an unknown table is
	// an error that names it.
	TableSchema(ctx context.Context, table string) (*arrow.Schema, error)
	// ScanColumns streams the named columns of the table, in that order, as
	// Arrow record batches.
	ScanColumns(ctx context.Context, table string, columns []string) (array.RecordReader, error)
	// ID names the source (a database file path) for cache keys and messages.
	ID() string
}

// ColumnReader is a TableSource that reads one whole column at once, faster
// than collecting ScanColumns' stream (duckdb-bridge's Tables: DuckDB's
// parallel scan writing each row at its rowid). The column cache loads
// through it when the source has it. A decimal of precision at most 18 may
// come as Decimal64 (the devices' layout) where the schema says
// Decimal128.
type ColumnReader interface {
	ReadColumn(ctx context.Context, table, column string) (arrow.Array, error)
}

// DictionaryReader is a TableSource that reads a string column already
// dictionary-encoded: an Arrow dictionary array of int32 indices into the
// column's distinct strings in byte order (gpu.EncodeDictionary's
// encoding, which then takes the indices as they are), or the plain
// strings where it cannot. The column cache loads the columns the device
// holds as dictionaries (gpu.Dict) through it.
type DictionaryReader interface {
	ReadDictionaryColumn(ctx context.Context, table, column string) (arrow.Array, error)
}

// RowCounter is a TableSource that counts a table's rows cheaply (DuckDB
// answers count(*) from its metadata): the column cache estimates a load's
// host memory from it (loadbudget.go).
type RowCounter interface {
	Rows(ctx context.Context, table string) (int64, error)
}

// SegmentReader is a TableSource that reads a column a segment of rows at
// a time, in row order (ColumnReader's arrays, or DictionaryReader's when
// dict is set, cut into pieces of at most per rows), handing each to put,
// which owns it; it returns put's first error. With a device that fills a
// column a segment at a time (gpu.SegmentUploader), the column cache then
// holds one segment of a column on the host, not the whole column. A
// source may hand a column it cannot cut over whole, as one segment.
type SegmentReader interface {
	ReadColumnSegments(ctx context.Context, table, column string, dict bool, per int64, put func(arrow.Array) error) error
}
