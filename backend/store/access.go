package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Access is what a TPP's request on behalf of a PSU resolves to.
type Access struct {
	// Customer is who the PSU-ID names.
	Customer Customer
	// Session is the TPP session asked for, whoever it belongs to; nil
	// when none was asked for or none is stored.
	Session *Session
	// Consents are the consents the customer gave the TPP, newest first,
	// with their accounts.
	Consents []Consent
	// Account is the account asked for, whoever owns it; nil when none
	// was asked for or none is stored.
	Account *Account
}

// resolveAccess reads the customer of a PSU-ID, the TPP session asked for,
// the (TPP, customer)'s consents with their accounts and the account asked
// for: one row per consent account (one per consent without accounts, one
// in all without consents), customer, session and account repeated on each.
const resolveAccess = `SELECT c.id, c.owner, c.number, c.name, c.type, c.created_at,
		s.customer_id, s.context, s.agreement_id, s.valid_until, s.invalidated, s.created_at,
		k.id, k.tpp, k.customer_id, k.context, k.agreement_id, k.status, k.created_at, k.valid_until, k.last_sca,
		ca.account_id,
		a.id, a.customer_id, a.kind, a.name, a.product, a.cash_account_type, a.currency,
		a.bban, a.iban, a.masked_pan, a.credit_limit, a.status, a.extra, a.created_at, a.owner
	FROM psu_ids p
	JOIN customers c ON c.id = p.customer_id
	LEFT JOIN sessions s ON $3 <> '' AND s.tpp = p.tpp AND s.tpp_session_id = $3
	LEFT JOIN accounts a ON $4 <> '' AND a.id = $4
	LEFT JOIN consents k ON k.tpp = p.tpp AND k.customer_id = c.id
	LEFT JOIN consent_accounts ca ON ca.consent_id = k.id
	WHERE p.tpp = $1 AND p.psu_id = $2
	ORDER BY k.created_at DESC, k.id, ca.ord`

// ResolveAccess returns the customer tpp's PSU-ID psuID names, the
// session tppSessionID of tpp (when not empty), the customer's consents to
// tpp with their accounts, newest first, and the account accountID (when
// not empty): from the access cache while its answer is in force
// (access_cache.go), else in one statement. An unknown PSU-ID is
// ErrNotFound.
func (s *sqlStore) ResolveAccess(ctx context.Context, tpp, psuID, tppSessionID, accountID string) (*Access, error) {
	if s.tx != nil {
		return s.readAccess(ctx, tpp, psuID, tppSessionID, accountID)
	}
	k := accessKey{tpp, psuID, tppSessionID, accountID}
	if a, ok := s.access.get(k); ok {
		if a == nil {
			return nil, s.fail(resolveAccessOp, sql.ErrNoRows)
		}
		return a, nil
	}
	at, cacheable := s.access.now()
	read := time.Now()
	a, err := s.readAccess(ctx, tpp, psuID, tppSessionID, accountID)
	if cacheable && (err == nil || errors.Is(err, ErrNotFound)) {
		s.access.put(k, a, at, read)
	}
	return a, err
}

const resolveAccessOp = "resolve access"

// readAccess is ResolveAccess's statement.
func (s *sqlStore) readAccess(ctx context.Context, tpp, psuID, tppSessionID, accountID string) (*Access, error) {
	const op = resolveAccessOp
	rows, err := s.q.QueryContext(ctx, resolveAccess, tpp, psuID, tppSessionID, accountID)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	var a *Access
	for rows.Next() {
		var (
			c                    Customer
			sesCustomer          sql.NullString
			ses                  Session
			k                    Consent
			consentID, accountID sql.NullString
			invalidated          sql.NullBool
			acc                  Account
			accID, accKind       sql.NullString
			creditLimit          sql.NullInt64
		)
		if err := rows.Scan(&c.ID, &c.Owner, &c.Number, &c.Name, &c.Type, instantScan{&c.CreatedAt},
			&sesCustomer, optString{&ses.Context}, optString{&ses.AgreementID}, instantScan{&ses.ValidUntil}, &invalidated, instantScan{&ses.CreatedAt},
			&consentID, optString{&k.TPP}, optString{&k.CustomerID}, optString{&k.Context}, optString{&k.AgreementID}, optString{&k.Status},
			instantScan{&k.CreatedAt}, instantScan{&k.ValidUntil}, instantScan{&k.LastSCA},
			&accountID,
			&accID, optString{&acc.CustomerID}, &accKind, optString{&acc.Name}, optString{&acc.Product}, optString{&acc.CashAccountType},
			optString{&acc.Currency}, optString{&acc.BBAN}, optString{&acc.IBAN}, optString{&acc.MaskedPAN}, &creditLimit,
			optString{&acc.Status}, jsonScan{&acc.Extra}, instantScan{&acc.CreatedAt}, optString{&acc.Owner}); err != nil {
			return nil, s.fail(op, err)
		}
		if a == nil {
			a = &Access{Customer: c}
			if sesCustomer.Valid {
				ses.TPP, ses.TPPSessionID, ses.CustomerID, ses.Invalidated = tpp, tppSessionID, sesCustomer.String, invalidated.Bool
				a.Session = &ses
			}
			if accID.Valid {
				acc.ID, acc.Kind, acc.CreditLimit = accID.String, AccountKind(accKind.String), creditLimit.Int64
				a.Account = &acc
			}
		}
		if !consentID.Valid {
			continue
		}
		if n := len(a.Consents); n == 0 || a.Consents[n-1].ID != consentID.String {
			k.ID = consentID.String
			a.Consents = append(a.Consents, k)
		}
		if accountID.Valid {
			last := &a.Consents[len(a.Consents)-1]
			last.AccountIDs = append(last.AccountIDs, accountID.String)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	if a == nil {
		return nil, s.fail(op, sql.ErrNoRows)
	}
	return a, nil
}
