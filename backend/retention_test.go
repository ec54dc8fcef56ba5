package backend

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/tppcontext"
)

// TestSweepOnce: of two backend instances on one database, the one that
// leases the sweep deletes the expired rows; the other does nothing until
// the lease runs out.
func TestSweepOnce(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		// An SCA flow left by a request without consent, expired two days ago.
		_, b, _ := h.call(tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: "s1"})
		id := scaLink(b)[len("/v1/sca/"):]
		ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
		a := New(Config{Store: h.st, Tokens: ver, Now: h.clk.now})
		other := New(Config{Store: h.st, Tokens: ver, Now: h.clk.now})
		later := h.clk.now().Add(48 * time.Hour)
		_, swept, err := a.Sweep(context.Background(), later, "instance-a")
		if err != nil || !swept {
			t.Fatalf("first instance: %v %v", swept, err)
		}
		if _, err := h.st.GetSCAFlow(context.Background(), id); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the expired flow after the sweep: %v", err)
		}
		if _, swept, err := other.Sweep(context.Background(), later.Add(time.Minute), "instance-b"); err != nil || swept {
			t.Fatalf("second instance within the lease: %v %v", swept, err)
		}
		if _, swept, err := other.Sweep(context.Background(), later.Add(SweepInterval), "instance-b"); err != nil || !swept {
			t.Fatalf("second instance after the lease: %v %v", swept, err)
		}
	})
}
