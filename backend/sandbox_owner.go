package backend

import (
	"context"

	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/bgerror"
)

// One sandbox per TPP: in a sandbox deployment every TPP (by its QSealC's
// organisation identifier) has customers, accounts and agreements of its
// own, seeded with the fixed data set at its first call; its consents,
// payments, baskets and flows are its own already. A customer number
// typed at an SCA page is looked up in the sandbox of the TPP that started
// the flow, and POST /v1/sandbox/initialize resets the caller's sandbox
// only. Outside a sandbox the bank's own customers (owner "") serve every
// TPP.

// openSandbox seeds TPP tpp's sandbox unless it is (sandbox.SeedFor does
// it once for the whole database); once this process knows it seeded, a
// call costs a map look-up. The map holds one entry per TPP the register
// admitted.
func (s *Server) openSandbox(ctx context.Context, tpp string) *bgerror.Error {
	if _, ok := s.sandboxes.Load(tpp); ok {
		return nil
	}
	// A read first: a request of a TPP whose sandbox exists writes
	// nothing (TestUnconsentedRequestWritesNothing).
	seeded, err := s.cfg.Store.SandboxClaimed(ctx, tpp)
	if err == nil && !seeded {
		err = sandbox.SeedFor(ctx, s.cfg.Store, tpp, s.cfg.Now())
	}
	if err != nil {
		return s.storeError(err, "your sandbox")
	}
	s.sandboxes.Store(tpp, true)
	return nil
}
