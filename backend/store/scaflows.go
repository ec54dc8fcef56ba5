package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// scaFlowColumns are the columns scanSCAFlow reads, in its order.
const scaFlowColumns = `id, tpp, tpp_session_id, redirect_uri, purpose, resource_id, state, csrf,
	customer_id, context, agreement_id, created_at, expires_at, session_hash, bind_key, identify_attempts, outcome, app_preferred, login_state, login, tpp_name`

// checkSCAFlow validates what the schema constrains.
func checkSCAFlow(f *SCAFlow) error {
	if err := oneOf("SCA flow state", f.State, FlowPending, FlowCompleting, FlowCompleted, FlowFailed); err != nil {
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
	id, now := f.ID, s.stamp()
	if id == "" {
		id = newID()
	}
	_, err := s.exec(ctx, "create sca flow", `INSERT INTO sca_flows (`+scaFlowColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 0, $16, $17, $18, $19, $20)`,
		id, f.TPP, f.TPPSessionID, f.RedirectURI, f.Purpose, f.ResourceID, state, f.CSRF,
		optRef(f.CustomerID), f.Context, optRef(f.AgreementID), s.d.instant(now), s.d.instant(f.ExpiresAt),
		f.SessionHash, f.BindKey, f.Outcome, f.AppPreferred, f.LoginState, f.Login, f.TPPName)
	if err != nil {
		return err
	}
	f.ID, f.State, f.CreatedAt, f.ExpiresAt, f.IdentifyAttempts = id, state, now, utc(f.ExpiresAt), 0
	return nil
}

// GetSCAFlow returns a flow by ID.
func (s *sqlStore) GetSCAFlow(ctx context.Context, id string) (*SCAFlow, error) {
	var f SCAFlow
	err := s.q.QueryRowContext(ctx, `SELECT `+scaFlowColumns+` FROM sca_flows WHERE id = $1`, id).
		Scan(&f.ID, &f.TPP, &f.TPPSessionID, &f.RedirectURI, &f.Purpose, &f.ResourceID, &f.State, &f.CSRF,
			optString{&f.CustomerID}, &f.Context, optString{&f.AgreementID},
			instantScan{&f.CreatedAt}, instantScan{&f.ExpiresAt}, &f.SessionHash, &f.BindKey, &f.IdentifyAttempts, &f.Outcome,
			&f.AppPreferred, &f.LoginState, &f.Login, &f.TPPName)
	if err != nil {
		return nil, s.fail("get sca flow", err)
	}
	return &f, nil
}

// UpdateSCAFlow writes every field of f but ID, CreatedAt and
// IdentifyAttempts if the stored flow is still in state from: a
// compare-and-set, so of several concurrent updates from one state exactly
// one wins and the others get ErrConflict (a form submitted twice, or in
// two tabs). A flow bound to a browser (SessionHash set) is never bound to
// another: of two concurrent identifications exactly one wins too. An
// unknown flow is ErrNotFound.
func (s *sqlStore) UpdateSCAFlow(ctx context.Context, f *SCAFlow, from string) error {
	const op = "update sca flow"
	if err := checkSCAFlow(f); err != nil {
		return err
	}
	n, err := s.exec(ctx, op, `UPDATE sca_flows SET tpp = $3, tpp_session_id = $4, redirect_uri = $5,
			purpose = $6, resource_id = $7, state = $8, csrf = $9, customer_id = $10, context = $11,
			agreement_id = $12, expires_at = $13, session_hash = $14, bind_key = $15, outcome = $16,
			app_preferred = $17, login_state = $18, login = $19, tpp_name = $20
		WHERE id = $1 AND state = $2 AND (session_hash = '' OR session_hash = $14)`,
		f.ID, from, f.TPP, f.TPPSessionID, f.RedirectURI, f.Purpose, f.ResourceID, f.State, f.CSRF,
		optRef(f.CustomerID), f.Context, optRef(f.AgreementID), s.d.instant(f.ExpiresAt), f.SessionHash, f.BindKey, f.Outcome,
		f.AppPreferred, f.LoginState, f.Login, f.TPPName)
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
	return fmt.Errorf("%w: %s: the flow is no longer %.20q, or is bound to another browser", ErrConflict, op, from)
}

// CountSCAFlowAttempt adds one identification attempt to a pending flow and
// returns the count, this attempt included. It is one atomic increment, so
// concurrent attempts are all counted. A flow no longer pending is
// ErrConflict; an unknown one ErrNotFound.
func (s *sqlStore) CountSCAFlowAttempt(ctx context.Context, id string) (int, error) {
	const op = "count sca flow attempt"
	var n int
	if s.tx == nil {
		// A write: in this process's turn (writers.go).
		done, err := s.writers.take(ctx)
		if err != nil {
			return 0, s.fail(op, err)
		}
		defer done()
	}
	err := s.q.QueryRowContext(ctx, `UPDATE sca_flows SET identify_attempts = identify_attempts + 1
		WHERE id = $1 AND state = $2 RETURNING identify_attempts`, id, FlowPending).Scan(&n)
	if err == nil {
		return n, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, s.fail(op, err)
	}
	var one int
	if err := s.q.QueryRowContext(ctx, `SELECT 1 FROM sca_flows WHERE id = $1`, id).Scan(&one); err != nil {
		return 0, s.fail(op, err)
	}
	return 0, fmt.Errorf("%w: %s: the flow is no longer pending", ErrConflict, op)
}

// TakeSCAFlowLogin ends the pending login of a pending flow whose
// LoginState is stateHash (clearing LoginState) and returns its Login: one atomic update, so of
// several answers carrying the same state (a replayed callback) exactly
// one gets it and the others ErrConflict, as do a flow no longer pending,
// one with another login pending and one with none. An unknown flow is
// ErrNotFound.
func (s *sqlStore) TakeSCAFlowLogin(ctx context.Context, id, stateHash string) (string, error) {
	const op = "take sca flow login"
	if stateHash == "" {
		return "", fmt.Errorf("%w: %s: no state", ErrConflict, op)
	}
	if s.tx == nil {
		// A write: in this process's turn (writers.go).
		done, err := s.writers.take(ctx)
		if err != nil {
			return "", s.fail(op, err)
		}
		defer done()
	}
	var login string
	// Login stays (RETURNING reads the row as updated); the flow's next
	// update clears it.
	err := s.q.QueryRowContext(ctx, `UPDATE sca_flows SET login_state = ''
		WHERE id = $1 AND state = $2 AND login_state = $3 RETURNING login`, id, FlowPending, stateHash).Scan(&login)
	if err == nil {
		return login, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", s.fail(op, err)
	}
	var one int
	if err := s.q.QueryRowContext(ctx, `SELECT 1 FROM sca_flows WHERE id = $1`, id).Scan(&one); err != nil {
		return "", s.fail(op, err)
	}
	return "", fmt.Errorf("%w: %s: no such login is pending", ErrConflict, op)
}
