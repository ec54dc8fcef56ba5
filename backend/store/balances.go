package store

import (
	"context"
	"database/sql"
)

// SetBalances replaces an account's balances, keeping their order. An
// unknown account is ErrNotFound.
func (s *sqlStore) SetBalances(ctx context.Context, accountID string, b []Balance) error {
	for i := range b {
		if err := checkDate("balance reference date", b[i].ReferenceDate); err != nil {
			return err
		}
	}
	return s.inTx(ctx, "set balances", func(tx *sql.Tx) error {
		ok, err := accountExists(ctx, tx, accountID)
		if err != nil {
			return err
		}
		if !ok {
			return sql.ErrNoRows
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM balances WHERE account_id = $1`, accountID); err != nil {
			return err
		}
		for i := range b {
			_, err := tx.ExecContext(ctx, `INSERT INTO balances
				(account_id, ord, type, amount, currency, reference_date, last_change)
				VALUES ($1, $2, $3, $4, $5, $6, $7)`,
				accountID, i, b[i].Type, b[i].Amount, b[i].Currency, b[i].ReferenceDate, s.d.instant(b[i].LastChange))
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// ListBalances returns an account's balances in the order they were set.
// An unknown account is ErrNotFound.
func (s *sqlStore) ListBalances(ctx context.Context, accountID string) ([]Balance, error) {
	const op = "list balances"
	rows, err := s.q.QueryContext(ctx, `SELECT type, amount, currency, reference_date, last_change
		FROM balances WHERE account_id = $1 ORDER BY ord`, accountID)
	if err != nil {
		return nil, s.fail(op, err)
	}
	var out []Balance
	err = func() error {
		defer rows.Close()
		for rows.Next() {
			var b Balance
			if err := rows.Scan(&b.Type, &b.Amount, &b.Currency, &b.ReferenceDate, instantScan{&b.LastChange}); err != nil {
				return err
			}
			out = append(out, b)
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, s.fail(op, err)
	}
	if len(out) == 0 {
		// Rows are closed: a single-connection pool is free again.
		if ok, err := accountExists(ctx, s.q, accountID); err != nil || !ok {
			return nil, s.fail(op, orNoRows(err))
		}
	}
	return out, nil
}

// orNoRows is err, or sql.ErrNoRows when err is nil.
func orNoRows(err error) error {
	if err == nil {
		return sql.ErrNoRows
	}
	return err
}
