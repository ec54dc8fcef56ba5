package store

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"
)

// SealingKeyRotation is how long the newest sealing key seals SCA links
// before the backend adds a newer one.
const SealingKeyRotation = 7 * 24 * time.Hour

// SealingKey is a secret that seals SCA links (AES-256-GCM). Whoever can
// read it can make links to SCA flows of any TPP, which whoever can write
// the database can do anyway by adding flows.
type SealingKey struct {
	// ID names the key inside the links it sealed.
	ID string
	// Secret is the 32-byte key.
	Secret []byte
	// CreatedAt orders keys; the newest seals.
	CreatedAt time.Time
}

// SealingKeys returns the keys that seal SCA links, newest first.
func (s *sqlStore) SealingKeys(ctx context.Context) ([]SealingKey, error) {
	const op = "sealing keys"
	rows, err := s.q.QueryContext(ctx, `SELECT id, secret, created_at FROM sealing_keys ORDER BY created_at DESC, id`)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	var out []SealingKey
	for rows.Next() {
		var k SealingKey
		var secret string
		if err := rows.Scan(&k.ID, &secret, instantScan{&k.CreatedAt}); err != nil {
			return nil, s.fail(op, err)
		}
		if k.Secret, err = base64.StdEncoding.DecodeString(secret); err != nil {
			return nil, s.fail(op, fmt.Errorf("key %s: %w", k.ID, err))
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return out, nil
}

// AddSealingKey stores k, assigning CreatedAt.
func (s *sqlStore) AddSealingKey(ctx context.Context, k *SealingKey) error {
	if k.ID == "" || len(k.ID) > 64 || len(k.Secret) != 32 {
		return fmt.Errorf("%w: a sealing key needs an id of at most 64 bytes and a 32-byte secret", ErrInvalid)
	}
	now := s.stamp()
	if _, err := s.exec(ctx, "add sealing key", `INSERT INTO sealing_keys (id, secret, created_at) VALUES ($1, $2, $3)`,
		k.ID, base64.StdEncoding.EncodeToString(k.Secret), s.d.instant(now)); err != nil {
		return err
	}
	k.CreatedAt = now
	return nil
}
