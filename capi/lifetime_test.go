package main

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
)

// consume reads an exported stream as a host would and releases it,
// returning its rows.
func consume(t *testing.T, out *cdata.CArrowArrayStream) int64 {
	t.Helper()
	in, err := cdata.ImportCRecordReader(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	rr := in.(array.RecordReader)
	defer rr.Release() // the stream's release callback
	var rows int64
	for rr.Next() {
		rows += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// A DuckDB fallback answer holds a connection until the host releases its
// stream; then the connection must go back to the pool (one leaked per
// query otherwise), and the engine's reference with it.
func TestStreamReleaseReturnsConnection(t *testing.T) {
	e, err := open("", "duckdb") // no device: every query falls back
	if err != nil {
		t.Fatal(err)
	}
	h := register(e)
	defer rigel_close(h)
	for i := range 10 {
		s, err := e.eng.QueryStream(context.Background(), "SELECT range AS x FROM range(5000)")
		if err != nil {
			t.Fatal(err)
		}
		if e.db.Stats().InUse != 1 {
			t.Fatalf("query %d: %d connections in use while its stream is open, want 1", i, e.db.Stats().InUse)
		}
		out := new(cdata.CArrowArrayStream)
		exportStream(e, s, out)
		if rows := consume(t, out); rows != 5000 {
			t.Fatalf("query %d: %d rows, want 5000", i, rows)
		}
	}
	if n := e.db.Stats().InUse; n != 0 {
		t.Fatalf("%d DuckDB connections still in use after every stream was released", n)
	}
	if n := e.refs.Load(); n != 1 {
		t.Fatalf("the engine holds %d references with no stream open, want 1 (the handle)", n)
	}
}

// rigel_close with a stream still out: the stream stays readable, and the
// engine really closes when the stream is released.
func TestCloseWaitsForStreams(t *testing.T) {
	e, err := open("", "duckdb")
	if err != nil {
		t.Fatal(err)
	}
	h := register(e)
	s, err := e.eng.QueryStream(context.Background(), "SELECT range AS x FROM range(200000)")
	if err != nil {
		t.Fatal(err)
	}
	out := new(cdata.CArrowArrayStream)
	exportStream(e, s, out)
	rigel_close(h)
	rigel_close(h) // harmless
	if acquire(h) != nil {
		t.Fatal("a closed handle is still found")
	}
	if err := e.db.Ping(); err != nil {
		t.Fatalf("the catalog closed under an open stream: %v", err)
	}
	if rows := consume(t, out); rows != 200000 {
		t.Fatalf("%d rows after the close, want 200000", rows)
	}
	if n := e.refs.Load(); n != 0 {
		t.Fatalf("%d references left after the close and the stream's release", n)
	}
	if err := e.db.Ping(); err == nil {
		t.Fatal("the catalog is still open after its engine's last reference went")
	}
}
