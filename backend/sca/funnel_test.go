package sca

import (
	"testing"

	"github.com/obgw/obgw/bgerror"
)

// TestFailureReasonsByOutcome (issue 30, 3): the funnel's reason comes
// from the outcome itself, never from the words the PSU reads: an error
// that reads like the timeout's message is no timeout.
func TestFailureReasonsByOutcome(t *testing.T) {
	for outcome, want := range failureReasons {
		if got := failureReason(outcome); got != want {
			t.Errorf("%q: reason %q, want %q", outcome.Text, got, want)
		}
	}
	lookalike := bgerror.New(outcomeTooLong.Code, outcomeTooLong.Text)
	if got := failureReason(lookalike); got != "refused" {
		t.Errorf("an error worded as the timeout: reason %q, want refused", got)
	}
	if got := failureReason(bgerror.New(bgerror.CodeServiceUnavailable, "x")); got != "unavailable" {
		t.Errorf("an outage: reason %q", got)
	}
}
