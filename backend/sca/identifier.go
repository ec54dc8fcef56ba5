package sca

import (
	"net/http"
	"strings"

	"github.com/obgw/obgw/backend/store"
)

// psuIdentifier is how the SCA pages and the PSU's page of consents
// identify a PSU: the sandbox's mock, a customer number typed in
// (mockIdentifier), or a login at the bank's identity provider
// (providerIdentifier). A Service has one (New picks the provider when
// Config.IdP is set, else the mock in a sandbox), or none outside the
// sandbox without a provider: the pages then answer 503, and the Caddy
// module refuses to start so. Everything after identification (context,
// accounts, confirmation, the redirect to the TPP) is the same for both.
type psuIdentifier interface {
	// formStep is the step the identification form posts.
	formStep() string
	// identifyFlow takes that post on the SCA page of flow f.
	identifyFlow(w http.ResponseWriter, r *http.Request, f *store.SCAFlow)
	// identifyPSU takes it on the PSU's page of consents (its form token
	// and the client's tries already checked).
	identifyPSU(w http.ResponseWriter, r *http.Request)
}

// The identification forms' steps.
const (
	stepIdentify = "identify" // the mock's customer number
	stepLogin    = "login"    // "Log in" at the provider
)

// mockIdentifier identifies by the customer number typed in.
type mockIdentifier struct{ s *Service }

func (mockIdentifier) formStep() string { return stepIdentify }

func (m mockIdentifier) identifyFlow(w http.ResponseWriter, r *http.Request, f *store.SCAFlow) {
	m.s.identify(w, r, f, strings.TrimSpace(r.PostForm.Get("customerNumber")))
}

func (m mockIdentifier) identifyPSU(w http.ResponseWriter, r *http.Request) {
	m.s.psuIdentifyNumber(w, r)
}

// providerIdentifier sends the PSU to log in at the bank's identity
// provider (login.go, psu_login.go).
type providerIdentifier struct{ s *Service }

func (providerIdentifier) formStep() string { return stepLogin }

func (p providerIdentifier) identifyFlow(w http.ResponseWriter, r *http.Request, f *store.SCAFlow) {
	p.s.login(w, r, f)
}

func (p providerIdentifier) identifyPSU(w http.ResponseWriter, r *http.Request) { p.s.psuLogin(w, r) }
