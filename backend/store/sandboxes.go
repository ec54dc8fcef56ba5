package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// SandboxClaimed reports whether owner's sandbox is recorded, reading
// only.
func (s *sqlStore) SandboxClaimed(ctx context.Context, owner string) (bool, error) {
	var one int
	err := s.q.QueryRowContext(ctx, `SELECT 1 FROM sandboxes WHERE owner = $1`, owner).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, s.fail("sandbox claimed", err)
	}
	return true, nil
}

// ClaimSandbox records owner's sandbox: created is true for the one call
// that recorded it, which seeds it in the same transaction; any later
// call (on any instance) finds it recorded.
func (s *sqlStore) ClaimSandbox(ctx context.Context, owner string) (bool, error) {
	n, err := s.exec(ctx, "claim sandbox",
		`INSERT INTO sandboxes (owner, created_at) VALUES ($1, $2) ON CONFLICT (owner) DO NOTHING`,
		owner, s.d.instant(s.stamp()))
	return n == 1, err
}

// DeleteSandbox removes what owner's sandbox holds: its customers and,
// by ON DELETE CASCADE, their accounts, transactions, agreements,
// engagements, consents, sessions, PSU-IDs and flows; and what TPP owner
// made that names no customer yet (flows, sessions, consents, payments,
// baskets, identifiers). TPP contacts are kept: they are the TPP's
// registration, not sandbox data. Run it inside Atomically together with
// what replaces the data: it locks the sandbox's row first, so that two
// resets of one sandbox run one after the other, not into each other.
func (s *sqlStore) DeleteSandbox(ctx context.Context, owner string) error {
	if owner == "" {
		// The bank's own customers are no sandbox.
		return s.fail("delete sandbox", fmt.Errorf("%w: a sandbox needs an owner", ErrInvalid))
	}
	return s.inTx(ctx, "delete sandbox", func(tx *sql.Tx) error {
		for _, q := range []string{
			s.d.lockSandbox,
			`DELETE FROM baskets WHERE tpp = $1`,
			`DELETE FROM payments WHERE tpp = $1`,
			`DELETE FROM consents WHERE tpp = $1`,
			`DELETE FROM sessions WHERE tpp = $1`,
			`DELETE FROM sca_flows WHERE tpp = $1`,
			`DELETE FROM corporate_ids WHERE tpp = $1`,
			`DELETE FROM psu_ids WHERE tpp = $1`,
			`DELETE FROM customers WHERE owner = $1`,
		} {
			if _, err := tx.ExecContext(ctx, q, owner); err != nil {
				return err
			}
		}
		return nil
	})
}
