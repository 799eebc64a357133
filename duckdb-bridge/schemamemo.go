package duckdbbridge

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/translate"
)

// schemaMemo answers one translation's questions about table schemas once
// per table. A plan may read a table many times (a shared subplan inlined
// at each use: 256 reads of one table within the plan budgets), and each
// answer costs three DuckDB catalog queries; living as long as the
// translation, it cannot go stale.
type schemaMemo struct {
	src translate.Catalog
	mu  sync.Mutex
	m   map[string]schemaAnswer
}

type schemaAnswer struct {
	schema *arrow.Schema
	err    error
}

func newSchemaMemo(src translate.Catalog) *schemaMemo {
	return &schemaMemo{src: src, m: map[string]schemaAnswer{}}
}

func (s *schemaMemo) TableSchema(ctx context.Context, table string) (*arrow.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.m[table]; ok {
		return a.schema, a.err
	}
	schema, err := s.src.TableSchema(ctx, table)
	s.m[table] = schemaAnswer{schema, err}
	return schema, err
}
