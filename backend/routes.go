package backend

import (
	"net/http"
	"strings"

	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/resource"
	"github.com/obgw/obgw/backend/sca"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/backend/tppcontacts"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// handler serves one request the gateway verified: c is its valid context
// token. The error it returns, if any, is the answer.
type handler func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error

// routes registers every route of the backend: the one table of what it
// serves. aisp, pisp and verified wrap a handler in the check of the
// gateway's context token (auth.go) with the role the route needs (none:
// any PSD2 role, checked again by psd2Role where the route needs one).
func (s *Server) routes() {
	aisp := func(h handler) http.Handler { return s.authenticated("PSP_AI", h) }
	pisp := func(h handler) http.Handler { return s.authenticated("PSP_PI", h) }
	verified := func(h handler) http.Handler { return s.authenticated("", h) }
	m := s.mux

	// Account information (backend/ais).
	// /v1/consents is the deprecated name of the same resource: POST
	// ignores its body, and the consent it makes is read and deleted under
	// either name.
	for _, base := range []string{"/v1/bank-offered-consents", "/v1/consents"} {
		m.Handle("POST "+base, aisp(s.ais.CreateConsent))
		m.Handle("GET "+base+"/{consentId}", aisp(s.ais.GetConsent))
		m.Handle("GET "+base+"/{consentId}/status", aisp(s.ais.GetConsentStatus))
		m.Handle("DELETE "+base+"/{consentId}", aisp(s.ais.DeleteConsent))
	}
	for _, k := range []store.AccountKind{store.KindAccount, store.KindCardAccount} {
		base := resource.Collection(k)
		m.Handle("GET "+base, aisp(s.ais.ListAccounts(k)))
		m.Handle("GET "+base+"/{id}", aisp(s.ais.GetAccount(k)))
		m.Handle("GET "+base+"/{id}/balances", aisp(s.ais.GetBalances(k)))
		m.Handle("GET "+base+"/{id}/transactions", aisp(s.ais.ListTransactions(k)))
		m.Handle("GET "+base+"/{id}/transactions/{transactionId}", aisp(s.ais.GetTransaction(k)))
	}
	m.Handle("GET /v1/agreements", aisp(s.ais.ListAgreements))

	// Payment initiation and the PSU of a PISP (backend/pis).
	m.Handle("GET /v1/user", pisp(s.pis.GetUser))
	m.Handle("POST /v1/payments/"+pis.InstantProduct+"/fee-information", pisp(s.pis.FeeInformation))
	m.Handle("GET /v1/payments/"+pis.InstantProduct+"/fee-information", pisp(pis.FeeInformationPostOnly))
	m.Handle("DELETE /v1/payments/"+pis.InstantProduct+"/fee-information", pisp(pis.FeeInformationPostOnly))
	for kind, base := range pis.Base {
		m.Handle("POST "+base+"/{product}", pisp(s.pis.CreatePayment(kind)))
		m.Handle("GET "+base+"/{product}/{paymentId}", pisp(s.pis.GetPayment(kind, false)))
		m.Handle("GET "+base+"/{product}/{paymentId}/status", pisp(s.pis.GetPayment(kind, true)))
		m.Handle("DELETE "+base+"/{product}/{paymentId}", pisp(s.pis.CancelPayment(kind)))
		m.Handle("POST "+base+"/{product}/{paymentId}/authorisations", pisp(s.pis.StartPaymentAuthorisation(kind)))
		m.Handle("GET "+base+"/{product}/{paymentId}/authorisations/{authorisationId}", pisp(s.pis.GetAuthorisation(kind, store.PurposePayment, "authorisationId")))
		m.Handle("POST "+base+"/{product}/{paymentId}/cancellation-authorisations", pisp(s.pis.StartCancellationAuthorisation(kind)))
		m.Handle("GET "+base+"/{product}/{paymentId}/cancellation-authorisations/{cancellationId}", pisp(s.pis.GetAuthorisation(kind, store.PurposeCancellation, "cancellationId")))
	}
	m.Handle("POST /v1/signing-baskets", pisp(s.pis.CreateBasket))
	m.Handle("GET /v1/signing-baskets/{basketId}", pisp(s.pis.GetBasket(false)))
	m.Handle("GET /v1/signing-baskets/{basketId}/status", pisp(s.pis.GetBasket(true)))
	m.Handle("DELETE /v1/signing-baskets/{basketId}", pisp(s.pis.DeleteBasket))
	m.Handle("POST /v1/signing-baskets/{basketId}/authorisations", pisp(s.pis.StartBasketAuthorisation))

	// TPP contact registration (backend/tppcontacts, a concern package of
	// its own: tppcontacts.API). The route's policy
	// names no role: any PSD2 role the certificate and the register both
	// grant. A TPP only ever reaches its own record, keyed by the
	// organizationIdentifier the gateway verified.
	contacts := tppcontacts.API{Store: s.cfg.Store, Log: s.log}
	m.Handle("GET "+tppcontacts.Path, verified(psd2Role(contacts.Get)))
	m.Handle("PUT "+tppcontacts.Path, verified(psd2Role(contacts.Put)))
	m.Handle("DELETE "+tppcontacts.Path, verified(psd2Role(contacts.Delete)))

	// Mock-data operations (backend/sandbox): only in a sandbox deployment;
	// elsewhere the paths are unknown (404).
	if s.cfg.Sandbox {
		m.Handle("POST /v1/sandbox/initialize", verified(s.sandbox.Initialize))
		m.Handle("GET /v1/sandbox/customers", verified(s.sandbox.ListCustomers))
		m.Handle("POST /v1/sandbox/customers", verified(s.sandbox.CreateCustomer))
		m.Handle("GET /v1/sandbox/customers/{customerId}", verified(s.sandbox.GetCustomer))
		m.Handle("DELETE /v1/sandbox/customers/{customerId}", verified(s.sandbox.DeleteCustomer))
		m.Handle("PUT /v1/sandbox/customers/{customerId}", verified(s.sandbox.UpdateCustomer))
		for _, k := range []store.AccountKind{store.KindAccount, store.KindCardAccount} {
			base := "/v1/sandbox" + strings.TrimPrefix(resource.Collection(k), "/v1")
			m.Handle("POST "+base, verified(s.sandbox.CreateAccount(k)))
			m.Handle("GET "+base+"/{mockId}", verified(s.sandbox.GetAccount(k)))
			m.Handle("PUT "+base+"/{mockId}", verified(s.sandbox.UpdateAccount(k)))
			m.Handle("PUT "+base+"/{mockId}/balances", verified(s.sandbox.PutBalances(k)))
			m.Handle("POST "+base+"/{mockId}/transactions", verified(s.sandbox.AddTransactions(k)))
		}
		m.Handle("GET /v1/sandbox/agreements", verified(s.sandbox.ListAgreements))
		m.Handle("POST /v1/sandbox/agreements", verified(s.sandbox.CreateAgreement))
		m.Handle("GET /v1/sandbox/agreements/{agreementId}", verified(s.sandbox.GetAgreement))
		m.Handle("POST /v1/sandbox/payment-batch-runs", verified(s.pis.RunBatch))
		m.Handle("POST /v1/sandbox/consents/{consentId}/revoke", verified(s.sandbox.RevokeConsent))
		m.Handle("GET /v1/sandbox/psu-consents", verified(s.sca.PSUConsentsLink))
		m.Handle("POST /v1/sandbox/payments/{paymentId}/hold", verified(s.pis.Hold()))
		m.Handle("POST /v1/sandbox/payments/{paymentId}/release", verified(s.pis.Release()))
		m.Handle("POST /v1/sandbox/payments/{paymentId}/stop", verified(s.pis.Stop()))
	}

	// The PSU-facing SCA page (backend/sca): no context token; the flow is
	// bound to the PSU's browser once identified, forms carry a token.
	m.HandleFunc("GET "+sca.SealedBase+"{sealed}", s.sca.OpenSealed)
	m.HandleFunc("GET "+sca.CallbackPath, s.sca.Callback)
	m.HandleFunc("GET /v1/sca/{flowId}", s.sca.Page)
	m.HandleFunc("POST /v1/sca/{flowId}", s.sca.Submit)

	// The PSU's page of consents (backend/sca): identified as on the
	// SCA page, bound to the browser, revokes a consent at the bank.
	m.HandleFunc("GET "+sca.PSUBase, s.sca.PSUIdentifyPage)
	m.HandleFunc("POST "+sca.PSUBase, s.sca.PSUIdentifySubmit)
	m.HandleFunc("GET "+sca.PSUBase+"/{flowId}", s.sca.PSUPage)
	m.HandleFunc("POST "+sca.PSUBase+"/{flowId}", s.sca.PSUSubmit)
}

// ServeHTTP routes the request. Unknown paths get 404 RESOURCE_UNKNOWN and
// known paths with another method 405 SERVICE_INVALID.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// One match: the mux finds the route (route, route_patterns.go),
	// which serves it; what the mux answers itself is answered here.
	rw := &routeWriter{ResponseWriter: w}
	s.mux.ServeHTTP(rw, r)
	if rw.matched {
		return
	}
	if rw.probe.status == http.StatusMethodNotAllowed {
		// The methods the resource takes, as the mux lists them (RFC
		// 9110: a 405 carries Allow).
		allow := rw.probe.Header().Get("Allow")
		if allow != "" {
			w.Header().Set("Allow", allow)
		}
		bgerror.New(bgerror.CodeServiceInvalid, r.Method+" is not allowed on this resource; it takes "+allow).Write(w)
		return
	}
	bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "no such resource").Write(w)
}

// statusProbe records the status the mux's fallback handler would send.
type statusProbe struct {
	status int
	h      http.Header
}

func (p *statusProbe) Header() http.Header {
	if p.h == nil {
		p.h = http.Header{}
	}
	return p.h
}

func (p *statusProbe) Write(b []byte) (int, error) { return len(b), nil }

func (p *statusProbe) WriteHeader(s int) { p.status = s }

// psd2Role admits only a TPP to which the certificate and the register
// both grant at least one PSD2 role: the gateway checks that on routes
// that name no role, and the backend trusts no check it has not repeated.
func psd2Role(h handler) handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		if len(c.Roles) == 0 {
			return bgerror.New(bgerror.CodeRoleInvalid, "this service needs a PSD2 role that the certificate and the register both grant")
		}
		return h(w, r, c)
	}
}
