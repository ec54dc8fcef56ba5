package store

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// TestDataVersionSeesEveryEarlierCommit: the data version a caller gets
// was read after it asked, whatever other callers share the read: a
// commit made before the call always shows as a new version, while 15
// other callers keep reads in flight.
func TestDataVersionSeesEveryEarlierCommit(t *testing.T) {
	st, dv := openVersioned(t, filepath.Join(t.TempDir(), "obgw.db"))
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 15 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, ok := dv.current(); !ok {
					t.Error("the data version could not be read")
					return
				}
			}
		})
	}
	for i := range 300 {
		before, ok := dv.current()
		if !ok {
			t.Fatal("the data version could not be read")
		}
		c := &Customer{Owner: "t", Number: "v" + strconv.Itoa(i), Name: "V", Type: CustomerPrivate}
		if err := st.CreateCustomer(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		if after, ok := dv.current(); !ok || after == before {
			t.Fatalf("commit %d: version %d before it and %d after: the commit does not show", i, before, after)
		}
	}
	close(stop)
	readers.Wait()
}

// BenchmarkDataVersion reads the data version from every goroutine at
// once, as the access cache does under load.
func BenchmarkDataVersion(b *testing.B) {
	_, dv := openVersioned(b, filepath.Join(b.TempDir(), "obgw.db"))
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, ok := dv.current(); !ok {
				b.Error("unread")
			}
		}
	})
}

// openVersioned opens a store on the SQLite file at path and the file's
// data version beside it, both closed when tb ends.
func openVersioned(tb testing.TB, path string) (Store, *sqliteDataVersion) {
	tb.Helper()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	dv, err := openSQLiteDataVersion(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { dv.Close() })
	return st, dv
}
