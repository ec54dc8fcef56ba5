package sandbox

import (
	"context"

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

// Open seeds TPP tpp's sandbox unless it is (SeedFor does
// it once for the whole database); once this process knows it seeded, a
// call costs a map look-up. The map holds one entry per TPP the register
// admitted.
func (s *Service) Open(ctx context.Context, tpp string) *bgerror.Error {
	if _, ok := s.seeded.Load(tpp); ok {
		return nil
	}
	// A read first: a request of a TPP whose sandbox exists writes
	// nothing (TestUnconsentedRequestWritesNothing).
	seeded, err := s.Store.SandboxClaimed(ctx, tpp)
	if err == nil && !seeded {
		err = SeedFor(ctx, s.Store, tpp, s.Now())
	}
	if err != nil {
		return s.storeError(err, "your sandbox")
	}
	s.seeded.Store(tpp, true)
	return nil
}
