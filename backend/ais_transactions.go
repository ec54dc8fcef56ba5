package backend

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/obgw/obgw/backend/civildate"
	"github.com/obgw/obgw/backend/money"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// transactionQuery is the parsed query of a transaction listing.
type transactionQuery struct {
	filter store.TransactionFilter
	status string
}

// parseTransactionQuery reads bookingStatus (booked by default; pending,
// both, all), dateFrom, dateTo, limit (default 200) and offset.
func parseTransactionQuery(r *http.Request) (transactionQuery, *bgerror.Error) {
	q := r.URL.Query()
	tq := transactionQuery{status: orDefault(q.Get("bookingStatus"), "booked")}
	switch tq.status {
	case "booked":
		tq.filter.Booked = true
	case "pending":
		tq.filter.Pending = true
	case "both", "all":
		tq.filter.Booked, tq.filter.Pending = true, true
	default:
		return tq, bgerror.Format("bookingStatus", "bookingStatus must be booked, pending, both or all")
	}
	for _, p := range []struct {
		name string
		dst  *string
	}{{"dateFrom", &tq.filter.DateFrom}, {"dateTo", &tq.filter.DateTo}} {
		if v := q.Get(p.name); v != "" {
			if _, err := time.Parse(time.DateOnly, v); err != nil {
				return tq, bgerror.Format(p.name, p.name+" must be an ISO 8601 date such as 2026-11-21")
			}
			*p.dst = v
		}
	}
	tq.filter.Limit = DefaultPageSize
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10000 {
			return tq, bgerror.Format("limit", "limit must be a whole number from 1 to 10000")
		}
		tq.filter.Limit = n
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return tq, bgerror.Format("offset", "offset must be a whole number of 0 or more")
		}
		tq.filter.Offset = n
	}
	return tq, nil
}

// transactionOut is one transaction as served: the fields obgw owns, then
// the stored details (remittance information, counterparties, card fields)
// spliced in without decoding them.
type transactionOut struct {
	TransactionID     string
	CardTransactionID string
	BookingDate       string
	ValueDate         string
	// Amount (minor units) and Currency are the transactionAmount.
	Amount   int64
	Currency string
	// DetailsBase, when set (a booked transaction in a listing), is the
	// link to the transactions of its account, which its details link
	// continues with its id; one string shared by the page.
	DetailsBase string
	details     json.RawMessage
}

// reservedKeys are the members transactionOut writes itself; details that
// carry one of them go the slow way, so no key is ever sent twice.
var reservedKeys = [][]byte{[]byte(`"transactionId"`), []byte(`"cardTransactionId"`), []byte(`"bookingDate"`),
	[]byte(`"valueDate"`), []byte(`"transactionAmount"`), []byte(`"_links"`)}

// MarshalJSON writes the owned fields and the details' members.
func (t transactionOut) MarshalJSON() ([]byte, error) {
	return t.appendJSON(nil), nil
}

