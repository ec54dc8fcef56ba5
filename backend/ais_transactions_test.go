package backend

import (
	"testing"
	"time"

	"github.com/obgw/obgw/backend/sandbox"
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
