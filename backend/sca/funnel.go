package sca

import (
	"maps"
	"slices"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
)

// The SCA funnel, as Config.ObserveSCA is told it: a flow is started when
// it is stored (the PSU opens a consent's link; a payment, basket or
// cancellation asks for authorisation), identified when its PSU has
// identified on its page, and it ends confirmed or failed, each told once
// by the request that ended it. A flow left pending is abandoned: the
// retention sweep counts it when it deletes it (Swept.Abandoned, of the
// purposes in FunnelPurposes). The PSU's page of consents is no SCA flow and
// is not followed.
const (
	StepStarted    = "started"
	StepIdentified = "identified"
	StepConfirmed  = "confirmed"
	StepFailed     = "failed"
	// StepAbandoned is told by the retention sweep (store.Swept), not by
	// ObserveSCA.
	StepAbandoned = "abandoned"
)

// Funnel is every step and reason the funnel can tell, as pairs:
// the steps with no reason, and the failed step with each reason.
func Funnel() [][2]string {
	out := [][2]string{{StepStarted, ""}, {StepIdentified, ""}, {StepConfirmed, ""}, {StepAbandoned, ""}}
	seen := map[string]bool{}
	for _, r := range append(slices.Sorted(maps.Values(failureReasons)), "unavailable", "refused") {
		if !seen[r] {
			seen[r] = true
			out = append(out, [2]string{StepFailed, r})
		}
	}
	return out
}

// FunnelPurposes are the purposes of the flows the funnel follows.
var FunnelPurposes = []string{store.PurposeConsent, store.PurposeUser, store.PurposePayment, store.PurposeBasket, store.PurposeCancellation}

// Reasons of a failed flow, by its outcome: what the PSU did or what
// refused the PSU. Each outcome is one value, so a reason never depends
// on the words the PSU reads. Any other outcome is "unavailable" (the
// bank's systems failed) or "refused" (the bank refused what the flow
// asked: no funds, an account the PSU may not pay from, a payment no
// longer awaiting it), by its code.
var failureReasons = map[*bgerror.Error]string{
	outcomeTooLong:        "expired",
	outcomeCancelled:      "cancelled",
	outcomeLoginCancelled: "cancelled",
	outcomeTooMany:        "too_many_attempts",
	outcomeLoginRefused:   "login_refused",
	outcomeLoginReplayed:  "login_refused",
	outcomeUnknownPSU:     "unknown_psu",
	outcomeIdPUnavailable: "idp_unavailable",
}

// observeSCA tells Config.ObserveSCA, when set, of one step.
func (s *Service) observeSCA(step, reason string) {
	if s.cfg.ObserveSCA != nil {
		s.cfg.ObserveSCA(step, reason)
	}
}

// observeEnd tells the funnel how a flow ended: in state to, failed with
// the outcome failed.
func (s *Service) observeEnd(to string, failed *bgerror.Error) {
	switch to {
	case store.FlowCompleted:
		s.observeSCA(StepConfirmed, "")
	case store.FlowFailed:
		s.observeSCA(StepFailed, failureReason(failed))
	}
}

// failureReason is the funnel's reason of a flow that failed with the
// outcome failed.
func failureReason(failed *bgerror.Error) string {
	if r, ok := failureReasons[failed]; ok {
		return r
	}
	if failed != nil && failed.Code == bgerror.CodeServiceUnavailable {
		return "unavailable"
	}
	return "refused"
}
