package tppcontext

import "context"

// A gateway and a backend in the same process need not sign and verify the
// token between them: the gateway hands the context it issued a token for
// to the backend as a value of the request's Go context, which no client
// can set. The token still travels in its header, for anything after the
// gateway that is not in the process (a reverse proxy to a backend of its
// own, which verifies it).

// issuedKey is the Go context key of the handed-off context.
type issuedKey struct{}

// issued is a context with the token it was issued as.
type issued struct {
	token string
	c     *Context
}

// WithIssued returns ctx carrying c, which the gateway issued as token.
func WithIssued(ctx context.Context, token string, c *Context) context.Context {
	return context.WithValue(ctx, issuedKey{}, issued{token: token, c: c})
}

// Issued returns the context ctx carries for token: the one this process's
// gateway issued token for. Another token, or none handed off, is false:
// the caller then verifies the token.
func Issued(ctx context.Context, token string) (*Context, bool) {
	v, ok := ctx.Value(issuedKey{}).(issued)
	if !ok || v.token == "" || v.token != token {
		return nil, false
	}
	return v.c, true
}
