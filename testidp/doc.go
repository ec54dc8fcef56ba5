// Package testidp runs a real OpenID Connect provider for obgw's tests and
// local demos: the identity provider a bank puts in front of BankID, reduced
// to what obgw's SCA pages, as a relying party, need from it.
//
// The protocol is zitadel's pkg/op, an OpenID-certified provider, so a
// relying party meets real discovery, JWKS, authorization code flow with
// PKCE, client_secret_basic, client_secret_post and private_key_jwt (op's
// own assertion verification, for a Client registered with a Key), and
// RS256-signed ID tokens rather than canned JSON. This package supplies only what op leaves
// to its user: an in-memory storage of users, clients, authorization
// requests and access tokens (storage.go), the login page (login.go), and
// the claims a BankID broker would put in the ID token (claims.go): an
// opaque sub, the user's acr, and the national identity number in the
// private claim "nnin".
//
// The provider is stricter than the OpenID specification in one way that
// suits obgw: an authorization request without PKCE S256 is refused, so a
// relying party that forgets PKCE fails its tests. It keeps no login
// session: every authorization request shows the login page, as BankID
// does, and prompt=none is answered with login_required.
//
// Tests steer it from outside (controls.go): SetDown makes it answer 503
// everywhere, SetClockOffset shifts the clock its ID tokens are stamped
// with, SetIDTokenIssuer and SetIDTokenAudience make it sign ID tokens
// that name another issuer or another client (idtoken_override.go), and
// LastAuthorize tells what the last authorization request asked for
// (acr_values, login_hint).
//
// Everything here is for tests and demos only: passwords are compared in
// clear, keys live in memory, and it speaks plain HTTP on loopback.
package testidp
