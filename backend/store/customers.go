package store

import (
	"context"
	"database/sql"
)

// customerColumns are the columns scanCustomer reads, in its order.
const customerColumns = `id, owner, number, name, type, created_at`

// scanCustomer reads one row of customerColumns.
func scanCustomer(row interface{ Scan(...any) error }, c *Customer) error {
	return row.Scan(&c.ID, &c.Owner, &c.Number, &c.Name, &c.Type, instantScan{&c.CreatedAt})
}

// CreateCustomer stores c, assigning ID and CreatedAt. A number already
// taken in c.Owner's sandbox is ErrConflict.
func (s *sqlStore) CreateCustomer(ctx context.Context, c *Customer) error {
	const op = "create customer"
	if err := oneOf("customer type", string(c.Type), string(CustomerPrivate), string(CustomerCorporate)); err != nil {
		return err
	}
	id, now := newID(), s.stamp()
	_, err := s.exec(ctx, op,
		`INSERT INTO customers (id, owner, number, name, type, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		id, c.Owner, c.Number, c.Name, string(c.Type), s.d.instant(now))
	if err != nil {
		return err
	}
	c.ID, c.CreatedAt = id, now
	return nil
}

// UpdateCustomer writes c's name and type (its number and id stay). An
// unknown customer is ErrNotFound.
func (s *sqlStore) UpdateCustomer(ctx context.Context, c *Customer) error {
	const op = "update customer"
	if err := oneOf("customer type", string(c.Type), string(CustomerPrivate), string(CustomerCorporate)); err != nil {
		return err
	}
	n, err := s.exec(ctx, op, `UPDATE customers SET name = $2, type = $3 WHERE id = $1`, c.ID, c.Name, string(c.Type))
	if err != nil {
		return err
	}
	if n == 0 {
		return s.fail(op, sql.ErrNoRows)
	}
	return nil
}

// GetCustomer returns a customer by ID.
func (s *sqlStore) GetCustomer(ctx context.Context, id string) (*Customer, error) {
	var c Customer
	row := s.q.QueryRowContext(ctx, `SELECT `+customerColumns+` FROM customers WHERE id = $1`, id)
	if err := scanCustomer(row, &c); err != nil {
		return nil, s.fail("get customer", err)
	}
	return &c, nil
}

// GetCustomerByNumber returns the customer of owner's sandbox (the bank's
// own customers: "") with a national identification number.
func (s *sqlStore) GetCustomerByNumber(ctx context.Context, owner, number string) (*Customer, error) {
	var c Customer
	row := s.q.QueryRowContext(ctx, `SELECT `+customerColumns+` FROM customers WHERE owner = $1 AND number = $2`, owner, number)
	if err := scanCustomer(row, &c); err != nil {
		return nil, s.fail("get customer by number", err)
	}
	return &c, nil
}

// ListCustomers returns the customers of owner's sandbox (the bank's own:
// ""), oldest first.
func (s *sqlStore) ListCustomers(ctx context.Context, owner string) ([]Customer, error) {
	const op = "list customers"
	rows, err := s.q.QueryContext(ctx, `SELECT `+customerColumns+` FROM customers WHERE owner = $1 ORDER BY created_at, id`, owner)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	var out []Customer
	for rows.Next() {
		var c Customer
		if err := scanCustomer(rows, &c); err != nil {
			return nil, s.fail(op, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return out, nil
}

// DeleteCustomer removes a customer and, by ON DELETE CASCADE, everything
// that hangs off it: its accounts with their balances and transactions, the
// agreements it owns, engagements naming it, its consents, sessions, PSU-IDs
// and the SCA flows naming it.
func (s *sqlStore) DeleteCustomer(ctx context.Context, id string) error {
	n, err := s.exec(ctx, "delete customer", `DELETE FROM customers WHERE id = $1`, id)
	if err != nil {
		return err
	}
	if n == 0 {
		return s.fail("delete customer", sql.ErrNoRows)
	}
	return nil
}
