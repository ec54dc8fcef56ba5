package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// Engagement roles.
const (
	// RoleView lets the PSU see the account.
	RoleView = "VIEW"
	// RoleRegister lets the PSU register payments from the account.
	RoleRegister = "REGISTER"
)

// CreateAgreement stores a and its engagements atomically, assigning ID and
// CreatedAt. An unknown owner, engaged customer or account is ErrNotFound;
// the same customer engaged twice on one account is ErrConflict.
func (s *sqlStore) CreateAgreement(ctx context.Context, a *Agreement) error {
	const op = "create agreement"
	roles, err := engagementRoles(op, a.Engagements)
	if err != nil {
		return err
	}
	id, now := newID(), s.stamp()
	err = s.inTx(ctx, op, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO agreements (id, owner_id, name, created_at) VALUES ($1, $2, $3, $4)`,
			id, a.OwnerID, a.Name, s.d.instant(now))
		if err != nil {
			return err
		}
		return insertEngagements(ctx, tx, id, a.Engagements, roles)
	})
	if err != nil {
		return err
	}
	a.ID, a.CreatedAt = id, now
	return nil
}

// AgreementByName returns the oldest agreement of owner (a customer id)
// called name, with its engagements, or ErrNotFound.
func (s *sqlStore) AgreementByName(ctx context.Context, ownerID, name string) (*Agreement, error) {
	var id string
	err := s.q.QueryRowContext(ctx, `SELECT id FROM agreements WHERE owner_id = $1 AND name = $2 ORDER BY created_at, id LIMIT 1`, ownerID, name).Scan(&id)
	if err != nil {
		return nil, s.fail("agreement by name", err)
	}
	return s.GetAgreement(ctx, id)
}

// SetEngagements replaces the engagements of agreement id, atomically. An
// unknown agreement, engaged customer or account is ErrNotFound; the same
// customer engaged twice on one account is ErrConflict.
func (s *sqlStore) SetEngagements(ctx context.Context, id string, es []Engagement) error {
	const op = "set engagements"
	roles, err := engagementRoles(op, es)
	if err != nil {
		return err
	}
	return s.inTx(ctx, op, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM agreement_engagements WHERE agreement_id = $1`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var one int
			if err := tx.QueryRowContext(ctx, `SELECT 1 FROM agreements WHERE id = $1`, id).Scan(&one); err != nil {
				return err
			}
		}
		return insertEngagements(ctx, tx, id, es, roles)
	})
}

// engagementRoles checks the roles of es and encodes each engagement's
// as the JSON its row holds.
func engagementRoles(op string, es []Engagement) ([]string, error) {
	roles := make([]string, len(es))
	for i, e := range es {
		for _, r := range e.Roles {
			if err := oneOf("engagement role", r, RoleView, RoleRegister); err != nil {
				return nil, err
			}
		}
		b, err := json.Marshal(e.Roles) // nil stays null, [] stays []: exact round trip
		if err != nil {
			return nil, fmt.Errorf("store: %s: %w", op, err)
		}
		roles[i] = string(b)
	}
	return roles, nil
}

func insertEngagements(ctx context.Context, tx *sql.Tx, id string, es []Engagement, roles []string) error {
	for i, e := range es {
		_, err := tx.ExecContext(ctx, `INSERT INTO agreement_engagements
			(agreement_id, ord, customer_id, account_id, roles) VALUES ($1, $2, $3, $4, $5)`,
			id, i, e.CustomerID, e.AccountID, roles[i])
		if err != nil {
			return err
		}
	}
	return nil
}

// GetAgreement returns an agreement by ID, with its engagements in the
// order they were given.
func (s *sqlStore) GetAgreement(ctx context.Context, id string) (*Agreement, error) {
	const op = "get agreement"
	var a Agreement
	err := s.q.QueryRowContext(ctx, `SELECT id, owner_id, name, created_at FROM agreements WHERE id = $1`, id).
		Scan(&a.ID, &a.OwnerID, &a.Name, instantScan{&a.CreatedAt})
	if err != nil {
		return nil, s.fail(op, err)
	}
	list := []Agreement{a}
	if err := s.loadEngagements(ctx, list, `agreement_id = $1`, id); err != nil {
		return nil, s.fail(op, err)
	}
	return &list[0], nil
}

// ListAgreementsOf returns the agreements in which customerID has an
// engagement, oldest first, each with all its engagements.
func (s *sqlStore) ListAgreementsOf(ctx context.Context, customerID string) ([]Agreement, error) {
	const op = "list agreements"
	const ofCustomer = `agreement_id IN (SELECT agreement_id FROM agreement_engagements WHERE customer_id = $1)`
	rows, err := s.q.QueryContext(ctx, `SELECT id, owner_id, name, created_at FROM agreements
		WHERE id IN (SELECT agreement_id FROM agreement_engagements WHERE customer_id = $1)
		ORDER BY created_at, id`, customerID)
	if err != nil {
		return nil, s.fail(op, err)
	}
	var out []Agreement
	err = func() error {
		defer rows.Close()
		for rows.Next() {
			var a Agreement
			if err := rows.Scan(&a.ID, &a.OwnerID, &a.Name, instantScan{&a.CreatedAt}); err != nil {
				return err
			}
			out = append(out, a)
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, s.fail(op, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	if err := s.loadEngagements(ctx, out, ofCustomer, customerID); err != nil {
		return nil, s.fail(op, err)
	}
	return out, nil
}

// loadEngagements fills in the engagements of list, reading those that
// match where (a condition on agreement_engagements with one argument).
func (s *sqlStore) loadEngagements(ctx context.Context, list []Agreement, where string, arg any) error {
	index := make(map[string]int, len(list))
	for i := range list {
		index[list[i].ID] = i
	}
	rows, err := s.q.QueryContext(ctx, `SELECT agreement_id, customer_id, account_id, roles
		FROM agreement_engagements WHERE `+where+` ORDER BY agreement_id, ord`, arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var agreementID, roles string
		var e Engagement
		if err := rows.Scan(&agreementID, &e.CustomerID, &e.AccountID, &roles); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(roles), &e.Roles); err != nil {
			return fmt.Errorf("stored engagement roles: %w", err)
		}
		if i, ok := index[agreementID]; ok {
			list[i].Engagements = append(list[i].Engagements, e)
		}
	}
	return rows.Err()
}
