package duckguard

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"
)

// Statements of guarded connections (plain, prepared, through Arrow) run
// while another goroutine changes disabled_optimizers back and forth under
// Exclusive, as plan production does. With Statement taking no lock, this
// test crashed DuckDB 1.5.3 (SIGSEGV) in 2 runs of 6 (a longer loop of
// the same, in 3 of 5); guarded, it passed 10 runs of 10.
func TestStatementsBesideSettingChanges(t *testing.T) {
	ctx := context.Background()
	c, err := NewConnector("", nil)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE t AS SELECT range AS a, range % 7 AS b FROM range(1000)"); err != nil {
		t.Fatal(err)
	}
	// A catalog lookup as rigel's table resolution makes, and a grouping.
	const query = `SELECT table_name, 0 FROM duckdb_tables() WHERE lower(table_name) = 'nothing'
		UNION ALL SELECT b::VARCHAR, count(*) FROM t WHERE a IN (1, 2, 3, 4) GROUP BY b ORDER BY 1 LIMIT 3`
	stop := make(chan struct{})
	var changer sync.WaitGroup
	changer.Add(1)
	go func() {
		defer changer.Done()
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		for {
			select {
			case <-stop:
				return
			default:
			}
			err := conn.Raw(func(dc any) error {
				d, _ := Unwrap(dc)
				release, err := Exclusive(ctx, time.Minute)
				if err != nil {
					return err
				}
				defer release()
				if _, err := d.ExecContext(ctx, "SET disabled_optimizers = 'compressed_materialization,in_clause,materialized_cte,common_subplan,late_materialization,build_side_probe_side,top_n'", nil); err != nil {
					return err
				}
				_, err = d.ExecContext(ctx, "RESET disabled_optimizers", nil)
				return err
			})
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	var readers sync.WaitGroup
	for g := 0; g < 6; g++ {
		readers.Add(1)
		go func(g int) {
			defer readers.Done()
			for i := 0; i < 1000; i++ {
				if err := run(ctx, db, query, g%3); err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	readers.Wait()
	close(stop)
	changer.Wait()
}

// run runs query one of three ways and checks its three rows.
func run(ctx context.Context, db *sql.DB, query string, way int) error {
	switch way {
	case 0, 1:
		var rows *sql.Rows
		var err error
		if way == 0 {
			rows, err = db.QueryContext(ctx, query)
		} else {
			st, perr := db.PrepareContext(ctx, query)
			if perr != nil {
				return perr
			}
			defer st.Close()
			rows, err = st.QueryContext(ctx)
		}
		if err != nil {
			return err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			n++
		}
		if n != 3 {
			return errRows(n)
		}
		return rows.Err()
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		a, err := Arrow(dc)
		if err != nil {
			return err
		}
		release := Statement()
		rr, err := a.QueryContext(ctx, query)
		release()
		if err != nil {
			return err
		}
		defer rr.Release()
		n := 0
		for rr.Next() {
			n += int(rr.RecordBatch().NumRows())
		}
		if n != 3 {
			return errRows(n)
		}
		return nil
	})
}

type errRows int

func (e errRows) Error() string { return "wrong row count" }

// A statement that runs long holds plan production back (Exclusive waits
// for it, then gives up with ErrBusy), but not the statements that start
// while Exclusive waits: with sync.RWMutex.Lock they would all queue
// behind it.
func TestExclusiveHoldsNoStatementBack(t *testing.T) {
	long := Statement() // a statement that runs until it ends below
	ended := false
	defer func() {
		if !ended {
			long()
		}
	}()
	ctx := context.Background()
	got := make(chan error, 1)
	go func() {
		release, err := Exclusive(ctx, 300*time.Millisecond)
		if err == nil {
			release()
		}
		got <- err
	}()
	time.Sleep(50 * time.Millisecond) // Exclusive is waiting now
	started := make(chan struct{})
	go func() {
		defer Statement()()
		close(started)
	}()
	select {
	case <-started:
	case <-time.After(2 * time.Second):
		t.Fatal("a statement waited behind Exclusive")
	}
	if err := <-got; !errors.Is(err, ErrBusy) {
		t.Fatalf("Exclusive beside a long statement: %v, want ErrBusy", err)
	}
	// Once the statements end, it gets the lock.
	long()
	ended = true
	release, err := Exclusive(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	release()
}
