package backend

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/obgw/obgw/backend/payments"
	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
)

// TestPaymentBodyKeptCompact: a payment body padded with 32 KiB of
// whitespace is stored compact, in the form a read serves
// (payments.ServedForm), the same as the payment sent without padding;
// it reads back on GET as that payment and is authorised; on both
// stores.
func TestPaymentBodyKeptCompact(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		plain := paymentBody("10.00", kariIBAN, olaIBAN, `,"remittanceInformationUnstructured":"Husleie  \u00e5 \"november\""`)
		inner := strings.ReplaceAll(strings.ReplaceAll(plain, `":`, "\" :\t "), ",", " ,\r\n")
		lead := strings.Repeat(" \n", (32<<10-len(inner))/2) // the body is 32 KiB, the parser's bound
		padded := lead + inner
		ids := map[string]string{}
		for name, body := range map[string]string{"plain": plain, "padded": padded} {
			status, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, sid: "c-" + name, body: body})
			if status != 201 {
				t.Fatalf("POST %s: %d %v", name, status, b)
			}
			ids[name] = b["paymentId"].(string)
		}
		p, err := h.st.GetPayment(context.Background(), ids["padded"])
		if err != nil {
			t.Fatal(err)
		}
		served, err := payments.ServedForm([]byte(plain))
		if err != nil {
			t.Fatal(err)
		}
		if string(p.Body) != string(served) || len(served) > len(plain) {
			t.Errorf("stored body is %d bytes, want the %d of %s (the %d bytes sent, compacted)", len(p.Body), len(served), served, len(padded))
		}
		read := func(id string) map[string]any {
			status, b, _ := h.call(tppCall{method: "GET", path: "/v1/payments/" + pis.InstantProduct + "/" + id})
			if status != 200 {
				t.Fatalf("GET %s: %d %v", id, status, b)
			}
			delete(b, "_links") // names the payment's own id
			return b
		}
		if got, want := read(ids["padded"]), read(ids["plain"]); !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			t.Errorf("padded payment reads back as %s, want %s", g, w)
		}
		// Authorised from what was stored.
		_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct + "/" + ids["padded"] + "/authorisations", sid: "c-padded"})
		h.authorise(scaLink(b), sandbox.KariNumber)
		if _, b, _ := h.call(tppCall{method: "GET", path: "/v1/payments/" + pis.InstantProduct + "/" + ids["padded"] + "/status"}); b["transactionStatus"] != "ACSC" {
			t.Errorf("after SCA: %v, want ACSC", b)
		}
	})
}
