package tppcontext

// Version is the version of the token's contract this package issues.
const Version = 1

// Header is the request header that carries the context token. The gateway
// deletes every incoming header starting with HeaderPrefix before it sets
// this one, so a client cannot smuggle its own.
const Header = "X-Obgw-Context"

// HeaderPrefix is the prefix of every header reserved to the gateway.
const HeaderPrefix = "X-Obgw-"

// Context is the verified identity and request facts the gateway hands to
// the backend (contract section 4).
type Context struct {
	// Version is the contract's version (docs/context-token.md): changes
	// are backward compatible, and raise it.
	Version int `json:"ver"`
	// Audience names the upstream the token is for, when the gateway is
	// configured with one (context_audience).
	Audience string `json:"aud,omitempty"`
	// TPP is the TPP's organizationIdentifier, e.g. PSDNO-FSA-987654321.
	TPP string `json:"tpp"`
	// TPPName is the TPP's name from the registry (or the certificate).
	TPPName string `json:"tppName,omitempty"`
	// Roles are the roles granted: certificate roles ∩ registry roles.
	Roles []string `json:"roles"`
	// CertSHA256 is the hex SHA-256 of the QSealC's DER encoding.
	CertSHA256 string `json:"certSha256"`
	// RequestID is the request's X-Request-ID.
	RequestID string `json:"requestId"`
	// Method and Path are the request's method and path as the gateway
	// forwarded them: a token taken from one request cannot serve another.
	Method string `json:"method,omitempty"`
	Path   string `json:"path,omitempty"`
	// PSUID is the PSU-ID header, if any.
	PSUID string `json:"psuId,omitempty"`
	// PSUCorporateID is the PSU-Corporate-ID header, if any.
	PSUCorporateID string `json:"psuCorporateId,omitempty"`
	// PSUPresent is true when the request carries PSU-IP-Address.
	PSUPresent bool `json:"psuPresent"`
	// Fixes are the x-accept-fix values in effect for this request.
	Fixes []string `json:"fixes,omitempty"`
	// Unverified lists checks that failed but ran in report_only mode, so
	// the backend can tell a fully verified request from a tolerated one.
	Unverified []string `json:"unverified,omitempty"`
	// IssuedAt is the Unix time the token was issued.
	IssuedAt int64 `json:"iat"`
	// Expiry is the Unix time after which the token is refused.
	Expiry int64 `json:"exp"`
}

// HasRole reports whether role was granted.
func (c *Context) HasRole(role string) bool {
	for _, r := range c.Roles {
		if r == role {
			return true
		}
	}
	return false
}

// IsFor reports whether c was issued for the request of method, path (as
// the gateway saw it) and requestID (its X-Request-ID): VerifyRequest's
// test, for a context obtained otherwise (Issued, in process).
func (c *Context) IsFor(method, path, requestID string) bool {
	return c.Method == method && c.Path == path && c.RequestID == requestID
}
