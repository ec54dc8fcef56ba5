package store

import (
	"testing"
	"time"
)

// TestTrustDocuments: a trust source's copy is stored and read back
// whole; a copy fetched earlier than the stored one does not replace it
// (two instances racing, the later fetch wins); an unknown name is
// ErrNotFound.
func TestTrustDocuments(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		_, err := s.TrustDocument(ctx, "registry eba")
		wantErr(t, "TrustDocument of none", err, ErrNotFound)
		at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
		d := &TrustDocument{Name: "registry eba", Body: []byte(`{"institutions":["Å"]}`), ETag: `"v1"`, LastModified: "Sat, 28 Nov 2026 11:00:00 GMT", Fetched: at}
		wantErr(t, "PutTrustDocument", s.PutTrustDocument(ctx, d), nil)
		got, err := s.TrustDocument(ctx, "registry eba")
		wantErr(t, "TrustDocument", err, nil)
		if string(got.Body) != string(d.Body) || got.ETag != d.ETag || got.LastModified != d.LastModified || !got.Fetched.Equal(at) {
			t.Fatalf("TrustDocument = %+v, want %+v", got, d)
		}
		older := &TrustDocument{Name: "registry eba", Body: []byte(`{}`), Fetched: at.Add(-time.Hour)}
		wantErr(t, "PutTrustDocument of an older copy", s.PutTrustDocument(ctx, older), nil)
		if got, _ := s.TrustDocument(ctx, "registry eba"); string(got.Body) != string(d.Body) {
			t.Fatalf("an older copy replaced the stored one: %s", got.Body)
		}
		newer := &TrustDocument{Name: "registry eba", Body: []byte(`{"v":2}`), Fetched: at.Add(time.Hour)}
		wantErr(t, "PutTrustDocument of a newer copy", s.PutTrustDocument(ctx, newer), nil)
		if got, _ := s.TrustDocument(ctx, "registry eba"); string(got.Body) != `{"v":2}` || got.ETag != "" {
			t.Fatalf("the newer copy: %+v", got)
		}
		wantErr(t, "PutTrustDocument without a name", s.PutTrustDocument(ctx, &TrustDocument{Body: []byte("x")}), ErrInvalid)
	})
}