// appendJSON appends t as MarshalJSON writes it: transactionId or
// cardTransactionId, bookingDate, valueDate (each when set),
// transactionAmount, _links (when DetailsHref is set), then the members of
// the details. The page of a listing is written with it into one buffer,
// one transaction after the other.
func (t transactionOut) appendJSON(b []byte) []byte {
	b = append(b, '{')
	sep := false
	field := func(name, v string) {
		if v == "" {
			return
		}
		if sep {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
		b = appendJSONString(b, v)
		sep = true
	}
	field("transactionId", t.TransactionID)
	field("cardTransactionId", t.CardTransactionID)
	field("bookingDate", t.BookingDate)
	field("valueDate", t.ValueDate)
	if sep {
		b = append(b, ',')
	}
	b = append(b, `"transactionAmount":{"currency":`...)
	b = appendJSONString(b, t.Currency)
	b = append(b, `,"amount":"`...)
	b = money.AppendFormat(b, t.Amount, t.Currency) // digits, '-' and '.'
	b = append(b, `"}`...)
	if t.DetailsBase != "" {
		b = append(b, `,"_links":{"transactionDetails":{"href":`...)
		id := t.TransactionID + t.CardTransactionID // one of them is set
		if plainJSON(t.DetailsBase) && plainJSON(id) {
			b = append(b, '"')
			b = append(b, t.DetailsBase...)
			b = append(b, id...)
			b = append(b, '"')
		} else {
			b = appendJSONString(b, t.DetailsBase+id)
		}
		b = append(b, `,"verbs":["GET"]}}`...)
	}
	d := bytes.TrimSpace(t.details)
	if len(d) < 2 || d[0] != '{' || bytes.Equal(d, []byte("{}")) {
		return append(b, '}')
	}
	for _, k := range reservedKeys {
		if bytes.Contains(d, k) {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(d, &m); err != nil {
				return append(b, '}')
			}
			for _, k := range reservedKeys {
				delete(m, string(k[1:len(k)-1]))
			}
			var err error
			if d, err = json.Marshal(m); err != nil || len(d) <= 2 {
				return append(b, '}')
			}
			break
		}
	}
	b = append(b, ',')
	return append(b, d[1:]...)
}

// appendJSONString appends s as a JSON string exactly as encoding/json
// writes it: as it is when it holds nothing to escape (printable ASCII
// other than '"', '\\', '<', '>' and '&', which encoding/json escapes),
// else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	if !plainJSON(s) {
		q, _ := json.Marshal(s) // a string always encodes
		return append(b, q...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainJSON reports whether encoding/json writes s between quotes as it
// is: printable ASCII other than '"', '\\', '<', '>' and '&'.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// transactionJSON is a transaction as served.
func transactionJSON(t *store.Transaction, kind store.AccountKind) transactionOut {
	o := transactionOut{BookingDate: t.BookingDate, Amount: t.Amount, Currency: t.Currency, details: t.Details}
	if kind == store.KindCardAccount {
		o.CardTransactionID = t.ID
	} else {
		o.TransactionID = t.ID
		o.ValueDate = t.ValueDate
	}
	return o
}

func (s *Server) listTransactions(kind store.AccountKind) handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		a, acc, e := s.consentedAccount(r, c, kind)
		if e != nil {
			return e
		}
		tq, e := parseTransactionQuery(r)
		if e != nil {
			return e
		}
		// "All pending transactions are always returned, and dateFrom,
		// dateTo and limit do not filter them (sandbox and card accounts
		// are unaffected)": card accounts date and page their pending
		// items like booked ones. obgw's sandbox behaves as production
		// does, so that TPPs test what they will meet.
		tq.filter.PendingFiltered = kind == store.KindCardAccount
		if !a.psuPresent {
			// Without the PSU, history is limited to 90 days.
			floor := civildate.Today(s.cfg.Now().Add(-HistoryWithoutPSU))
			if tq.filter.DateFrom < floor {
				tq.filter.DateFrom = floor
			}
		}
		txs, total, err := s.cfg.Store.ListTransactions(r.Context(), acc.ID, tq.filter)
		if err != nil {
			return s.storeError(err, "the transactions")
		}
		booked, pending := make([]transactionOut, 0, len(txs)), []transactionOut{}
		detailsBase := respond.Under(r, collection(kind)+"/"+acc.ID+"/transactions/")
		for i := range txs {
			j := transactionJSON(&txs[i], kind)
			if txs[i].Booked {
				j.DetailsBase = detailsBase
				booked = append(booked, j)
			} else {
				pending = append(pending, j)
			}
		}
		links := pageLinks(respond.Under(r, collection(kind)+"/"+acc.ID+"/transactions"), r.URL.Query(), tq.filter, total)
		links["account"] = respond.Get(respond.Under(r, collection(kind)+"/"+acc.ID))
		accountKey, listKey := "account", "transactions"
		if kind == store.KindCardAccount {
			accountKey, listKey = "cardAccount", "cardTransactions"
		}
		writeTransactionsPage(w, accountKey, reference(acc), listKey, links, booked, pending)
		return nil
	}
}

