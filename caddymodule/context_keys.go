package caddymodule

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"

	"github.com/go-jose/go-jose/v4"

	"github.com/obgw/obgw/pkcs11key"
	"github.com/obgw/obgw/tppcontext"
)

// contextIssuer returns the issuer of the context tokens: the asymmetric
// context_signing_key_file when set, a PEM file or a P-256 key in a token
// named by a PKCS #11 URI (and the JWKS of it and the published keys),
// else the HS256 context key; with context_audience in every token.
func (a *App) contextIssuer() (*tppcontext.Issuer, error) {
	var issuer *tppcontext.Issuer
	var err error
	if pkcs11key.IsURI(a.ContextSigningKeyFile) {
		loc, err := pkcs11key.Parse(a.ContextSigningKeyFile)
		if err != nil {
			return nil, fmt.Errorf("obgw: context_signing_key_file: %v", err)
		}
		if a.contextTokenKey, err = pkcs11key.Open(loc); err != nil {
			return nil, fmt.Errorf("obgw: context_signing_key_file: %v", err)
		}
		if a.signingKey, err = tppcontext.NewSigningKey(a.contextTokenKey); err != nil {
			a.contextTokenKey.Close()
			a.contextTokenKey = nil
			return nil, fmt.Errorf("obgw: context_signing_key_file %s: %v (a key in a token must be ECDSA P-256)", loc, err)
		}
	} else if a.ContextSigningKeyFile != "" {
		raw, rerr := os.ReadFile(a.ContextSigningKeyFile)
		if rerr != nil {
			return nil, fmt.Errorf("obgw: context_signing_key_file: %v", rerr)
		}
		if a.signingKey, err = tppcontext.ParseSigningKey(raw); err != nil {
			return nil, fmt.Errorf("obgw: context_signing_key_file %s: %v", a.ContextSigningKeyFile, err)
		}
	}
	if a.signingKey != nil {
		a.jwks = tppcontext.KeySet(a.signingKey)
		for _, f := range a.ContextPublishedKeyFiles {
			jwk, err := publishedKey(f)
			if err != nil {
				return nil, fmt.Errorf("obgw: context_published_key_files %s: %v", f, err)
			}
			if len(a.jwks.Key(jwk.KeyID)) == 0 {
				a.jwks.Keys = append(a.jwks.Keys, jwk)
			}
		}
		issuer, err = tppcontext.NewIssuer(a.signingKey)
	} else {
		if len(a.ContextPublishedKeyFiles) > 0 {
			return nil, fmt.Errorf("obgw: context_published_key_files needs context_signing_key_file")
		}
		issuer, err = tppcontext.NewIssuer(a.contextKey)
	}
	if err != nil {
		return nil, fmt.Errorf("obgw: context key: %v", err)
	}
	if a.ContextAudience != "" {
		issuer = issuer.WithAudience(a.ContextAudience)
	}
	return issuer, nil
}

// publishedKey reads a PEM key for the JWKS: a public key, or a private
// key of which the public half is published; Ed25519 or P-256.
func publishedKey(file string) (jose.JSONWebKey, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return jose.JSONWebKey{}, err
	}
	if k, err := tppcontext.ParseSigningKey(raw); err == nil {
		return k.PublicJWK(), nil
	}
	b, _ := pem.Decode(raw)
	if b == nil || b.Type != "PUBLIC KEY" {
		return jose.JSONWebKey{}, fmt.Errorf("want a PEM public key, or an Ed25519 or P-256 private key")
	}
	pub, err := x509.ParsePKIXPublicKey(b.Bytes)
	if err != nil {
		return jose.JSONWebKey{}, err
	}
	return tppcontext.PublicJWK(pub)
}

// JWKS returns the public keys upstreams verify context tokens with, or an
// empty set when the tokens are HS256.
func (a *App) JWKS() jose.JSONWebKeySet { return a.jwks }
