package store

import (
	"context"
	"fmt"
	"time"
)

// TrustDocument is the last good copy of a downloaded trust source,
// shared by every instance on the database.
type TrustDocument struct {
	// Name names the source, such as "registry eba".
	Name string
	// Body is what the instance that fetched it keeps: the source's
	// derived form or the document itself (text).
	Body []byte
	// ETag and LastModified are the validators of the source's answer,
	// for the next conditional GET; empty when it sent none.
	ETag, LastModified string
	// Fetched is when the source last answered with it (200 or 304).
	Fetched time.Time
}

// MaxTrustDocument bounds a trust document's body.
const MaxTrustDocument = 64 << 20

// TrustDocument returns the document called name, or ErrNotFound.
func (s *sqlStore) TrustDocument(ctx context.Context, name string) (*TrustDocument, error) {
	d := TrustDocument{Name: name}
	var body string
	err := s.q.QueryRowContext(ctx, `SELECT body, etag, last_modified, fetched_at FROM trust_documents WHERE name = $1`, name).
		Scan(&body, &d.ETag, &d.LastModified, instantScan{&d.Fetched})
	if err != nil {
		return nil, s.fail("trust document", err)
	}
	d.Body = []byte(body)
	return &d, nil
}

// PutTrustDocument stores d in place of the document of its name, unless
// that one was fetched later (another instance's newer copy wins).
func (s *sqlStore) PutTrustDocument(ctx context.Context, d *TrustDocument) error {
	const op = "put trust document"
	if d.Name == "" || len(d.Body) > MaxTrustDocument {
		return fmt.Errorf("%w: %s: a name and a body of at most %d bytes are required", ErrInvalid, op, MaxTrustDocument)
	}
	_, err := s.exec(ctx, op, `INSERT INTO trust_documents (name, body, etag, last_modified, fetched_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (name) DO UPDATE SET body = EXCLUDED.body, etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified, fetched_at = EXCLUDED.fetched_at
		WHERE trust_documents.fetched_at <= EXCLUDED.fetched_at`,
		d.Name, string(d.Body), d.ETag, d.LastModified, s.d.instant(d.Fetched))
	return err
}
