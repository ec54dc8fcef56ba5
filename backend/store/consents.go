package store

import (
	"context"
	"database/sql"
)

// consentStatuses are the statuses a consent may have.
var consentStatuses = []string{ConsentValid, ConsentRevokedByPSU, ConsentExpired,
	ConsentTerminatedByTPP, ConsentReceived, ConsentRejected}

// consentColumns are the columns scanConsent reads, in its order.
const consentColumns = `id, tpp, customer_id, context, agreement_id, status, created_at, valid_until, last_sca`

// scanConsent reads one row of consentColumns.
func scanConsent(row interface{ Scan(...any) error }, c *Consent) error {
	return row.Scan(&c.ID, &c.TPP, &c.CustomerID, &c.Context, optString{&c.AgreementID}, &c.Status,
		instantScan{&c.CreatedAt}, instantScan{&c.ValidUntil}, instantScan{&c.LastSCA})
}

// CreateConsent stores c with its accounts atomically, assigning ID and
// CreatedAt. Repeated account ids are kept once, in first-seen order. An
// unknown customer, agreement or account is ErrNotFound.
func (s *sqlStore) CreateConsent(ctx context.Context, c *Consent) error {
	const op = "create consent"
	if err := oneOf("consent status", c.Status, consentStatuses...); err != nil {
		return err
	}
	if err := oneOf("consent context", c.Context, "", string(CustomerPrivate), string(CustomerCorporate)); err != nil {
		return err
	}
	accounts := dedupe(c.AccountIDs)
	id, now := newID(), s.stamp()
	if c.ID != "" {
		// The backend ties a consent to its SCA flow by reusing the flow's
		// id, which the TPP already holds as consentId.
		id = c.ID
	}
	err := s.inTx(ctx, op, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO consents (`+consentColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			id, c.TPP, c.CustomerID, c.Context, optRef(c.AgreementID), c.Status,
			s.d.instant(now), s.d.instant(c.ValidUntil), s.d.instant(c.LastSCA))
		if err != nil {
			return err
		}
		for i, a := range accounts {
			_, err := tx.ExecContext(ctx, `INSERT INTO consent_accounts (consent_id, ord, account_id)
				VALUES ($1, $2, $3)`, id, i, a)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.ID, c.CreatedAt, c.AccountIDs = id, now, accounts
	c.ValidUntil, c.LastSCA = utc(c.ValidUntil), utc(c.LastSCA)
	return nil
}

// GetConsent returns a consent by ID.
func (s *sqlStore) GetConsent(ctx context.Context, id string) (*Consent, error) {
	const op = "get consent"
	var c Consent
	row := s.q.QueryRowContext(ctx, `SELECT `+consentColumns+` FROM consents WHERE id = $1`, id)
	if err := scanConsent(row, &c); err != nil {
		return nil, s.fail(op, err)
	}
	list := []Consent{c}
	if err := s.loadConsentAccounts(ctx, list, `consent_id = $1`, id); err != nil {
		return nil, s.fail(op, err)
	}
	return &list[0], nil
}

// ListConsents returns the consents of tpp for customerID, newest first.
func (s *sqlStore) ListConsents(ctx context.Context, tpp, customerID string) ([]Consent, error) {
	return s.listConsents(ctx, "list consents", `tpp = $1 AND customer_id = $2`, tpp, customerID)
}

// ListCustomerConsents returns every consent customerID gave, to any TPP,
// newest first: what the PSU sees on the bank's page of consents.
func (s *sqlStore) ListCustomerConsents(ctx context.Context, customerID string) ([]Consent, error) {
	return s.listConsents(ctx, "list customer consents", `customer_id = $1`, customerID)
}

// listConsents returns the consents matching where, newest first, with
// their accounts.
func (s *sqlStore) listConsents(ctx context.Context, op, where string, args ...any) ([]Consent, error) {
	rows, err := s.q.QueryContext(ctx, `SELECT `+consentColumns+` FROM consents
		WHERE `+where+` ORDER BY created_at DESC, id`, args...)
	if err != nil {
		return nil, s.fail(op, err)
	}
	var out []Consent
	err = func() error {
		defer rows.Close()
		for rows.Next() {
			var c Consent
			if err := scanConsent(rows, &c); err != nil {
				return err
			}
			out = append(out, c)
		}
		return rows.Err()
	}()
	if err != nil || len(out) == 0 {
		return nil, s.fail(op, err)
	}
	if err := s.loadConsentAccounts(ctx, out, `consent_id IN (SELECT id FROM consents WHERE `+where+`)`, args...); err != nil {
		return nil, s.fail(op, err)
	}
	return out, nil
}

// loadConsentAccounts fills in the account ids of list, reading the
// consent_accounts rows that match where.
func (s *sqlStore) loadConsentAccounts(ctx context.Context, list []Consent, where string, args ...any) error {
	index := make(map[string]int, len(list))
	for i := range list {
		index[list[i].ID] = i
	}
	rows, err := s.q.QueryContext(ctx, `SELECT consent_id, account_id FROM consent_accounts
		WHERE `+where+` ORDER BY consent_id, ord`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var consentID, accountID string
		if err := rows.Scan(&consentID, &accountID); err != nil {
			return err
		}
		if i, ok := index[consentID]; ok {
			list[i].AccountIDs = append(list[i].AccountIDs, accountID)
		}
	}
	return rows.Err()
}

// SetConsentStatus changes a consent's status. An unknown consent is
// ErrNotFound.
func (s *sqlStore) SetConsentStatus(ctx context.Context, id, status string) error {
	const op = "set consent status"
	if err := oneOf("consent status", status, consentStatuses...); err != nil {
		return err
	}
	n, err := s.exec(ctx, op, `UPDATE consents SET status = $2 WHERE id = $1`, id, status)
	if err != nil {
		return err
	}
	if n == 0 {
		return s.fail(op, sql.ErrNoRows)
	}
	return nil
}

// dedupe returns ids without repeats, in first-seen order.
func dedupe(ids []string) []string {
	if len(ids) == 0 {
		return nil
	}
	seen := make(map[string]struct{}, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if _, ok := seen[id]; !ok {
			seen[id] = struct{}{}
			out = append(out, id)
		}
	}
	return out
}