// writeTransactionsPage answers {accountKey: ref, listKey: {"_links",
// "booked", "pending"}}, the document json.Marshal would make of those
// maps, but with each transaction's MarshalJSON output appended as it is:
// encoding/json re-scans every Marshaler's output to compact it, which was
// a third of the CPU of a page of 200 transactions.
func writeTransactionsPage(w http.ResponseWriter, accountKey string, ref any, listKey string, links any, booked, pending []transactionOut) {
	fail := func() { bgerror.New(bgerror.CodeServiceUnavailable, "the response could not be built").Write(w) }
	head, err := json.Marshal(map[string]any{accountKey: ref})
	if err != nil {
		fail()
		return
	}
	linksJSON, err := json.Marshal(links)
	if err != nil {
		fail()
		return
	}
	buf := make([]byte, 0, len(head)+len(linksJSON)+64+512*(len(booked)+len(pending)))
	buf = append(buf, head[:len(head)-1]...)
	buf = append(buf, `,"`+listKey+`":{"_links":`...)
	buf = append(buf, linksJSON...)
	for _, part := range []struct {
		key  string
		list []transactionOut
	}{{`,"booked":[`, booked}, {`,"pending":[`, pending}} {
		buf = append(buf, part.key...)
		for i := range part.list {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = part.list[i].appendJSON(buf)
		}
		buf = append(buf, ']')
	}
	buf = append(buf, "}}"...)
	respond.JSONBytes(w, http.StatusOK, buf)
}

// pageLinks returns first, previous, next and last links of a booked
// listing of total transactions, each with the same page size (default 200)
// and the request's other parameters.
func pageLinks(path string, q url.Values, f store.TransactionFilter, total int) map[string]respond.Link {
	links := map[string]respond.Link{}
	if !f.Booked || f.Limit <= 0 {
		return links
	}
	// The query as url.Values.Encode writes it (keys in order), encoded
	// once around the offset, the one value that differs between links.
	before, after := url.Values{"limit": {strconv.Itoa(f.Limit)}}, url.Values{}
	for k, vs := range q {
		switch {
		case k == "offset" || k == "limit":
		case k < "offset":
			before[k] = vs
		default:
			after[k] = vs
		}
	}
	head, tail := path+"?"+before.Encode()+"&offset=", ""
	if len(after) > 0 {
		tail = "&" + after.Encode()
	}
	at := func(offset int) respond.Link {
		return respond.Get(head + strconv.Itoa(offset) + tail)
	}
	last := 0
	if total > 0 {
		last = (total - 1) / f.Limit * f.Limit
	}
	links["first"] = at(0)
	links["last"] = at(last)
	if f.Offset > 0 {
		prev := f.Offset - f.Limit
		if prev < 0 {
			prev = 0
		}
		links["previous"] = at(prev)
	}
	if f.Offset+f.Limit < total {
		links["next"] = at(f.Offset + f.Limit)
	}
	return links
}

func (s *Server) getTransaction(kind store.AccountKind) handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		a, acc, e := s.consentedAccount(r, c, kind)
		if e != nil {
			return e
		}
		t, err := s.cfg.Store.GetTransaction(r.Context(), acc.ID, r.PathValue("transactionId"))
		if err != nil {
			return s.storeError(err, "the transaction")
		}
		if !a.psuPresent && t.BookingDate < civildate.Today(s.cfg.Now().Add(-HistoryWithoutPSU)) {
			return bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "transactions older than 90 days need the PSU present")
		}
		respond.JSON(w, http.StatusOK, map[string]any{"transactionsDetails": transactionJSON(t, kind)})
		return nil
	}
}
