package backend

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"testing"

	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/store"
)

// TestSCAConcurrentConfirm: a PSU who double-clicks "Confirm" (here six
// posts at once, a few rounds) gets one outcome per flow: the instant
// payment executes exactly once, the flow ends completed, and every post
// answers the same success redirect, so the TPP gets its PSU-ID and
// session whichever response the browser follows.
func TestSCAConcurrentConfirm(t *testing.T) {
	const posts, rounds = 6, 3
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		for round := range rounds {
			kariBefore, olaBefore := h.balance(kariIBAN), h.balance(olaIBAN)
			sid := fmt.Sprint("race-", round)
			_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, sid: sid, body: paymentBody("10.00", kariIBAN, olaIBAN, "")})
			id, _ := b["paymentId"].(string)
			href := scaLink(b)
			if id == "" || href == "" {
				t.Fatalf("create: %v", b)
			}
			p := h.browser()
			page := p.open(href)
			page = body(p.submit(href, page, url.Values{"step": {"identify"}, "customerNumber": {sandbox.KariNumber}}))
			page = body(p.submit(href, page, url.Values{"step": {"context"}, "context": {"PRIVATE"}}))
			m := csrfField.FindStringSubmatch(page)
			if m == nil || !strings.Contains(page, `id="confirm"`) {
				t.Fatalf("no confirm step: %s", page)
			}
			form := url.Values{"csrf": {m[1]}, "step": {"confirm"}}

			start := make(chan struct{})
			var wg sync.WaitGroup
			statuses := make([]int, posts)
			locations := make([]string, posts)
			for i := range posts {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					resp, err := p.client.PostForm(h.srv.URL+href, form)
					if err != nil {
						t.Error(err)
						return
					}
					resp.Body.Close()
					statuses[i], locations[i] = resp.StatusCode, resp.Header.Get("Location")
				}()
			}
			close(start)
			wg.Wait()

			for i := range posts {
				if statuses[i] != http.StatusSeeOther || locations[i] != locations[0] {
					t.Fatalf("round %d: post %d answered %d %q; post 0 answered %d %q: want the same success redirect for all",
						round, i, statuses[i], locations[i], statuses[0], locations[0])
				}
			}
			loc, err := url.Parse(locations[0])
			if err != nil {
				t.Fatal(err)
			}
			q := loc.Query()
			if loc.Host != "tpp.example.no" || q.Get("psu-id") == "" || q.Get("tpp-session-id") != sid ||
				q.Get("context") != "PRIVATE" || q.Get("state") != "xyz" || q.Get("code") != "" {
				t.Fatalf("round %d: redirect %s, want the success redirect", round, loc)
			}
			if pay, err := h.st.GetPayment(ctx, id); err != nil || pay.Status != pis.StatusSettled {
				t.Fatalf("round %d: payment %+v %v, want %s", round, pay, err, pis.StatusSettled)
			}
			var kb, ob int64
			fmt.Sscan(kariBefore, &kb)
			fmt.Sscan(olaBefore, &ob)
			if h.balance(kariIBAN) != fmt.Sprint(kb-1000) || h.balance(olaIBAN) != fmt.Sprint(ob+1000) {
				t.Fatalf("round %d: Kari %s→%s, Ola %s→%s: want exactly one execution of 10.00",
					round, kariBefore, h.balance(kariIBAN), olaBefore, h.balance(olaIBAN))
			}
			f, err := h.st.GetSCAFlow(ctx, path.Base(href))
			if err != nil || f.State != store.FlowCompleted {
				t.Fatalf("round %d: flow %+v %v, want completed", round, f, err)
			}
		}
	})
}
