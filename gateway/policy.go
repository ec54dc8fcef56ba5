package gateway

// Policy is what one route asks of the pipeline.
type Policy struct {
	// RequiredRole is the PSD2 role the route needs (PSP_AI, PSP_PI,
	// PSP_IC); empty means any PSD2 role that the certificate and the
	// register both grant.
	RequiredRole string
	// RequiredHeaders are headers that must be present besides Date,
	// X-Request-ID, Signature and TPP-Signature-Certificate (for example
	// TPP-Redirect-URI on AIS and PIS routes).
	RequiredHeaders []string
	// DigestOptional lets a request with a body omit Digest (it is still
	// verified when present).
	DigestOptional bool
	// RequireRequestTarget demands that (request-target) is signed.
	RequireRequestTarget bool
	// RequireQWAC demands an mTLS client certificate (QWAC).
	RequireQWAC bool
	// AllowHTTPLocalhostRedirect accepts http://localhost redirect URIs
	// (sandbox only).
	AllowHTTPLocalhostRedirect bool
	// Modes holds each check's mode; the zero value enforces everything.
	Modes [numChecks]Mode
	// RegistryOnError applies when the registry cannot be asked and no
	// usable cached entry exists.
	RegistryOnError OnError
	// ReplayOnError applies when the replay store cannot be asked.
	ReplayOnError OnError
	// LimitKind, when set (balances or transactions), applies the
	// PSU-not-present limit to the route: 4 calls per 24 h per TPP, PSU-ID,
	// resource and kind when the request has no PSU-IP-Address.
	LimitKind string
	// LimitOnError applies when the limit store cannot be asked.
	LimitOnError OnError
	// OCSPOnError applies when the revocation status of a TPP certificate
	// (QSealC or QWAC) cannot be established: neither the OCSP responder
	// nor the CRL fallback answers, or the CRL file is stale. A
	// certificate known to be revoked is refused whatever it says.
	OCSPOnError OnError
}
