package store

import (
	"context"
	"database/sql"
	"fmt"
)

// CompleteSession records a successful SCA as session s, atomically with
// the invalidation of every other valid session of the same TPP and
// customer (the description's table: a completed new session invalidates
// the old id). A session with the same (TPP, TPP-Session-ID) is replaced.
// Concurrent completions for one customer are serialised (on PostgreSQL by
// locking the customer row), so exactly one session stays valid. It assigns
// CreatedAt and clears Invalidated. An unknown customer or agreement is
// ErrNotFound.
func (s *sqlStore) CompleteSession(ctx context.Context, ses *Session) error {
	const op = "complete session"
	if ses.TPP == "" || ses.TPPSessionID == "" {
		return fmt.Errorf("%w: %s: empty TPP or TPP-Session-ID", ErrInvalid, op)
	}
	if ses.ValidUntil.IsZero() {
		return fmt.Errorf("%w: %s: no ValidUntil", ErrInvalid, op)
	}
	if err := oneOf("session context", ses.Context, "", string(CustomerPrivate), string(CustomerCorporate)); err != nil {
		return err
	}
	now := s.stamp()
	err := s.inTx(ctx, op, func(tx *sql.Tx) error {
		var id string
		if err := tx.QueryRowContext(ctx, s.d.lockCustomer, ses.CustomerID).Scan(&id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET invalidated = TRUE
			WHERE tpp = $1 AND customer_id = $2 AND invalidated = FALSE AND tpp_session_id <> $3`,
			ses.TPP, ses.CustomerID, ses.TPPSessionID)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO sessions
			(tpp, tpp_session_id, customer_id, context, agreement_id, valid_until, invalidated, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, FALSE, $7)
			ON CONFLICT (tpp, tpp_session_id) DO UPDATE SET
				customer_id = EXCLUDED.customer_id, context = EXCLUDED.context,
				agreement_id = EXCLUDED.agreement_id, valid_until = EXCLUDED.valid_until,
				invalidated = FALSE, created_at = EXCLUDED.created_at`,
			ses.TPP, ses.TPPSessionID, ses.CustomerID, ses.Context, optRef(ses.AgreementID),
			s.d.instant(ses.ValidUntil), s.d.instant(now))
		return err
	})
	if err != nil {
		return err
	}
	ses.CreatedAt, ses.ValidUntil, ses.Invalidated = now, utc(ses.ValidUntil), false
	return nil
}

// GetSession returns a session by (TPP, TPP-Session-ID), invalidated or
// expired ones included: the caller decides what they mean.
func (s *sqlStore) GetSession(ctx context.Context, tpp, tppSessionID string) (*Session, error) {
	var ses Session
	err := s.q.QueryRowContext(ctx, `SELECT tpp, tpp_session_id, customer_id, context, agreement_id,
			valid_until, invalidated, created_at
		FROM sessions WHERE tpp = $1 AND tpp_session_id = $2`, tpp, tppSessionID).
		Scan(&ses.TPP, &ses.TPPSessionID, &ses.CustomerID, &ses.Context, optString{&ses.AgreementID},
			instantScan{&ses.ValidUntil}, &ses.Invalidated, instantScan{&ses.CreatedAt})
	if err != nil {
		return nil, s.fail("get session", err)
	}
	return &ses, nil
}
