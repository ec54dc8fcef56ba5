//go:build linux

package store

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// openWatchedVersion opens a store on a fresh file and the file's data
// version beside it, and fails t unless the version is watched.
func openWatchedVersion(t *testing.T) (Store, *sqliteDataVersion, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "obgw.db")
	st, dv := openVersioned(t, path)
	if dv.watch == nil {
		t.Fatal("the data version of a file in a plain directory is not watched")
	}
	return st, dv, path
}

// TestDataVersionWatchSkipsTheRead: while nothing writes to the file, the
// version is served without reading the pragma; a file of another name
// in the same directory changes nothing; a commit sends the next lookup
// to the pragma, which sees it.
func TestDataVersionWatchSkipsTheRead(t *testing.T) {
	st, dv, path := openWatchedVersion(t)
	first, ok := dv.current()
	if !ok {
		t.Fatal("the data version could not be read")
	}
	reads := dv.reads.Load()
	for range 100 {
		if v, ok := dv.current(); !ok || v != first {
			t.Fatalf("with no write the version went from %d to %d (ok %v)", first, v, ok)
		}
	}
	if n := dv.reads.Load() - reads; n != 0 {
		t.Fatalf("100 lookups with no write read the pragma %d times", n)
	}

	// Another file of the data directory (the trust store, say).
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "trust.db"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if v, ok := dv.current(); !ok || v != first || dv.reads.Load() != reads {
		t.Fatalf("a write to another file: version %d (was %d), pragma read %d times", v, first, dv.reads.Load()-reads)
	}

	c := &Customer{Owner: "t", Number: "w1", Name: "W", Type: CustomerPrivate}
	if err := st.CreateCustomer(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	after, ok := dv.current()
	if !ok || after == first {
		t.Fatalf("after a commit the version is %d, as before it (ok %v)", after, ok)
	}
	if dv.reads.Load() == reads {
		t.Fatal("after a commit the version was served without reading the pragma")
	}
}

// TestDataVersionUnwatchedThroughALink: a path through a symbolic link is
// not watched (SQLite puts the -wal beside the link's target); every
// lookup reads the pragma, and commits show as before.
func TestDataVersionUnwatchedThroughALink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	st, dv := openVersioned(t, filepath.Join(link, "obgw.db"))
	if dv.watch != nil {
		t.Fatal("a path through a symbolic link is watched")
	}
	before, _ := dv.current()
	reads := dv.reads.Load()
	if _, ok := dv.current(); !ok || dv.reads.Load() != reads+1 {
		t.Fatal("an unwatched version was not read from the pragma")
	}
	c := &Customer{Owner: "t", Number: "l1", Name: "L", Type: CustomerPrivate}
	if err := st.CreateCustomer(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if after, ok := dv.current(); !ok || after == before {
		t.Fatalf("unwatched: after a commit the version is %d, as before it", after)
	}
}

// writerProcessEnv names, in the environment of this test binary run as
// a child, the file and consent the child sets the status of
// (TestAccessCacheSeesAnotherOSProcess).
const writerProcessEnv = "OBGW_TEST_WRITER_PROCESS"

func init() {
	// The child: set the consent's status on the file and exit, before
	// any test runs.
	arg := os.Getenv(writerProcessEnv)
	if arg == "" {
		return
	}
	var path, consent, status string
	for i, part := range filepath.SplitList(arg) {
		switch i {
		case 0:
			path = part
		case 1:
			consent = part
		case 2:
			status = part
		}
	}
	st, err := Open(context.Background(), path, Options{})
	if err == nil {
		err = st.SetConsentStatus(context.Background(), consent, status)
		st.Close()
	}
	if err != nil {
		os.Stderr.WriteString("writer process: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
}

// TestAccessCacheSeesAnotherOSProcess: a gateway keeps access in memory
// while another process on the machine (obgw import, a second gateway on
// the file) revokes and restores the consent on the SQLite file; the
// gateway's very next answer shows each change, and answers between the
// changes come from memory.
func TestAccessCacheSeesAnotherOSProcess(t *testing.T) {
	db := sqliteTestDB(t, nil)
	s := db.open(t)
	if dv := s.(*sqlStore).dataVersion; dv == nil || dv.watch == nil {
		t.Fatal("the store's data version is not watched")
	}
	f := newAccessFixture(t, s)
	for i, status := range []string{ConsentRevokedByPSU, ConsentValid, ConsentRevokedByPSU} {
		cachedAccess(t, s, f)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), writerProcessEnv+"="+db.url+string(filepath.ListSeparator)+f.consent.ID+string(filepath.ListSeparator)+status)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("writer process: %v: %s", err, out)
		}
		got, err := s.ResolveAccess(ctx, f.tpp, f.psu, f.sid, f.account.ID)
		wantErr(t, "ResolveAccess", err, nil)
		if got.Consents[0].Status != status {
			t.Fatalf("round %d: the gateway still answers %s after another process committed %s", i, got.Consents[0].Status, status)
		}
	}
}

// TestDataVersionDoesNotWaitForAWriter: after a commit, a lookup that
// finds another connection holding SQLite's write lock (a long import,
// say) answers at once with the version it reads, instead of waiting for
// the lock through the busy timeout (10 s); once the lock is given back,
// the next lookup keeps the version again.
func TestDataVersionDoesNotWaitForAWriter(t *testing.T) {
	st, dv, path := openWatchedVersion(t)
	c := &Customer{Owner: "t", Number: "h1", Name: "H", Type: CustomerPrivate}
	if err := st.CreateCustomer(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	other, err := openSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	// The commit's events drained: the next lookup finds the queue quiet
	// and the version not kept, and asks for the lock.
	if _, ok := dv.current(); !ok {
		t.Fatal("the data version could not be read")
	}
	start := time.Now()
	if _, ok := dv.current(); !ok {
		t.Fatal("with the write lock held elsewhere, the data version could not be read")
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Fatalf("the lookup waited %v for the write lock", waited)
	}
	if dv.held {
		t.Fatal("a version read while another connection held the write lock was kept")
	}
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	kept, ok := dv.current()
	reads := dv.reads.Load()
	if again, ok2 := dv.current(); !ok || !ok2 || again != kept || dv.reads.Load() != reads {
		t.Fatalf("after the lock was given back the version was not kept: %d then %d, %d more reads", kept, again, dv.reads.Load()-reads)
	}
}
