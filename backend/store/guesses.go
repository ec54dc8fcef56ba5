package store

import (
	"context"
	"time"
)

// GuessLimit is a token bucket of guesses per key (a client's address, say)
// that every instance sharing the database spends from: Burst guesses,
// then one more every Every.
type GuessLimit struct {
	Burst int
	Every time.Duration
}

// SpendGuess spends one guess of key's bucket under l as of now, before
// the guess is checked, and reports whether it was left: one atomic
// statement, so parallel guesses on any number of instances are each
// counted. A refused guess counts too, up to one past Burst: a client that
// keeps guessing stays refused until a guess comes back, and no longer.
// Rows idle for retention.Guesses are swept.
func (s *sqlStore) SpendGuess(ctx context.Context, key string, l GuessLimit, now time.Time) (bool, error) {
	const op = "spend guess"
	if s.tx == nil {
		done, err := s.writers.take(ctx)
		if err != nil {
			return false, s.fail(op, err)
		}
		defer done()
	}
	// spent decays by one every l.Every; this guess adds one, the sum
	// capped at burst+1. Times are Unix seconds (a double on both
	// engines).
	var spent float64
	err := s.q.QueryRowContext(ctx, `INSERT INTO guess_limits (key, spent, spent_at) VALUES ($1, 1, CAST($2 AS DOUBLE PRECISION))
		ON CONFLICT (key) DO UPDATE SET
		spent = CASE
			WHEN guess_limits.spent - (CAST($2 AS DOUBLE PRECISION) - guess_limits.spent_at) / CAST($3 AS DOUBLE PRECISION) <= 0 THEN 1
			WHEN guess_limits.spent - (CAST($2 AS DOUBLE PRECISION) - guess_limits.spent_at) / CAST($3 AS DOUBLE PRECISION) >= CAST($4 AS DOUBLE PRECISION) THEN CAST($4 AS DOUBLE PRECISION) + 1
			ELSE guess_limits.spent - (CAST($2 AS DOUBLE PRECISION) - guess_limits.spent_at) / CAST($3 AS DOUBLE PRECISION) + 1
		END,
		spent_at = CAST($2 AS DOUBLE PRECISION)
		RETURNING spent`,
		key, unixSeconds(now), l.Every.Seconds(), float64(l.Burst)).Scan(&spent)
	if err != nil {
		return false, s.fail(op, err)
	}
	return spent <= float64(l.Burst), nil
}

// RefundGuess gives back one guess of key's bucket: a guess that turned
// out right is not held against the client.
func (s *sqlStore) RefundGuess(ctx context.Context, key string) error {
	_, err := s.exec(ctx, "refund guess", `UPDATE guess_limits SET spent = CASE WHEN spent >= 1 THEN spent - 1 ELSE 0 END WHERE key = $1`, key)
	return err
}

// unixSeconds is t as Unix seconds with microseconds.
func unixSeconds(t time.Time) float64 {
	return float64(t.UnixMicro()) / 1e6
}
