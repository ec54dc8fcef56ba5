package pis

import (
	"encoding/json"
	"testing"

	"github.com/obgw/obgw/backend/store"
)

// TestNoInstructionNoAct: a stored payment without an instruction is not
// acted on; its body is never parsed again.
func TestNoInstructionNoAct(t *testing.T) {
	if _, err := instructionOf(&store.Payment{ID: "old", Body: json.RawMessage(`{"instructedAmount":{"currency":"NOK","amount":"1.00"}}`)}); err == nil {
		t.Fatal("a payment without an instruction is acted on")
	}
}
