package caddymodule

import (
	"context"
	"errors"
	"time"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/gateway/refresh"
)

// trustStore is where the downloaded trust sources (the EBA register) are
// kept and shared by every instance on one database: the obgw app's
// trust_store, opened through the same pool as the backends' databases
// (a trust_store naming the backend's database shares its connection).
type trustStore struct{ shared *sharedStore }

// Document implements refresh.Store.
func (t trustStore) Document(ctx context.Context, name string) (*refresh.Document, error) {
	st, err := t.shared.get(ctx)
	if err != nil {
		return nil, err
	}
	d, err := st.TrustDocument(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &refresh.Document{Body: d.Body, ETag: d.ETag, LastModified: d.LastModified, Fetched: d.Fetched}, nil
}

// PutDocument implements refresh.Store.
func (t trustStore) PutDocument(ctx context.Context, name string, d *refresh.Document) error {
	st, err := t.shared.get(ctx)
	if err != nil {
		return err
	}
	return st.PutTrustDocument(ctx, &store.TrustDocument{Name: name, Body: d.Body, ETag: d.ETag, LastModified: d.LastModified, Fetched: d.Fetched})
}

// Lease implements refresh.Store.
func (t trustStore) Lease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	st, err := t.shared.get(ctx)
	if err != nil {
		return false, err
	}
	return st.Lease(ctx, name, holder, now, ttl)
}
