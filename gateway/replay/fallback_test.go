package replay

import (
	"context"
	"errors"
	"testing"
	"time"
)

type downStore struct{ err error }

func (d downStore) Claim(context.Context, string, time.Duration) (bool, error) { return false, d.err }

func TestFallbackUsesSecondaryWhilePrimaryFails(t *testing.T) {
	var seen error
	f := &Fallback{Primary: downStore{errors.New("connection refused")}, Secondary: NewMemory(), OnFallback: func(err error) { seen = err }}
	ctx := context.Background()
	if ok, err := f.Claim(ctx, "k", time.Minute); !ok || err != nil {
		t.Fatalf("first claim: %v %v", ok, err)
	}
	if ok, _ := f.Claim(ctx, "k", time.Minute); ok {
		t.Fatal("replay accepted while the primary is down")
	}
	if seen == nil {
		t.Fatal("fallback not reported")
	}
	// A working primary answers alone.
	m := NewMemory()
	f = &Fallback{Primary: m, Secondary: downStore{errors.New("never asked")}}
	if ok, err := f.Claim(ctx, "k", time.Minute); !ok || err != nil {
		t.Fatalf("%v %v", ok, err)
	}
	if m.Len() != 1 {
		t.Fatal("primary not used")
	}
}
