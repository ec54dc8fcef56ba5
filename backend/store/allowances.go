package store

import (
	"context"
	"time"
)

// Allowance is a token bucket per key that every instance sharing the
// database spends from: Burst attempts, then one more every Every. The
// PSU page's identification attempts per client address spend one, and
// so do a TPP's sandbox resets.
type Allowance struct {
	Burst int
	Every time.Duration
}

// SpendAllowance spends one attempt of key's bucket under l as of now,
// before the attempt is made, and reports whether it was left: one atomic
// statement, so parallel attempts on any number of instances are each
// counted. A refused attempt counts too, up to one past Burst: a client
// that keeps trying stays refused until an attempt comes back, and no
// longer. Rows idle for Retention.Allowances are swept.
func (s *sqlStore) SpendAllowance(ctx context.Context, key string, l Allowance, now time.Time) (bool, error) {
	const op = "spend allowance"
	if s.tx == nil {
		done, err := s.writers.take(ctx)
		if err != nil {
			return false, s.fail(op, err)
		}
		defer done()
	}
	// spent decays by one every l.Every; this attempt adds one, the sum
	// capped at burst+1. Times are Unix seconds (a double on both
	// engines). Parallel attempts reach the database in another order
	// than their clocks read: one that comes after a later one finds
	// spent_at ahead of its now, and decays nothing (a negative decay
	// would count it more than once) nor moves spent_at back.
	const (
		at      = `CAST($2 AS DOUBLE PRECISION)`
		elapsed = `(CASE WHEN ` + at + ` > allowances.spent_at THEN (` + at + ` - allowances.spent_at) / CAST($3 AS DOUBLE PRECISION) ELSE 0 END)`
		left    = `(allowances.spent - ` + elapsed + `)`
	)
	var spent float64
	err := s.q.QueryRowContext(ctx, `INSERT INTO allowances (key, spent, spent_at) VALUES ($1, 1, `+at+`)
		ON CONFLICT (key) DO UPDATE SET
		spent = CASE
			WHEN `+left+` <= 0 THEN 1
			WHEN `+left+` >= CAST($4 AS DOUBLE PRECISION) THEN CAST($4 AS DOUBLE PRECISION) + 1
			ELSE `+left+` + 1
		END,
		spent_at = CASE WHEN `+at+` > allowances.spent_at THEN `+at+` ELSE allowances.spent_at END
		RETURNING spent`,
		key, unixSeconds(now), l.Every.Seconds(), float64(l.Burst)).Scan(&spent)
	if err != nil {
		return false, s.fail(op, err)
	}
	return spent <= float64(l.Burst), nil
}

// RefundAllowance gives back one attempt of key's bucket: a guess that
// turned out right is not held against the client.
func (s *sqlStore) RefundAllowance(ctx context.Context, key string) error {
	_, err := s.exec(ctx, "refund allowance", `UPDATE allowances SET spent = CASE WHEN spent >= 1 THEN spent - 1 ELSE 0 END WHERE key = $1`, key)
	return err
}

// unixSeconds is t as Unix seconds with microseconds.
func unixSeconds(t time.Time) float64 {
	return float64(t.UnixMicro()) / 1e6
}
