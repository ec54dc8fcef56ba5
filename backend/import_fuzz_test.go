package backend

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
)

// FuzzImport: an import document, whatever its bytes, is applied or
// refused with a rule naming a path under "$", never a panic or another
// error; a document applied once is applied again without booking
// anything.
func FuzzImport(f *testing.F) {
	f.Add([]byte(importDocument(nil)))
	f.Add([]byte(`{"customers":[],"customers":[]}`))
	f.Add([]byte(`{"transactions":[{"bban":"86011117947","booked":[]}]}`))
	f.Add([]byte(`{"accounts":[{"customerNumber":"55555555555"}]} {}`))
	f.Add([]byte(`[]`))
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(f.TempDir(), "obgw.db"), store.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	f.Fuzz(func(t *testing.T, doc []byte) {
		now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
		_, err := Import(ctx, st, doc, now)
		var rule *bgerror.Error
		switch {
		case errors.As(err, &rule):
			if rule.Path == "" || rule.Path[0] != '$' {
				t.Fatalf("a refusal without a path: %+v", rule)
			}
			return
		case err != nil:
			t.Fatalf("import: %v", err)
		}
		again, err := Import(ctx, st, doc, now)
		if err != nil || again.Transactions.Booked != 0 || again.Customers.Created+again.Accounts.Created+again.CardAccounts.Created+again.Agreements.Created != 0 {
			t.Fatalf("the same document again: %+v %v", again, err)
		}
	})
}
