package store

import (
	"context"
	"database/sql"
	"errors"
)

// accountColumns are the columns scanAccount reads, in its order.
const accountColumns = `id, customer_id, kind, name, product, cash_account_type, currency,
	bban, iban, masked_pan, credit_limit, status, extra, created_at, owner`

// scanAccount reads one row of accountColumns.
func scanAccount(row interface{ Scan(...any) error }, a *Account) error {
	return row.Scan(&a.ID, &a.CustomerID, &a.Kind, &a.Name, &a.Product, &a.CashAccountType, &a.Currency,
		&a.BBAN, &a.IBAN, &a.MaskedPAN, &a.CreditLimit, &a.Status, jsonScan{&a.Extra}, instantScan{&a.CreatedAt}, &a.Owner)
}

// CreateAccount stores a, assigning ID and CreatedAt (and Status "enabled"
// when empty); its Owner is its customer's. An unknown CustomerID is
// ErrNotFound; an IBAN or BBAN already taken in the owner's sandbox is
// ErrConflict.
func (s *sqlStore) CreateAccount(ctx context.Context, a *Account) error {
	const op = "create account"
	if err := oneOf("account kind", string(a.Kind), string(KindAccount), string(KindCardAccount)); err != nil {
		return err
	}
	extra, err := jsonArg("account extra", a.Extra)
	if err != nil {
		return err
	}
	status := a.Status
	if status == "" {
		status = "enabled"
	}
	id, now := newID(), s.stamp()
	_, err = s.exec(ctx, op, `INSERT INTO accounts (`+accountColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
			COALESCE((SELECT owner FROM customers WHERE id = $2), ''))`,
		id, a.CustomerID, string(a.Kind), a.Name, a.Product, a.CashAccountType, a.Currency,
		a.BBAN, a.IBAN, a.MaskedPAN, a.CreditLimit, status, extra, s.d.instant(now))
	if err != nil {
		return err
	}
	owner := ""
	if err := s.q.QueryRowContext(ctx, `SELECT owner FROM accounts WHERE id = $1`, id).Scan(&owner); err != nil {
		return s.fail(op, err)
	}
	a.ID, a.Status, a.CreatedAt, a.Owner = id, status, now, owner
	return nil
}

// UpdateAccount writes a's name, product, cash account type, credit limit,
// status and extra fields; its owner, kind, currency and numbers stay. An
// unknown account is ErrNotFound.
func (s *sqlStore) UpdateAccount(ctx context.Context, a *Account) error {
	const op = "update account"
	extra, err := jsonArg("account extra", a.Extra)
	if err != nil {
		return err
	}
	status := a.Status
	if status == "" {
		status = "enabled"
	}
	n, err := s.exec(ctx, op, `UPDATE accounts SET name = $2, product = $3, cash_account_type = $4, credit_limit = $5,
		status = $6, extra = $7 WHERE id = $1`, a.ID, a.Name, a.Product, a.CashAccountType, a.CreditLimit, status, extra)
	if err != nil {
		return err
	}
	if n == 0 {
		return s.fail(op, sql.ErrNoRows)
	}
	a.Status = status
	return nil
}

// GetAccount returns an account or card account by ID.
func (s *sqlStore) GetAccount(ctx context.Context, id string) (*Account, error) {
	var a Account
	row := s.q.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`, id)
	if err := scanAccount(row, &a); err != nil {
		return nil, s.fail("get account", err)
	}
	return &a, nil
}

// listAccountsChunk bounds the ids bound in one query (SQLite allows 32766
// parameters, PostgreSQL 65535).
const listAccountsChunk = 500

// ListAccounts returns the accounts of kind (both kinds when kind is "")
// with the given IDs, in the order of ids; unknown ids, ids of the other
// kind and repeated ids are skipped.
func (s *sqlStore) ListAccounts(ctx context.Context, kind AccountKind, ids []string) ([]Account, error) {
	const op = "list accounts"
	if len(ids) == 0 {
		return nil, nil
	}
	byID := make(map[string]Account, len(ids))
	for start := 0; start < len(ids); start += listAccountsChunk {
		chunk := ids[start:min(start+listAccountsChunk, len(ids))]
		args := make([]any, 0, len(chunk)+1)
		args = append(args, string(kind))
		for _, id := range chunk {
			args = append(args, id)
		}
		rows, err := s.direct().QueryContext(ctx, `SELECT `+accountColumns+` FROM accounts
			WHERE ($1 = '' OR kind = $1) AND id IN (`+placeholders(2, len(chunk))+`)`, args...)
		if err != nil {
			return nil, s.fail(op, err)
		}
		err = func() error {
			defer rows.Close()
			for rows.Next() {
				var a Account
				if err := scanAccount(rows, &a); err != nil {
					return err
				}
				byID[a.ID] = a
			}
			return rows.Err()
		}()
		if err != nil {
			return nil, s.fail(op, err)
		}
	}
	out := make([]Account, 0, len(byID))
	for _, id := range ids {
		if a, ok := byID[id]; ok {
			out = append(out, a)
			delete(byID, id)
		}
	}
	return out, nil
}

// ListCustomerAccounts returns a customer's accounts of every kind, oldest
// first. An unknown customer has none.
func (s *sqlStore) ListCustomerAccounts(ctx context.Context, customerID string) ([]Account, error) {
	const op = "list customer accounts"
	rows, err := s.q.QueryContext(ctx, `SELECT `+accountColumns+` FROM accounts
		WHERE customer_id = $1 ORDER BY created_at, id`, customerID)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	var out []Account
	for rows.Next() {
		var a Account
		if err := scanAccount(rows, &a); err != nil {
			return nil, s.fail(op, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return out, nil
}

// accountExists reports whether an account exists, on db or in a
// transaction.
func accountExists(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM accounts WHERE id = $1`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// GetAccountByNumber returns the account of owner's sandbox (the bank's
// own: "") with iban, or with bban when iban is empty: how a payment's
// debtor or creditor is recognised as one of the bank's own accounts.
func (s *sqlStore) GetAccountByNumber(ctx context.Context, owner, iban, bban string) (*Account, error) {
	col, v := "iban", iban
	if iban == "" {
		col, v = "bban", bban
	}
	if v == "" {
		return nil, s.fail("get account by number", ErrNotFound)
	}
	var a Account
	if err := scanAccount(s.q.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE owner = $1 AND `+col+` = $2`, owner, v), &a); err != nil {
		return nil, s.fail("get account by number", err)
	}
	return &a, nil
}
