package rigelsql

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// Readers on several connections while a writer inserts: every answer is
// a state the table was in (a count the writer reached), and the last
// answer after the writer is done sees every row.
func TestConcurrentQueriesAndWrites(t *testing.T) {
	path := newDB(t)
	rig := openDB(t, "rigel", path+"?"+testDevice+"&rigel_cache_size=1KB")
	rig.SetMaxOpenConns(6)
	ctx := context.Background()
	const inserts = 40
	q := "SELECT (count(w) * 1000 + sum(w))::BIGINT FROM g"
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		for i := range inserts {
			if _, err := rig.ExecContext(ctx, fmt.Sprintf("INSERT INTO g VALUES ('n%d', 'x', 1)", i)); err != nil {
				errs <- err
				return
			}
		}
	})
	for range 3 {
		wg.Go(func() {
			last := int64(0)
			for {
				select {
				case <-done:
					return
				default:
				}
				var n int64
				if err := rig.QueryRowContext(ctx, q).Scan(&n); err != nil {
					errs <- err
					return
				}
				// 3 rows (sum 60) plus k inserted rows of w = 1.
				k := (n - 3060) / 1001
				if n != 3060+1001*k || k < 0 || k > inserts || n < last {
					errs <- fmt.Errorf("read %d after %d: not a state of the table", n, last)
					return
				}
				last = n
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := count(t, rig, q); n != 3060+1001*inserts {
		t.Fatalf("after the writer: %d, want %d", n, 3060+1001*inserts)
	}
}
