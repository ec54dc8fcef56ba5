package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// TPPContacts are the contact addresses a TPP registered for the bank's
// operational notices (group mailboxes advised).
type TPPContacts struct {
	// TPP is the TPP's organizationIdentifier, e.g. PSDNO-FSA-987654321.
	TPP string
	// EmailAddresses are the addresses, in the order registered.
	EmailAddresses []string
	// UpdatedAt is when they were last registered.
	UpdatedAt time.Time
}

// PutTPPContacts replaces the contact addresses of c.TPP with
// c.EmailAddresses (at least one, none empty), assigning UpdatedAt. The
// addresses are validated by the caller; the store keeps them as a JSON
// array and never puts one in an error.
func (s *sqlStore) PutTPPContacts(ctx context.Context, c *TPPContacts) error {
	const op = "put tpp contacts"
	if c.TPP == "" {
		return fmt.Errorf("%w: %s: empty TPP", ErrInvalid, op)
	}
	if len(c.EmailAddresses) == 0 {
		return fmt.Errorf("%w: %s: no address", ErrInvalid, op)
	}
	for i, a := range c.EmailAddresses {
		if a == "" {
			return fmt.Errorf("%w: %s: address %d is empty", ErrInvalid, op, i)
		}
	}
	list, err := json.Marshal(c.EmailAddresses)
	if err != nil {
		return fmt.Errorf("%w: %s: addresses: %v", ErrInvalid, op, err)
	}
	now := s.stamp()
	if _, err := s.exec(ctx, op, `INSERT INTO tpp_contacts (tpp, email_addresses, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (tpp) DO UPDATE SET email_addresses = EXCLUDED.email_addresses, updated_at = EXCLUDED.updated_at`,
		c.TPP, string(list), s.d.instant(now)); err != nil {
		return err
	}
	c.UpdatedAt = now
	return nil
}

// GetTPPContacts returns the contact addresses registered for tpp;
// ErrNotFound when there are none.
func (s *sqlStore) GetTPPContacts(ctx context.Context, tpp string) (*TPPContacts, error) {
	const op = "get tpp contacts"
	c := TPPContacts{TPP: tpp}
	var list string
	err := s.q.QueryRowContext(ctx, `SELECT email_addresses, updated_at FROM tpp_contacts WHERE tpp = $1`, tpp).
		Scan(&list, instantScan{&c.UpdatedAt})
	if err != nil {
		return nil, s.fail(op, err)
	}
	if err := json.Unmarshal([]byte(list), &c.EmailAddresses); err != nil {
		// Not wrapped: encoding/json's text may quote part of an address.
		return nil, fmt.Errorf("store: %s: the stored addresses are not a JSON array of strings", op)
	}
	return &c, nil
}

// DeleteTPPContacts removes the contact addresses of tpp; ErrNotFound when
// there are none.
func (s *sqlStore) DeleteTPPContacts(ctx context.Context, tpp string) error {
	const op = "delete tpp contacts"
	n, err := s.exec(ctx, op, `DELETE FROM tpp_contacts WHERE tpp = $1`, tpp)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: %s", ErrNotFound, op)
	}
	return nil
}

// ListTPPContacts returns every TPP's contact addresses, ordered by TPP.
func (s *sqlStore) ListTPPContacts(ctx context.Context) ([]TPPContacts, error) {
	const op = "list tpp contacts"
	rows, err := s.q.QueryContext(ctx, `SELECT tpp, email_addresses, updated_at FROM tpp_contacts ORDER BY tpp`)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	var out []TPPContacts
	for rows.Next() {
		var c TPPContacts
		var list string
		if err := rows.Scan(&c.TPP, &list, instantScan{&c.UpdatedAt}); err != nil {
			return nil, s.fail(op, err)
		}
		if err := json.Unmarshal([]byte(list), &c.EmailAddresses); err != nil {
			return nil, fmt.Errorf("store: %s: the stored addresses of %s are not a JSON array of strings", op, c.TPP)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return out, nil
}
