package store

import (
	"context"
	"fmt"
)

// scaFlowColumns are the columns scanSCAFlow reads, in its order.
const scaFlowColumns = `id, tpp, tpp_session_id, redirect_uri, purpose, resource_id, state, csrf,
	customer_id, context, agreement_id, created_at, expires_at`

// checkSCAFlow validates what the schema constrains.
func checkSCAFlow(f *SCAFlow) error {
	if err := oneOf("SCA flow state", f.State, FlowPending, FlowCompleted, FlowFailed); err != nil {
		return err
	}
	return oneOf("SCA flow context", f.Context, "", string(CustomerPrivate), string(CustomerCorporate))
}

// CreateSCAFlow stores f, assigning ID and CreatedAt (and State pending when
// empty). An unknown CustomerID or AgreementID is ErrNotFound.
func (s *sqlStore) CreateSCAFlow(ctx context.Context, f *SCAFlow) error {
	state := f.State
	if state == "" {
		state = FlowPending
	}
	g := *f
	g.State = state
	if err := checkSCAFlow(&g); err != nil {
		return err
	}
	id, now := newID(), s.stamp()
	_, err := s.exec(ctx, "create sca flow", `INSERT INTO sca_flows (`+scaFlowColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		id, f.TPP, f.TPPSessionID, f.RedirectURI, f.Purpose, f.ResourceID, state, f.CSRF,
		optRef(f.CustomerID), f.Context, optRef(f.AgreementID), s.d.instant(now), s.d.instant(f.ExpiresAt))
	if err != nil {
		return err
	}
	f.ID, f.State, f.CreatedAt, f.ExpiresAt = id, state, now, utc(f.ExpiresAt)
	return nil
}

// GetSCAFlow returns a flow by ID.
func (s *sqlStore) GetSCAFlow(ctx context.Context, id string) (*SCAFlow, error) {
	var f SCAFlow
	err := s.q.QueryRowContext(ctx, `SELECT `+scaFlowColumns+` FROM sca_flows WHERE id = $1`, id).
		Scan(&f.ID, &f.TPP, &f.TPPSessionID, &f.RedirectURI, &f.Purpose, &f.ResourceID, &f.State, &f.CSRF,
			optString{&f.CustomerID}, &f.Context, optString{&f.AgreementID},
			instantScan{&f.CreatedAt}, instantScan{&f.ExpiresAt})
	if err != nil {
		return nil, s.fail("get sca flow", err)
	}
	return &f, nil
}

// UpdateSCAFlow writes every field of f but ID and CreatedAt if the stored
// flow is still in state from: a compare-and-set, so of several concurrent
// updates from one state exactly one wins and the others get ErrConflict
// (a form submitted twice, or in two tabs). An unknown flow is ErrNotFound.
func (s *sqlStore) UpdateSCAFlow(ctx context.Context, f *SCAFlow, from string) error {
	const op = "update sca flow"
	if err := checkSCAFlow(f); err != nil {
		return err
	}
	n, err := s.exec(ctx, op, `UPDATE sca_flows SET tpp = $3, tpp_session_id = $4, redirect_uri = $5,
			purpose = $6, resource_id = $7, state = $8, csrf = $9, customer_id = $10, context = $11,
			agreement_id = $12, expires_at = $13
		WHERE id = $1 AND state = $2`,
		f.ID, from, f.TPP, f.TPPSessionID, f.RedirectURI, f.Purpose, f.ResourceID, f.State, f.CSRF,
		optRef(f.CustomerID), f.Context, optRef(f.AgreementID), s.d.instant(f.ExpiresAt))
	if err != nil {
		return err
	}
	if n == 1 {
		f.ExpiresAt = utc(f.ExpiresAt)
		return nil
	}
	// Nothing changed: tell a missing flow from one that left state from.
	var one int
	if err := s.q.QueryRowContext(ctx, `SELECT 1 FROM sca_flows WHERE id = $1`, f.ID).Scan(&one); err != nil {
		return s.fail(op, err)
	}
	return fmt.Errorf("%w: %s: the flow is no longer %.20q", ErrConflict, op, from)
}
