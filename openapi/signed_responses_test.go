package openapi

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// The paths whose routes sign their answers (`import sign` in
// policies/ais.caddy, pis.caddy and baskets.caddy), as Caddy's path
// matcher has them: the path itself or anything under it.
var signedPaths = []string{
	// ais.caddy
	"/v1/accounts", "/v1/card-accounts", "/v1/bank-offered-consents",
	"/v1/consents", "/v1/agreements",
	// pis.caddy
	"/v1/user", "/v1/payments", "/v1/periodic-payments", "/v1/bulk-payments",
	// baskets.caddy
	"/v1/signing-baskets",
}

// The paths whose routes answer unsigned: TPP contacts, the sandbox's
// mock-data routes (tpp-contacts.caddy, sandbox.caddy: no `import sign`),
// the SCA pages (sca.caddy), health (health.caddy) and this document
// (openapi.caddy).
var unsignedPaths = []string{
	"/v1/tpp-contacts", "/v1/sandbox", "/v1/sca", "/v1/psu",
	"/healthz", "/health", "/readyz", "/v1/openapi.json",
}

// The response headers obgw_sign adds to a signed answer (package
// gateway/seal, caddymodule/sign.go), and the component each is.
var signatureHeaders = map[string]string{
	"Digest":                      "#/components/headers/Digest",
	"Signature":                   "#/components/headers/Signature",
	"ASPSP-Signature-Certificate": "#/components/headers/ASPSPSignatureCertificate",
	"X-Request-ID":                "#/components/headers/XRequestIDEcho",
}

// under reports whether path is one of prefixes or under one.
func under(path string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool {
		return path == p || strings.HasPrefix(path, p+"/")
	})
}

// TestSignedAnswersDeclareSignatureHeaders: every response (success and
// error) of every operation whose route signs declares the signature
// headers, as the shared components and never required (a refusal
// before the request authenticated is unsigned); no response of an
// unsigned operation declares any of them. Every path is one or the
// other, and the signed ones are those of roles PSP_AI and PSP_PI, as
// info.description says.
func TestSignedAnswersDeclareSignatureHeaders(t *testing.T) {
	doc, err := Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name, ref := range signatureHeaders {
		h := doc.Components.Headers[strings.TrimPrefix(ref, "#/components/headers/")]
		if h == nil || h.Value == nil {
			t.Fatalf("no component %s (%s)", ref, name)
		}
		if h.Value.Required {
			t.Errorf("component %s is required: a refusal before authentication has no %s", ref, name)
		}
		if !strings.Contains(h.Value.Description, "authenticated") {
			t.Errorf("component %s: the description does not say when the header is present (a request that authenticated): %q", ref, h.Value.Description)
		}
	}
	signedOps, unsignedOps := 0, 0
	for path, item := range doc.Paths.Map() {
		signed := under(path, signedPaths)
		if signed == under(path, unsignedPaths) {
			t.Errorf("%s: neither signed nor unsigned (or both); classify it in this test as its policy has it", path)
			continue
		}
		for method, op := range item.Operations() {
			if role, _ := op.Extensions["x-obgw-role"].(string); signed != (role == "PSP_AI" || role == "PSP_PI") {
				t.Errorf("%s %s: x-obgw-role %q, but signed %v", method, path, role, signed)
			}
			if signed {
				signedOps++
			} else {
				unsignedOps++
			}
			if op.Responses == nil || op.Responses.Len() == 0 {
				t.Errorf("%s %s: no responses", method, path)
				continue
			}
			for status, r := range op.Responses.Map() {
				if r.Value == nil {
					t.Errorf("%s %s %s: unresolved response", method, path, status)
					continue
				}
				for name, ref := range signatureHeaders {
					h := r.Value.Headers[name]
					switch {
					case signed && h == nil:
						t.Errorf("%s %s %s: a signed answer, without the header %s", method, path, status, name)
					case signed && h.Ref != ref:
						t.Errorf("%s %s %s: header %s is %q, want $ref %s", method, path, status, name, h.Ref, ref)
					case !signed && h != nil:
						t.Errorf("%s %s %s: an unsigned answer declares the header %s", method, path, status, name)
					}
				}
			}
		}
	}
	if signedOps < 40 || unsignedOps < 20 {
		t.Errorf("%d signed and %d unsigned operations: the document lost some", signedOps, unsignedOps)
	}
}
