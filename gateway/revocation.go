package gateway

import "slices"

// ocspErrorAllowed is the mark in the context token's unverified list of a
// request whose certificate's revocation status could not be established
// and which on_error ocsp allow let through.
const ocspErrorAllowed = "ocsp:error_allowed"

// revocationAllowed reports whether e failed only because its revocation
// status is unknown and policy p lets such a certificate through. A
// revoked certificate is never revocationUnknown, so it is always refused.
func (e *certEntry) revocationAllowed(p *Policy) bool {
	return e != nil && e.revocationUnknown && p.OCSPOnError == OnErrorAllow
}

// allowRevocationUnknown records that check c (certificate or qwac) passed
// under on_error ocsp allow: the decision is error_allowed and the token
// tells the backend once.
func (o *Outcome) allowRevocationUnknown(c Check) {
	o.Decisions[c] = DecisionErrorAllowed
	if !slices.Contains(o.Context.Unverified, ocspErrorAllowed) {
		o.Context.Unverified = append(o.Context.Unverified, ocspErrorAllowed)
	}
}
