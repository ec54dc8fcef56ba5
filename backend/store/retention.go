package store

import (
	"context"
	"fmt"
	"time"
)

// Retention says how long rows are kept once they no longer serve: past
// these ages they are deleted by Sweep, so that what clients send cannot
// make the database grow without bound.
type Retention struct {
	// Flows: SCA flows, counted from their expiry (a flow expires 15
	// minutes after it starts; a completed one's authorisation status is
	// served until it is swept).
	Flows time.Duration
	// Sessions: TPP sessions, counted from the end of their validity.
	Sessions time.Duration
	// Consents: consents, counted from the end of their validity
	// (revoked, terminated and expired ones alike: their status is served
	// until they are swept).
	Consents time.Duration
	// SealingKeys: the keys that seal SCA links, counted from their
	// creation. A key seals links for a week (SealingKeyRotation) before
	// a newer one takes over, and a link lives 15 minutes, so any age
	// well past a week only drops keys that no live link uses.
	SealingKeys time.Duration
	// Allowances: the allowances' buckets (SpendAllowance), counted
	// from their last attempt. A bucket fills up again within Burst times
	// Every (minutes), so an hour only drops rows that no longer hold
	// anything back.
	Allowances time.Duration
	// Abandoned names the flow purposes whose flows Sweep counts in
	// Swept.Abandoned when it deletes them still pending: SCA flows their
	// PSU never finished. None: nothing is counted.
	Abandoned []string
}

// DefaultRetention keeps expired flows a day, sessions a day and consents
// 90 days past their validity, sealing keys a day past their week, idle
// allowances an hour.
var DefaultRetention = Retention{Flows: 24 * time.Hour, Sessions: 24 * time.Hour, Consents: 90 * 24 * time.Hour,
	SealingKeys: SealingKeyRotation + 24*time.Hour, Allowances: time.Hour}

// Swept counts the rows a Sweep deleted, and the consents it marked
// expired.
type Swept struct {
	Flows, Sessions, Consents, SealingKeys, Allowances int64
	// Expired is how many valid consents whose validity had ended Sweep
	// marked expired. Readers compute a consent's expiry from its
	// validity, so this only keeps the stored status true for reports
	// and queries by status; no read writes it.
	Expired int64
	// Abandoned is how many of Flows were still pending, of the purposes
	// Retention.Abandoned names.
	Abandoned int64
}

// Sweep marks the valid consents whose validity ended as of now expired,
// and deletes the SCA flows, sessions, consents, sealing keys and
// allowances that ran out longer ago than r says (a zero SealingKeys
// keeps the keys, a zero Allowances the limits). Consents' accounts go
// with them (ON DELETE CASCADE). It is idempotent: instances that sweep
// at once change each row once.
func (s *sqlStore) Sweep(ctx context.Context, now time.Time, r Retention) (Swept, error) {
	const op = "sweep"
	var out Swept
	var err error
	flowsBefore := s.d.instant(now.Add(-r.Flows))
	if len(r.Abandoned) > 0 {
		// The abandoned ones first, to count them apart.
		args := []any{flowsBefore, FlowPending}
		for _, p := range r.Abandoned {
			args = append(args, p)
		}
		if out.Abandoned, err = s.exec(ctx, op, `DELETE FROM sca_flows WHERE expires_at < $1 AND state = $2 AND purpose IN (`+
			placeholders(3, len(r.Abandoned))+`)`, args...); err != nil {
			return out, err
		}
	}
	if out.Flows, err = s.exec(ctx, op, `DELETE FROM sca_flows WHERE expires_at < $1`, flowsBefore); err != nil {
		return out, err
	}
	out.Flows += out.Abandoned
	if out.Sessions, err = s.exec(ctx, op, `DELETE FROM sessions WHERE valid_until < $1`, s.d.instant(now.Add(-r.Sessions))); err != nil {
		return out, err
	}
	if out.Consents, err = s.exec(ctx, op, `DELETE FROM consents WHERE valid_until < $1`, s.d.instant(now.Add(-r.Consents))); err != nil {
		return out, err
	}
	if out.Expired, err = s.exec(ctx, op, `UPDATE consents SET status = $1 WHERE status = $2 AND valid_until <= $3`,
		ConsentExpired, ConsentValid, s.d.instant(now)); err != nil {
		return out, err
	}
	if r.Allowances > 0 {
		if out.Allowances, err = s.exec(ctx, op, `DELETE FROM allowances WHERE spent_at < $1`, unixSeconds(now.Add(-r.Allowances))); err != nil {
			return out, err
		}
	}
	if r.SealingKeys > 0 {
		if out.SealingKeys, err = s.exec(ctx, op, `DELETE FROM sealing_keys WHERE created_at < $1`, s.d.instant(now.Add(-r.SealingKeys))); err != nil {
			return out, err
		}
	}
	return out, nil
}

// Lease makes holder the one instance that runs the job name until
// now+ttl, if no other holder's lease is running; it reports whether
// holder has it. A holder renews its own lease by asking again. Instances
// sharing a database thereby run each job once (a batch run per scheduled
// time, one sweep at a time).
func (s *sqlStore) Lease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	const op = "lease"
	if name == "" || holder == "" || ttl <= 0 {
		return false, fmt.Errorf("%w: %s: a name, a holder and a positive time are required", ErrInvalid, op)
	}
	n, err := s.exec(ctx, op, `INSERT INTO job_leases (name, holder, until) VALUES ($1, $2, $3)
		ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, until = EXCLUDED.until
		WHERE job_leases.until <= $4 OR job_leases.holder = EXCLUDED.holder`,
		name, holder, s.d.instant(now.Add(ttl)), s.d.instant(now))
	if err != nil {
		return false, err
	}
	return n == 1, nil
}
