package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Commits land in the write-ahead log; the background checkpoints, not a
// commit, copy them into the database file.
func TestWALCheckpointedInTheBackground(t *testing.T) {
	old := walCheckpointInterval
	walCheckpointInterval = 50 * time.Millisecond
	defer func() { walCheckpointInterval = old }()
	path := filepath.Join(t.TempDir(), "obgw.db")
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := s.(*sqlStore).db
	s.(*sqlStore).checkpoints.Stop() // held back while the log fills
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE TABLE filler (x TEXT)"); err != nil {
		t.Fatal(err)
	}
	// About 2 MB, 500 pages: far below the automatic checkpoint's 10000.
	for i := 0; i < 200; i++ {
		if _, err := db.ExecContext(ctx, "INSERT INTO filler VALUES (?)", strings.Repeat("x", 10000)); err != nil {
			t.Fatal(err)
		}
	}
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	if before > 1<<20 {
		t.Fatalf("database file already %d bytes: a commit checkpointed", before)
	}
	s.(*sqlStore).checkpoints = startWALCheckpoints(db, walCheckpointInterval)
	deadline := time.Now().Add(5 * time.Second)
	for size() < 2<<20 {
		if time.Now().After(deadline) {
			t.Fatalf("database file still %d bytes: no background checkpoint", size())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}
