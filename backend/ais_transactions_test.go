package backend

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/store"
)

// TestPendingCardTransactionsFiltered (issue 14, 11): "All pending
// transactions are always returned, and dateFrom, dateTo and limit do not
// filter them (sandbox and card accounts are unaffected)": an account's
// pending items ignore the dates; a card account's are dated like booked
// ones.
func TestPendingCardTransactionsFiltered(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		q := h.consent("", "s1", sandbox.KariNumber, "", 3)
		psu := q.Get("psu-id")
		ids := map[string]string{}
		for _, coll := range []string{"/v1/accounts", "/v1/card-accounts"} {
			_, b, _ := h.call(tppCall{method: "GET", path: coll, psuID: psu, sid: "s1", psuPresent: true})
			key := "accounts"
			if coll == "/v1/card-accounts" {
				key = "cardAccounts"
			}
			list, _ := b[key].([]any)
			if len(list) == 0 {
				t.Fatalf("%s: %v", coll, b)
			}
			ids[coll] = list[0].(map[string]any)["resourceId"].(string)
		}
		dateTo := h.clk.now().AddDate(0, 0, -5).Format(time.DateOnly)
		pendingOf := func(coll, listKey string) int {
			status, b, _ := h.call(tppCall{method: "GET", path: coll + "/" + ids[coll] + "/transactions?bookingStatus=both&dateTo=" + dateTo, psuID: psu, sid: "s1", psuPresent: true})
			list, _ := b[listKey].(map[string]any)
			if status != 200 || list == nil {
				t.Fatalf("%s transactions: %d %v", coll, status, b)
			}
			pending, _ := list["pending"].([]any)
			return len(pending)
		}
		if n := pendingOf("/v1/accounts", "transactions"); n != 1 {
			t.Errorf("account: %d pending items before %s, want 1 (pending items ignore the dates)", n, dateTo)
		}
		if n := pendingOf("/v1/card-accounts", "cardTransactions"); n != 0 {
			t.Errorf("card account: %d pending items dated after %s returned, want 0", n, dateTo)
		}
	})
}

// TestTransactionListIsLighterThroughHTTP (issue 14, item 13): a listed
// transaction is the lighter view with a link to its details, which carry
// the rest.
func TestTransactionListIsLighterThroughHTTP(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		c, err := h.st.GetCustomerByNumber(context.Background(), testTPP, sandbox.KariNumber)
		if err != nil {
			t.Fatal(err)
		}
		accs, _ := h.st.ListCustomerAccounts(context.Background(), c.ID)
		for accs[0].Kind != store.KindAccount {
			accs = accs[1:]
		}
		tx := []store.Transaction{{Booked: true, Amount: -4200, Currency: accs[0].Currency,
			BookingDate: h.clk.now().Format(time.DateOnly), ValueDate: h.clk.now().Format(time.DateOnly),
			Details: json.RawMessage(`{"creditorName":"Kiwi","creditorAccount":{"bban":"12345678903"},"purposeCode":"GDSV"}`)}}
		if err := h.st.AddTransactions(context.Background(), accs[0].ID, tx); err != nil {
			t.Fatal(err)
		}
		psuID := h.consent("", "s1", sandbox.KariNumber, "", 3).Get("psu-id")
		call := tppCall{method: "GET", path: "/v1/accounts/" + accs[0].ID + "/transactions", psuID: psuID, sid: "s1", psuPresent: true}
		status, b, _ := h.call(call)
		if status != 200 {
			t.Fatalf("transactions: %d %v", status, b)
		}
		var listed map[string]any
		for _, item := range b["transactions"].(map[string]any)["booked"].([]any) {
			if m := item.(map[string]any); m["transactionId"] == tx[0].ID {
				listed = m
			}
		}
		if listed == nil || listed["creditorName"] != "Kiwi" || listed["creditorAccount"] != nil || listed["purposeCode"] != nil {
			t.Fatalf("listed %v, want creditorName without creditorAccount or purposeCode", listed)
		}
		details := listed["_links"].(map[string]any)["transactionDetails"].(map[string]any)["href"].(string)
		call.path = details
		status, b, _ = h.call(call)
		d, _ := b["transactionsDetails"].(map[string]any)
		if status != 200 || d["creditorName"] != "Kiwi" || d["creditorAccount"] == nil || d["purposeCode"] != "GDSV" {
			t.Fatalf("details: %d %v", status, b)
		}
	})
}
