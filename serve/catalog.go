package serve

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
	"github.com/rigel-db/rigel/fallback"
	"github.com/rigel-db/rigel/internal/sqltext"
)

// The catalog calls list DuckDB's databases, schemas and tables (views
// included), without DuckDB's internal ones, so that generic clients (JDBC
// tools, ADBC's GetObjects) can browse.

// userObjects is every user table and view: catalog, schema, name, type.
const userObjects = `SELECT database_name, schema_name, table_name, 'TABLE' AS table_type FROM duckdb_tables() WHERE NOT internal
	UNION ALL SELECT database_name, schema_name, view_name, 'VIEW' FROM duckdb_views() WHERE NOT internal`

func (s *Server) GetFlightInfoCatalogs(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.flightInfo(desc, desc.Cmd, schema_ref.Catalogs), nil
}

func (s *Server) DoGetCatalogs(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.listing(ctx, schema_ref.Catalogs, `SELECT DISTINCT database_name FROM (`+userObjects+`)
		UNION SELECT database_name FROM duckdb_databases() WHERE NOT internal ORDER BY 1`)
}

func (s *Server) GetFlightInfoSchemas(_ context.Context, _ flightsql.GetDBSchemas, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.flightInfo(desc, desc.Cmd, schema_ref.DBSchemas), nil
}

func (s *Server) DoGetDBSchemas(ctx context.Context, cmd flightsql.GetDBSchemas) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	where, args := filters(cmd.GetCatalog(), cmd.GetDBSchemaFilterPattern(), nil, nil)
	// DuckDB marks main internal too; system and temp are its own.
	return s.listing(ctx, schema_ref.DBSchemas, `SELECT DISTINCT database_name, schema_name FROM duckdb_schemas()
		WHERE database_name NOT IN ('system', 'temp') AND schema_name NOT IN ('information_schema', 'pg_catalog') `+where+` ORDER BY 1, 2`, args...)
}

func (s *Server) GetFlightInfoTables(_ context.Context, cmd flightsql.GetTables, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	schema := schema_ref.Tables
	if cmd.GetIncludeSchema() {
		schema = schema_ref.TablesWithIncludedSchema
	}
	return s.flightInfo(desc, desc.Cmd, schema), nil
}

func (s *Server) DoGetTables(ctx context.Context, cmd flightsql.GetTables) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	where, args := filters(cmd.GetCatalog(), cmd.GetDBSchemaFilterPattern(), cmd.GetTableNameFilterPattern(), cmd.GetTableTypes())
	query := `SELECT database_name, schema_name, table_name, table_type FROM (` + userObjects + `) WHERE true ` + where + ` ORDER BY 1, 2, 3`
	if !cmd.GetIncludeSchema() {
		return s.listing(ctx, schema_ref.Tables, query, args...)
	}
	rows, err := s.rows(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	b := array.NewRecordBuilder(s.Alloc, schema_ref.TablesWithIncludedSchema)
	defer b.Release()
	for _, r := range rows {
		for i, v := range r {
			b.Field(i).(*array.StringBuilder).Append(v)
		}
		sc, err := s.tableSchema(ctx, r[0], r[1], r[2])
		if err != nil {
			return nil, nil, err
		}
		b.Field(4).(*array.BinaryBuilder).Append(flight.SerializeSchema(sc, s.Alloc))
	}
	return s.oneBatch(b)
}

func (s *Server) tableSchema(ctx context.Context, catalog, schema, table string) (*arrow.Schema, error) {
	q := fmt.Sprintf("SELECT * FROM %s.%s.%s LIMIT 0", sqltext.Ident(catalog), sqltext.Ident(schema), sqltext.Ident(table))
	rr, err := fallback.RunSQL(ctx, s.eng.DB(), q)
	if err != nil {
		return nil, toStatus(err)
	}
	defer rr.Release()
	return rr.Schema(), nil
}

func (s *Server) GetFlightInfoTableTypes(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.flightInfo(desc, desc.Cmd, schema_ref.TableTypes), nil
}

func (s *Server) DoGetTableTypes(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.listing(ctx, schema_ref.TableTypes, `SELECT * FROM (VALUES ('TABLE'), ('VIEW'))`)
}

// filters turns Flight SQL's catalog name and LIKE patterns into SQL.
func filters(catalog, schemaPattern, tablePattern *string, types []string) (string, []any) {
	var where strings.Builder
	var args []any
	if catalog != nil {
		where.WriteString(" AND database_name = ?")
		args = append(args, *catalog)
	}
	if schemaPattern != nil {
		where.WriteString(" AND schema_name LIKE ? ESCAPE '\\'")
		args = append(args, *schemaPattern)
	}
	if tablePattern != nil {
		where.WriteString(" AND table_name LIKE ? ESCAPE '\\'")
		args = append(args, *tablePattern)
	}
	if len(types) > 0 {
		where.WriteString(" AND table_type IN (")
		for i, t := range types {
			if i > 0 {
				where.WriteString(", ")
			}
			where.WriteString("?")
			args = append(args, strings.ToUpper(t))
		}
		where.WriteString(")")
	}
	return where.String(), args
}

// rows runs a catalog query whose columns are all text.
func (s *Server) rows(ctx context.Context, query string, args ...any) ([][]string, error) {
	rs, err := s.eng.DB().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, toStatus(err)
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, toStatus(err)
	}
	var out [][]string
	for rs.Next() {
		r := make([]string, len(cols))
		ptrs := make([]any, len(cols))
		for i := range r {
			ptrs[i] = &r[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, toStatus(err)
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		return nil, toStatus(err)
	}
	return out, nil
}

// listing answers a catalog call whose columns are all strings.
func (s *Server) listing(ctx context.Context, schema *arrow.Schema, query string, args ...any) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	rows, err := s.rows(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	b := array.NewRecordBuilder(s.Alloc, schema)
	defer b.Release()
	for _, r := range rows {
		for i, v := range r {
			b.Field(i).(*array.StringBuilder).Append(v)
		}
	}
	return s.oneBatch(b)
}

func (s *Server) oneBatch(b *array.RecordBuilder) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	rec := b.NewRecordBatch()
	ch := make(chan flight.StreamChunk, 1)
	ch <- flight.StreamChunk{Data: rec}
	close(ch)
	return rec.Schema(), ch, nil
}
