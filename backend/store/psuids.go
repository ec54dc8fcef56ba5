package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// PSUID returns the PSU-ID of customerID towards tpp, creating a random
// UUID v4 the first time. It is stable per (TPP, customer), differs across
// TPPs (so TPPs cannot correlate PSUs), and concurrent first calls from any
// number of processes agree on one value. An unknown customer is
// ErrNotFound.
func (s *sqlStore) PSUID(ctx context.Context, tpp, customerID string) (string, error) {
	return s.pseudonym(ctx, "psu id",
		`SELECT psu_id FROM psu_ids WHERE tpp = $1 AND customer_id = $2`,
		`INSERT INTO psu_ids (tpp, customer_id, psu_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
		tpp, customerID)
}

// CorporateID returns the PSU-Corporate-ID of agreementID towards tpp,
// creating a random UUID v4 the first time; stable per (TPP, agreement),
// different across TPPs. An unknown agreement is ErrNotFound.
func (s *sqlStore) CorporateID(ctx context.Context, tpp, agreementID string) (string, error) {
	return s.pseudonym(ctx, "corporate id",
		`SELECT corporate_id FROM corporate_ids WHERE tpp = $1 AND agreement_id = $2`,
		`INSERT INTO corporate_ids (tpp, agreement_id, corporate_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
		tpp, agreementID)
}

// pseudonym is get-or-create without a race: read; if missing, insert a
// fresh UUID with ON CONFLICT DO NOTHING (the loser of a race inserts
// nothing) and read again, which returns the winner's value. A second miss
// can only follow a UUID collision, so it retries with another UUID.
func (s *sqlStore) pseudonym(ctx context.Context, op, get, insert, tpp, key string) (string, error) {
	if tpp == "" {
		return "", fmt.Errorf("%w: %s: empty TPP", ErrInvalid, op)
	}
	for attempt := 0; ; attempt++ {
		var v string
		err := s.q.QueryRowContext(ctx, get, tpp, key).Scan(&v)
		if err == nil {
			return v, nil
		}
		if !errors.Is(err, sql.ErrNoRows) || attempt == 3 {
			return "", s.fail(op, err)
		}
		if _, err := s.exec(ctx, op, insert, tpp, key, uuid.NewString()); err != nil {
			return "", err
		}
	}
}

// CustomerByPSUID resolves a PSU-ID sent by tpp; a PSU-ID given to another
// TPP is ErrNotFound.
func (s *sqlStore) CustomerByPSUID(ctx context.Context, tpp, psuID string) (*Customer, error) {
	var c Customer
	row := s.q.QueryRowContext(ctx, `SELECT c.id, c.owner, c.number, c.name, c.type, c.created_at
		FROM psu_ids p JOIN customers c ON c.id = p.customer_id
		WHERE p.tpp = $1 AND p.psu_id = $2`, tpp, psuID)
	if err := scanCustomer(row, &c); err != nil {
		return nil, s.fail("customer by psu id", err)
	}
	return &c, nil
}

// AgreementByCorporateID resolves a PSU-Corporate-ID sent by tpp; one given
// to another TPP is ErrNotFound.
func (s *sqlStore) AgreementByCorporateID(ctx context.Context, tpp, corporateID string) (*Agreement, error) {
	var id string
	err := s.q.QueryRowContext(ctx, `SELECT agreement_id FROM corporate_ids WHERE tpp = $1 AND corporate_id = $2`,
		tpp, corporateID).Scan(&id)
	if err != nil {
		return nil, s.fail("agreement by corporate id", err)
	}
	return s.GetAgreement(ctx, id)
}
