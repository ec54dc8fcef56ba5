package backend

import "testing"

func TestPaymentTransitions(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		ok       bool
	}{
		{StatusReceived, StatusAccepted, true},
		{StatusReceived, StatusSettled, false},
		{StatusAccepted, StatusSettlementInProcess, true},
		{StatusSettled, StatusCancelled, false},
		{StatusCancelled, StatusAccepted, false},
		{StatusRejected, StatusAccepted, false},
		{StatusAcceptedCustomerProfile, StatusSettlementInProcess, true},
	} {
		if canMove(tc.from, tc.to) != tc.ok {
			t.Errorf("%s -> %s: %v", tc.from, tc.to, !tc.ok)
		}
	}
	for _, s := range []string{StatusSettled, StatusRejected, StatusCancelled} {
		if !finalStatus(s) {
			t.Errorf("%s not final", s)
		}
	}
	if finalStatus(StatusReceived) || finalStatus(StatusHold) {
		t.Error("a live status is final")
	}
}
